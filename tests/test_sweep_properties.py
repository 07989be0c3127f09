"""Property tests for sweeps and bounds: every sweep cell is the number an independent
``pack()`` gives (packs and efficiencies), the lockstep best fit counts what best fit
counts cell by cell, and no bound (cheap, proven, or a sweep's bound column) is ever above
a plan."""
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packing import (
    HEURISTICS,
    TUPLE_ALGORITHMS,
    PackLimits,
    PackMethod,
    SizeHistogram,
    lower_bounds,
    pack,
    sweep,
)
from packing.best_fit_grid import count_best_fit_grid, graphs_can_bind
from packing.greedy import count_packs
from packing.histogram import most_graphs_per_pack
from packing.method import published_methods
from packing.sweep import LOCKSTEP_CHUNK, MAX_AXIS, limit_grid

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def histograms(draw, max_rows: int = 20) -> SizeHistogram:
    rows = draw(st.lists(st.tuples(st.integers(0, 25), st.integers(0, 60), st.integers(1, 40)),
                         min_size=1, max_size=max_rows))
    rows = [(n, e if n else 0, c) for n, e, c in rows]  # an edge needs a node
    nodes, edges, counts = (np.array(values) for values in zip(*rows))
    return SizeHistogram.from_counts(nodes, edges, counts)


@st.composite
def histogram_and_grid(draw):
    """A histogram and a small grid of limits, some of them below its largest graph."""
    hist = draw(histograms())
    low_n, low_e = max(hist.largest_nodes, 1), max(hist.largest_edges, 1)
    node_limits = draw(st.lists(st.integers(max(1, low_n - 3), 4 * low_n), min_size=1, max_size=3, unique=True))
    edge_limits = draw(st.lists(st.integers(max(1, low_e - 3), 4 * low_e), min_size=1, max_size=3, unique=True))
    return hist, sorted(node_limits), sorted(edge_limits), draw(st.integers(1, 30))


tuple_methods = st.one_of(
    st.builds(PackMethod, st.sampled_from(TUPLE_ALGORITHMS), st.sampled_from(sorted(HEURISTICS))),
    st.sampled_from(published_methods()),
)


def assert_cells_match_pack(frame, hist: SizeHistogram, method: PackMethod) -> None:
    for row in frame.itertuples():
        limits = PackLimits(row.max_nodes, row.max_edges, row.max_graphs)
        assert row.feasible == limits.fits(hist)
        if not row.feasible:
            continue
        plan = pack(hist, limits, method)
        assert row.packs == plan.num_packs
        assert row.node_efficiency == plan.node_efficiency
        assert row.edge_efficiency == plan.edge_efficiency
        assert row.lower_bound == lower_bounds(hist, limits).best <= row.packs


@SETTINGS
@given(histogram_and_grid(), st.sampled_from(sorted(HEURISTICS)))
def test_best_fit_sweep_cells_equal_independent_plans(case, heuristic):
    hist, node_limits, edge_limits, max_graphs = case
    method = PackMethod("best_fit", heuristic)
    frame = sweep(hist, node_limits, edge_limits, max_graphs, method, workers=1)
    assert len(frame) == len(node_limits) * len(edge_limits)
    assert_cells_match_pack(frame, hist, method)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(histogram_and_grid(), tuple_methods)
def test_every_algorithm_sweep_cells_equal_independent_plans(case, method):
    hist, node_limits, edge_limits, max_graphs = case
    frame = sweep(hist, node_limits, edge_limits, max_graphs, method, workers=1)
    assert_cells_match_pack(frame, hist, method)


@SETTINGS
@given(histograms(max_rows=30), st.sampled_from(sorted(HEURISTICS)), st.data())
def test_lockstep_best_fit_counts_what_best_fit_counts(hist, heuristic, data):
    low_n, low_e = max(hist.largest_nodes, 1), max(hist.largest_edges, 1)
    limits = [PackLimits(data.draw(st.integers(low_n, 5 * low_n)), data.draw(st.integers(low_e, 5 * low_e)),
                         data.draw(st.integers(1, 50))) for _ in range(data.draw(st.integers(1, 12)))]
    counts = count_best_fit_grid(hist.num_nodes, hist.num_edges, hist.counts, limits, HEURISTICS[heuristic])
    expected = [count_packs(hist.num_nodes, hist.num_edges, hist.counts, limit, HEURISTICS[heuristic])
                for limit in limits]
    assert counts.tolist() == expected


