"""The Throughput page in a real browser (Debian chromium driven by playwright-python): the
shipped calibration and its epoch chart, hovering a bar, the GPU instructions, an uploaded
calibration file (and a broken one refused), and the current-batching choice. Fixtures and
helpers: ``conftest.py`` and ``browser_helpers.py``."""
from __future__ import annotations

import re

from browser_helpers import go_to, new_page, screenshot, settle
from playwright.sync_api import expect

from throughput import default_calibration, load_calibration


def test_throughput_page_estimates_and_takes_an_uploaded_calibration(server, browser, tmp_path):
    shipped = load_calibration(default_calibration())
    page = new_page(browser, server)
    page.get_by_role("heading", name="Graph packing dashboard").wait_for()
    settle(page)
    go_to(page, "Throughput")
    main = page.get_by_test_id("stMainBlockContainer")
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for()
    text = chart.inner_text()
    assert f"Time per epoch on {shipped.device_name}" in text
    for name in ("static-constant", "packing", "PyG DataLoader (no padding)"):
        assert name in text
    assert "graphs/s" in text and "1.00x" in text
    assert main.get_by_text(re.compile(r"python -m throughput calibrate --model gin --device cuda")).is_visible()
    assert main.get_by_text(re.compile(r"error on held-out shapes")).first.is_visible()
    assert page.get_by_role("combobox", name="Calibration").input_value() == f"shipped: {shipped.label}"
    screenshot(page, "throughput")

    # hovering the packing bar names its step time and steps per epoch
    chart.scroll_into_view_if_needed()
    point = chart.evaluate(
        """gd => {
            const layout = gd._fullLayout, trace = gd._fullData[0];
            const index = trace.y.indexOf('packing');
            const box = gd.getBoundingClientRect();
            return {x: box.left + layout._size.l + layout.xaxis.d2p(trace.x[index] / 2),
                    y: box.top + layout._size.t + layout.yaxis.d2p(trace.y[index])};
        }""")
    page.mouse.move(point["x"] - 5, point["y"])
    page.mouse.move(point["x"], point["y"])
    page.locator(".hoverlayer .hovertext").first.wait_for()
    hover = page.locator(".hoverlayer .hovertext").first.text_content()
    assert "ms x" in hover and "steps" in hover

    # the speed-up follows the batching chosen as current
    page.get_by_role("combobox", name="Your current batching").click()
    page.get_by_role("option", name="static-64").click()
    page.wait_for_function(
        """() => {
            const trace = document.querySelector('.js-plotly-plot')._fullData[0];
            return trace.text[trace.y.indexOf('static-64')].endsWith(', 1.00x');
        }""")
    settle(page)

    # a broken file is refused with a message, a real calibration file is taken and chosen
    broken = tmp_path / "broken.json"
    broken.write_text('{"schema": "graph-packing-calibration", "schema_version": 1}')
    upload = page.locator("input[type=file]")
    upload.set_input_files(str(broken))
    settle(page)
    assert main.get_by_text(re.compile(r"broken.json is not a usable calibration")).is_visible()
    mine = shipped.save(tmp_path / "my_machine.json")
    upload.set_input_files(str(mine))
    settle(page)
    expect(page.get_by_role("combobox", name="Calibration")).to_have_value(re.compile(r"^uploaded my_machine.json: "))
    settle(page)
    assert f"Time per epoch on {shipped.device_name}" in page.locator(".js-plotly-plot").first.inner_text()
    page.close()
