"""The Throughput page rendered headless with Streamlit's AppTest on the bundled data: the
calibration checked (or measured) on this machine, a failing shipped one replaced, the
steady-epoch and whole-run chart with error bars, the table, the chosen configuration
with its packs per batch, the run shared with the Batching page, the baseline, the GPU
calibrations labelled as the GPU's, a calibration measured from the page, and the figure."""
from __future__ import annotations

import json

import pytest
import streamlit as st
import torch
from streamlit.testing.v1 import AppTest

from app_helpers import as_read, chosen
from calibration_helpers import calibrated_now, past_band, scaled, throughput_page_of_a_fresh_server

import figures.throughput as throughput_figures
from pages import cache
from data_loaders import load_histogram
from packing.recommend import recommend
from throughput import ROWS, default_calibration, load_calibration, shipped_calibrations, step_cost
from throughput.device import cpu_name

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


def test_page_starts_on_a_calibration_checked_on_this_machine(app):
    this = cache.machine_calibration()
    assert app.title[0].value == "Throughput"
    assert app.selectbox(key="tp_calibration").value == "this_machine"
    where = "measured here" if this.measured else "shipped for this CPU, checked here"  # never "measured" if shipped
    assert app.selectbox(key="tp_calibration").options[0].startswith(f"this machine ({where}): ")
    assert this.calibration.device_info["name"] == cpu_name() and this.calibration.device_info["type"] == "cpu"
    assert any(c.value.startswith("**Calibration check:**") and this.reason in as_read(c.value) for c in app.caption)
    table = app.dataframe[0].value
    assert table["strategy"].tolist() == [throughput_figures.label(s) for s in ROWS]
    rows = table.set_index("strategy")
    assert rows.loc["PyG DataLoader (no padding)", "speedup_run"] == pytest.approx(1.0)
    # wall time by default where the calibration timed its loaders, else model time
    wall = "wall_" if this.calibration.loaders is not None else ""
    out = rows["extrapolated"].astype(bool)
    bands = {name: [float(end.replace(",", "")) for end in text.split(" to ")]  # 3 significant digits
             for name, text in rows.loc[~out, f"{wall}run_band"].items()}
    assert all(0 < low <= run * 1.005 and run * 0.995 <= high for (low, high), run in
               zip(bands.values(), rows.loc[~out, f"{wall}run_s"]))
    assert (rows.loc[out, f"{wall}run_band"] == "none: extrapolated").all()  # no band holds there, as on the chart
    chart = epoch_chart(app)
    steady, whole = chart["data"]
    assert steady["x"] == pytest.approx(rows[f"{wall}steady_epoch_s"].tolist(), rel=5e-3)  # the table: 3 digits
    assert whole["x"] == pytest.approx(rows[f"{wall}run_s"].tolist(), rel=5e-3)
    assert all(value == float(f"{value:.3g}") for value in rows[f"{wall}run_s"])
    band = [None if name not in bands else bands[name][1] - value  # no error bar where extrapolated
            for name, value in rows[f"{wall}run_s"].items()]
    assert [e is None for e in whole["error_x"]["array"]] == [e is None for e in band]
    assert [e for e in whole["error_x"]["array"] if e is not None] == pytest.approx(
        [e for e in band if e is not None], rel=0.05, abs=0.01 * rows["run_s"].max())
    assert cpu_name() in chart["layout"]["title"]["text"]
    assert "10 epochs" in json.dumps(chart["layout"]["annotations"])  # the run's length names the run panel
    assert app.session_state["throughput"]["calibration"] == this.calibration
    assert not any("These are the numbers of" in w.value for w in app.warning)  # this machine's own numbers
    assert any("python -m throughput calibrate --model gin --device cuda" in i.value for i in app.info)