@SETTINGS
@given(histograms(), st.data())
def test_graph_limit_test_agrees_with_greedy(hist, data):
    limits = [PackLimits(data.draw(st.integers(max(hist.largest_nodes, 1), 200)),
                         data.draw(st.integers(max(hist.largest_edges, 1), 400)), data.draw(st.integers(1, 300)))
              for _ in range(5)]
    binds = graphs_can_bind(hist.num_nodes, hist.num_edges, hist.counts, limits)
    expected = [most_graphs_per_pack(hist.num_nodes, hist.num_edges, hist.counts, limit.max_nodes, limit.max_edges)
                > limit.max_graphs for limit in limits]
    assert binds.tolist() == expected


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(histogram_and_grid(), tuple_methods)
def test_no_bound_is_above_any_plan(case, method):
    hist, node_limits, edge_limits, max_graphs = case
    frame = sweep(hist, node_limits, edge_limits, max_graphs, method, workers=1)
    for row in frame[frame["feasible"].astype(bool)].itertuples():
        limits = PackLimits(row.max_nodes, row.max_edges, row.max_graphs)
        plans = [pack(hist, limits, PackMethod(algorithm, heuristic))
                 for algorithm in TUPLE_ALGORITHMS for heuristic in ("product", "sum", "node")]
        plans += [pack(hist, limits, method), pack(hist, limits, PackMethod("best"))]
        fewest = min(plan.num_packs for plan in plans)
        cheap = lower_bounds(hist, limits)
        assert cheap.best == row.lower_bound <= fewest
        proven = lower_bounds(hist, limits, prove=True, time_budget=5.0)
        assert proven.lp is not None and proven.lp <= proven.best <= fewest


def test_sweep_on_an_executor_equals_the_local_sweep():
    hist = SizeHistogram.from_counts([3, 5, 7, 9, 2], [4, 9, 12, 20, 1], [40, 30, 20, 10, 50])
    nodes, edges = list(range(9, 60)), list(range(20, 70, 5))
    local = sweep(hist, nodes, edges, 16, workers=1)
    with ThreadPoolExecutor(max_workers=2) as pool:
        shared = sweep(hist, nodes, edges, 16, executor=pool, workers=4)
    assert shared.equals(local)
    assert len(local) > LOCKSTEP_CHUNK  # more than one lockstep chunk


def test_lockstep_refuses_counts_it_cannot_sum_exactly():
    with pytest.raises(ValueError, match="count each limit pair"):
        count_best_fit_grid(np.array([1]), np.array([1]), np.array([2**45]), [PackLimits(4, 4, 2**10)],
                            HEURISTICS["sum"])


def test_limits_too_large_for_whole_number_ranks_are_counted_cell_by_cell():
    # node limit x edge limit = 2**53: the lockstep pass's ranks would no longer be exact
    hist = SizeHistogram.from_counts([3, 5, 7], [4, 9, 12], [40, 30, 20])
    with pytest.raises(ValueError, match="too large limits"):
        count_best_fit_grid(hist.num_nodes, hist.num_edges, hist.counts, [PackLimits(2**26, 2**27, 4)],
                            HEURISTICS["sum"])
    frame = sweep(hist, [2**26], [2**26, 2**27], 4)
    assert frame["packs"].tolist() == [23, 23]
    assert_cells_match_pack(frame, hist, PackMethod())


@settings(max_examples=30, deadline=None)
@given(start=st.integers(1, 1000), step=st.integers(1, 4), steps=st.integers(-2, 2), past=st.integers(0, 3))
def test_a_limit_range_is_refused_exactly_when_it_holds_more_than_max_axis_values(start, step, steps, past):
    stop = start + step * (MAX_AXIS - 1 + steps) + min(past, step - 1)  # around MAX_AXIS values, on or off the steps
    on_steps = list(range(start, stop + 1, step))
    wanted = on_steps + ([] if on_steps[-1] == stop else [stop])
    if len(wanted) > MAX_AXIS:
        with pytest.raises(ValueError, match=f"more than {MAX_AXIS:,} values"):
            limit_grid(start, stop, step)
    else:
        assert limit_grid(start, stop, step) == wanted
