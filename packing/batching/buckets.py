"""Shape buckets: K fixed padded shapes (nodes, edges) for static batches, chosen to waste
as little as possible, for compilers that build one kernel per shape (torch.compile, JAX).

A shape (N, E) holds a batch of ``v`` real nodes and ``e`` real edges when ``v + 1 <= N``
and ``e <= E`` (one node is left for the padding graph, see :mod:`packing.batching.padding`). Each
batch is padded to the cheapest shape that holds it, where a shape costs
``N / V + E / E_total`` per batch (``V`` and ``E_total``: the real nodes and edges of all
batches), so the total cost is ``1 / node_efficiency + 1 / edge_efficiency``: padded nodes
and padded edges count alike, each relative to the real ones.

How the shapes are chosen (:func:`fit_bucket_shapes`): the batches are split into K ranges
of their node count, each range padded to its largest batch, and dynamic programming finds
the split with the least total cost; the same is done with ranges of the edge count, and
the cheaper of the two is kept. Each batch then takes the cheapest shape that holds it,
which can only lower the cost further. K = 1 is one shape holding the largest batch (static
padding to the largest batch), and K shapes never cost more than K - 1 shapes: when a
split into K ranges does not beat the K - 1 shapes, those are kept. The split is exact when
an axis has at most ``MAX_CUTS`` distinct values; beyond that, ranges may only end at
``MAX_CUTS`` quantiles of the batches.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_SHAPES = 16
MAX_CUTS = 512

Shape = tuple[int, int]


@dataclass(frozen=True)
class BucketFit:
    """The shapes chosen for each K = 1 .. len(shapes) and what they cost.

    ``shapes[k - 1]`` lists the shapes for K = k (sorted by cost; fewer than k when more
    shapes do not help); ``padded_nodes[k - 1]`` and ``padded_edges[k - 1]`` are the node
    and edge totals of all batches padded to them, ``cost[k - 1]`` is
    ``1 / node_efficiency + 1 / edge_efficiency``.
    """

    shapes: list[list[Shape]]
    padded_nodes: list[int]
    padded_edges: list[int]
    cost: list[float]


def fit_bucket_shapes(nodes: np.ndarray, edges: np.ndarray, max_shapes: int = MAX_SHAPES) -> BucketFit:
    """Choose shapes for K = 1 .. ``max_shapes`` for batches with ``nodes`` and ``edges`` real.

    Args:
        nodes: real nodes of each batch.
        edges: real edges of each batch.
        max_shapes: the largest K.

    Returns:
        The shapes for every K and their padded totals and cost (:class:`BucketFit`).

    Raises:
        ValueError: no batches.

    >>> fit = fit_bucket_shapes(np.array([10, 10, 30]), np.array([20, 20, 60]), 2)
    >>> fit.shapes
    [[(31, 60)], [(11, 20), (31, 60)]]
    """
    nodes, edges = np.asarray(nodes, dtype=np.int64), np.asarray(edges, dtype=np.int64)
    if nodes.size == 0:
        raise ValueError("No batches to choose shapes for.")
    need_nodes, need_edges, counts = _distinct_needs(nodes + 1, edges)
    weights = (1.0 / max(int(nodes.sum()), 1), 1.0 / max(int(edges.sum()), 1))
    by_nodes = _split_shapes(need_nodes, need_edges, counts, weights, max_shapes)
    by_edges = [[(n, e) for e, n in shapes]
                for shapes in _split_shapes(need_edges, need_nodes, counts, weights[::-1], max_shapes)]
    by_nodes = [sort_by_cost(shapes, weights) for shapes in by_nodes]
    by_edges = [sort_by_cost(shapes, weights) for shapes in by_edges]
    fit = BucketFit([], [], [], [])
    for candidates in zip(by_nodes, by_edges):
        scored = []
        for shapes in candidates:
            padded_nodes, padded_edges = _padded_totals(shapes, need_nodes, need_edges, counts)
            scored.append((weights[0] * padded_nodes + weights[1] * padded_edges, padded_nodes, padded_edges, shapes))
        best = min(scored, key=lambda entry: entry[0])
        if fit.cost and best[0] >= fit.cost[-1]:  # more shapes did not help: keep the fewer
            best = (fit.cost[-1], fit.padded_nodes[-1], fit.padded_edges[-1], fit.shapes[-1])
        for values, value in zip((fit.cost, fit.padded_nodes, fit.padded_edges, fit.shapes), best):
            values.append(value)
    return fit


def assign_shapes(nodes: np.ndarray, edges: np.ndarray, shapes: list[Shape]) -> np.ndarray:
    """Index into ``shapes`` of the cheapest shape holding each batch (``shapes`` sorted by
    cost); raises ``ValueError`` naming a batch that no shape holds.

    >>> assign_shapes(np.array([10, 30]), np.array([20, 20]), [(11, 20), (31, 60)]).tolist()
    [0, 1]
    """
    chosen = np.full(np.asarray(nodes).size, -1, dtype=np.int64)
    open_ = np.arange(chosen.size)
    for index, (shape_nodes, shape_edges) in enumerate(shapes):
        fits = (nodes[open_] + 1 <= shape_nodes) & (edges[open_] <= shape_edges)
        chosen[open_[fits]] = index
        open_ = open_[~fits]
    if open_.size:
        first = int(open_[0])
        raise ValueError(f"Batch {first} ({int(nodes[first]):,} nodes, {int(edges[first]):,} edges) fits none of the "
                         f"shapes {shapes}; a shape needs at least {int(nodes[first]) + 1:,} nodes (one for the padding "
                         f"graph) and {int(edges[first]):,} edges.")
    return chosen


def sort_by_cost(shapes: list[Shape], weights: tuple[float, float]) -> list[Shape]:
    """Distinct shapes, cheapest first (ties: fewer nodes first); a shape (N, E) costs
    ``weights[0] * N + weights[1] * E``.

    >>> sort_by_cost([(64, 10), (32, 20), (64, 10)], (1.0, 1.0))
    [(32, 20), (64, 10)]
    """
    return sorted(set(shapes), key=lambda shape: (weights[0] * shape[0] + weights[1] * shape[1], shape))


def _distinct_needs(need_nodes: np.ndarray, need_edges: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct (nodes, edges) needs with how many batches have each."""
    span = int(need_edges.max()) + 1
    if int(need_nodes.max()) < 2**62 // span:
        keys, counts = np.unique(need_nodes * span + need_edges, return_counts=True)
        return keys // span, keys % span, counts
    pairs, counts = np.unique(np.stack([need_nodes, need_edges], axis=1), axis=0, return_counts=True)
    return pairs[:, 0], pairs[:, 1], counts


