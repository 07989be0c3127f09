"""Cudagraph mode (the step captured as a CUDA graph and replayed): refused on a CPU, priced
from a calibration this test writes (made-up numbers of a made-up GPU, in a temporary
folder: nothing like it ships), checked only on a CUDA device, offered on the Throughput
page as a mode of its own. The timing loop itself needs a GPU; here it runs with
:class:`data_loaders.captured.CapturedStep` replaced by a plain step, to check what it
feeds the step and how it accounts the capture."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from calibration_helpers import throughput_page_of_a_fresh_server

import figures.throughput as throughput_figures
from data_loaders.captured import plain_step
from packing import PackLimits, SizeHistogram, pack
from packing.batching import RunSpec, default_requests, first_appearances, run_strategies
from packing.export import export_config
from packing.io import config_json, save_config
from throughput.section import check_throughput_section
from throughput import Calibration, calibrate, check_calibration, estimate, load_calibration, step_cost
from throughput.cli import run
from throughput.measure import ShapeTimer, TimingPlan
from throughput.models import model_spec
from throughput.records import ShapeTiming
from throughput.report import NOT_CAPTURED, format_table, settings_words, throughput_section
from throughput.shapes import default_shapes

GRID = default_shapes(12, max_nodes=4096, max_edges=16384, max_graphs=256)
#: Made up for the test: a launch-bound GPU, replays 4x faster than eager steps, captures 40-150 ms.
REPLAY, EAGER, PER_NODE = 0.8e-3, 3.2e-3, 1e-8
CAPTURES = [0.04 + 0.01 * i for i in range(len(GRID))]
GPU = {"device": "cuda", "type": "cuda", "name": "Test GPU (made up by a test)", "threads": 16,
       "cuda": {"name": "Test GPU (made up by a test)", "capability": "9.0", "memory_gib": 80.0}}


def made_up(mode: str = "cudagraph", device_info: dict | None = None) -> Calibration:
    """A calibration of the made-up GPU: cudagraph (replays, eager steps, captures), or eager
    with the same eager steps."""
    timings = []
    for (nodes, edges, graphs), capture in zip(GRID, CAPTURES):
        replay, eager = REPLAY + PER_NODE * nodes, EAGER + PER_NODE * nodes
        if mode == "cudagraph":
            timings.append(ShapeTiming((nodes, edges, graphs), replay, replay, replay, replay, 15,
                                       eager_median=eager, capture_seconds=capture))
        else:
            timings.append(ShapeTiming((nodes, edges, graphs), eager, eager, eager, eager, 15))
    return Calibration.from_timings(
        "gin", 64, 3, "cuda", mode, timings, device_info=device_info or GPU,
        versions={"torch": "2.11.0+cu130", "torch_geometric": "2.8.0.post1", "cuda": "13.0"},
        model_info={"name": "gin", "hidden": 64, "layers": 3, "in_channels": 9}, timing={"seed": 0},
        created="2026-12-01T00:00:00Z")


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    return made_up().save(tmp_path)


HIST = SizeHistogram.from_counts([4, 6, 10, 17], [8, 12, 22, 36], [300, 200, 100, 40])


def test_calibrating_cudagraph_on_a_cpu_is_refused_before_any_timing():
    with pytest.raises(ValueError, match=r"needs a CUDA device, got cpu\. On a CPU use mode 'eager' or 'compile'"):
        calibrate(hidden=4, layers=1, device="cpu", mode="cudagraph")


def test_a_cudagraph_file_loads_verified_with_its_captures_and_eager_fit(saved):
    cal = load_calibration(saved)
    assert saved.name == "test-gpu-made-up-by-a-test__gin-h64-l3__cudagraph.json"
    assert cal.mode == "cudagraph" and cal.compile is None and cal.eager_fit is not None
    assert cal.capture == {"seconds": pytest.approx(0.095), "p25": pytest.approx(0.0675),
                           "p75": pytest.approx(0.1225), "low": 0.04, "high": pytest.approx(0.15)}
    assert cal.capture_band == (0.04, pytest.approx(0.15))
    assert cal.predict_step(1000, 2000, 8) == pytest.approx(REPLAY + PER_NODE * 1000, rel=1e-3)
    assert cal.predict_eager([[1000, 2000, 8]])[0] == pytest.approx(EAGER + PER_NODE * 1000, rel=1e-3)
    assert "cudagraph" in cal.label and cal.summary()["capture"] == cal.capture
    with pytest.raises(ValueError, match="measured no compilations"):
        cal.compile_band
    data = json.loads(saved.read_text())
    assert data["timings"][0]["capture_seconds"] == 0.04 and "compile_seconds" not in data["timings"][0]
    assert "capture" not in load_calibration(made_up("eager").to_dict()).to_dict()  # other modes' files as before


def test_a_damaged_or_impossible_cudagraph_file_is_refused(saved):
    data = json.loads(saved.read_text())
    body = {key: value for key, value in data.items() if key != "digest"}
    from throughput.calibration import digest

    def signed(changed: dict) -> dict:
        return {**changed, "digest": digest(changed)}

    with pytest.raises(ValueError, match="the capture costs do not match its timings"):
        load_calibration(signed({**body, "capture": {**body["capture"], "seconds": 0.001}}))
    no_capture = {**body, "timings": [{k: v for k, v in row.items() if k != "capture_seconds"}
                                      for row in body["timings"]]}
    with pytest.raises(ValueError, match="needs capture_seconds and eager_median at every shape"):
        load_calibration(signed(no_capture))
    with pytest.raises(ValueError, match="cudagraph calibration of a 'cpu' device"):
        load_calibration(signed({**body, "device": {"device": "cpu", "type": "cpu", "name": "A CPU"}}))


def test_packed_batches_pay_one_capture_and_many_shapes_pay_one_each():
    cal = made_up()
    plan = pack(HIST, PackLimits(64, 140, 8))
    table = estimate(HIST, 16, cal, plan, epochs=3).set_index("strategy")
    median = cal.capture["seconds"]
    packing = table.loc["packing"]
    assert packing["captures"] == 1 and packing["capture_seconds"] == pytest.approx(median)
    assert packing["compilations"] == 0 and packing["compile_seconds"] == 0 and packing["eager_step_share"] == 0
    assert packing["run_s"] == pytest.approx(3 * packing["steady_epoch_s"] + median)
    assert packing["first_epoch_s"] == pytest.approx(packing["steady_epoch_s"] + median)
    # static-64 pads each batch to a multiple of 64: one capture per distinct padded shape
    run = RunSpec(16, None, 3, 0, 1)
    batches = run_strategies(HIST, run, default_requests(HIST, 16, plan, 0, 8, None))["static_64"].batches
    first, _ = first_appearances(*(batches[c].to_numpy() for c in ("padded_nodes", "padded_edges", "padded_graphs")))
    static = table.loc["static_64"]
    assert static["captures"] == len(first) > 1
    assert static["capture_seconds"] == pytest.approx(len(first) * median)
    assert table.loc["static_64", "one_off_share"] == pytest.approx(static["capture_seconds"] / static["run_s"])


def test_pyg_dataloader_is_not_captured_priced_eager_and_says_so():
    table = estimate(HIST, 16, made_up(), epochs=2)
    cudagraph = table.set_index("strategy")
    eager = estimate(HIST, 16, made_up("eager"), epochs=2).set_index("strategy")  # its eager steps alone
    loader = cudagraph.loc["pyg_dataloader"]
    assert loader["captures"] == 0 and loader["capture_seconds"] == 0 and loader["eager_step_share"] == 1
    words = dict(zip(table["strategy"], settings_words(table)))["pyg_dataloader"]
    assert words.endswith(NOT_CAPTURED) and "priced eager" in words
    exported = {row["strategy"]: row["settings"] for row in throughput_section(table)["table"]}
    assert exported["pyg_dataloader"] == words  # the export keeps each row's settings in words
    assert loader["steady_epoch_s"] == pytest.approx(eager.loc["pyg_dataloader", "steady_epoch_s"], rel=1e-3)
    assert loader["run_s"] == pytest.approx(2 * loader["steady_epoch_s"])
    captured = cudagraph.drop(index="pyg_dataloader")
    assert (captured["eager_step_share"] == 0).all() and (captured["captures"] >= 1).all()
    assert (captured["steady_epoch_s"] < eager.loc[captured.index, "steady_epoch_s"]).all()  # replays are faster


def test_two_devices_capture_each_shape_once_per_device():
    plan = pack(HIST, PackLimits(64, 140, 8))
    row = estimate(HIST, 8, made_up(), plan, devices=2).set_index("strategy").loc["packing"]
    assert row["captures"] == 2


def test_the_text_table_the_section_and_the_figure_speak_of_captures():
    table = estimate(HIST, 16, made_up(), epochs=1)
    text = format_table(table)
    assert "capture s" in text and "compile s" not in text
    assert "priced eager, not as CUDA graph replays" in text and "Compilation is a one-off cost" not in text
    assert "Capturing the step as a CUDA graph is a one-off cost" in text
    section = check_throughput_section(json.loads(json.dumps(throughput_section(table))))
    assert section["calibration"]["mode"] == "cudagraph" and section["calibration"]["capture"]["low"] == 0.04
    assert {row["strategy"]: row["captures"] for row in section["table"]}["pyg_dataloader"] == 0
    fig = throughput_figures.epoch_figure(table)
    assert fig.layout.title.subtitle.text.startswith("Steady epoch: every shape captured as a CUDA graph")
    assert "CUDA graph captures in the run" in fig.data[0].hovertemplate


def test_step_cost_prices_one_capture():
    cost = step_cost(made_up())
    assert cost.mode == "cudagraph" and cost.one_off_s == pytest.approx(0.095)


def test_a_cudagraph_calibration_is_checked_on_a_cuda_device_only():
    cal = made_up()
    with pytest.raises(ValueError, match="cannot be checked on cpu"):
        check_calibration(cal, device="cpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="is a CUDA device and this machine has none"):
            check_calibration(cal)


def test_the_cli_takes_the_mode_and_refuses_it_on_a_cpu_in_one_line(tmp_path, capsys, saved):
    assert run(["calibrate", "--mode", "cudagraph", "--out", str(tmp_path / "mine.json")]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error: mode 'cudagraph' times a step captured as a CUDA graph")
    assert not (tmp_path / "mine.json").exists()
    config = save_config(export_config(pack(HIST, PackLimits(64, 140, 8)), HIST, {"dataset": "toy"}),
                         tmp_path / "config.json")
    assert run(["estimate", str(config), "--calibration", str(saved), "--batch-size", "16", "--check"]) == 0
    out = capsys.readouterr().out
    assert "capture s" in out and "not checked on this machine" in out


class PlainCapturedStep:
    """Stands in for CapturedStep on a CPU: the same arguments, a plain step per call (with
    a plain Adam over the same parameters)."""

    made: list = []

    def __init__(self, model, optimizer, loss_fn):
        assert all(group["capturable"] for group in optimizer.param_groups)
        plain = torch.optim.Adam(model.parameters(), lr=1e-3)  # a capturable Adam steps on CUDA only
        self.model, self.optimizer, self.loss_fn, self.calls = model, plain, loss_fn, 0
        PlainCapturedStep.made.append(self)

    def __call__(self, batch):
        self.calls += 1
        return plain_step(self.model, self.optimizer, self.loss_fn, batch)


def test_the_timer_captures_through_captured_step_and_prices_the_first_call(monkeypatch):
    plan = TimingPlan(warmup=1, repeats=4, min_repeats=3, budget=0.05)
    timer = ShapeTimer(model_spec("gin", 4, 1), "cpu", "cudagraph", plan)
    with pytest.raises(ValueError, match="A CapturedStep records CUDA kernels"):  # the real one, on a CPU
        timer.time((32, 64, 2))
    monkeypatch.setattr("throughput.measure.CapturedStep", PlainCapturedStep)
    timing = timer.time((32, 64, 2))
    (step,) = PlainCapturedStep.made
    assert step.calls == 1 + plan.warmup + timing.repeats  # the first call, untimed replays, timed replays
    assert timing.capture_seconds >= 0 and timing.eager_median > 0 and timing.compile_seconds is None
    assert 3 <= timing.repeats <= 4


def test_the_throughput_page_offers_and_shows_a_cudagraph_calibration(tmp_path, monkeypatch, saved):
    with throughput_page_of_a_fresh_server(tmp_path, monkeypatch) as at:
        labels = at.selectbox(key="tp_calibration").options
        cal = load_calibration(saved)
        assert f"team folder: {cal.label}" in labels and "cudagraph" in cal.label
        at.selectbox(key="tp_calibration").select(saved.stem).run()
        assert not at.exception, [e.value for e in at.exception]
        frame = at.dataframe[0].value.set_index("strategy")
        assert "captures" in frame.columns and "compilations" not in frame.columns
        loader = frame.loc[throughput_figures.label("pyg_dataloader")]
        assert loader["captures"] == 0 and loader["eager_step_share"] == 1
        assert any("CUDA graph (data_loaders.CapturedStep)" in c.value and "0.04 to 0.15 s" in c.value
                   for c in at.caption)
        assert any("priced eager, not as CUDA graph replays" in i.value for i in at.info)
        assert any("These are the numbers of Test GPU" in w.value for w in at.warning)


def test_the_report_of_a_cudagraph_export_speaks_of_captures_not_compilations():
    from figures.report import build_report
    from packing.io import load_config

    plan = pack(HIST, PackLimits(64, 140, 8))
    table = estimate(HIST, 16, made_up(), plan, epochs=1)
    config, loaded_plan = load_config(config_json(export_config(plan, HIST, {"dataset": "toy"},
                                                                   {"throughput": throughput_section(table)})))
    page = build_report(config, loaded_plan)
    assert "priced eager, not as CUDA graph replays" in page
    assert "Compilation is a one-off cost" not in page and "0 compilations" not in page
