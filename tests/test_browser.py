"""The dashboard in a real browser: Debian chromium driven by playwright-python.

Starts the dashboard (``python dashboard.py``) on a free port, visits every page, runs a small sweep,
clicks a heatmap cell and sees those limits on the Packing page, downloads the JSON and a
PNG from the Export page and loads the JSON back (in Python and through the page).
Fixtures and helpers: ``conftest.py`` and ``browser_helpers.py``.
"""
from __future__ import annotations

import re

from browser_helpers import go_to, new_page, screenshot, settle


def click_cell(page, index: int) -> tuple[int, int]:
    """Click the ``index``-th cell of the sweep heatmap; returns its (max nodes, max edges)."""
    chart = page.locator(".js-plotly-plot").filter(has=page.locator(".heatmaplayer")).first
    chart.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    cell = chart.evaluate(
        """(gd, index) => {
            const layout = gd._fullLayout;
            const trace = gd._fullData.find(t => t.name === 'limits');
            const box = gd.getBoundingClientRect();
            return {x: box.left + layout._size.l + layout.xaxis.d2p(trace.x[index]),
                    y: box.top + layout._size.t + layout.yaxis.d2p(trace.y[index]),
                    nodes: trace.customdata[index][0], edges: trace.customdata[index][1]};
        }""",
        index,
    )
    page.mouse.move(cell["x"], cell["y"])
    page.wait_for_timeout(300)
    page.mouse.click(cell["x"], cell["y"])
    return int(cell["nodes"]), int(cell["edges"])


def test_dashboard_end_to_end(server, browser, tmp_path):
    from packing import pack
    from packing.export import config_histogram
    from packing.io import load_config
    from packing.recommend import recommend

    page = new_page(browser, server)

    # Overview
    page.get_by_role("heading", name="Graph packing dashboard").wait_for()
    settle(page)
    assert page.get_by_text("Bundled datasets ship as size profiles").is_visible()
    screenshot(page, "overview")

    # Datasets: statistics and the 2D histogram on the default (bundled QM9) data
    go_to(page, "Datasets")
    page.locator(".js-plotly-plot .heatmaplayer").first.wait_for()
    assert page.get_by_role("heading", name="Statistics").is_visible()
    assert page.get_by_text("Source: bundled profile").is_visible()
    page.get_by_role("heading", name="Graph sizes").evaluate("e => e.scrollIntoView({block: 'start'})")
    screenshot(page, "datasets")

    # Limit sweep: a small grid, then click a cell
    go_to(page, "Limit sweep")
    page.get_by_label("Max nodes from").fill("29")
    page.get_by_label("to", exact=True).nth(0).fill("89")
    page.get_by_label("step", exact=True).nth(0).fill("12")
    page.get_by_label("Max edges from").fill("56")
    page.get_by_label("to", exact=True).nth(1).fill("176")
    page.get_by_label("step", exact=True).nth(1).fill("24")
    page.get_by_role("button", name="Run sweep").click()
    page.locator(".js-plotly-plot .heatmaplayer").first.wait_for()
    settle(page)
    nodes, edges = click_cell(page, 14)
    chosen = page.get_by_text(re.compile(r"^Chosen: max nodes"))
    chosen.wait_for()
    settle(page)
    assert f"max nodes {nodes:,}, max edges {edges:,}" in chosen.inner_text()
    page.get_by_text("Shade cells with a harmonic mean below").evaluate("e => e.scrollIntoView({block: 'start'})")
    screenshot(page, "sweep")
    with page.expect_download() as download:  # named after the dataset and the ranges, not "sweep.csv"
        page.get_by_role("button", name="Download the sweep as CSV").click()
    assert download.value.suggested_filename == "qm9-sweep-29-89n-56-176e.csv"

    # Packing shows the clicked limits
    page.get_by_role("link", name="See this configuration on the Packing page").click()
    page.get_by_role("heading", name="Packing", exact=True).wait_for()
    settle(page)
    assert page.get_by_label("Max nodes per pack").input_value() == str(nodes)
    assert page.get_by_label("Max edges per pack").input_value() == str(edges)
    main = page.get_by_test_id("stMainBlockContainer")
    assert main.get_by_text("Limits from the sweep heatmap (clicked cell)").is_visible()
    page.get_by_text("Node efficiency").first.wait_for()
    screenshot(page, "packing")

    # Export: JSON and PNG downloads, then load the JSON back
    go_to(page, "Export")
    page.get_by_text("size histogram").wait_for()
    screenshot(page, "export")
    # the training loop's CUDA variant (device-resident batches, a captured step) one click away
    toggle = page.get_by_test_id("stCheckbox").filter(has_text="CUDA: captured step")
    toggle.click()
    cuda_code = page.get_by_test_id("stCode").filter(has_text="step = CapturedStep(model, optimizer, loss_fn)")
    cuda_code.wait_for()
    assert "device=device)" in cuda_code.inner_text() and "capturable=True" in cuda_code.inner_text()
    cuda_code.evaluate("e => e.scrollIntoView({block: 'start'})")
    screenshot(page, "export-cuda")
    toggle.click()
    page.get_by_test_id("stCode").filter(has_text="optimizer.zero_grad()").wait_for()
    with page.expect_download() as download:
        page.get_by_role("button", name="Download configuration (JSON)").click()
    path = tmp_path / "config.json"
    download.value.save_as(path)
    settle(page)  # downloads do not rerun the page; make sure nothing is pending anyway
    config, plan = load_config(path)
    assert (plan.limits.max_nodes, plan.limits.max_edges) == (nodes, edges)
    # the sweep's graph limit starts from the chosen one: the recommendation's for batch size 32
    assert plan.limits.max_graphs == recommend(config_histogram(config), 32).limits.max_graphs
    assert config["dataset"]["name"] == "qm9"
    assert pack(config_histogram(config), plan.limits, plan.requested_method) == plan
    with page.expect_download() as download:
        page.get_by_role("button", name="PNG").first.click()
    png = tmp_path / "figure.png"
    download.value.save_as(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with page.expect_download() as download:  # the one-file report, with the sweep just run
        page.get_by_role("button", name="Download report (HTML)").click()
    report = tmp_path / "report.html"
    download.value.save_as(report)
    text = report.read_text(encoding="utf-8")
    assert "<section id='section-sweep'>" in text and f"limits {nodes:,} nodes, {edges:,} edges" in text
    page.locator("input[type=file]").set_input_files(str(path))
    page.get_by_text("Same plan as the current configuration:").wait_for()
    settle(page)
    assert page.get_by_text("Same plan as the current configuration:").inner_text().endswith("yes")
    page.close()
