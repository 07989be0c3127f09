"""Wall time of an estimate: the loader's cost (``Calibration.loaders``) added to the model's,
with and without loader workers; a calibration without loader timings priced as model time
only, saying so; the export's section and the Throughput page carrying the wall columns."""
from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from streamlit.testing.v1 import AppTest

from app_helpers import chosen
from data_loaders import load_histogram
import figures.throughput as throughput_figures
from figures.report import throughput_frame
from packing import SizeHistogram
from throughput.section import WALL_COLUMNS as SECTION_WALL_COLUMNS, check_throughput_section
from pages import state
from packing.recommend import recommend
from throughput import estimate, load_calibration, shipped_calibrations, step_cost, throughput_section
from throughput.estimate import COLUMNS, LOADER_PARTS, MODEL_TIME_ONLY, WALL_COLUMNS, loader_kinds, wall_time
from throughput.fit import fit_cost_model
from throughput.loader_kinds import LOADERS, LoaderCost
from throughput.records import ShapeTiming
from throughput.report import format_table, notes

HIST = SizeHistogram.from_counts([10, 20, 35], [20, 44, 80], [300, 100, 40])
#: Seconds per batch of each loader kind: (fixed, per node, per graph).
COSTS = {"pyg_first": (2e-4, 1e-6, 3e-5), "pyg_cached": (1e-4, 5e-7, 1e-5), "packed": (5e-5, 2e-7, 0.0),
         "packed_device": (3e-5, 1e-7, 0.0), "handoff": (4e-5, 1e-8, 0.0)}


def loader_costs(scale: float = 1.0) -> dict[str, LoaderCost]:
    """Loader costs of known linear forms (:data:`COSTS`, times ``scale``), fitted as a
    calibration fits them."""
    shapes = [(count * nodes, count * edges, count) for count in (4, 16, 64) for nodes, edges in ((8, 14), (20, 50),
                                                                                                (50, 90))]
    costs = {}
    for kind in LOADERS:
        fixed, node, graph = COSTS[kind]
        timings = tuple(ShapeTiming(shape, scale * (fixed + node * shape[0] + graph * shape[2]), 0, 0, 0, 5)
                        for shape in shapes)
        costs[kind] = LoaderCost(kind, timings, fit_cost_model([t.shape for t in timings], [t.median for t in timings]))
    return costs


@pytest.fixture(scope="module")
def shipped():
    """A shipped calibration as an older file holds it: without loader timings."""
    return dataclasses.replace(load_calibration(shipped_calibrations()[0]), loaders=None, loader_info=None)


def with_loaders(cal, scale: float = 1.0, cores: int = 16):
    """``cal`` with the loader timings of :func:`loader_costs`, measured on a machine of
    ``cores`` cores (by default enough for every worker of these tests to build at once)."""
    info = {"grid": [[4, 8, 14]], "threads": 1, "budget_seconds": 0.0, "device": "cpu", "data": {}}
    return dataclasses.replace(cal, loaders=loader_costs(scale), loader_info=info,
                               device_info={**cal.device_info, "cores": cores})


def test_without_workers_a_step_is_the_model_plus_the_loader(shipped):
    table = estimate(HIST, 32, with_loaders(shipped), epochs=3).set_index("strategy")
    assert list(table.reset_index().columns) == list(COLUMNS)
    assert table.attrs["wall"] == {"device_batches": False, "priced": True, "workers": 0, "parallel_workers": 0}
    assert np.allclose(table["wall_steady_epoch_s"], table["steady_epoch_s"] + table["loader_later_epoch_s"])
    # the first epoch reads every graph for the first time, the two later ones copy what PyG kept
    loading = table["loader_first_epoch_s"] + 2 * table["loader_later_epoch_s"]
    assert np.allclose(table["wall_run_s"], table["run_s"] + loading)
    assert np.allclose(table["wall_epoch_s"], table["wall_run_s"] / 3)
    pyg = table.loc["pyg_dataloader"]
    assert pyg["loader_first_epoch_s"] > pyg["loader_later_epoch_s"] > 0
    assert table.loc["packing", "loader_first_epoch_s"] == table.loc["packing", "loader_later_epoch_s"]
    assert pyg["wall_speedup_run"] == pytest.approx(1.0) and pyg["wall_speedup_steady"] == pytest.approx(1.0)
    assert (table["wall_steady_low"] < table["wall_steady_epoch_s"]).all()
    assert (table["wall_steady_epoch_s"] < table["wall_steady_high"]).all()
    assert (table["wall_run_low"] < table["wall_run_s"]).all() and (table["wall_run_s"] < table["wall_run_high"]).all()
    # the model columns are those of a calibration without loader timings
    plain = estimate(HIST, 32, shipped, epochs=3).set_index("strategy")
    pd.testing.assert_frame_equal(table[["steady_epoch_s", "run_s", "speedup_run"]],
                                  plain[["steady_epoch_s", "run_s", "speedup_run"]])


