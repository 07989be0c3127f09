"""Proven lower bounds: every bound is at most the packs of every plan the engine makes and
at most the true optimum (by scipy.optimize.milp on the pattern formulation of small
cases); the LP bound stays valid when stopped early, reports progress and is cached."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import Bounds as VariableBounds
from scipy.optimize import LinearConstraint, linprog, milp

from data_loaders import load_histogram
from packing import HEURISTICS, TUPLE_ALGORITHMS, Bounds, PackLimits, PackMethod, SizeHistogram, lower_bounds, pack
from packing.column_generation import lp_bound
from packing.simple_bounds import lower_bound
from packing.simple_bounds import incompatible_bound, large_items_bound, martello_toth_l2
from packing.column_generation import clear_cache, lp_bound_from_certificate, proven_ceiling, verify_certificate
from packing.method import published_methods
from packing.words import bound_words

from test_packing_properties import histogram_and_limits


def all_patterns(hist: SizeHistogram, limits: PackLimits) -> list[tuple[int, ...]]:
    """Every pack the limits allow: copies per histogram row, at most the row's count."""
    ranges = [range(min(int(c), limits.max_graphs) + 1) for c in hist.counts]
    patterns = []
    for copies in itertools.product(*ranges):
        a = np.array(copies)
        if 0 < a.sum() <= limits.max_graphs and a @ hist.num_nodes <= limits.max_nodes \
                and a @ hist.num_edges <= limits.max_edges:
            patterns.append(copies)
    return patterns


def optimum_and_lp(hist: SizeHistogram, limits: PackLimits) -> tuple[int, float]:
    """The fewest packs (integer program over every pattern) and the LP relaxation's value."""
    matrix = np.array(all_patterns(hist, limits), dtype=float).T
    cost, counts = np.ones(matrix.shape[1]), hist.counts.astype(float)
    best = milp(cost, constraints=LinearConstraint(matrix, counts, counts), integrality=np.ones_like(cost),
                bounds=VariableBounds(0, np.inf))
    relaxed = linprog(cost, A_ub=-matrix, b_ub=-counts, bounds=(0, None), method="highs")
    assert best.status == 0 and relaxed.status == 0
    return round(best.fun), relaxed.fun