def test_the_chosen_configuration_is_priced_with_its_packs_per_step(app):
    limits = chosen(app).limits  # the recommendation until others are chosen: the sidebar's configuration
    note = next(c.value for c in app.caption if c.value.startswith("Packing row: the configuration recommended for "
                                                                   "batch size 32 (no calibration chosen"))
    assert str(limits) in note and "about 32 graphs, the batch size" in note
    # packs pad to their fullest pack's graphs, which the recommendation takes as its graph limit
    assert f"{limits.max_graphs} graph slots per pack, the most any pack holds" in note
    rows = app.dataframe[0].value.set_index("strategy")
    packs = rows.loc["packing", "steps_per_epoch"]
    app.number_input(key="run_packs_per_batch").set_value(2).run()
    assert not app.exception
    assert app.session_state["batching"]["packs_per_batch"] == 2
    note = next(c.value for c in app.caption if c.value.startswith("Packing row"))
    assert "2 packs per batch (set on this page" in note and f"{2 * limits.max_nodes + 1:,} nodes" in note
    assert app.dataframe[0].value.set_index("strategy").loc["packing", "steps_per_epoch"] != packs


def test_baseline_batch_size_and_run_length_change_the_estimate(app):
    app.selectbox(key="tp_baseline").select("static_64").run()
    rows = app.dataframe[0].value.set_index("strategy")
    assert rows.loc["static-64", "speedup_steady"] == pytest.approx(1.0)
    before = rows.loc["static-64", "steps_per_epoch"]
    app.number_input(key="run_batch_size").set_value(128).run()
    assert not app.exception
    rows = app.dataframe[0].value.set_index("strategy")
    assert rows.loc["static-64", "steps_per_epoch"] < before / 3
    app.selectbox(key="run_length").select("1 epoch").run()
    one = app.dataframe[0].value.set_index("strategy")
    assert one.loc["static-64", "run_s"] < rows.loc["static-64", "run_s"] / 5
    assert app.session_state["batching"]["batch_size"] == 128 and app.session_state["batching"]["epochs"] == 1
    assert app.session_state["throughput_controls"]["baseline"] == "static_64"
    assert not any("devices: each step is priced" in i.value for i in app.info)
    app.number_input(key="run_devices").set_value(2).run()
    assert any(i.value.startswith("2 devices: each step is priced at its slowest device's batch") and
               "the gradient all-reduce" in i.value for i in app.info)
    app.number_input(key="run_devices").set_value(1).run()
    app.switch_page("pages/batching_page.py").run()  # one run, shared with the Batching page
    assert app.number_input(key="run_batch_size").value == 128 and app.selectbox(key="run_length").value == "1 epoch"


def test_a_failing_shipped_calibration_is_replaced_by_one_of_this_machine(tmp_path, monkeypatch):
    good = calibrated_now(budget=0.2)
    slow = scaled(good, past_band(good.error_band))  # 3x, or twice its band where this machine's noise widened it
    slow.save(tmp_path)
    with throughput_page_of_a_fresh_server(tmp_path, monkeypatch) as at:
        this = cache.machine_calibration()
        assert this.measured and not this.check.within_band and this.check.ratio_median < 0.6
        words = next(c.value for c in at.caption if c.value.startswith("**Calibration check:**"))
        assert "failed its check" in words and "calibrated now" in words
        assert at.selectbox(key="tp_calibration").value == "this_machine"
        assert at.session_state["throughput"]["calibration"] == this.calibration != slow
        labels = at.selectbox(key="tp_calibration").options
        assert labels[0].startswith("this machine (measured here): ")
        assert f"team folder: {slow.label}" in labels and any(label.startswith("shipped: ") for label in labels)
        this.calibration.save(tmp_path / "mine.json")  # this machine's calibration as a file too: listed once
        st.cache_data.clear()  # the files are read again (the options are cached per server process)
        at.run()
        assert at.selectbox(key="tp_calibration").options == labels
        at.selectbox(key="tp_calibration").select(slow.filename.removesuffix(".json")).run()
        (warning,) = [w.value for w in at.warning if "These are the numbers of" in w.value]
        assert "does not hold on this machine" in warning and warning.count("not of this machine") == 1  # said once
        assert not any(c.value.startswith("**Calibration check:**") for c in at.caption)  # the warning said it


