"""`pack`: one entry point for every packing algorithm, baseline and the best-of-all search.

This is the engine's composer: it checks the limits and the method, computes the lower
bounds, runs the algorithms (which return strategies, :mod:`packing.packs`) and hands packs
and bounds to a :class:`PackingPlan`. The values it builds (plans, bounds) never call an
algorithm themselves.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from .balanced import MAX_GRAPHS, applies as balanced_applies, balanced_pack
from .bounds import Bounds, lower_bounds
from .column_generation import DEFAULT_TIME_BUDGET
from .exact_fill import improve as improve_strategies
from .greedy import count_packs, greedy_pack
from .histogram import SizeHistogram
from .limits import DEFAULT_MAX_GRAPHS, PackLimits
from .lp_rounding import rounded_down
from .method import BALANCED, BEST, BEST_FIT, LP_ROUNDING, NODE_ONLY, NONE, PUBLISHED, PackMethod, candidate_methods
from .one_dim import pack_one_dim
from .packs import Strategy, in_rows, items_of, merge, num_packs
from .plan import PackingPlan
from .published import count_published, published_pack
from .search import Progress, fewest_packs
from .sides import EDGES, NODES

#: Distinct (nodes, edges) tuples above which best of all tries best fit alone: worst fit,
#: first fit and the published algorithm search their open packs one graph size at a time,
#: 5-10 s each on 100,000 random tuples against 1-3 s for best fit (issue 37's histogram,
#: benchmarks/bench_packing.py). It lies above the 36,143 of the ppa-shaped histogram, the
#: most any realistic table here has, so real histograms keep the full search.
FULL_SEARCH_UP_TO_TUPLES = 50_000
#: Share of best of all's progress that its search reports; the winner's plan with exact
#: fill takes about as long again on large histograms.
SEARCH_SHARE = 0.5
#: Share of the progress reached when exact fill has spent its budget: what is left (best fit
#: for the graphs it left, the plan's metrics) is quick, and only the finished plan reports 1.
FILL_END = 0.95


def as_limits(
    hist: SizeHistogram, limits: PackLimits | None = None, *, max_nodes: int | None = None,
    max_edges: int | None = None, max_graphs: int | None = DEFAULT_MAX_GRAPHS,
) -> PackLimits:
    """``limits``, or limits built from the keyword form (unset node and edge limits: the
    largest graph), checked to hold every graph of ``hist``.

    Raises:
        ValueError: when a graph does not fit, ``limits`` is not a :class:`PackLimits`, or
            both forms are given.

    >>> as_limits(SizeHistogram.from_sizes([3, 5], [4, 8]), max_edges=10)
    PackLimits(max_nodes=5, max_edges=10, max_graphs=256)
    """
    if limits is None:
        return PackLimits.for_histogram(hist, max_nodes, max_edges, max_graphs).check_fits(hist)
    if not isinstance(limits, PackLimits):
        raise ValueError(f"limits must be a PackLimits (e.g. PackLimits(222, 502, 256)) or given as "
                         f"max_nodes=..., max_edges=..., max_graphs=...; got {limits!r}.")
    if (max_nodes, max_edges, max_graphs) != (None, None, DEFAULT_MAX_GRAPHS):
        raise ValueError("Give the limits either as a PackLimits or as max_nodes/max_edges/max_graphs, not both.")
    return limits.check_fits(hist)


def as_method(method: PackMethod | None = None, **settings: Any) -> PackMethod:
    """``method``, or a method built from keyword settings (``algorithm``, ``heuristic``,
    ``one_dim``, ``weights``, ``improve``; None means unset).

    Raises:
        ValueError: for a setting the algorithm does not take, or both forms at once.

    >>> as_method(algorithm="edge_only", one_dim="spfhp").one_dim
    'spfhp'
    """
    given = {name: value for name, value in settings.items() if value is not None}
    if method is None:
        return PackMethod(**given)
    if not isinstance(method, PackMethod):
        raise ValueError(f"method must be a PackMethod (e.g. PackMethod('best_fit', 'sum')); got {method!r}.")
    if given:
        raise ValueError(f"Give the method either as a PackMethod or as keywords ({', '.join(given)}), not both.")
    return method


def plan_from_strategies(
    hist: SizeHistogram, strategies: list[Strategy], limits: PackLimits, method: PackMethod,
    bounds: Bounds | None = None, improved: bool = False, requested: PackMethod | None = None,
) -> PackingPlan:
    """A plan from an algorithm's strategies (:mod:`packing.packs`), measured against
    ``bounds`` (default: the volume and large-items bounds of ``hist``, leaving out the side
    a 1D baseline does not limit).

    >>> hist = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2])
    >>> plan_from_strategies(hist, [(((0, 1), (1, 1)), 2)], PackLimits(5, 6, 4), PackMethod()).packs
    [(((3, 4, 1), (2, 2, 1)), 2)]
    """
    if bounds is None:
        bounds = lower_bounds(hist, limits, unlimited=method.unlimited)
    packs = [(items_of(pack_rows, hist), count) for pack_rows, count in strategies]
    return PackingPlan(packs, limits, method, improved, requested, bounds)


def algorithm_strategies(hist: SizeHistogram, limits: PackLimits, method: PackMethod,
                         bound: int, progress: Progress | None = None) -> tuple[list[Strategy], bool]:
    """The strategies of one algorithm that is not a search (not ``best`` or
    ``lp_rounding``), and whether exact fill improved them; ``bound`` is a proven lower
    bound (a plan that reaches it is not improved); ``progress`` follows exact fill.

    >>> hist = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2])
    >>> algorithm_strategies(hist, PackLimits(5, 6, 4), PackMethod(NONE), 2)
    ([(((0, 1),), 2), (((1, 1),), 2)], False)

    Raises:
        ValueError: for ``balanced`` on more graphs than it deals one by one.
    """
    if method.algorithm == BALANCED:
        strategies = balanced_pack(hist, limits)
        if strategies is None:
            raise ValueError(f"Balanced fill deals graphs one by one, at most {MAX_GRAPHS:,}; this histogram has "
                             f"{hist.num_graphs:,}: use best_fit.")
        return strategies, False
    if method.algorithm == NONE:
        return [(((row, 1),), int(count)) for row, count in enumerate(hist.counts)], False
    if method.unlimited is not None:
        side = NODES if method.algorithm == NODE_ONLY else EDGES
        return pack_one_dim(hist, side, limits, method.one_dim), False
    if method.algorithm == PUBLISHED:
        strategies = published_pack(hist.num_nodes, hist.num_edges, hist.counts, limits, method.heuristic)
    else:
        strategies = greedy_pack(hist.num_nodes, hist.num_edges, hist.counts, limits, method.heuristic_key(),
                                 method.algorithm)
    if not method.improve:
        return strategies, False
    better = improve_strategies(hist.num_nodes, hist.num_edges, hist.counts, limits, strategies, bound,
                                progress=progress)
    return better, better is not strategies


def pack(
    hist: SizeHistogram,
    limits: PackLimits | None = None,
    method: PackMethod | None = None,
    *,
    max_nodes: int | None = None,
    max_edges: int | None = None,
    max_graphs: int | None = DEFAULT_MAX_GRAPHS,
    algorithm: str | None = None,
    heuristic: str | None = None,
    weights: tuple[float, float] | None = None,
    one_dim: str | None = None,
    improve: bool | None = None,
    progress: Progress | None = None,
) -> PackingPlan:
    """Pack the graphs of ``hist`` into packs within ``limits`` with ``method``.

    The keyword form (``max_nodes=...``, ``algorithm=...``, ...) builds the two values for
    you; unset node and edge limits default to the largest graph, ``max_graphs`` to 256 and
    the method to best fit with the product heuristic. See :class:`PackMethod` for the
    algorithms (tuple packing, the baselines, ``best``). The plan carries the lower bounds
    of ``hist`` within ``limits`` (with the LP bound for ``lp_rounding``, whose run it is).
    ``progress(fraction, message)`` is told how the work goes: the methods ``best`` tries,
    the LP rounds of ``lp_rounding``, exact fill's knapsack work; and once with 1.0 when the
    plan is made.

    >>> hist = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2])
    >>> plan = pack(hist, PackLimits(5, 6, 4))
    >>> plan.num_packs, plan.node_efficiency, plan.lower_bound
    (2, 1.0, 2)
    >>> pack(hist, max_nodes=5, max_edges=6, max_graphs=4, algorithm="none").num_packs
    4

    Raises:
        ValueError: for limits that do not hold the largest graph, a malformed method, or
            both forms at once.
    """
    limits = as_limits(hist, limits, max_nodes=max_nodes, max_edges=max_edges, max_graphs=max_graphs)
    method = as_method(method, algorithm=algorithm, heuristic=heuristic, weights=weights, one_dim=one_dim,
                       improve=improve)
    if method.algorithm == BEST:
        return best_plan(hist, limits, improve=method.improve, progress=progress)
    if method.algorithm == LP_ROUNDING:
        return lp_rounded_plan(hist, limits, progress=progress)
    bounds = lower_bounds(hist, limits, unlimited=method.unlimited)
    strategies, improved = algorithm_strategies(hist, limits, method, bounds.best, _within(progress, 0.0, FILL_END))
    plan = plan_from_strategies(hist, strategies, limits, method, bounds, improved)
    _finished(progress, plan)
    return plan


def _within(progress: Progress | None, start: float, end: float) -> Progress | None:
    """``progress`` for one part of the work, which reports 0-1 of itself as ``start``-``end``.

    >>> _within(lambda fraction, message: print(fraction, message), 0.5, 0.9)(0.5, "half")
    0.7 half
    """
    if progress is None:
        return None
    return lambda fraction, message: progress(start + (end - start) * fraction, message)


def _finished(progress: Progress | None, plan: PackingPlan) -> None:
    if progress is not None:
        progress(1.0, f"{plan.num_packs:,} packs ({plan.label})")


def lp_rounded_plan(hist: SizeHistogram, limits: PackLimits, time_budget: float = DEFAULT_TIME_BUDGET,
                    progress: Progress | None = None) -> PackingPlan:
    """The LP relaxation's plan (:mod:`packing.lp_rounding`): its solution rounded down,
    the graphs left packed by best of all; the plan carries the LP bound of the same run.
    ``progress(fraction, message)`` follows the LP's rounds.

    >>> plan = lp_rounded_plan(SizeHistogram.from_counts([3, 2], [4, 2], [4, 6]), PackLimits(5, 6, 2))
    >>> plan.num_packs, plan.bounds.lp
    (5, 5)
    """
    bounds = lower_bounds(hist, limits, prove=True, time_budget=time_budget, progress=_within(progress, 0.0, FILL_END))
    strategies, left = rounded_down(bounds.lp_result.solution, hist.counts)
    rows = np.flatnonzero(left)
    if rows.size:
        rest = SizeHistogram.from_counts(hist.num_nodes[rows], hist.num_edges[rows], left[rows])
        rest_strategies, _, _ = best_strategies(rest, limits, lower_bounds(rest, limits).best)
        strategies = merge([*strategies, *in_rows(rest_strategies, rows)])
    plan = plan_from_strategies(hist, strategies, limits, PackMethod(LP_ROUNDING), bounds)
    _finished(progress, plan)
    return plan


def count_tuple_packs(
    hist: SizeHistogram, limits: PackLimits, method: PackMethod, give_up_above: int | None = None,
) -> int | None:
    """The packs one tuple-packing run of ``method`` (ours or the published algorithm, no
    exact fill) uses, without building the plan; None once more than ``give_up_above``.

    >>> hist = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2])
    >>> count_tuple_packs(hist, PackLimits(5, 6, 4), PackMethod("published", "node"))
    2
    """
    if not method.is_tuple_packing:
        raise ValueError(f"Only tuple packing can be counted without a plan; got {method.label}.")
    if method.algorithm == PUBLISHED:
        return count_published(hist.num_nodes, hist.num_edges, hist.counts, limits, method.heuristic, give_up_above)
    return count_packs(hist.num_nodes, hist.num_edges, hist.counts, limits, method.heuristic_key(), method.algorithm,
                       give_up_above)


def search_candidates(hist: SizeHistogram) -> tuple[list[PackMethod], tuple[str, ...]]:
    """The methods best of all tries on ``hist`` (:func:`packing.method.candidate_methods`,
    best fit alone above ``FULL_SEARCH_UP_TO_TUPLES`` distinct sizes) and, in words, those
    it leaves out and why.

    >>> len(search_candidates(SizeHistogram.from_sizes([3, 2], [4, 2]))[0])
    24
    """
    candidates = candidate_methods()
    if hist.num_tuples <= FULL_SEARCH_UP_TO_TUPLES:
        return candidates, ()
    why = (f"not tried: {hist.num_tuples:,} distinct sizes is more than {FULL_SEARCH_UP_TO_TUPLES:,}, above which "
           "it takes many times as long as best fit")
    return ([method for method in candidates if method.algorithm == BEST_FIT],
            tuple(f"{method.label}: {why}" for method in candidates if method.algorithm != BEST_FIT))


def best_strategies(hist: SizeHistogram, limits: PackLimits, bound: int, improve: bool = True,
                    winner: PackMethod | None = None,
                    progress: Progress | None = None) -> tuple[list[Strategy], PackMethod, bool]:
    """The search behind :func:`best_plan`: strategies, the method that made them and
    whether exact fill improved them. ``winner`` skips the search (callers that counted
    every candidate already know it); ``bound`` is a proven lower bound; ``progress``
    is told after each method tried (:func:`packing.search.fewest_packs`).

    >>> strategies, method, _ = best_strategies(SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2]),
    ...                                         PackLimits(5, 6, 4), 2)
    >>> strategies, method.label
    ([(((0, 1), (1, 1)), 2)], 'best fit, product heuristic, improved by exact fill')
    """
    if winner is None:
        winner, _ = fewest_packs(hist, limits, search_candidates(hist)[0], bound, count_tuple_packs,
                                 progress=_within(progress, 0.0, SEARCH_SHARE))
    method = PackMethod(winner.algorithm, winner.heuristic, improve=improve)
    if progress is not None:
        progress(SEARCH_SHARE, f"packing the plan of {method.label}")
    strategies, improved = algorithm_strategies(hist, limits, method, bound, _within(progress, SEARCH_SHARE, FILL_END))
    balanced = balanced_pack(hist, limits) if num_packs(strategies) > bound and balanced_applies(hist, limits) else None
    if balanced is not None and num_packs(balanced) < num_packs(strategies):
        return balanced, PackMethod(BALANCED), False
    return strategies, method, improved


def best_plan(hist: SizeHistogram, limits: PackLimits | None = None, improve: bool = True,
              winner: PackMethod | None = None, bounds: Bounds | None = None,
              progress: Progress | None = None) -> PackingPlan:
    """The plan with the fewest packs over every heuristic x tuple algorithm and the
    published algorithm with each of its heuristics (ties: the first in
    :func:`packing.method.candidate_methods` order), then improved by exact fill where that
    saves packs, so it never uses more packs than any of them; where the graph slots bind,
    the balanced fill when it needs fewer packs still. The plan's ``method`` names the
    winner, ``requested`` is ``best``. ``winner`` skips the search (see
    :func:`best_strategies`); ``bounds`` are the histogram's :func:`lower_bounds` under
    ``limits`` when the caller has them already. On more than ``FULL_SEARCH_UP_TO_TUPLES``
    distinct sizes only best fit is tried; the plan's ``skipped`` says so.
    ``progress(fraction, message)`` is told after each method tried and at the end.

    >>> plan = best_plan(SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2]), PackLimits(5, 6, 4))
    >>> plan.num_packs, plan.method.label, plan.requested.algorithm
    (2, 'best fit, product heuristic, improved by exact fill', 'best')
    """
    limits = as_limits(hist, limits)
    bounds = bounds if bounds is not None else lower_bounds(hist, limits)
    strategies, method, improved = best_strategies(hist, limits, bounds.best, improve, winner, progress)
    plan = plan_from_strategies(hist, strategies, limits, method, bounds, improved, PackMethod(BEST, improve=improve))
    plan = replace(plan, skipped=() if winner is not None else search_candidates(hist)[1])
    _finished(progress, plan)
    return plan