@st.composite
def tiny_cases(draw):
    rows = draw(st.lists(st.tuples(st.integers(1, 8), st.integers(0, 12), st.integers(1, 4)), min_size=1, max_size=4))
    hist = SizeHistogram.from_counts(*zip(*rows))
    return hist, PackLimits(draw(st.integers(hist.largest_nodes, 2 * hist.largest_nodes + 3)),
                            draw(st.integers(max(1, hist.largest_edges), 2 * hist.largest_edges + 3)),
                            draw(st.integers(1, 6)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_cases())
def test_bounds_never_exceed_the_optimum_of_the_pattern_formulation(case):
    hist, limits = case
    optimum, lp_value = optimum_and_lp(hist, limits)
    bounds = lower_bounds(hist, limits, prove=True, time_budget=10)
    assert bounds.volume <= bounds.large_items <= bounds.best <= optimum
    assert bounds.lp <= optimum and bounds.best == max(bounds.volume, bounds.large_items, bounds.lp)
    if bounds.lp_result.converged:  # then the LP bound is the ceiling of the LP optimum
        assert bounds.lp == proven_ceiling(lp_value)
    assert bounds.lp >= proven_ceiling(lp_value) or not bounds.lp_result.converged
    for method in [PackMethod("best"), PackMethod("lp_rounding"), *published_methods()]:
        assert pack(hist, limits, method).num_packs >= optimum


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(histogram_and_limits())
def test_every_bound_is_at_most_the_packs_of_every_plan(case):
    hist, limits = case
    bounds = lower_bounds(hist, limits, prove=True, time_budget=10)
    plans = [pack(hist, limits, PackMethod(algorithm, heuristic)) for heuristic in HEURISTICS
             for algorithm in TUPLE_ALGORITHMS]
    plans += [pack(hist, limits, method) for method in published_methods()]
    plans += [pack(hist, limits, PackMethod(name)) for name in ("best", "lp_rounding", "none")]
    fewest = min(plan.num_packs for plan in plans)
    assert bounds.volume <= bounds.large_items and bounds.best <= fewest
    for plan in plans:
        assert plan.check(hist) and plan.lower_bound <= plan.num_packs and plan.gap >= 0
        assert plan.bounds.volume == bounds.volume and plan.bounds.large_items == bounds.large_items
    # 1D baselines are bounded only by the limits they keep.
    for baseline, unlimited in (("node_only", "edges"), ("edge_only", "nodes")):
        plan = pack(hist, limits, PackMethod(baseline))
        assert plan.lower_bound == lower_bounds(hist, limits, unlimited=unlimited).best <= plan.num_packs


def test_martello_toth_l2_counts_graphs_that_cannot_share():
    # Three graphs of 6 in packs of 10: volume says 2, no two fit together.
    assert martello_toth_l2(np.array([6]), np.array([3]), 10, 256) == 3
    # A 9 fits with nothing of size >= 2 (K = 2): 2 nines alone, the rest by volume.
    assert martello_toth_l2(np.array([9, 2, 1]), np.array([2, 5, 1]), 10, 256) == 3
    # The graph limit: 7 small graphs, at most 2 per pack.
    assert martello_toth_l2(np.array([1]), np.array([7]), 10, 2) == 4
    # Zero sizes cost nothing but a graph slot.
    assert martello_toth_l2(np.array([0]), np.array([5]), 10, 256) == 1


def test_the_2d_bound_sees_what_neither_dimension_sees():
    # Node-heavy (6, 1) and edge-heavy (1, 6) graphs pair up in (10, 10) packs, except that
    # the edge-heavy ones are (5, 6): 6 + 5 > 10 nodes, so no pair fits.
    hist = SizeHistogram.from_counts([6, 5], [1, 6], [4, 4])
    limits = PackLimits(10, 10, 256)
    one_dim = max(martello_toth_l2(hist.num_nodes, hist.counts, 10, 256),
                  martello_toth_l2(hist.num_edges, hist.counts, 10, 256))
    assert one_dim < incompatible_bound(hist, limits) == 8 == pack(hist, limits, PackMethod("best")).num_packs
    assert large_items_bound(hist, limits) == (8, "incompatible")
    # When they do fit, the matching pairs them: 4 packs.
    hist = SizeHistogram.from_counts([6, 4], [1, 6], [4, 4])
    assert incompatible_bound(hist, limits) == 4


def test_bounds_name_the_best_and_refuse_bad_input():
    bounds = lower_bounds(SizeHistogram.from_counts([15, 3], [20, 2], [7, 20]), PackLimits(29, 100, 256))
    assert (bounds.volume, bounds.large_items, bounds.lp, bounds.best, bounds.name_of_best) == (6, 7, None, 7,
                                                                                               "large_items")
    assert "Martello-Toth L2 on nodes" in bound_words(bounds)
    ties = Bounds(5, 5, 5)
    assert ties.name_of_best == "volume" and bound_words(ties) == "volume bound"
    with pytest.raises(ValueError, match="limits must be a PackLimits"):
        lower_bounds(SizeHistogram.from_sizes([1], [1]), (5, 5, 5))
    with pytest.raises(ValueError, match="1D baselines have none"):
        lower_bounds(SizeHistogram.from_sizes([1], [1]), PackLimits(5, 5), prove=True, unlimited="edges")
    with pytest.raises(ValueError, match="time_budget"):
        lp_bound(SizeHistogram.from_sizes([1], [1]), PackLimits(5, 5), time_budget=0)
    with pytest.raises(ValueError, match="do not fit"):
        lp_bound(SizeHistogram.from_sizes([9], [1]), PackLimits(5, 5))


def test_a_plans_packs_seed_the_lp_and_must_keep_its_limits():
    """The LP bound takes a histogram and limits; a plan's packs only seed it, and a run
    that reaches their number proves that plan optimal."""
    hist, limits = SizeHistogram.from_sizes([2, 2, 2, 2], [1, 1, 1, 1]), PackLimits(4, 4, 4)
    clear_cache()
    one_per_pack = lp_bound(hist, limits, packs=[(((2, 1, 1),), 4)])
    assert (one_per_pack.bound, one_per_pack.stopped) == (2, "bound meets the LP value")
    clear_cache()
    plan = pack(hist, limits)
    assert plan.num_packs == 2 and lp_bound(hist, limits, packs=plan.packs).stopped == "plan proven optimal"
    with pytest.raises(ValueError, match="must keep the limits 3 nodes, 4 edges, 4 graphs"):
        lower_bounds(hist, PackLimits(3, 4, 4), prove=True, packs=plan.packs)


def test_plans_refuse_bounds_of_other_graphs_or_limits():
    hist = SizeHistogram.from_sizes([3, 3, 3], [1, 1, 1])
    plan = pack(hist, PackLimits(5, 5, 4))
    with pytest.raises(ValueError, match="other graphs, limits"):
        plan.with_bounds(lower_bounds(hist, PackLimits(6, 5, 4)))
    with pytest.raises(ValueError, match="other graphs, limits"):
        plan.with_bounds(lower_bounds(SizeHistogram.from_sizes([3, 3], [1, 1]), PackLimits(5, 5, 4)))
    proved = plan.with_bounds(lower_bounds(hist, PackLimits(5, 5, 4), prove=True))
    assert proved == plan and proved.bounds.lp == 3 and proved.gap == 0


def test_lp_bound_stopped_early_is_still_a_bound_and_reports_progress():
    # QM9 radius graphs at (64, 1,024): 1,214 sizes, many rounds to converge (ogbg-molhiv,
    # once the example, now converges within about a second).
    clear_cache()
    hist = qm9("radius")
    limits = PackLimits(64, 1024, 256)
    seen: list[tuple[float, str]] = []
    early = lp_bound(hist, limits, time_budget=1.0, progress=lambda fraction, message: seen.append((fraction, message)))
    assert early.stopped == "time budget" and not early.converged
    assert early.stop_reason == "the time budget ran out"
    assert lower_bound(hist, limits) <= early.bound <= pack(hist, limits, PackMethod("best")).num_packs
    assert early.seconds < 10  # the budget is kept, give or take one knapsack on a busy machine
    assert seen and seen[-1][0] == 1.0 and all(0 <= fraction <= 1 for fraction, _ in seen)
    assert [fraction for fraction, _ in seen] == sorted(fraction for fraction, _ in seen)
    # The bound is its certificate's: recomputing it from the duals alone gives it back.
    assert verify_certificate(hist, limits, list(early.duals)) == early.bound
    # Cached: the same budget answers at once, a larger one resumes the run.
    assert lp_bound(hist, limits, time_budget=1.0) is early
    later = lp_bound(hist, limits, time_budget=2.5)
    assert later.iterations > early.iterations and later.bound >= early.bound and later.seconds > early.seconds


def test_a_certificate_that_claims_more_than_it_proves_is_refused():
    hist, limits = SizeHistogram.from_counts([15, 3], [20, 2], [7, 20]), PackLimits(29, 100, 256)
    certificate = lp_bound(hist, limits).certificate()
    assert lp_bound_from_certificate(hist, limits, certificate).bound == 7
    with pytest.raises(ValueError, match="not what its certificate proves"):
        lp_bound_from_certificate(hist, limits, {**certificate, "bound": 8})
    with pytest.raises(ValueError, match="not what its certificate proves"):
        lp_bound_from_certificate(hist, limits, {**certificate, "duals": [2.0, 0.0]})
    with pytest.raises(ValueError, match="finite numbers >= 0"):
        lp_bound_from_certificate(hist, limits, {**certificate, "duals": [-1.0, 0.0]})
    with pytest.raises(ValueError, match="one number per histogram row"):
        lp_bound_from_certificate(hist, limits, {**certificate, "duals": [1.0]})


def qm9(graph: str) -> SizeHistogram:
    hist, _ = load_histogram("qm9", graph=graph, **({"cutoff": 5.0} if graph == "radius" else {}))
    return hist


def test_qm9_radius_at_data_default_limits_is_proven_optimal():
    # The case: 116,041 graphs have more than 14 of 29 nodes, so no two share a pack.
    hist = qm9("radius")
    limits = PackLimits.for_histogram(hist)
    assert limits == PackLimits(29, 732, 256)
    plan = pack(hist, limits, PackMethod("best"))
    assert plan.num_packs == 116_041 and plan.bounds.volume == 81_353
    assert plan.gap == 0 and plan.lower_bound == 116_041 and plan.bound_name == "large_items"
    assert bound_words(plan.bounds) == "large-items bound (Martello-Toth L2 on nodes: graphs too large to share a pack)"
    assert int(hist.counts[2 * hist.num_nodes > 29].sum()) == 116_041


@pytest.mark.parametrize("graph", ["bonds", "full"])
def test_qm9_bonds_and_full_graphs_measure_the_gap_against_the_best_bound(graph):
    hist = qm9(graph)
    limits = PackLimits.for_histogram(hist)
    plan = pack(hist, limits, PackMethod("best"))
    assert plan.lower_bound == plan.bounds.large_items > plan.bounds.volume
    assert plan.gap == plan.num_packs / plan.bounds.large_items - 1 < plan.num_packs / plan.bounds.volume - 1
    # Twice the limits: no graph is large any more and the LP relaxation (converged in well
    # under a second) proves no more than the volume; rounding its solution packs optimally
    # (QM9 full) or within 0.1 %, where greedy packing leaves 1-3 %.
    twice = PackLimits(2 * limits.max_nodes, 2 * limits.max_edges, 256)
    bounds = lower_bounds(hist, twice, prove=True, time_budget=20)
    assert bounds.lp == bounds.volume and bounds.lp_result.stopped in ("bound meets the LP value", "converged")
    rounded = pack(hist, twice, PackMethod("lp_rounding"))
    greedy = pack(hist, twice, PackMethod("best"))
    assert rounded.check(hist) and rounded.bounds.lp == bounds.lp
    assert rounded.num_packs <= 1.001 * bounds.best < greedy.num_packs


@pytest.mark.parametrize("dataset, packs", [("molhiv", 3744), ("molpcba", 30536)])
def test_molecule_gaps_are_no_larger_than_before(request, dataset, packs):
    hist = request.getfixturevalue(dataset)
    plan = pack(hist, PackLimits.for_histogram(hist), PackMethod("best"))
    assert plan.num_packs <= packs
    assert plan.gap <= plan.num_packs / plan.bounds.volume - 1 < 0.0005


def test_concurrent_callers_share_one_run():
    # Dashboard sessions run in threads: two proofs of the same histogram and limits at once
    # must not interleave on the cached run; the second gets the first's result.
    from concurrent.futures import ThreadPoolExecutor

    clear_cache()
    hist = qm9("bonds")
    limits = PackLimits(58, 112, 256)
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(lambda _: lp_bound(hist, limits, time_budget=20), range(2))
    assert first is second and first.bound == 43_578