def test_the_shipped_h100_calibrations_price_the_same_batches_on_the_gpu(app):
    gpu = "NVIDIA H100 80GB HBM3"
    assert any(f"GPU calibrations to choose from: {gpu}" in as_read(i.value) for i in app.info)
    cpu_rows = app.dataframe[0].value.set_index("strategy")
    labels = app.selectbox(key="tp_calibration").options  # shown as labels, chosen by file stem
    assert labels[0].startswith("this machine (") and sum(gpu in label for label in labels) == 2
    eager = "nvidia-h100-80gb-hbm3__gin-h64-l3__eager"
    app.selectbox(key="tp_calibration").select(eager).run()
    assert not app.exception and not app.error
    assert gpu in epoch_chart(app)["layout"]["title"]["text"]
    assert any(gpu in as_read(m.value) and "CUDA 13.0" in as_read(m.value) for m in app.markdown)
    assert any(f"These are the numbers of {gpu}" in as_read(w.value) for w in app.warning)
    assert any("Not checked on this machine" in as_read(w.value) for w in app.warning) or torch.cuda.is_available()
    rows = app.dataframe[0].value.set_index("strategy")
    others = [name for name in rows.index if name != "packing"]  # same batches, another device
    assert (rows.loc[others, "steps_per_epoch"] == cpu_rows.loc[others, "steps_per_epoch"]).all()
    assert not rows["steady_epoch_s"].equals(cpu_rows["steady_epoch_s"])
    # the chosen calibration now prices the recommendation: the packing row is the fastest there
    assert chosen(app).source == f"recommended for batch size 32 on {gpu} (eager)"
    hist = load_histogram("qm9")[0]
    fastest = recommend(hist, 32, step_cost(load_calibration(next(p for p in shipped_calibrations()
                                                                  if p.stem == eager))))
    assert chosen(app).limits == fastest.limits
    assert rows.loc["packing", "steady_epoch_s"] == pytest.approx(fastest.steady_epoch_s, rel=0.01)
    compiled = "nvidia-h100-80gb-hbm3__gin-h64-l3__compile"
    app.selectbox(key="tp_calibration").select(compiled).run()
    rows = app.dataframe[0].value.set_index("strategy")
    # a compilation per distinct padded shape: static-64 compiles many times, dynamic batching once
    compiling = rows["compile_seconds"]
    assert compiling["static-64"] > 2 * compiling["dynamic (jraph)"] > 0
    assert (rows["first_epoch_s"] >= rows["steady_epoch_s"]).all() and (rows["run_s"] > rows["steady_epoch_s"]).all()
    (one_off,) = [i.value for i in app.info if i.value.startswith("Compilation is a one-off cost")]  # one box
    assert "packing " in one_off and "per steady epoch (1 compilation in " in one_off
    fastest, slowest = load_calibration(next(p for p in shipped_calibrations() if p.stem == compiled)).compile_band
    assert any(f"the error bars take each one anywhere from {fastest:.3g} to {slowest:.3g} s" in c.value
               for c in app.caption)
    app.switch_page("pages/export_page.py").run()  # the file carries these numbers: the Export page says whose
    assert any(f"The file's throughput estimates are those of {gpu}, not of this machine" in w.value
               for w in app.warning) or torch.cuda.is_available()


def test_calibrating_this_machine_from_the_page(app):
    app.number_input(key="tp_hidden").set_value(8)
    app.number_input(key="tp_layers").set_value(1)
    app.button(key="tp_calibrate").click().run(timeout=300)
    assert not app.exception, [e.value for e in app.exception]
    chosen_key = app.selectbox(key="tp_calibration").value
    assert chosen_key.startswith("session:measured now: gin (hidden 8, 1 layers, eager)")
    assert any("Measured on this machine in this session" in c.value for c in app.caption)
    measured = app.session_state["throughput"]["calibration"]
    assert measured.hidden == 8 and len(measured.timings) == 8
    # the grid's label names the largest shape it timed (the Halton shapes stop short of 4,096 nodes)
    assert app.selectbox(key="tp_grid").value.startswith(f"quick: 8 shapes up to {measured.shape_range[0]:,} nodes")
    assert any(b.label.startswith("Download ") for b in app.get("download_button"))
    # AppTest lists an expander with an icon under status
    (expander,) = [e for e in app.status if e.label == "Calibrate this machine now"]
    assert expander.proto.expanded  # its download button in view


