"""Estimates: hand-worked epochs under a known cost model, scaling, multi-device waits,
compilation pricing, the speed-up baseline, the export section and bad input."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from packing import PackLimits, SizeHistogram, pack
from packing.export import export_config
from packing.io import load_config
from throughput.section import extrapolation_note
from throughput import ROWS, Calibration, estimate, load_calibration, shipped_calibrations, throughput_section
from throughput.estimate import price_batches, pyg_dataloader_batches
from throughput.records import ShapeTiming
from throughput.shapes import default_shapes

GRID = default_shapes(12, max_nodes=4096, max_edges=16384, max_graphs=256)


def synthetic(intercept: float, per_node: float, per_edge: float = 0.0, per_graph: float = 0.0, *,
              compile_seconds: tuple[float, float] | None = None, eager_factor: float = 3.0,
              recompile_limit: int = 8) -> Calibration:
    """A calibration whose timings follow a known linear law exactly (compile mode: every
    compilation after the first costs compile_seconds[1], the first compile_seconds[0],
    eager steps take eager_factor times as long)."""
    timings = []
    for index, (nodes, edges, graphs) in enumerate(GRID):
        seconds = intercept + per_node * nodes + per_edge * edges + per_graph * graphs
        extra = {} if compile_seconds is None else {
            "compile_seconds": compile_seconds[0] if index == 0 else compile_seconds[1],
            "eager_median": eager_factor * seconds}
        timings.append(ShapeTiming((nodes, edges, graphs), seconds, seconds, seconds, seconds, 3, **extra))
    mode = "eager" if compile_seconds is None else "compile"
    return Calibration.from_timings(
        "gin", 64, 3, "cpu", mode, timings, device_info={"device": "cpu", "type": "cpu", "name": "test CPU"},
        versions={"torch": "test"}, model_info={"name": "gin", "hidden": 64, "layers": 3, "in_channels": 9},
        timing={}, created="2026-01-01T00:00:00Z", recompile_limit=None if compile_seconds is None else recompile_limit)


HIST = SizeHistogram.from_counts([4, 6, 10], [8, 12, 22], [5, 3, 2])  # 10 graphs, 58 nodes


def test_pyg_dataloader_epoch_is_the_hand_worked_sum():
    cal = synthetic(1e-3, 1e-5)
    row = estimate(HIST, 4, cal).set_index("strategy").loc["pyg_dataloader"]
    # batches of 4, 4 and 2 graphs: 3 steps of 1 ms plus 10 us for each of the 58 nodes
    assert row["steps_per_epoch"] == 3
    assert row["epoch_seconds"] == pytest.approx(3 * 1e-3 + 58 * 1e-5, rel=1e-9)
    assert row["graphs_per_second"] == pytest.approx(10 / row["epoch_seconds"])
    assert row["compile_seconds_per_epoch"] == 0 and row["compilations"] == 0


def test_packing_row_prices_every_pack_at_the_shape_the_loader_pads_it_to():
    plan = pack(HIST, PackLimits(20, 40, 4))
    cal = synthetic(2e-3, 1e-5, 1e-6, 1e-4)
    row = estimate(HIST, 4, cal, plan, packs_per_batch=1).set_index("strategy").loc["packing"]
    per_step = 2e-3 + 21 * 1e-5 + 40 * 1e-6 + 5 * 1e-4  # BatchShape.for_plan: one padding node and graph
    assert row["steps_per_epoch"] == plan.num_packs
    assert row["epoch_seconds"] == pytest.approx(plan.num_packs * per_step, rel=1e-9)
    assert row["step_ms"] == pytest.approx(1e3 * per_step, rel=1e-9)


def test_several_packs_per_batch_are_priced_as_one_batch_of_their_total_capacity():
    plan = pack(HIST, PackLimits(20, 40, 4))
    cal = synthetic(2e-3, 1e-5, 1e-6, 1e-4)
    row = estimate(HIST, 4, cal, plan, packs_per_batch=2).set_index("strategy").loc["packing"]
    per_step = 2e-3 + 2 * (20 * 1e-5 + 40 * 1e-6 + 4 * 1e-4) + 1e-5 + 1e-4  # plus one padding node and graph
    assert row["steps_per_epoch"] == -(-plan.num_packs // 2) and row["max_padded_nodes"] == 41
    assert row["step_ms"] == pytest.approx(1e3 * per_step, rel=1e-9)
    with pytest.raises(ValueError, match="packs_per_batch needs a plan"):
        estimate(HIST, 4, cal, packs_per_batch=2)
    # by default, as many packs as carry about the batch size (the command line's 'match')
    matched = estimate(HIST, 4, cal, plan).set_index("strategy").loc["packing"]
    assert matched["steps_per_epoch"] == row["steps_per_epoch"] and matched["step_ms"] == row["step_ms"]


def test_estimates_scale_as_the_model_says():
    base = estimate(HIST, 4, synthetic(1e-3, 1e-5)).set_index("strategy")
    node_heavy = estimate(HIST, 4, synthetic(1e-3, 3e-5)).set_index("strategy")
    fixed_only = estimate(HIST, 4, synthetic(1e-3, 0.0)).set_index("strategy")
    node_part = base["epoch_seconds"] - fixed_only["epoch_seconds"]
    assert fixed_only["epoch_seconds"].to_numpy() == pytest.approx(base["steps_per_epoch"].to_numpy() * 1e-3,
                                                                   rel=1e-9)
    assert (node_heavy["epoch_seconds"] - fixed_only["epoch_seconds"]).to_numpy() == pytest.approx(
        3 * node_part.to_numpy(), rel=1e-9)
    assert list(base.index) == list(ROWS)


def test_error_band_is_the_held_out_error_of_the_fit():
    cal = synthetic(1e-3, 1e-5)
    shaky = Calibration(**{**cal.__dict__, "fit": type(cal.fit)(cal.fit.form, cal.fit.coefficients,
                                                               {**cal.fit.held_out, "p90": 0.2}, cal.fit.forms)})
    row = estimate(HIST, 4, shaky).set_index("strategy").loc["pyg_dataloader"]
    assert row["epoch_low"] == pytest.approx(row["epoch_seconds"] / 1.2)
    assert row["epoch_high"] == pytest.approx(1.2 * row["epoch_seconds"])
    assert row["steady_low"] == pytest.approx(row["steady_epoch_s"] / 1.2)


def test_a_band_wider_than_the_estimate_stays_above_zero():
    cal = synthetic(1e-3, 1e-5, compile_seconds=(5.0, 2.0))
    wild = Calibration(**{**cal.__dict__, "fit": type(cal.fit)(cal.fit.form, cal.fit.coefficients,
                                                              {**cal.fit.held_out, "p90": 3.0}, cal.fit.forms)})
    table = estimate(HIST, 4, wild, epochs=2)
    for column in ("epoch_low", "steady_low", "run_low"):
        assert (table[column] > 0).all()
    assert np.allclose(table["steady_low"] * 4.0, table["steady_epoch_s"])  # t / (1 + 3)
    assert np.allclose(table["steady_high"], 4.0 * table["steady_epoch_s"])


def test_a_step_on_several_devices_waits_for_its_largest_batch():
    cal = synthetic(1e-3, 1e-5)
    batches = pd.DataFrame({"step": [0, 0, 1, 1], "device": [0, 1, 0, 1], "epoch": 0, "graphs": [1, 1, 1, 1],
                            "padded_nodes": [100, 300, 200, 200], "padded_edges": 0, "padded_graphs": 1})
    priced = price_batches(batches, cal, epochs_run=1.0)
    assert priced["epoch_seconds"] == pytest.approx((1e-3 + 300e-5) + (1e-3 + 200e-5), rel=1e-9)
    busy = 4 * 1e-3 + 800e-5  # four batches of 1 ms plus their nodes
    assert priced["wait_share"] == pytest.approx(1 - busy / (2 * priced["epoch_seconds"]))
    assert priced["steps_per_epoch"] == 2


def test_compilations_are_priced_until_the_recompile_limit_then_steps_run_eagerly():
    cal = synthetic(1e-3, 0.0, compile_seconds=(50.0, 20.0), eager_factor=3.0, recompile_limit=2)
    shapes = [100, 200, 100, 300, 300, 200]  # shapes A B A C C B: A and B compile, C runs eagerly
    batches = pd.DataFrame({"step": range(6), "device": 0, "epoch": [0, 0, 0, 1, 1, 1], "graphs": 1,
                            "padded_nodes": shapes, "padded_edges": 0, "padded_graphs": 1})
    priced = price_batches(batches, cal, epochs_run=2.0)
    assert priced["compilations"] == 2
    assert priced["eager_step_share"] == pytest.approx(2 / 6)
    assert priced["compile_seconds_per_epoch"] == pytest.approx((50 + 20) / 2)
    assert priced["epoch_seconds"] == pytest.approx((4 * 1e-3 + 2 * 3e-3 + 70) / 2, rel=1e-9)
    assert priced["steps_per_epoch"] == 3
    # A (cold, 50 s) and B (warm, 20 s) compile in the first epoch; C runs eagerly, nothing compiles later
    run = 4 * 1e-3 + 2 * 3e-3
    assert priced["steady_epoch_s"] == pytest.approx(run / 2, rel=1e-9)
    assert priced["first_epoch_s"] == pytest.approx(run / 2 + 70, rel=1e-9)
    assert priced["run_s"] == pytest.approx(run + 70, rel=1e-9)
    # the band: each compilation between the fastest (warm, 20 s) and the slowest (cold, 50 s)
    # measured, of either kind; eager steps with the eager fit's error
    compiled_band, eager_band = 1 + cal.error_band, 1 + cal.eager_error_band
    assert priced["run_low"] == pytest.approx(4e-3 / compiled_band + 6e-3 / eager_band + 2 * 20, rel=1e-6)
    assert priced["run_high"] == pytest.approx(4e-3 * compiled_band + 6e-3 * eager_band + 2 * 50, rel=1e-6)
    assert priced["steady_low"] == pytest.approx((4e-3 / compiled_band + 6e-3 / eager_band) / 2, rel=1e-6)


def test_shipped_h100_compile_bands_hold_what_its_training_runs_measured():
    """The H100 compile calibration (22 November): eager steps get the eager fit's band, and
    every compilation may cost anything from a warm one's first quartile to a cold one; the
    compilations of its validation runs (5.6-7.3 s each, BENCHMARKS.md) lie inside."""
    cal = load_calibration(next(path for path in shipped_calibrations() if path.name.endswith("__compile.json")))
    assert cal.eager_error_band != cal.error_band
    limit = int(cal.compile["recompile_limit"])
    shapes = np.array([1024 * (1 + i) for i in range(limit + 2)])  # the last two run eagerly
    batches = pd.DataFrame({"step": range(shapes.size), "device": 0, "epoch": 0, "graphs": 1,
                            "padded_nodes": shapes, "padded_edges": 2 * shapes, "padded_graphs": 1})
    priced = price_batches(batches, cal, epochs_run=1.0)
    rows = np.column_stack([shapes, 2 * shapes, np.ones_like(shapes)])
    compiled, eager = cal.fit.predict(rows[:limit]), cal.predict_eager(rows[limit:])
    fastest, slowest = cal.compile_band
    assert (fastest, slowest) == (min(cal.compile["p25"], cal.compile["cold_low"]),
                                  max(cal.compile["p75"], cal.compile["cold_high"]))
    assert fastest < 5.6 and slowest > 7.3
    assert priced["run_low"] == pytest.approx(
        (compiled / (1 + cal.error_band)).sum() + (eager / (1 + cal.eager_error_band)).sum() + limit * fastest)
    assert priced["run_high"] == pytest.approx(
        (compiled * (1 + cal.error_band)).sum() + (eager * (1 + cal.eager_error_band)).sum() + limit * slowest)


def test_every_device_compiles_the_shapes_it_meets():
    cal = synthetic(1e-3, 0.0, compile_seconds=(5.0, 2.0))
    batches = pd.DataFrame({"step": [0, 0, 1, 1], "device": [0, 1, 0, 1], "epoch": 0, "graphs": 1,
                            "padded_nodes": [100, 200, 200, 100], "padded_edges": 0, "padded_graphs": 1})
    priced = price_batches(batches, cal, epochs_run=1.0)
    # step 0: both devices compile their first shape (5 s each, in parallel); step 1: both a second one (2 s)
    assert priced["compilations"] == 4
    assert priced["compile_seconds_per_epoch"] == pytest.approx(5.0 + 2.0)


def test_a_run_of_several_epochs_compiles_each_shape_once():
    # static_constant has one shape: one cold compilation (9 s) per run, whatever the epochs
    cal = synthetic(1e-3, 1e-5, compile_seconds=(9.0, 4.0))
    one, five = (estimate(HIST, 4, cal, epochs=n).set_index("strategy").loc["static_constant"] for n in (1, 5))
    assert one["compilations"] == five["compilations"] == 1
    # batches run across epoch ends (3 real graphs each: 17 batches for 5 x 10 graphs, 4 for 1 x 10)
    assert five["steps_per_epoch"] == pytest.approx(17 / 5) and one["steps_per_epoch"] == 4
    assert five["steady_epoch_s"] == pytest.approx(one["steady_epoch_s"] * (17 / 5) / 4, rel=1e-9)
    assert five["run_s"] == pytest.approx(5 * five["steady_epoch_s"] + 9.0, rel=1e-9)
    assert five["first_epoch_s"] == pytest.approx(five["steady_epoch_s"] + 9.0, rel=1e-9)
    assert five["epoch_seconds"] == pytest.approx(five["run_s"] / 5, rel=1e-9)
    # PyG's DataLoader meets a new shape almost every batch: warm compilations until the limit
    loader = estimate(HIST, 4, cal, epochs=5).set_index("strategy").loc["pyg_dataloader"]
    assert loader["compilations"] == min(8, loader["compilations"]) and loader["compilations"] >= 2
    assert loader["compile_seconds"] == pytest.approx(9.0 + 4.0 * (loader["compilations"] - 1))


def test_speedups_over_the_steady_epoch_and_the_whole_run():
    cal = synthetic(1e-3, 1e-5, compile_seconds=(9.0, 4.0))
    table = estimate(HIST, 4, cal, epochs=3).set_index("strategy")
    base = table.loc["pyg_dataloader"]
    for name, row in table.iterrows():
        assert row["speedup_steady"] == pytest.approx(base["steady_epoch_s"] / row["steady_epoch_s"])
        assert row["speedup_run"] == pytest.approx(base["run_s"] / row["run_s"])
        assert row["one_off_share"] == pytest.approx(row["compile_seconds"] / row["run_s"])


def test_a_run_of_steps_compares_graphs_trained_and_blames_no_compilation_it_does_not_have():
    from throughput.section import one_off_note

    table = estimate(HIST, 2, synthetic(1e-3, 1e-5), steps=7).set_index("strategy")
    # rows train other numbers of graphs in 7 steps: the run's speed-up is per graph trained
    assert np.allclose(table["speedup_run"], table["speedup"])
    eager = estimate(HIST, 2, synthetic(1e-3, 1e-5), steps=7)
    eager.attrs["baseline"] = "pyg_dataloader"
    assert one_off_note(eager) == ""  # eager: nothing is one-off, whatever the run and steady speed-ups say


def test_a_run_shorter_than_an_epoch_prices_its_first_epoch_whole():
    cal = synthetic(1e-3, 1e-5, compile_seconds=(9.0, 4.0))
    table = estimate(HIST, 2, cal, steps=2).set_index("strategy")
    whole = estimate(HIST, 2, cal, epochs=1).set_index("strategy")
    short = table.index[table["steps_per_epoch"] > 2]  # rows whose 2 steps are less than an epoch
    assert len(short) >= 4
    assert np.allclose(table.loc[short, "first_epoch_s"], whole.loc[short, "first_epoch_s"])
    # the epoch meets shapes the 2 steps did not: more compilations than the run paid
    assert (whole.loc[short, "compilations"] > table.loc[short, "compilations"]).any()
    assert (table.loc[short, "first_epoch_s"] > table.loc[short, "run_s"]).all()


def test_a_dataset_smaller_than_one_step_is_refused():
    one = SizeHistogram.from_counts([5], [8], [1])  # one graph on 4 devices: epochs would not mean one pass
    with pytest.raises(ValueError, match=r"holds 1 graphs, fewer than one step takes \(4 device\(s\) x batch size 4\)"):
        estimate(one, 4, synthetic(1e-3, 1e-5), devices=4, steps=10)
    assert len(estimate(HIST, 2, synthetic(1e-3, 1e-5), devices=4)) == len(ROWS)  # 10 graphs, 8 a step: priced


def test_pyg_dataloader_batches_follow_distributed_sampler():
    from packing.batching import RunSpec

    hist = SizeHistogram.from_counts([3], [4], [7])
    batches = pyg_dataloader_batches(hist, 2, RunSpec(2, None, 1, 0, 2))
    # 7 graphs on 2 ranks: 4 each (one repeated), 2 batches of 2 per rank
    assert batches.groupby("device")["graphs"].sum().tolist() == [4, 4]
    assert batches["step"].max() == 1 and batches.attrs["epochs_run"] == 1
    assert (batches["padded_nodes"] == 3 * batches["graphs"]).all()


def test_speedup_is_against_the_chosen_baseline():
    table = estimate(HIST, 4, synthetic(1e-3, 1e-5), baseline="static_64").set_index("strategy")
    assert table.loc["static_64", "speedup"] == pytest.approx(1.0)
    assert table.loc["static_constant", "speedup"] == pytest.approx(
        table.loc["static_64", "epoch_seconds"] / table.loc["static_constant", "epoch_seconds"])


def test_shapes_past_the_calibration_are_marked_extrapolated():
    table = estimate(HIST, 4, synthetic(1e-3, 1e-5)).set_index("strategy")
    assert not table["extrapolated"].any()
    assert extrapolation_note(table.reset_index()) == ""
    huge = SizeHistogram.from_counts([5000], [9000], [4])
    cal = synthetic(1e-3, 1e-5)
    table = estimate(huge, 2, cal)
    assert table["extrapolated"].all()
    note = extrapolation_note(table)
    largest = [int(table[f"max_padded_{side}"].max()) for side in ("nodes", "edges", "graphs")]
    assert f"larger than any the calibration timed ({cal.shape_range[0]:,} nodes" in note
    reach = max(need / most for need, most in zip(largest, cal.shape_range))
    assert f"; up to {reach:.3g}x the largest timed). Their times have no error band" in note
    assert f"--max-nodes {max(largest[0], cal.shape_range[0])} --max-edges {max(largest[1], cal.shape_range[1])}" in note
    assert f"of {len(table)} strategies (up to {largest[0]:,} nodes, {largest[1]:,} edges)" in note  # one clause
    assert f"packing ({largest[0]:,} nodes" in extrapolation_note(table[table["strategy"] == "packing"])


def test_molhiv_with_the_shipped_calibration_favours_less_padding(molhiv):
    cal = load_calibration(shipped_calibrations()[0])
    table = estimate(molhiv, 128, cal, devices=2).set_index("strategy")
    # static_constant pads every batch to 128 x the largest molecule: the slowest by far
    assert table["epoch_seconds"].idxmax() == "static_constant"
    assert (table["epoch_low"] <= table["epoch_seconds"]).all() and (table["epoch_seconds"] <= table["epoch_high"]).all()
    assert (table["wait_share"] >= 0).all() and (table["wait_share"] < 1).all()


def test_the_export_section_is_json_and_loads_with_the_configuration():
    plan = pack(HIST, PackLimits(20, 40, 4))
    table = estimate(HIST, 4, synthetic(1e-3, 1e-5), plan)
    section = throughput_section(table)
    config = export_config(plan, HIST, {"dataset": "toy"}, sections={"throughput": section})
    loaded, loaded_plan = load_config(json.dumps(config))
    assert loaded_plan == plan
    rows = {row["strategy"]: row for row in loaded["throughput"]["table"]}
    assert rows["packing"]["epoch_seconds"] == pytest.approx(float(table.set_index("strategy").loc["packing",
                                                                                                    "epoch_seconds"]))
    assert loaded["throughput"]["calibration"]["device"]["name"] == "test CPU"
    assert loaded["throughput"]["calibration"]["fit"]["held_out"]["p90"] == 0.0 or \
        loaded["throughput"]["calibration"]["fit"]["held_out"]["p90"] < 1e-9
    with pytest.raises(ValueError, match="table returned by throughput.estimate"):
        throughput_section(pd.DataFrame({"strategy": ["x"]}))


@pytest.mark.parametrize("kwargs, message", [
    ({"calibration": "file.json"}, "must be a Calibration"),
    ({"baseline": "fastest"}, "baseline must be one of"),
    ({"batch_size": 1}, "batch_size"),
    ({"devices": 0}, "devices"),
])
def test_bad_input_is_refused(kwargs, message):
    arguments = {"hist": HIST, "batch_size": 4, "calibration": synthetic(1e-3, 1e-5), **kwargs}
    with pytest.raises(ValueError, match=message):
        estimate(**arguments)


def test_plan_for_other_graphs_is_refused():
    other = pack(SizeHistogram.from_counts([3], [4], [2]), PackLimits(6, 8, 2))
    with pytest.raises(ValueError):
        estimate(HIST, 4, synthetic(1e-3, 1e-5), other)


def test_predict_step_takes_arrays():
    cal = synthetic(1e-3, 1e-5)
    assert cal.predict_step(np.array([10, 20]), np.array([0, 0]), 1).tolist() == pytest.approx([1.1e-3, 1.2e-3])
    assert isinstance(cal.predict_step(10, 0, 1), float)
