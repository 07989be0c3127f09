"""The LP bound at scale: the pricing that leaves dominated rows out still finds the most a
pack is worth, the exchange columns only pair graphs that can take each other's place, the
master's solution comes back as real packs, the bound stays at or under every plan, and
column generation does not reach up to the composer (packing.api, plan, method)."""
from __future__ import annotations

import ast
import itertools
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packing import PackLimits, PackMethod, SizeHistogram, lower_bounds, pack
from packing.column_generation import _CACHE, clear_cache, exchange_pairs, lp_bound, verify_certificate
from packing.pattern_pricing import PackPricer

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def small_cases(draw):
    """A few sizes, counts from 1 (a count that limits a pack) to plenty, limits that fit a few graphs."""
    rows = draw(st.lists(st.tuples(st.integers(1, 7), st.integers(0, 12), st.integers(1, 9)), min_size=1, max_size=5,
                         unique_by=lambda row: row[:2]))
    hist = SizeHistogram.from_counts(*(np.array(column) for column in zip(*rows)))
    limits = PackLimits(draw(st.integers(hist.largest_nodes, 3 * hist.largest_nodes)),
                        draw(st.integers(max(1, hist.largest_edges), 3 * max(1, hist.largest_edges))), draw(st.integers(1, 6)))
    return hist, limits


def most_worth(hist: SizeHistogram, limits: PackLimits, values: np.ndarray) -> float:
    """The most any pack is worth, by trying every pack."""
    best = 0.0
    for copies in itertools.product(*(range(min(int(c), limits.max_graphs) + 1) for c in hist.counts)):
        a = np.array(copies)
        if a.sum() <= limits.max_graphs and a @ hist.num_nodes <= limits.max_nodes \
                and a @ hist.num_edges <= limits.max_edges:
            best = max(best, float(a @ values))
    return best


@SETTINGS
@given(small_cases(), st.data())
def test_pricing_without_dominated_rows_finds_the_most_a_pack_is_worth(case, data):
    hist, limits = case
    # Duals with ties (the master's are full of them) and without.
    values = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 1.0]) | st.floats(0, 1),
                                         min_size=hist.num_tuples, max_size=hist.num_tuples)))
    pricer = PackPricer(hist, limits)
    priced = pricer.price(values, completions=8, extra=4)
    truth = most_worth(hist, limits, values)
    assert priced.upper_bound >= truth - 1e-9
    if priced.exact:
        assert abs(priced.upper_bound - truth) <= 1e-9
    for pattern in [priced.pattern or {}, *priced.more]:  # every pack handed out keeps the limits and counts
        a = np.zeros(hist.num_tuples, dtype=int)
        for row, copies in pattern.items():
            a[row] = copies
        assert (a <= hist.counts).all() and a.sum() <= limits.max_graphs
        assert a @ hist.num_nodes <= limits.max_nodes and a @ hist.num_edges <= limits.max_edges
    # A dominated row is never needed: the table without it has the same maximum.
    dominated = pricer.dominated(values)
    assert abs(most_worth(hist, limits, np.where(dominated, 0.0, values)) - truth) <= 1e-9


@SETTINGS
@given(small_cases())
def test_exchange_pairs_only_pair_graphs_that_take_each_others_place(case):
    hist, limits = case
    pricer = PackPricer(hist, limits)
    small, large = exchange_pairs(pricer, hist.counts)
    assert small.size == large.size and (small != large).all()
    assert (hist.num_nodes[small] <= hist.num_nodes[large]).all()
    assert (hist.num_edges[small] <= hist.num_edges[large]).all()
    assert (hist.counts[small] >= pricer.fitting[small]).all()  # no pack can hold more of it than there are


@SETTINGS
@given(small_cases())
def test_the_lp_solution_is_real_packs_covering_every_graph(case):
    hist, limits = case
    clear_cache()
    result = lp_bound(hist, limits, time_budget=10)
    covered = np.zeros(hist.num_tuples)
    for pattern, share in result.solution:
        assert share > 0 and sum(pattern.values()) <= limits.max_graphs
        assert sum(hist.num_nodes[row] * copies for row, copies in pattern.items()) <= limits.max_nodes
        assert sum(hist.num_edges[row] * copies for row, copies in pattern.items()) <= limits.max_edges
        assert all(copies <= hist.counts[row] for row, copies in pattern.items())
        for row, copies in pattern.items():
            covered[row] += copies * share
    if result.solution:  # none when the seed plan was proven optimal before any master
        assert (covered >= hist.counts - 1e-6).all()
        assert abs(sum(share for _, share in result.solution) - result.lp_value) <= 1e-6 * max(1.0, result.lp_value)
    assert verify_certificate(hist, limits, list(result.duals)) >= result.bound


@st.composite
def larger_cases(draw):
    """Up to 40 sizes with counts large enough that most pair up in the master."""
    rows = draw(st.lists(st.tuples(st.integers(1, 20), st.integers(0, 60), st.integers(1, 40)), min_size=1,
                         max_size=40))
    hist = SizeHistogram.from_counts(*(np.array(column) for column in zip(*rows)))
    limits = PackLimits(draw(st.integers(hist.largest_nodes, 4 * hist.largest_nodes)),
                        draw(st.integers(max(1, hist.largest_edges), 4 * max(1, hist.largest_edges))),
                        draw(st.integers(1, 12)))
    return hist, limits


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(larger_cases())
def test_the_lp_bound_is_at_most_the_packs_of_every_plan(case):
    hist, limits = case
    clear_cache()
    bounds = lower_bounds(hist, limits, prove=True, time_budget=10)
    for method in (PackMethod("best"), PackMethod("lp_rounding"), PackMethod("best_fit", "sum"),
                   PackMethod("first_fit", "max"), PackMethod("none")):
        plan = pack(hist, limits, method)
        assert plan.check(hist) and bounds.lp <= plan.num_packs
    assert bounds.lp == verify_certificate(hist, limits, list(bounds.lp_result.duals))


def test_a_run_without_a_plan_seeds_itself_with_best_fit_and_exact_fill():
    hist = SizeHistogram.from_counts([15, 3, 7], [20, 2, 9], [7, 20, 11])
    limits = PackLimits(29, 100, 256)
    clear_cache()
    lp_bound(hist, limits)
    run = _CACHE[(hist.fingerprint(), limits)].run
    assert run.upper_bound == pack(hist, limits, PackMethod("best_fit", "product", improve=True)).num_packs


def test_column_generation_does_not_import_the_composer():
    # Issue 21: values do not call solvers; the LP bound gets its seed from engine pieces
    # below it, and imports nothing inside a function.
    tree = ast.parse(Path(__file__).resolve().parents[1].joinpath("packing", "column_generation.py").read_text())
    top = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    runtime = {node.module for node in top if isinstance(node, ast.ImportFrom) and node.level == 1}
    assert not runtime & {"api", "plan", "method"}, runtime
    nested = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
              and node not in top and not _under_type_checking(tree, node)]
    assert not nested, [ast.dump(node) for node in nested]


def _under_type_checking(tree: ast.Module, target: ast.AST) -> bool:
    return any(isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
               and target in list(ast.walk(node)) for node in tree.body)