def test_the_loader_kinds_price_real_graphs_for_pyg_and_the_padded_shape_for_packing(shipped):
    cal = with_loaders(shipped)
    table = estimate(HIST, 32, cal, epochs=1).set_index("strategy")
    fixed, node, graph = COSTS["pyg_first"]
    # PyG's DataLoader: every graph once per epoch; the fit is exact to rounding on a linear cost
    expected = table.loc["pyg_dataloader", "steps_per_epoch"] * fixed + node * HIST.total_nodes + graph * HIST.num_graphs
    assert table.loc["pyg_dataloader", "loader_first_epoch_s"] == pytest.approx(expected, rel=1e-3)
    # static_64 pads every batch, but PyG collates only the real graphs: the same per-graph cost as PyG's
    static = table.loc["static_64"]
    assert static["loader_first_epoch_s"] == pytest.approx(
        static["steps_per_epoch"] * fixed + node * HIST.total_nodes + graph * HIST.num_graphs, rel=1e-3)
    packed = table.loc["packing"]
    fixed, node, _ = COSTS["packed"]
    assert packed["loader_first_epoch_s"] == pytest.approx(
        packed["steps_per_epoch"] * (fixed + node * packed["max_padded_nodes"]), rel=1e-3)
    assert loader_kinds("pyg_dataloader") == ("pyg_first", "pyg_cached")


def test_with_workers_the_slower_part_bounds_and_the_handoff_adds(shipped):
    slow = estimate(HIST, 32, with_loaders(shipped, scale=50.0), epochs=2, workers=2).set_index("strategy")
    assert slow.attrs["wall"]["workers"] == 2
    share = slow["loader_first_epoch_s"] / 2  # workers are started anew each epoch: every epoch reads the first time
    assert np.allclose(slow["loader_epoch_s"], slow["loader_first_epoch_s"])
    assert np.allclose(slow["wall_steady_epoch_s"],
                       np.maximum(slow["steady_epoch_s"], share) + slow["handoff_epoch_s"])
    assert np.allclose(slow["wall_run_s"], slow["wall_steady_epoch_s"] * 2 + slow["run_s"] - 2 * slow["steady_epoch_s"])
    assert slow.loc["pyg_dataloader", "bound_by"] == "loader"
    fast = estimate(HIST, 32, with_loaders(shipped, scale=0.01), epochs=2, workers=2)
    assert set(fast["bound_by"]) == {"model"}
    assert ((fast["loader_share"] > 0) & (fast["loader_share"] < 1)).all()


def test_workers_beyond_the_calibrated_machines_free_cores_build_nothing_more(shipped):
    cal = with_loaders(shipped, scale=50.0, cores=2)  # 2 cores, 1 torch thread: one worker builds at once
    table = estimate(HIST, 32, cal, epochs=2, workers=2).set_index("strategy")
    assert table.attrs["wall"]["workers"] == 2 and table.attrs["wall"]["parallel_workers"] == 1
    assert np.allclose(table["wall_steady_epoch_s"],
                       np.maximum(table["steady_epoch_s"], table["loader_first_epoch_s"]) + table["handoff_epoch_s"])
    shape = ([1000], [2000], [32])
    assert step_cost(cal, workers=2)(*shape)[0] == pytest.approx(step_cost(cal, workers=1)(*shape)[0])
    assert step_cost(with_loaders(shipped, scale=50.0), workers=2)(*shape)[0] < step_cost(cal, workers=2)(*shape)[0]


def test_device_built_batches_take_no_workers(shipped):
    table = estimate(HIST, 32, with_loaders(shipped), workers=4, device_batches=True).set_index("strategy")
    packed = table.loc["packing"]
    fixed, node, _ = COSTS["packed_device"]
    assert packed["loader_later_epoch_s"] == pytest.approx(
        packed["steps_per_epoch"] * (fixed + node * packed["max_padded_nodes"]), rel=1e-3)
    assert packed["wall_steady_epoch_s"] == pytest.approx(packed["steady_epoch_s"] + packed["loader_later_epoch_s"])
    pyg = table.loc["pyg_dataloader"]
    assert pyg["wall_steady_epoch_s"] == pytest.approx(
        max(pyg["steady_epoch_s"], pyg["loader_first_epoch_s"] / 4) + pyg["handoff_epoch_s"])


def test_wall_time_reprices_a_table_for_other_workers_without_touching_it(shipped):
    table = estimate(HIST, 32, with_loaders(shipped), epochs=2)
    again = wall_time(table, 3)
    assert table.attrs["wall"]["workers"] == 0 and again.attrs["wall"]["workers"] == 3
    pd.testing.assert_frame_equal(again, estimate(HIST, 32, with_loaders(shipped), epochs=2, workers=3))
    with pytest.raises(ValueError, match="workers must be a whole number"):
        wall_time(table, 1.5)


