"""The Throughput page rendered headless with Streamlit's AppTest on the bundled data: the
shipped calibration, the epoch chart with error bars, the table, the baseline, the GPU
instructions, a calibration measured on this machine from the page, and the figure."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import chosen

from pages import throughput_figures
from throughput import ROWS, default_calibration, load_calibration

PAGE = "pages/throughput_page.py"


@pytest.fixture
def app() -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=180)
    at.run()
    assert not at.exception
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def epoch_chart(at: AppTest) -> dict:
    (chart,) = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    return chart


def test_page_prices_every_strategy_with_the_shipped_calibration(app):
    shipped = load_calibration(default_calibration())
    assert app.title[0].value == "Throughput"
    assert app.selectbox(key="tp_calibration").value == f"shipped: {shipped.label}"
    assert any(shipped.device_name in m.value and "Cost model" in m.value for m in app.markdown)
    table = app.dataframe[0].value
    assert table["strategy"].tolist() == [throughput_figures.label(s) for s in ROWS]
    rows = table.set_index("strategy")
    assert rows.loc["PyG DataLoader (no padding)", "speedup"] == pytest.approx(1.0)
    assert (rows["epoch_low"] <= rows["epoch_seconds"]).all() and (rows["epoch_seconds"] <= rows["epoch_high"]).all()
    chart = epoch_chart(app)
    (bars,) = chart["data"]
    assert bars["x"] == pytest.approx(rows["epoch_seconds"].tolist())
    assert bars["error_x"]["array"] == pytest.approx((rows["epoch_high"] - rows["epoch_seconds"]).tolist())
    assert shipped.device_name in chart["layout"]["title"]["text"]
    assert any("python -m throughput calibrate --model gin --device cuda" in i.value for i in app.info)
    assert app.session_state["throughput"]["calibration"] == shipped
    assert app.session_state["throughput"]["batch_size"] == 32  # the Batching page's default
    assert any(c.value.startswith("No pack limits chosen yet") for c in app.caption)
    assert rows.loc["packing", "steps_per_epoch"] > 0 and chosen(app).limits.max_nodes == 29


def test_baseline_and_batch_size_change_the_estimate(app):
    app.selectbox(key="tp_baseline").select("static_64").run()
    rows = app.dataframe[0].value.set_index("strategy")
    assert rows.loc["static-64", "speedup"] == pytest.approx(1.0)
    before = rows.loc["static-64", "steps_per_epoch"]
    app.number_input(key="tp_batch_size").set_value(128).run()
    assert not app.exception
    rows = app.dataframe[0].value.set_index("strategy")
    assert rows.loc["static-64", "steps_per_epoch"] < before / 3
    assert app.session_state["throughput"]["batch_size"] == 128
    assert app.session_state["throughput"]["baseline"] == "static_64"


def test_the_shipped_h100_calibrations_price_the_same_batches_on_the_gpu(app):
    gpu = "NVIDIA H100 80GB HBM3"
    assert any(f"GPU calibrations shipped: {gpu}" in i.value for i in app.info)
    cpu_rows = app.dataframe[0].value.set_index("strategy")
    labels = app.selectbox(key="tp_calibration").options
    eager = next(label for label in labels if gpu in label and "eager" in label)
    app.selectbox(key="tp_calibration").select(eager).run()
    assert not app.exception and not app.error
    assert gpu in epoch_chart(app)["layout"]["title"]["text"]
    assert any(gpu in m.value and "CUDA 13.0" in m.value for m in app.markdown)
    rows = app.dataframe[0].value.set_index("strategy")
    assert (rows["steps_per_epoch"] == cpu_rows["steps_per_epoch"]).all()  # same batches, another device
    assert not rows["epoch_seconds"].equals(cpu_rows["epoch_seconds"])
    compiled = next(label for label in labels if gpu in label and "compile" in label)
    app.selectbox(key="tp_calibration").select(compiled).run()
    rows = app.dataframe[0].value.set_index("strategy")
    # a compilation per distinct padded shape: static-64 compiles many times, dynamic batching once
    compiling = rows["compile_seconds_per_epoch"]
    assert compiling["static-64"] > 2 * compiling["dynamic (jraph)"] > 0


def test_calibrating_this_machine_from_the_page(app):
    app.number_input(key="tp_hidden").set_value(8)
    app.number_input(key="tp_layers").set_value(1)
    app.button(key="tp_calibrate").click().run(timeout=300)
    assert not app.exception, [e.value for e in app.exception]
    chosen_label = app.selectbox(key="tp_calibration").value
    assert chosen_label.startswith("measured now: gin (hidden 8, 1 layers, eager)")
    measured = app.session_state["throughput"]["calibration"]
    assert measured.hidden == 8 and len(measured.timings) == 8 and measured.shape_range[0] <= 4096
    assert any(b.label.startswith("Download ") for b in app.get("download_button"))


def test_epoch_figure_marks_the_baseline_and_shows_graphs_per_second():
    from packing import SizeHistogram
    from throughput import estimate

    table = estimate(SizeHistogram.from_counts([10, 20], [20, 44], [300, 100]), 32,
                     load_calibration(default_calibration()), baseline="static_64")
    fig = throughput_figures.epoch_figure(table)
    (bars,) = fig.data
    shapes = list(bars.marker.pattern.shape)
    assert shapes[list(table["strategy"]).index("static_64")] == "/" and shapes.count("/") == 1
    assert all("graphs/s" in text for text in bars.text)
    assert list(bars.y) == [throughput_figures.label(s) for s in table["strategy"]]