def test_run_figure_shows_steady_and_whole_run_and_marks_the_baseline():
    from packing import SizeHistogram
    from throughput import estimate

    table = estimate(SizeHistogram.from_counts([10, 20], [20, 44], [300, 100]), 32,
                     load_calibration(default_calibration()), baseline="static_64", epochs=3)
    fig = throughput_figures.epoch_figure(table)
    steady, whole = fig.data
    for bars in (steady, whole):
        shapes = list(bars.marker.pattern.shape)
        assert shapes[list(table["strategy"]).index("static_64")] == "/" and shapes.count("/") == 1
        assert list(bars.y) == [throughput_figures.label(s) for s in table["strategy"]]
    texts = [a.text for a in fig.layout.annotations]
    assert "Whole run (3 epochs)" in texts
    base = [a.text for a in fig.layout.annotations if a.y == throughput_figures.label("static_64")]
    assert len(base) == 2 and all(text.endswith(", 1.00x") for text in base)  # against itself, both panels


def test_an_extrapolated_row_is_drawn_faded_without_a_band_and_says_so():
    from packing import SizeHistogram
    from throughput import estimate

    table = estimate(SizeHistogram.from_counts([10, 20], [20, 44], [300, 100]), 32,
                     load_calibration(default_calibration()), epochs=1)
    table.loc[table["strategy"] == "static_constant", "extrapolated"] = True
    out = list(table["strategy"]).index("static_constant")
    steady, whole = throughput_figures.epoch_figure(table).data
    for bars, value, high in ((steady, "steady_epoch_s", "steady_high"), (whole, "run_s", "run_high")):
        assert bars.error_x.array[out] is None and bars.error_x.arrayminus[out] is None
        kept = [i for i in range(len(table)) if i != out]
        assert [bars.error_x.array[i] for i in kept] == pytest.approx((table[high] - table[value]).iloc[kept].tolist())
        assert bars.marker.opacity[out] == 0.4 and {bars.marker.opacity[i] for i in kept} == {1.0}
        assert bars.customdata[out][0] == "extrapolated: no band"
    fig = throughput_figures.epoch_figure(table)
    texts = [a.text for a in fig.layout.annotations if a.y == throughput_figures.label("static_constant")]
    assert len(texts) == 2 and all(text.endswith("<br>extrapolated") for text in texts)
    # a run of days reads in whole seconds with thousands grouped, never in exponent form
    long = table.assign(**{name: table[name] * 1e5 for name in table.columns if name.endswith(("_s", "_low", "_high"))})
    texts = [a.text for a in throughput_figures.epoch_figure(long).layout.annotations if " s, " in a.text]
    assert texts and not any("e+" in text for text in texts) and any("," in text.split(" s, ")[0] for text in texts)


def test_the_table_shows_steps_per_epoch_to_one_decimal_as_the_report_and_graphs_per_second_whole(app):
    table = app.dataframe[0].value
    assert (table["steps_per_epoch"] == table["steps_per_epoch"].round(1)).all()
    assert (table["steps_per_epoch"] != table["steps_per_epoch"].round()).any()  # 62.5 is not rounded to 62
    assert (table["graphs_per_second"] == table["graphs_per_second"].round()).all()
    formats = json.loads(app.dataframe[0].proto.columns)
    assert formats["steps_per_epoch"]["type_config"]["format"] == "localized"
    assert formats["graphs_per_second"]["type_config"]["format"] == "localized"


def test_the_page_offers_to_price_the_recommendation_on_its_calibration(app):
    assert chosen(app).source.endswith("(no calibration chosen: the least padding)")
    button = app.button(key="tp_recommend")
    assert as_read(button.label).startswith(f"Recommend for this calibration ({cpu_name()}")
    button.click().run()
    assert not app.exception and not app.error
    assert chosen(app).source == f"recommended for batch size 32 on {cpu_name()} (eager)"
    assert app.session_state["throughput_controls"]["calibration"] == "this_machine"
    assert "tp_recommend" not in [b.key for b in app.button]  # priced there now
    note = next(c.value for c in app.caption if c.value.startswith("Packing row"))
    assert note.startswith(f"Packing row: the configuration recommended for batch size 32 on {cpu_name()} (eager)")