def test_a_calibration_without_loader_timings_is_model_time_only_and_says_so(shipped):
    table = estimate(HIST, 32, shipped, workers=2)
    assert table.attrs["wall"]["priced"] is False
    assert table[[c for c in WALL_COLUMNS if c != "bound_by"]].isna().all().all()
    assert table["bound_by"].isna().all()
    assert notes(table)[0] == MODEL_TIME_ONLY
    assert "wall" not in format_table(table)
    section = check_throughput_section(throughput_section(table))
    assert section["wall"]["priced"] is False and section["table"][0]["wall_run_s"] is None
    assert not throughput_figures.shows_wall(throughput_frame(section))
    fig = throughput_figures.epoch_figure(table)
    assert "Model time" in fig.layout.title.subtitle.text


def test_the_export_section_carries_the_wall_columns_and_needs_its_wall(shipped):
    table = estimate(HIST, 32, with_loaders(shipped), workers=2)
    section = check_throughput_section(throughput_section(table))
    assert section["wall"] == {"device_batches": False, "priced": True, "workers": 2, "parallel_workers": 2}
    assert {row["bound_by"] for row in section["table"]} <= {"loader", "model"}
    frame = throughput_frame(section)
    assert throughput_figures.shows_wall(frame)
    fig = throughput_figures.epoch_figure(frame, wall=True)
    assert list(fig.data[0].x) == pytest.approx(table["wall_steady_epoch_s"].tolist())
    assert "-bound)" in fig.layout.annotations[2].text and "2 loader workers" in fig.layout.title.subtitle.text
    assert list(throughput_figures.epoch_figure(frame, wall=False).data[0].x) == pytest.approx(
        table["steady_epoch_s"].tolist())
    assert "wall run s" in format_table(table) and "loader workers" in notes(table)[0]
    with pytest.raises(ValueError, match="throughput.wall must be an object, got null"):
        check_throughput_section({key: value for key, value in section.items() if key != "wall"})
    with pytest.raises(ValueError, match="throughput.wall.parallel_workers must be a whole number of at least 0, got "
                                         "null"):
        check_throughput_section({**section, "wall": {**section["wall"], "parallel_workers": None}})
    with pytest.raises(ValueError, match=r"bound_by must be 'loader' or 'model' or null, got 'disk'"):
        check_throughput_section({**section, "table": [{**section["table"][0], "bound_by": "disk"}]})
    with pytest.raises(ValueError, match="throughput.wall.priced must be true or false"):
        check_throughput_section({**section, "wall": {**section["wall"], "priced": "yes"}})
    assert set(SECTION_WALL_COLUMNS) == (set(LOADER_PARTS) | set(WALL_COLUMNS)) - {"bound_by"}


def _parts(model: float, first: float, later: float, handoff: float, epochs: float) -> pd.DataFrame:
    table = pd.DataFrame({
        "strategy": ["pyg_dataloader"], "steady_epoch_s": [model], "steady_low": [model / 1.1],
        "steady_high": [model * 1.1], "run_s": [model * epochs], "run_low": [model * epochs / 1.1],
        "run_high": [model * epochs * 1.1], "epochs_run": [epochs], "loader_first_epoch_s": [first],
        "loader_later_epoch_s": [later], "handoff_epoch_s": [handoff], "loader_band": [0.2]})
    table.attrs.update(baseline="pyg_dataloader", wall={"device_batches": False, "priced": True})
    return table.reindex(columns=COLUMNS)


seconds = st.floats(1e-4, 1e3)


@settings(max_examples=60, deadline=None)
@given(model=seconds, first=seconds, cached=st.floats(0.01, 1.0), handoff=st.floats(0, 10), epochs=st.floats(0.1, 20),
       workers=st.integers(1, 64))
def test_wall_time_is_never_below_either_part_and_without_workers_is_their_sum(model, first, cached, handoff, epochs,
                                                                             workers):
    later = first * cached  # copying a kept graph is cheaper than reading it the first time
    table = _parts(model, first, later, handoff, epochs)
    pooled = wall_time(table, workers).iloc[0]
    assert pooled["wall_steady_epoch_s"] >= model and pooled["wall_steady_epoch_s"] >= first / workers
    assert pooled["wall_run_s"] >= model * epochs * (1 - 1e-12)
    assert pooled["wall_run_s"] >= first / workers * epochs * (1 - 1e-12)
    assert pooled["wall_steady_low"] <= pooled["wall_steady_epoch_s"] <= pooled["wall_steady_high"]
    assert pooled["bound_by"] == ("loader" if first / workers > model else "model")
    alone = wall_time(table, 0).iloc[0]
    assert alone["wall_steady_epoch_s"] == pytest.approx(model + later)
    assert alone["wall_run_s"] == pytest.approx(model * epochs + first * min(epochs, 1) + later * max(epochs - 1, 0))
    assert 0 <= alone["loader_share"] < 1 and math.isclose(alone["loader_share"], later / (model + later), abs_tol=1e-9)


