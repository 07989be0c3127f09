"""Property tests: every algorithm, heuristic and baseline on random histograms and limits.

Invariants: every graph is packed exactly once, no pack breaks a limit, counts are
conserved, the plan never beats the lower bound, and plans survive a JSON round trip.
"""
import json

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packing import HEURISTICS, TUPLE_ALGORITHMS, PackLimits, PackMethod, PackingPlan, SizeHistogram, pack, sweep
from packing.method import ONE_DIM_ALGORITHMS
from packing.api import plan_from_strategies
from packing.exact_fill import exact_fill_pack
from packing.greedy import count_packs

PROPERTY_SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def histogram_and_limits(draw):
    rows = draw(st.lists(
        st.tuples(st.integers(0, 30), st.integers(0, 70), st.integers(1, 60)), min_size=1, max_size=25))
    rows = [(n, e if n else 0, c) for n, e, c in rows]  # an edge needs a node
    nodes, edges, counts = (np.array(v) for v in zip(*rows))
    hist = SizeHistogram.from_counts(nodes, edges, counts)
    max_nodes = draw(st.integers(max(1, hist.largest_nodes), max(1, hist.largest_nodes) * 4))
    max_edges = draw(st.integers(max(1, hist.largest_edges), max(1, hist.largest_edges) * 4))
    max_graphs = draw(st.integers(1, 40))
    return hist, PackLimits(max_nodes, max_edges, max_graphs)


def assert_valid(plan: PackingPlan, hist: SizeHistogram) -> None:
    assert plan.check(hist)
    assert plan.gap >= 0 and abs(sum(plan.closing_limit_shares().values()) - 1) < 1e-9
    assert plan.num_graphs == hist.num_graphs
    assert plan.total_nodes == hist.total_nodes and plan.total_edges == hist.total_edges
    assert plan.num_packs >= plan.lower_bound
    assert 0 < plan.node_efficiency <= 1 or hist.total_nodes == 0
    assert 0 <= plan.edge_efficiency <= 1
    assert all(count > 0 for _, count in plan.packs)
    restored = PackingPlan.from_dict(json.loads(json.dumps(plan.to_dict())))
    assert restored == plan and restored.check(hist)


@PROPERTY_SETTINGS
@given(histogram_and_limits(), st.sampled_from(sorted(HEURISTICS)), st.sampled_from(TUPLE_ALGORITHMS))
def test_tuple_packing_invariants(case, heuristic, algorithm):
    hist, limits = case
    method = PackMethod(algorithm, heuristic)
    plan = pack(hist, limits, method)
    assert_valid(plan, hist)
    assert plan.limits == limits and plan.method == method
    assert count_packs(hist.num_nodes, hist.num_edges, hist.counts, limits, method.heuristic_key(),
                       algorithm) == plan.num_packs


@PROPERTY_SETTINGS
@given(histogram_and_limits(), st.floats(0.01, 10), st.floats(0.01, 10))
def test_weighted_heuristic_invariants(case, node_weight, edge_weight):
    hist, limits = case
    assert_valid(pack(hist, limits, PackMethod(heuristic="weighted", weights=(node_weight, edge_weight))), hist)


@PROPERTY_SETTINGS
@given(histogram_and_limits(), st.sampled_from(["node_only", "edge_only"]), st.sampled_from(ONE_DIM_ALGORITHMS))
def test_one_dimensional_baseline_invariants(case, baseline, one_dim):
    hist, limits = case
    plan = pack(hist, limits, PackMethod(baseline, one_dim=one_dim))
    assert plan.check(hist)
    assert plan.num_graphs == hist.num_graphs
    limited = plan.pack_nodes if baseline == "node_only" else plan.pack_edges
    assert limited.max() <= (limits.max_nodes if baseline == "node_only" else limits.max_edges)
    assert plan.pack_graphs.max() <= limits.max_graphs
    assert PackingPlan.from_dict(plan.to_dict()) == plan
    # Metrics: the bound ignores the unlimited component, so the gap is never negative.
    assert plan.gap >= 0
    assert 0 <= plan.node_efficiency <= 1 and 0 <= plan.edge_efficiency <= 1
    shares = plan.closing_limit_shares()
    assert abs(sum(shares.values()) - 1) < 1e-9
    assert shares["edges" if baseline == "node_only" else "nodes"] == 0


