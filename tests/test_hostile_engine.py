"""Hostile input round two (issue 37, items 8-10): a billion graphs of one size, large
histograms with progress, and limits at the engine's ceiling."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import packing.api
import packing.cli
from packing import MAX_LIMIT, MAX_PACK_LIMIT, BatchShape, PackLimits, PackMethod, SizeHistogram, pack, sweep
from packing.api import count_tuple_packs
from packing.batching.simulate import compare_batching
from packing.export import export_config
from packing.io import load_config
from packing.method import candidate_methods
from packing.search import fewest_packs
from packing.io import save_histogram

PROPERTY_SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BILLION = 10**9
ONE_BY_ONE = ("balanced",)  # deals graphs one by one and refuses histograms this large
ALGORITHMS = ("best_fit", "worst_fit", "first_fit", "published", "none", "node_only", "edge_only", "lp_rounding",
              "best")
INFO = {"dataset": "t", "split": "train", "source": "user file", "provenance": "test"}


def _random_histogram(tuples: int, seed: int = 0) -> SizeHistogram:
    rng = np.random.default_rng(seed)
    nodes, edges = rng.integers(1, 60, 4 * tuples), rng.integers(0, 150, 4 * tuples)
    _, first = np.unique(np.stack([nodes, edges], 1), axis=0, return_index=True)
    keep = np.sort(first)[:tuples]
    return SizeHistogram.from_counts(nodes[keep], edges[keep], np.ones(keep.size, dtype=np.int64))


# ----------------------------------------------------------------- item 8: memory follows sizes and packs
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_billion_graphs_of_one_size_pack_in_bounded_memory(algorithm):
    hist = SizeHistogram.from_counts([3], [2], [BILLION])
    limits = PackLimits(MAX_PACK_LIMIT, MAX_PACK_LIMIT, MAX_PACK_LIMIT)  # every graph fits one pack
    tracemalloc.start()
    try:
        plan = pack(hist, limits, PackMethod(algorithm))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20e6
    assert plan.check(hist) and plan.num_graphs == BILLION
    assert len(plan.packs) <= 2


def test_a_billion_graphs_that_fit_one_per_pack_are_one_strategy():
    plan = pack(SizeHistogram.from_counts([3], [2], [BILLION]), PackLimits(3, 2, 256), PackMethod("best"))
    assert plan.num_packs == BILLION and plan.packs == [(((3, 2, 1),), BILLION)]


def test_balanced_refuses_a_billion_graphs_by_name():
    with pytest.raises(ValueError, match="at most 20,000,000; this histogram has 1,000,000,000: use best_fit"):
        pack(SizeHistogram.from_counts([3], [2], [BILLION]), PackLimits(100, 100, 100), PackMethod(ONE_BY_ONE[0]))


@st.composite
def crowded_histograms(draw):
    """Few sizes with huge counts, under limits that hold up to millions of graphs a pack."""
    tuples = draw(st.integers(1, 5))
    nodes = draw(st.lists(st.integers(1, 50), min_size=tuples, max_size=tuples))
    edges = draw(st.lists(st.integers(0, 80), min_size=tuples, max_size=tuples))
    counts = draw(st.lists(st.integers(1, 10**12), min_size=tuples, max_size=tuples))
    hist = SizeHistogram.from_counts(nodes, edges, counts)
    limits = PackLimits(draw(st.integers(hist.largest_nodes, 10**8)), draw(st.integers(max(hist.largest_edges, 1), 10**8)),
                        draw(st.integers(1, MAX_PACK_LIMIT)))
    return hist, limits


@PROPERTY_SETTINGS
@given(crowded_histograms(), st.sampled_from([a for a in ALGORITHMS if a not in ("best", "lp_rounding")]))
def test_huge_counts_pack_every_graph_once_within_the_limits(case, algorithm):
    hist, limits = case
    plan = pack(hist, limits, PackMethod(algorithm))
    assert plan.check(hist)  # every graph exactly once, no pack over a limit the method keeps
    assert plan.histogram == hist and plan.num_graphs == hist.num_graphs
    assert all(len(items) <= hist.num_tuples for items, _ in plan.packs)  # sizes, never graphs


# ----------------------------------------------------------------- item 9: large histograms, progress
def test_best_of_all_reports_progress_and_what_it_skipped(monkeypatch):
    hist = _random_histogram(300)
    monkeypatch.setattr(packing.api, "FULL_SEARCH_UP_TO_TUPLES", 100)
    told: list[tuple[float, str]] = []
    plan = pack(hist, method=PackMethod("best"), progress=lambda fraction, message: told.append((fraction, message)))
    fractions = [fraction for fraction, _ in told]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(told) >= 3
    assert "methods tried" in told[0][1] and plan.label in told[-1][1]
    assert plan.method.algorithm == "best_fit" and plan.check(hist)
    assert len(plan.skipped) == len(candidate_methods()) - 6 and "300 distinct sizes" in plan.skipped[0]
    assert plan.summary()["skipped"] == list(plan.skipped)


def test_best_of_all_on_few_sizes_tries_everything():
    plan = pack(_random_histogram(50), method=PackMethod("best"))
    assert plan.skipped == () and plan.summary()["skipped"] == []


def test_the_search_in_processes_finds_what_one_process_finds():
    hist = _random_histogram(400, seed=3)
    limits = PackLimits.for_histogram(hist)
    candidates = candidate_methods()
    here = fewest_packs(hist, limits, candidates, 1, count_tuple_packs, workers=1)
    assert fewest_packs(hist, limits, candidates, 1, count_tuple_packs, workers=2) == here


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "h.csv"
    save_histogram(_random_histogram(200), path)
    return path


def test_the_command_line_prints_packing_progress_on_stderr(table, capsys, monkeypatch):
    monkeypatch.setattr(packing.cli, "QUIET_FOR_S", 0.0)
    assert packing.cli.run(["pack", str(table), "--algorithm", "best"]) == 0
    err = [line for line in capsys.readouterr().err.splitlines() if line]  # tqdm's updates, each after a carriage return
    assert err[0].startswith("packing:   0%|") and err[-1].startswith("packing: 100%|")
    assert err[-1].endswith("packs (best of all: best fit, product heuristic)")  # the engine's last message


def test_the_command_line_prints_sweep_progress_on_stderr(table, capsys, monkeypatch):
    monkeypatch.setattr(packing.cli, "QUIET_FOR_S", 0.0)
    assert packing.cli.run(["sweep", str(table), "--nodes", "60,120", "--edges", "150,300", "--workers", "1"]) == 0
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("sweeping: 100%|") and " 4/4 " in last


def test_quick_runs_print_no_progress(table, capsys):
    assert packing.cli.run(["pack", str(table)]) == 0
    assert capsys.readouterr().err == ""


# ----------------------------------------------------------------- item 10: one ceiling for limits
@pytest.mark.parametrize("field", ["max_nodes", "max_edges", "max_graphs"])
def test_a_limit_of_the_size_ceiling_is_refused_where_it_is_given(field):
    values = {"max_nodes": 10, "max_edges": 10, "max_graphs": 4, field: MAX_LIMIT}
    with pytest.raises(ValueError, match=f"{field} must lie between 1 and 1,099,511,627,775, got 1,099,511,627,776"):
        PackLimits(**values)
    with pytest.raises(ValueError, match="node limit must lie between 1 and 1,099,511,627,775"):
        sweep(SizeHistogram.from_sizes([3], [4]), [MAX_LIMIT], [8], workers=1)


def test_the_command_line_refuses_a_limit_of_the_size_ceiling(table, capsys):
    assert packing.cli.run(["pack", str(table), "--max-nodes", str(MAX_LIMIT)]) == 2
    assert "1,099,511,627,775" in capsys.readouterr().err


@pytest.mark.parametrize("limits", [(MAX_PACK_LIMIT, MAX_PACK_LIMIT, MAX_PACK_LIMIT), (MAX_PACK_LIMIT, 10, 4),
                                    (10, 10, MAX_PACK_LIMIT)])
def test_the_largest_limits_work_end_to_end(limits):
    hist = SizeHistogram.from_counts([3, 5], [4, 0], [10, 20])
    plan = pack(hist, PackLimits(*limits))
    assert plan.check(hist)
    shape = BatchShape.for_limits(plan.limits)
    assert max(shape) <= MAX_LIMIT and shape.num_nodes == plan.limits.max_nodes + 1
    assert load_config(export_config(plan, hist, INFO))[1] == plan
    assert len(compare_batching(hist, 4, plan)) > 1


def test_packs_per_step_beyond_the_ceiling_name_what_the_user_gave():
    with pytest.raises(ValueError, match="2 packs per step of up to 1,099,511,627,775 edges each need "
                                         "2,199,023,255,550 edges in a batch, .*at most 549,755,813,888"):
        BatchShape.for_limits(PackLimits(10, MAX_PACK_LIMIT, 4), packs_per_step=2)


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_pack_with_out_says_what_it_wrote_and_what_the_plan_is(tmp_path, capsys, suffix):
    sizes = tmp_path / "sizes.csv"
    sizes.write_text("num_nodes,num_edges\n3,4\n2,2\n3,4\n")
    out = tmp_path / f"plan{suffix}"
    assert packing.cli.run(["pack", str(sizes), "--max-nodes", "5", "--max-edges", "6", "--out", str(out)]) == 0
    printed = capsys.readouterr().out.strip()
    assert printed == (f"wrote {out}: 2 packs (best fit, product heuristic; 5 nodes, 6 edges, 256 graphs): node "
                       "efficiency 80.00%, edge efficiency 83.33%, harmonic mean 81.63%; lower bound 2 (volume "
                       "bound), gap 0.00%") and out.exists()
