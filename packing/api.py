"""`pack`: one entry point for every packing algorithm, baseline and the best-of-all search."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .exact_fill import improve as improve_strategies
from .greedy import FITS, count_packs, greedy_pack
from .heuristics import HEURISTICS, resolve_heuristic
from .histogram import SizeHistogram
from .one_dim import ONE_DIM_ALGORITHMS, pack_one_dim
from .plan import PackingPlan

ALGORITHMS: tuple[str, ...] = FITS
BASELINES: tuple[str, ...] = ("none", "node_only", "edge_only")
BEST = "best"


def resolve_limits(
    hist: SizeHistogram, max_nodes: int | None, max_edges: int | None, max_graphs: int | None
) -> tuple[int, int, int]:
    """Fill unset limits from the data (largest graph; all graphs) and validate them.

    >>> resolve_limits(SizeHistogram.from_sizes([3, 5], [4, 8]), None, 10, None)
    (5, 10, 2)
    """
    limits = (
        max(hist.max_nodes, 1) if max_nodes is None else max_nodes,
        max(hist.max_edges, 1) if max_edges is None else max_edges,
        hist.num_graphs if max_graphs is None else max_graphs,
    )
    for name, value in zip(("max_nodes", "max_edges", "max_graphs"), limits):
        if isinstance(value, bool) or int(value) != value or value < 1:
            raise ValueError(f"{name} must be a whole number >= 1, got {value!r}.")
    max_nodes, max_edges, max_graphs = (int(v) for v in limits)
    too_big = (hist.num_nodes > max_nodes) | (hist.num_edges > max_edges)
    if too_big.any():
        worst = int(np.argmax(np.maximum(hist.num_nodes / max_nodes, hist.num_edges / max_edges)))
        n, e = int(hist.num_nodes[worst]), int(hist.num_edges[worst])
        graphs = int(hist.counts[too_big].sum())
        raise ValueError(
            f"{graphs} graph(s) do not fit into one pack: the largest has {n} nodes and {e} edges, "
            f"but the limits are {max_nodes} nodes and {max_edges} edges. "
            f"Raise the limits to at least {hist.max_nodes} nodes and {hist.max_edges} edges."
        )
    return max_nodes, max_edges, max_graphs


def _plan_from_strategies(
    hist: SizeHistogram, strategies, limits, heuristic: str, algorithm: str, unlimited=None,
    improved: bool = False,
) -> PackingPlan:
    nodes, edges = hist.num_nodes.tolist(), hist.num_edges.tolist()
    packs = [
        (tuple(sorted(((nodes[i], edges[i]) for i in items), reverse=True)), count)
        for items, count in strategies
    ]
    return PackingPlan(packs, *limits, heuristic=heuristic, algorithm=algorithm, unlimited=unlimited,
                       improved=improved)


def pack(
    hist: SizeHistogram,
    max_nodes: int | None = None,
    max_edges: int | None = None,
    max_graphs: int | None = 256,
    heuristic: str = "product",
    algorithm: str = "best_fit",
    weights: tuple[float, float] | None = None,
    one_dim: str = "lpfhp",
    improve: bool = False,
) -> PackingPlan:
    """Pack the graphs of ``hist`` into packs of at most (max_nodes, max_edges, max_graphs).

    ``algorithm`` is one of ``best_fit``, ``worst_fit``, ``first_fit`` (tuple packing with
    ``heuristic``), a baseline ``none``, ``node_only``, ``edge_only`` (1D packing with
    ``one_dim`` in ``lpfhp``, ``spfhp``, ``nnlshp``), or ``best``: every heuristic and fit,
    the fewest packs wins, then improved. ``improve=True`` re-packs the packs that tuple
    packing left with slack by exact fill (see :mod:`packing.exact_fill`) when that saves
    packs. Unset node and edge limits default to the largest graph.

    >>> hist = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2])
    >>> plan = pack(hist, max_nodes=5, max_edges=6, max_graphs=4)
    >>> plan.num_packs, plan.node_efficiency
    (2, 1.0)
    """
    limits = resolve_limits(hist, max_nodes, max_edges, max_graphs)
    if algorithm == BEST:
        return best_plan(hist, *limits)
    if algorithm == "none":
        strategies = [((i,), int(c)) for i, c in enumerate(hist.counts)]
        return _plan_from_strategies(hist, strategies, limits, "none", "none")
    if algorithm in ("node_only", "edge_only"):
        if one_dim not in ONE_DIM_ALGORITHMS:
            raise ValueError(f"Unknown 1D algorithm {one_dim!r}; choose one of {ONE_DIM_ALGORITHMS}.")
        component = "nodes" if algorithm == "node_only" else "edges"
        strategies = pack_one_dim(hist, component, limits, one_dim)
        unlimited = "edges" if component == "nodes" else "nodes"
        return _plan_from_strategies(hist, strategies, limits, one_dim, algorithm, unlimited)
    if algorithm not in ALGORITHMS:
        known = ", ".join([*ALGORITHMS, *BASELINES, BEST])
        raise ValueError(f"Unknown algorithm {algorithm!r}; choose one of: {known}.")
    key = resolve_heuristic(heuristic, weights)
    strategies = greedy_pack(hist.num_nodes, hist.num_edges, hist.counts, limits, key, algorithm)
    improved = False
    if improve:
        better = improve_strategies(hist.num_nodes, hist.num_edges, hist.counts, limits, strategies)
        improved = better is not strategies
        strategies = better
    return _plan_from_strategies(hist, strategies, limits, key.name, algorithm, improved=improved)


def best_plan(
    hist: SizeHistogram,
    max_nodes: int | None = None,
    max_edges: int | None = None,
    max_graphs: int | None = 256,
    heuristics: Sequence[str] = tuple(HEURISTICS),
    algorithms: Sequence[str] = ALGORITHMS,
) -> PackingPlan:
    """The plan with the fewest packs over every heuristic and algorithm (ties: the first
    in ``HEURISTICS`` x ``ALGORITHMS`` order), then improved by exact fill where that saves
    packs.

    >>> best_plan(SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2]), 5, 6, 4).num_packs
    2
    """
    limits = resolve_limits(hist, max_nodes, max_edges, max_graphs)
    packs = {
        (heuristic, algorithm): count_packs(
            hist.num_nodes, hist.num_edges, hist.counts, limits, resolve_heuristic(heuristic), algorithm
        )
        for heuristic in heuristics
        for algorithm in algorithms
    }
    fewest = min(packs.values())
    # Equal pack counts mean equal efficiencies, so the first such pair wins the tie.
    heuristic, algorithm = next(pair for pair, count in packs.items() if count == fewest)
    return pack(hist, *limits, heuristic=heuristic, algorithm=algorithm, improve=True)

