"""`pack`: one entry point for every packing algorithm, baseline and the best-of-all search."""
from __future__ import annotations

from typing import Any

from .exact_fill import improve as improve_strategies
from .greedy import Strategy, count_packs, greedy_pack
from .histogram import SizeHistogram
from .limits import DEFAULT_MAX_GRAPHS, PackLimits
from .bounds import lower_bounds
from .balanced import balanced_pack
from .method import BALANCED, BEST, LP_ROUNDING, PUBLISHED, PackMethod, candidate_methods
from .one_dim import pack_one_dim
from .plan import PackingPlan
from .published import count_published, published_pack
from .search import fewest_packs


def as_limits(
    hist: SizeHistogram, limits: PackLimits | None = None, *, max_nodes: int | None = None,
    max_edges: int | None = None, max_graphs: int | None = DEFAULT_MAX_GRAPHS,
) -> PackLimits:
    """``limits``, or limits built from the keyword form (unset node and edge limits: the
    largest graph), checked to hold every graph of ``hist``.

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
    hist: SizeHistogram, strategies: list[Strategy], limits: PackLimits, method: PackMethod, improved: bool = False,
) -> PackingPlan:
    """A plan from engine strategies (histogram bin indices with repetition, repeat count)."""
    nodes, edges = hist.num_nodes.tolist(), hist.num_edges.tolist()
    packs = []
    for indices, count in strategies:
        # Histogram rows are sorted by (nodes, edges), so indices from high to low list the
        # sizes largest first, equal sizes next to each other.
        items: list[list[int]] = []
        for index in sorted(indices, reverse=True):
            if items and items[-1][3] == index:
                items[-1][2] += 1
            else:
                items.append([nodes[index], edges[index], 1, index])
        packs.append((tuple((n, e, k) for n, e, k, _ in items), count))
    return PackingPlan(packs, limits, method, improved)


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
    algorithms (tuple packing, the baselines, ``best``).

    >>> hist = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2])
    >>> plan = pack(hist, PackLimits(5, 6, 4))
    >>> plan.num_packs, plan.node_efficiency
    (2, 1.0)
    >>> pack(hist, max_nodes=5, max_edges=6, max_graphs=4, algorithm="none").num_packs
    4
    """
    limits = as_limits(hist, limits, max_nodes=max_nodes, max_edges=max_edges, max_graphs=max_graphs)
    method = as_method(method, algorithm=algorithm, heuristic=heuristic, weights=weights, one_dim=one_dim,
                       improve=improve)
    if method.algorithm == BEST:
        return best_plan(hist, limits, improve=method.improve)
    if method.algorithm == LP_ROUNDING:
        from .lp_rounding import lp_rounded_strategies

        strategies, _ = lp_rounded_strategies(hist, limits)
        plan = plan_from_strategies(hist, strategies, limits, method)
        return plan.with_bounds(lower_bounds(hist, limits, prove=True))  # the run just made, from the cache
    if method.algorithm == BALANCED:
        strategies = balanced_pack(hist, limits)
        if strategies is None:
            raise ValueError("Balanced fill is for limits where the graph slots bind (graphs / max_graphs is the "
                             "largest volume bound); these limits are bound by nodes or edges: use best_fit.")
        return plan_from_strategies(hist, strategies, limits, method)
    if method.algorithm == "none":
        return plan_from_strategies(hist, [((i,), int(c)) for i, c in enumerate(hist.counts)], limits, method)
    if method.unlimited is not None:
        component = "nodes" if method.algorithm == "node_only" else "edges"
        return plan_from_strategies(hist, pack_one_dim(hist, component, limits, method.one_dim), limits, method)
    if method.algorithm == PUBLISHED:
        strategies = published_pack(hist.num_nodes, hist.num_edges, hist.counts, limits, method.heuristic)
    else:
        strategies = greedy_pack(hist.num_nodes, hist.num_edges, hist.counts, limits, method.heuristic_key(),
                                 method.algorithm)
    improved = False
    if method.improve:
        better = improve_strategies(hist.num_nodes, hist.num_edges, hist.counts, limits, strategies)
        improved = better is not strategies
        strategies = better
    return plan_from_strategies(hist, strategies, limits, method, improved)


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


def best_plan(hist: SizeHistogram, limits: PackLimits | None = None, improve: bool = True) -> PackingPlan:
    """The plan with the fewest packs over every heuristic x tuple algorithm and the
    published algorithm with each of its heuristics (ties: the first in
    :func:`packing.method.candidate_methods` order), then improved by exact fill where that
    saves packs, so it never uses more packs than any of them; where the graph slots bind,
    the balanced fill when it needs fewer packs still. The plan's ``method`` names the
    winner, ``requested`` is ``best``.

    >>> plan = best_plan(SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2]), PackLimits(5, 6, 4))
    >>> plan.num_packs, plan.method.label, plan.requested.algorithm
    (2, 'best fit, product heuristic, improved by exact fill', 'best')
    """
    limits = as_limits(hist, limits)
    bound = lower_bounds(hist, limits).best
    winner, _ = fewest_packs(hist, limits, candidate_methods(), bound, count_tuple_packs)
    return finish_best(hist, limits, winner, bound, improve)


def finish_best(hist: SizeHistogram, limits: PackLimits, winner: PackMethod, bound: int,
                improve: bool = True) -> PackingPlan:
    """:func:`best_plan` after its search found ``winner`` (``bound``: the best cheap lower
    bound): the winner's plan, improved by exact fill, or the balanced fill when that needs
    fewer packs still; callers that counted every candidate already skip the search.

    >>> hist = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2])
    >>> finish_best(hist, PackLimits(5, 6, 4), PackMethod("first_fit", "sum"), 2).requested.algorithm
    'best'
    """
    plan = pack(hist, limits, PackMethod(winner.algorithm, winner.heuristic, improve=improve))
    balanced = balanced_pack(hist, limits) if plan.num_packs > bound else None
    if balanced is not None and sum(count for _, count in balanced) < plan.num_packs:
        plan = plan_from_strategies(hist, balanced, limits, PackMethod(BALANCED))
    return PackingPlan(plan.packs, limits, plan.method, plan.improved, requested=PackMethod(BEST, improve=improve))