# ----------------------------------------------------------------- the Throughput page
def _page_on(cal) -> AppTest:
    """The Throughput page on ``cal``, listed as measured in this session (so not checked)."""
    at = AppTest.from_file("../app.py", default_timeout=180)
    at.run()
    key = state.SESSION + "measured now: a test calibration"
    at.session_state[state.SESSION_CALIBRATIONS] = {key: cal}
    at.session_state[state.THROUGHPUT] = {"calibration": key, "baseline": "pyg_dataloader"}
    at.switch_page("pages/throughput_page.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _chart_x(at: AppTest) -> list[float]:
    (chart,) = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    return chart["data"][0]["x"]


def test_the_page_shows_wall_time_by_default_and_model_time_one_click_away(shipped):
    at = _page_on(with_loaders(shipped, scale=20.0))
    main = at.dataframe[0]
    assert "wall_steady_epoch_s" in main.proto.column_order and "bound_by" in main.proto.column_order
    assert set(main.value["bound_by"]) <= {"loader", "model"}
    assert any(info.value.startswith("Wall time without loader workers") for info in at.info)
    wall_x = _chart_x(at)
    at.number_input(key="tp_workers").set_value(2).run()
    assert any(info.value.startswith("Wall time with 2 loader workers") for info in at.info)
    assert _chart_x(at) != wall_x
    at.toggle(key="tp_model_only").set_value(True).run()
    assert not at.exception
    main = at.dataframe[0]
    assert "steady_epoch_s" in main.proto.column_order and "wall_steady_epoch_s" not in main.proto.column_order
    assert _chart_x(at) == pytest.approx(main.value["steady_epoch_s"].tolist(), rel=5e-3)
    assert state.THROUGHPUT in at.session_state and at.session_state[state.THROUGHPUT]["workers"] == 2


def test_the_page_says_an_old_calibration_is_model_time_only(shipped):
    at = _page_on(shipped)
    assert any(info.value == MODEL_TIME_ONLY for info in at.info)
    assert "wall_steady_epoch_s" not in at.dataframe[0].proto.column_order


def test_the_pages_recommendation_minimises_wall_time_with_its_loader_workers(shipped):
    cal = with_loaders(shipped, scale=20.0)
    at = _page_on(cal)  # the calibration chosen before the dataset opened: its recommendation is the choice
    key = at.session_state[state.THROUGHPUT]["calibration"]
    hist = load_histogram("qm9")[0]
    assert chosen(at).recommended_for == (32, key, 0)
    assert chosen(at).limits == recommend(hist, 32, step_cost(cal, workers=0)).limits
    at.number_input(key="tp_workers").set_value(2).run()  # the recommendation follows the workers
    assert chosen(at).recommended_for == (32, key, 2)
    assert chosen(at).limits == recommend(hist, 32, step_cost(cal, workers=2)).limits
    at.toggle(key="tp_model_only").set_value(True).run()  # and model time, where the page shows it
    assert chosen(at).recommended_for == (32, key, None)
    assert chosen(at).limits == recommend(hist, 32, step_cost(cal)).limits


def test_a_step_cost_with_workers_prices_wall_time_with_the_packed_loader(shipped):
    cal = with_loaders(shipped, scale=20.0)
    assert step_cost(cal).source.endswith("model time only")  # as before: workers not given
    cost = step_cost(cal, workers=0)
    assert cost.source.endswith("wall time with the packed loader and 0 loader workers")
    fixed, node, _ = COSTS["packed"]
    assert cost([1000], [2000], [32])[0] == pytest.approx(
        cal.predict_step(1000, 2000, 32) + 20 * (fixed + node * 1000), rel=1e-6)
    pooled = step_cost(cal, workers=2)([1000], [2000], [32])[0]
    assert pooled >= max(cal.predict_step(1000, 2000, 32), 20 * (fixed + node * 1000) / 2)
    chosen = recommend(HIST, 32, cost)
    table = estimate(HIST, 32, cal, chosen.plan, packs_per_batch=chosen.packs_per_step).set_index("strategy")
    packing = table.loc["packing"]  # the estimate pads the epoch's last step: compare a step
    assert packing["wall_steady_epoch_s"] / packing["steps_per_epoch"] == pytest.approx(chosen.step_s, rel=1e-6)
    assert step_cost(shipped, workers=2).source.endswith("model time only")  # no loader timings
