"""Loader costs in a calibration (issue 39, item 1): fitted from real timings of PyG's
collate, the packed loader's gather and pad and the hand-off from a worker process; stored
in the calibration file, verified on load, checked on this machine and on the command line."""
from __future__ import annotations

import dataclasses
import json
import multiprocessing
import statistics
import time
from typing import Any

import pytest

from data_loaders import PackedLoader
from packing import PackLimits, SizeHistogram, pack
from throughput import Calibration, calibrate, check_calibration, load_calibration
from throughput.calibration import SHIPPED, digest
from throughput.cli import run
from throughput.fit import fit_cost_model
from throughput.loader_cost import _dataset, calibrate_loaders, loader_shapes, time_loader
from throughput.loader_kinds import LOADERS, TIMED_DATA

#: 2 x 3 graphs per batch and graph sizes: small enough to time in a second or two, varied
#: enough (4 to 512 nodes a batch) that every cost grows across it.
GRID = loader_shapes((4, 32), ((5, 8), (20, 44), (60, 130)))
#: GIN (hidden 4, 1 layer) at 6 shapes up to 64 nodes, for the command line.
TINY = ["--hidden", "4", "--layers", "1", "--shapes", "6", "--max-nodes", "64", "--max-edges", "128",
        "--max-graphs", "4", "--threads", "1"]
#: The Intel calibration ships without loader timings (older file).
WITHOUT_LOADERS = SHIPPED / "intel-r-xeon-r-processor__gin-h64-l3__eager.json"


@pytest.fixture(scope="module")
def costs():
    return calibrate_loaders("cpu", GRID, budget=0.03, long_epoch_graphs=1280)


@pytest.fixture(scope="module")
def with_loaders(costs) -> Calibration:
    """A small GIN calibration of this CPU carrying the loader costs of :data:`GRID`."""
    steps = calibrate(hidden=4, layers=1, shapes=[(n, 2 * n, 2) for n in (8, 16, 24, 32, 40, 48)], warmup=1,
                      repeats=3, threads=1, loaders=False)
    info = {"grid": [list(row) for row in GRID], "threads": 1, "budget_seconds": 0.03, "device": "cpu",
            "data": dict(TIMED_DATA)}
    return dataclasses.replace(steps, loaders=costs, loader_info=info)