@PROPERTY_SETTINGS
@given(histogram_and_limits())
def test_none_baseline_and_best_plan(case):
    hist, limits = case
    none = pack(hist, limits, PackMethod("none"))
    assert none.num_packs == hist.num_graphs and none.check(hist)
    best = pack(hist, limits, PackMethod("best"))
    assert_valid(best, hist)
    assert best.requested == PackMethod("best") and (best.method.is_tuple_packing or best.method.algorithm == "balanced")
    for heuristic in HEURISTICS:
        for algorithm in TUPLE_ALGORITHMS:
            assert best.num_packs <= pack(hist, limits, PackMethod(algorithm, heuristic)).num_packs


@settings(max_examples=15, deadline=None)
@given(histogram_and_limits())
def test_sweep_cells_equal_single_packs(case):
    hist, limits = case
    node_limits = [limits.max_nodes, limits.max_nodes + 7]
    edge_limits = [max(1, hist.largest_edges - 1), limits.max_edges]
    frame = sweep(hist, node_limits, edge_limits, max_graphs=limits.max_graphs, workers=1)
    assert len(frame) == len(set(node_limits)) * len(set(edge_limits))
    for row in frame.itertuples():
        if row.max_edges < hist.largest_edges:
            assert not row.feasible
            continue
        plan = pack(hist, PackLimits(row.max_nodes, row.max_edges, limits.max_graphs))
        assert row.packs == plan.num_packs
        assert np.isclose(row.harmonic_mean, plan.harmonic_mean)
        assert (row.lower_bound, row.bound) == (plan.lower_bound, plan.bound_name)


@PROPERTY_SETTINGS
@given(histogram_and_limits(), st.sampled_from(sorted(HEURISTICS)), st.sampled_from(TUPLE_ALGORITHMS))
def test_improvement_never_adds_packs_and_keeps_invariants(case, heuristic, algorithm):
    hist, limits = case
    plain = pack(hist, limits, PackMethod(algorithm, heuristic))
    improved = pack(hist, limits, PackMethod(algorithm, heuristic, improve=True))
    assert_valid(improved, hist)
    assert improved.num_packs <= plain.num_packs
    assert improved.improved == (improved.num_packs < plain.num_packs)


@PROPERTY_SETTINGS
@given(histogram_and_limits(), st.booleans(), st.integers(0, 2000))
def test_exact_fill_alone_packs_every_graph_once(case, stop_when_full, budget):
    hist, limits = case
    strategies = exact_fill_pack(hist.num_nodes, hist.num_edges, hist.counts, limits, budget, stop_when_full)
    assert_valid(plan_from_strategies(hist, strategies, limits, PackMethod()), hist)


GREEDY_METHODS = [PackMethod(algorithm, heuristic) for algorithm in (*TUPLE_ALGORITHMS, "published")
                  for heuristic in sorted(HEURISTICS)] + [PackMethod(baseline, one_dim=one_dim)
                                                           for baseline in ("node_only", "edge_only")
                                                           for one_dim in ONE_DIM_ALGORITHMS]


@PROPERTY_SETTINGS
@given(histogram_and_limits(), st.sampled_from(GREEDY_METHODS))
def test_a_graph_limit_of_graphs_that_fit_packs_the_same_packs(case, method):
    """No pack holds more than ``graphs_that_fit`` graphs, so a graph limit at or above it
    never binds: lowering it to that changes no pack of the greedy algorithms and the 1D
    baselines (the Batching page checks any other method before it offers the lower limit)."""
    hist, limits = case
    plan = pack(hist, limits, method)
    fit = plan.graphs_that_fit
    assert plan.pack_graphs.max() <= fit
    if limits.max_graphs >= fit:
        lowered = pack(hist, PackLimits(limits.max_nodes, limits.max_edges, fit), method)
        assert lowered.packs == plan.packs
