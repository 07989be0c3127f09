"""`pack`: one entry point for every packing algorithm, baseline and the best-of-all search.

This is the engine's composer: it checks the limits and the method, computes the lower
bounds, runs the algorithms (which return strategies, :mod:`packing.packs`) and hands packs
and bounds to a :class:`PackingPlan`. The values it builds (plans, bounds) never call an
algorithm themselves.
"""
from __future__ import annotations

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
from .method import BALANCED, BEST, LP_ROUNDING, NODE_ONLY, NONE, PUBLISHED, PackMethod, candidate_methods
from .one_dim import pack_one_dim
from .packs import Strategy, in_rows, items_of, merge, num_packs
from .plan import PackingPlan
from .published import count_published, published_pack
from .search import fewest_packs
from .sides import EDGES, NODES


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
    >>> plan_from_strategies(hist, [((0, 1), 2)], PackLimits(5, 6, 4), PackMethod()).packs
    [(((3, 4, 1), (2, 2, 1)), 2)]
    """
    if bounds is None:
        bounds = lower_bounds(hist, limits, unlimited=method.unlimited)
    packs = [(items_of(pack_rows, hist), count) for pack_rows, count in strategies]
    return PackingPlan(packs, limits, method, improved, requested, bounds)


def algorithm_strategies(hist: SizeHistogram, limits: PackLimits, method: PackMethod,
                         bound: int) -> tuple[list[Strategy], bool]:
    """The strategies of one algorithm that is not a search (not ``best`` or
    ``lp_rounding``), and whether exact fill improved them; ``bound`` is a proven lower
    bound (a plan that reaches it is not improved).

    >>> hist = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2])
    >>> algorithm_strategies(hist, PackLimits(5, 6, 4), PackMethod(NONE), 2)
    ([((0,), 2), ((1,), 2)], False)

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
        return [((row,), int(count)) for row, count in enumerate(hist.counts)], False
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
    better = improve_strategies(hist.num_nodes, hist.num_edges, hist.counts, limits, strategies, bound)
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
) -> PackingPlan:
    """Pack the graphs of ``hist`` into packs within ``limits`` with ``method``.

    The keyword form (``max_nodes=...``, ``algorithm=...``, ...) builds the two values for
    you; unset node and edge limits default to the largest graph, ``max_graphs`` to 256 and
    the method to best fit with the product heuristic. See :class:`PackMethod` for the
    algorithms (tuple packing, the baselines, ``best``). The plan carries the lower bounds
    of ``hist`` within ``limits`` (with the LP bound for ``lp_rounding``, whose run it is).

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
        return best_plan(hist, limits, improve=method.improve)
    if method.algorithm == LP_ROUNDING:
        return lp_rounded_plan(hist, limits)
    bounds = lower_bounds(hist, limits, unlimited=method.unlimited)
    strategies, improved = algorithm_strategies(hist, limits, method, bounds.best)
    return plan_from_strategies(hist, strategies, limits, method, bounds, improved)


def lp_rounded_plan(hist: SizeHistogram, limits: PackLimits, time_budget: float = DEFAULT_TIME_BUDGET) -> PackingPlan:
    """The LP relaxation's plan (:mod:`packing.lp_rounding`): its solution rounded down,
    the graphs left packed by best of all; the plan carries the LP bound of the same run.

    >>> plan = lp_rounded_plan(SizeHistogram.from_counts([3, 2], [4, 2], [4, 6]), PackLimits(5, 6, 2))
    >>> plan.num_packs, plan.bounds.lp
    (5, 5)
    """
    bounds = lower_bounds(hist, limits, prove=True, time_budget=time_budget)
    strategies, left = rounded_down(bounds.lp_result.solution, hist.counts)
    rows = np.flatnonzero(left)
    if rows.size:
        rest = SizeHistogram.from_counts(hist.num_nodes[rows], hist.num_edges[rows], left[rows])
        rest_strategies, _, _ = best_strategies(rest, limits, lower_bounds(rest, limits).best)
        strategies = merge([*strategies, *in_rows(rest_strategies, rows)])
    return plan_from_strategies(hist, strategies, limits, PackMethod(LP_ROUNDING), bounds)


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


def best_strategies(hist: SizeHistogram, limits: PackLimits, bound: int, improve: bool = True,
                    winner: PackMethod | None = None) -> tuple[list[Strategy], PackMethod, bool]:
    """The search behind :func:`best_plan`: strategies, the method that made them and
    whether exact fill improved them. ``winner`` skips the search (callers that counted
    every candidate already know it); ``bound`` is a proven lower bound.

    >>> strategies, method, _ = best_strategies(SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2]),
    ...                                         PackLimits(5, 6, 4), 2)
    >>> strategies, method.label
    ([((0, 1), 2)], 'best fit, product heuristic, improved by exact fill')
    """
    if winner is None:
        winner, _ = fewest_packs(hist, limits, candidate_methods(), bound, count_tuple_packs)
    method = PackMethod(winner.algorithm, winner.heuristic, improve=improve)
    strategies, improved = algorithm_strategies(hist, limits, method, bound)
    balanced = balanced_pack(hist, limits) if num_packs(strategies) > bound and balanced_applies(hist, limits) else None
    if balanced is not None and num_packs(balanced) < num_packs(strategies):
        return balanced, PackMethod(BALANCED), False
    return strategies, method, improved


def best_plan(hist: SizeHistogram, limits: PackLimits | None = None, improve: bool = True,
              winner: PackMethod | None = None, bounds: Bounds | None = None) -> PackingPlan:
    """The plan with the fewest packs over every heuristic x tuple algorithm and the
    published algorithm with each of its heuristics (ties: the first in
    :func:`packing.method.candidate_methods` order), then improved by exact fill where that
    saves packs, so it never uses more packs than any of them; where the graph slots bind,
    the balanced fill when it needs fewer packs still. The plan's ``method`` names the
    winner, ``requested`` is ``best``. ``winner`` skips the search (see
    :func:`best_strategies`); ``bounds`` are the histogram's :func:`lower_bounds` under
    ``limits`` when the caller has them already.

    >>> plan = best_plan(SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2]), PackLimits(5, 6, 4))
    >>> plan.num_packs, plan.method.label, plan.requested.algorithm
    (2, 'best fit, product heuristic, improved by exact fill', 'best')
    """
    limits = as_limits(hist, limits)
    bounds = bounds if bounds is not None else lower_bounds(hist, limits)
    strategies, method, improved = best_strategies(hist, limits, bounds.best, improve, winner)
    return plan_from_strategies(hist, strategies, limits, method, bounds, improved, PackMethod(BEST, improve=improve))