def resealed(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with its digest recomputed, as anyone can: only the content checks stand."""
    body = {key: value for key, value in data.items() if key != "digest"}
    return {**body, "digest": digest(body)}


def test_every_kind_is_fitted_from_its_own_timings_which_vary_with_the_shape(costs):
    assert list(costs) == list(LOADERS)
    for kind, cost in costs.items():
        refit = fit_cost_model([t.shape for t in cost.timings], [t.median for t in cost.timings])
        assert cost.fit == refit, kind
        assert len({t.shape for t in cost.timings}) == len(GRID), kind
        assert all(t.repeats >= 5 and t.fastest <= t.p25 <= t.median <= t.p75 for t in cost.timings), kind
    for kind, growth in (("pyg_first", 3), ("pyg_cached", 2), ("packed", 1.2)):  # real work: no constants
        medians = [t.median for t in costs[kind].timings]
        assert max(medians) > growth * min(medians), (kind, medians)


def test_pyg_collate_grows_with_graphs_and_the_fit_predicts_held_out_shapes(costs):
    first = {tuple(t.shape): t.median for t in costs["pyg_first"].timings}
    for nodes, edges in ((5, 8), (20, 44), (60, 130)):  # collate is per graph: 32 graphs cost well over 4
        assert first[(32 * nodes, 32 * edges, 32)] > 2.5 * first[(4 * nodes, 4 * edges, 4)]
    for kind in ("pyg_first", "pyg_cached"):
        assert costs[kind].fit.held_out["p90"] < 0.75, costs[kind].fit.held_out  # 0.1-0.3 quiet, 0.5+ once loaded


def test_a_packed_timing_is_what_its_real_iterator_takes():
    count, nodes, edges = 32, 20, 44
    timing = time_loader("packed", count, nodes, edges, budget=0.1)
    hist = SizeHistogram.from_counts([nodes], [edges], [count * 6])
    loader = PackedLoader(_dataset(count, nodes, edges, 6, 0), pack(hist, PackLimits(count * nodes, count * edges,
                                                                                      count)))
    times = []
    for _ in range(20):
        start = time.perf_counter()
        for _ in loader:
            pass
        times.append((time.perf_counter() - start) / len(loader))
    assert tuple(timing.shape) == tuple(loader.shape)
    assert 0.6 < timing.median / statistics.median(times) < 1.67, (timing.median, statistics.median(times))


def test_the_hand_off_ends_its_worker_process():
    timing = time_loader("handoff", 4, 5, 8, budget=0.01)
    assert timing.repeats >= 15 and timing.median > 0
    assert multiprocessing.active_children() == []


def test_a_calibration_with_loaders_survives_its_file(with_loaders, tmp_path):
    path = with_loaders.save(tmp_path / "cal.json")
    data = json.loads(path.read_text())
    assert set(data["loaders"]) == {"grid", "threads", "budget_seconds", "device", "data", "kinds"}
    assert data["loaders"]["data"]["x"].startswith("9 atom features") and data["loaders"]["threads"] == 1
    back = load_calibration(path)
    assert list(back.loaders) == list(LOADERS) and back.loader_info == with_loaders.loader_info
    for kind, cost in with_loaders.loaders.items():
        assert back.loaders[kind].timings == cost.timings
        assert back.loaders[kind].describe() == cost.describe()
    summary = back.summary()["loaders"]
    assert summary["packed"]["model"].startswith("batch = ") and summary["handoff"]["held_out_p90"] >= 0


def test_first_reads_carry_the_long_epoch_factor_measured_and_kept_in_the_file(with_loaders, tmp_path):
    """PyG's first reads are priced at the short epochs' fit times the factor one long epoch
    measured (the garbage collector's share); the other kinds at their fit."""
    first = with_loaders.loaders["pyg_first"]
    assert first.long_run_factor >= 1.0
    assert all(with_loaders.loaders[kind].long_run_factor == 1.0 for kind in LOADERS if kind != "pyg_first")
    shapes = [(1000, 2000, 40)]
    assert first.predict(shapes)[0] == pytest.approx(first.long_run_factor * first.fit.predict(shapes)[0])
    back = load_calibration(with_loaders.save(tmp_path / "cal.json"))
    assert back.loaders["pyg_first"].long_run_factor == first.long_run_factor


def test_a_file_without_loaders_loads_as_model_time_only():
    cal = load_calibration(WITHOUT_LOADERS)
    assert cal.loaders is None and cal.loader_info is None
    assert "loaders" not in cal.summary() and "loaders" not in cal.to_dict()


def damaged(cal: Calibration, change: Any) -> dict[str, Any]:
    data = cal.to_dict()
    change(data["loaders"])
    return resealed(data)


def _slower(section: dict[str, Any]) -> None:
    row = section["kinds"]["packed"]["timings"][0]
    row.update(median=row["median"] * 3, p75=row["p75"] * 3)


@pytest.mark.parametrize("change, message", [
    (_slower, "loaders.kinds.packed.fit is not the fit of its timings."),
    (lambda s: s["kinds"].update(dask=s["kinds"]["packed"]), "loaders.kinds must hold exactly the loader kinds"),
    (lambda s: s["kinds"].pop("handoff"), "loaders.kinds must hold exactly the loader kinds"),
    (lambda s: s["grid"].__setitem__(0, [2**20, 60, 130]), "loaders.grid[0]"),
    (lambda s: s["kinds"]["pyg_first"]["timings"].pop(), "loaders.kinds.pyg_first.timings must hold one row per"),
    (lambda s: s["kinds"]["pyg_cached"]["timings"][2].update(median=-1.0),
     "loaders.kinds.pyg_cached.timings[2].median"),
    (lambda s: s.update(threads=0), "loaders.threads"),
    (lambda s: s["kinds"]["pyg_first"].update(long_run_factor=0.5), "loaders.kinds.pyg_first.long_run_factor must lie"),
    (lambda s: s.pop("data"), "loaders must be an object of grid"),
])
def test_a_damaged_loaders_section_is_refused_naming_it(with_loaders, change, message):
    with pytest.raises(ValueError) as error:
        load_calibration(damaged(with_loaders, change))
    assert "its loaders section is damaged" in str(error.value) and message in str(error.value), str(error.value)


def test_an_edited_loaders_section_fails_the_digest(with_loaders):
    data = with_loaders.to_dict()
    _slower(data["loaders"])
    with pytest.raises(ValueError, match="digest does not match"):
        load_calibration(data)


def test_the_check_times_the_loaders_again(with_loaders):
    check = check_calibration(with_loaders, seconds=0.2)
    assert [kind.loader for kind in check.loaders] == list(LOADERS)
    for kind in check.loaders:
        assert len(kind.shapes) == 3 and kind.ratio_median > 0 and kind.band >= 0.25
    assert check.within_band == (check.steps_within_band and all(kind.within_band for kind in check.loaders))
    assert "Loaders, measured / predicted per batch: pyg_first" in check.describe()
    assert [entry["loader"] for entry in check.to_dict()["loaders"]] == list(LOADERS)


def test_a_check_of_a_file_without_loaders_is_of_its_steps():
    steps = calibrate(hidden=4, layers=1, shapes=[(n, 2 * n, 2) for n in (8, 16, 24, 32, 40, 48)], warmup=1,
                      repeats=3, threads=1, loaders=False)
    check = check_calibration(steps, seconds=0.2)
    assert check.loaders is None and check.to_dict()["loaders"] is None and "Loaders" not in check.describe()


def test_the_command_line_times_prints_and_checks_the_loaders(tmp_path, capsys):
    out = tmp_path / "cal.json"
    assert run(["calibrate", *TINY, "--loader-budget", "0.01", "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert "loader pyg_first: batch = " in printed.out and "loader handoff: batch = " in printed.out
    assert "timing loaders: 100%|" in printed.err and "45/45" in printed.err  # progress: 5 kinds x 9 rows
    cal = load_calibration(out)
    assert cal.loader_info["budget_seconds"] == 0.01 and cal.loader_info["threads"] == 1
    run(["check", str(out), "--seconds", "0.2"])
    assert "loader handoff" in capsys.readouterr().out


def test_no_loaders_on_the_command_line(tmp_path, capsys):
    out = tmp_path / "cal.json"
    assert run(["calibrate", *TINY, "--no-loaders", "--out", str(out)]) == 0
    assert "loaders: not timed" in capsys.readouterr().out
    assert load_calibration(out).loaders is None and "loaders" not in json.loads(out.read_text())
    assert run(["calibrate", *TINY, "--no-loaders", "--loader-budget", "0.1", "--out", str(tmp_path / "b.json")]) == 2
    assert "does not go with --no-loaders" in capsys.readouterr().err
    assert run(["calibrate", *TINY, "--loader-budget", "0", "--out", str(tmp_path / "c.json")]) == 2
    assert "--loader-budget must be above 0" in capsys.readouterr().err