def _padded_totals(shapes: list[Shape], need_nodes: np.ndarray, need_edges: np.ndarray,
                   counts: np.ndarray) -> tuple[int, int]:
    """Padded nodes and edges of all batches, each in the cheapest shape that holds it."""
    chosen = np.bincount(assign_shapes(need_nodes - 1, need_edges, shapes), weights=counts, minlength=len(shapes))
    table = np.array(shapes, dtype=np.int64)
    return int(np.dot(chosen.astype(np.int64), table[:, 0])), int(np.dot(chosen.astype(np.int64), table[:, 1]))


def _split_shapes(primary: np.ndarray, secondary: np.ndarray, counts: np.ndarray, weights: tuple[float, float],
                  max_shapes: int) -> list[list[tuple[int, int]]]:
    """For K = 1 .. max_shapes: the (primary, secondary) shapes of the cheapest split of the
    primary axis into at most K ranges, each range padded to its largest needs."""
    values, inverse = np.unique(primary, return_inverse=True)
    weight = np.bincount(inverse, weights=counts)
    top = np.zeros(values.size, dtype=np.int64)
    np.maximum.at(top, inverse, secondary)
    ends = _allowed_ends(np.cumsum(weight))
    # Items between two allowed range ends act as one: their count and largest secondary need.
    starts = np.concatenate([[0], ends[:-1] + 1])
    weight = np.add.reduceat(weight, starts)
    top = np.maximum.reduceat(top, starts)
    values = values[ends]
    size = values.size
    cumulative = np.concatenate([[0.0], np.cumsum(weight)])
    upper = np.full((size, size), -1, dtype=np.int64)  # upper[i, j]: largest secondary need of items i..j
    for first in range(size):
        upper[first, first:] = np.maximum.accumulate(top[first:])
    span = cumulative[None, 1:] - cumulative[:size, None]
    cost = np.where(upper >= 0, span * (weights[0] * values[None, :] + weights[1] * upper), np.inf)
    best_prev = np.concatenate([[0.0], np.full(size, np.inf)])  # best_prev[i]: items before i, with fewer shapes
    tables = []
    for _ in range(max_shapes):
        candidates = best_prev[:size, None] + cost
        choice = np.argmin(candidates, axis=0)
        value = candidates[choice, np.arange(size)]
        keep_fewer = best_prev[1:] <= value
        choice = np.where(keep_fewer, -1, choice)
        tables.append(choice)
        best_prev = np.concatenate([[0.0], np.minimum(value, best_prev[1:])])
    return [_backtrack(tables[:k], values, upper) for k in range(1, max_shapes + 1)]


def _allowed_ends(cumulative_weight: np.ndarray) -> np.ndarray:
    """Indices of the distinct values after which a range may end: every one when there are
    at most ``MAX_CUTS``, else ``MAX_CUTS`` quantiles of the batches (always the last)."""
    size = cumulative_weight.size
    if size <= MAX_CUTS:
        return np.arange(size)
    marks = np.linspace(0, cumulative_weight[-1], MAX_CUTS + 1)[1:]
    ends = np.searchsorted(cumulative_weight, marks, side="left")
    return np.unique(np.minimum(np.append(ends, size - 1), size - 1))


def _backtrack(tables: list[np.ndarray], values: np.ndarray, upper: np.ndarray) -> list[tuple[int, int]]:
    """The ranges chosen with ``len(tables)`` shapes at most, as (primary, secondary) shapes."""
    shapes = []
    last = values.size - 1
    level = len(tables) - 1
    while last >= 0:
        first = int(tables[level][last])
        if first < 0:  # fewer shapes were as good here
            level -= 1
            continue
        shapes.append((int(values[last]), int(upper[first, last])))
        last, level = first - 1, level - 1
    return shapes[::-1]
