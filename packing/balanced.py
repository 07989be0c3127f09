"""Balanced packing for when the graph slots bind or packs hold many graphs: every pack gets a
mix of large and small graphs so that max_graphs graphs fit in each, and so that nodes and
edges run out together.

Greedy tuple packing places the largest graphs first; when packs are limited by their
number of graphs (``ceil(graphs / max_graphs)`` is the largest volume bound), the large graphs
fill packs by edges with few graphs and the small ones left at the end fill packs of
``max_graphs`` graphs with most of their edges unused. That can lose even to a random
streaming fill (dynamic batching). Here the graphs, sorted by size, are dealt to ``P`` packs
in serpentine order (1, 2, ..., P, P, ..., 2, 1, 1, 2, ...), the classic balanced-partition
rule of multiprocessor scheduling, so every pack's sums stay close to the mean; graphs that
push a pack over a limit are taken out again and placed into the room other packs have left,
else into new packs by best fit. Several ``P`` from the lower bound up are tried; the fewest
packs win.

The same mix pays where packs hold many graphs (``MANY_GRAPHS`` or more on average): sorted
greedy fills put the edge-heavy large graphs together (those packs run out of edges) and the
small ones together (out of nodes). On QM9 radius graphs (5 Angstrom) at limits of 128 mean
graphs, best fit needs 1,087 packs against a lower bound of 1,023 and the dealt packs 1,029.
"""
from __future__ import annotations

import numpy as np

from .greedy import BEST_FIT, greedy_pack
from .packs import Pack, Strategy, in_rows, num_packs, pack_from_rows
from .heuristics import HEURISTICS
from .histogram import SizeHistogram
from .limits import PackLimits

#: Packs to try, as multiples of the lower bound.
PACK_FACTORS = (1.0, 1.003, 1.01, 1.03)
#: Graph slots must be at least this share of the largest volume bound for balancing to run,
GRAPH_BOUND_SHARE = 0.97
#: or packs must hold at least this many graphs on average at the largest volume bound.
MANY_GRAPHS = 32


def _volume_bounds(hist: SizeHistogram, limits: PackLimits) -> tuple[int, int]:
    """(the graph-slot bound, the largest bound)."""
    graphs = -(-hist.num_graphs // limits.max_graphs)
    return graphs, max(graphs, -(-hist.total_nodes // limits.max_nodes), -(-hist.total_edges // limits.max_edges))


def applies(hist: SizeHistogram, limits: PackLimits) -> bool:
    """Whether balanced fill is for these limits: the graph slots bind, or packs hold at
    least ``MANY_GRAPHS`` graphs on average at the largest volume bound.

    >>> hist = SizeHistogram.from_counts([3, 8], [4, 14], [200, 40])
    >>> applies(hist, PackLimits(8, 14, 256)), applies(hist, PackLimits(400, 800, 256))
    (False, True)
    """
    graph_bound, bound = _volume_bounds(hist, limits)
    return graph_bound >= GRAPH_BOUND_SHARE * bound or hist.num_graphs >= MANY_GRAPHS * bound


def _deal(bins: np.ndarray, packs: int) -> np.ndarray:
    """The pack of every graph (sorted largest first) dealt in serpentine order."""
    rounds, position = np.divmod(np.arange(bins.size), packs)
    return np.where(rounds % 2 == 0, position, packs - 1 - position)


def _repair(pack_of: np.ndarray, nodes: np.ndarray, edges: np.ndarray, limits: PackLimits, packs: int) -> np.ndarray:
    """Take graphs out of packs over a limit (largest first) and put them into other packs'
    room; -1 marks graphs that fit nowhere."""
    sums = [np.bincount(pack_of, weights=values, minlength=packs).astype(np.int64)
            for values in (nodes, edges, np.ones_like(nodes))]
    caps = (limits.max_nodes, limits.max_edges, limits.max_graphs)
    over = (sums[0] > caps[0]) | (sums[1] > caps[1]) | (sums[2] > caps[2])
    # each pack over a limit gives up its graphs, most edges first (then in graph order),
    # until it fits: a prefix of that order, found for all packs at once
    order = np.lexsort((np.arange(pack_of.size), -edges, pack_of))
    order = order[over[pack_of[order]]]
    owner = pack_of[order]
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]]) if owner.size else np.zeros(0, dtype=np.int64)
    still_over = np.zeros(order.size, dtype=bool)
    for total, cap, values in zip(sums, caps, (nodes[order], edges[order], np.ones(order.size, dtype=np.int64))):
        taken = np.cumsum(values) - values  # given up before this graph, within its pack
        taken -= np.repeat(taken[starts], np.diff(np.r_[starts, order.size]))
        still_over |= total[owner] - taken > cap
    loose = order[still_over]
    for total, values in zip(sums, (nodes, edges, np.ones_like(nodes))):
        total -= np.bincount(pack_of[loose], weights=values[loose], minlength=packs).astype(np.int64)
    pack_of[loose] = -1
    for graph in loose.tolist():
        fits = np.flatnonzero((sums[0] + nodes[graph] <= caps[0]) & (sums[1] + edges[graph] <= caps[1])
                              & (sums[2] < caps[2]))
        if fits.size:
            pack = int(fits[np.argmin(caps[1] - sums[1][fits])])  # the fullest that fits, by edges
            pack_of[graph] = pack
            for total, size in zip(sums, (nodes[graph], edges[graph], 1)):
                total[pack] += size
    return pack_of


def _strategies(bins: np.ndarray, pack_of: np.ndarray, hist: SizeHistogram, limits: PackLimits) -> list[Strategy]:
    """Dealt packs as strategies, plus best fit for the graphs that fit no dealt pack."""
    placed = pack_of >= 0
    order = np.lexsort((bins[placed], pack_of[placed]))
    members, pack_ids = bins[placed][order], pack_of[placed][order]
    starts = np.flatnonzero(np.r_[True, pack_ids[1:] != pack_ids[:-1]])
    counted: dict[Pack, int] = {}
    for items in np.split(members, starts[1:]):
        key = pack_from_rows(items.tolist())
        counted[key] = counted.get(key, 0) + 1
    strategies = list(counted.items())
    loose = bins[~placed]
    if loose.size:
        rest, counts = np.unique(loose, return_counts=True)
        strategies += in_rows(greedy_pack(hist.num_nodes[rest], hist.num_edges[rest], counts, limits,
                                          HEURISTICS["product"], BEST_FIT), rest)
    return strategies


def balanced_pack(hist: SizeHistogram, limits: PackLimits) -> list[Strategy] | None:
    """Strategies (:mod:`packing.packs`) of the balanced plan
    with the fewest packs, or None when the histogram has too many graphs to deal one by one.
    It deals under any limits, but serves only those where it :func:`applies` better than
    greedy packing (best of all tries it there only).

    >>> hist = SizeHistogram.from_counts([10, 1], [90, 1], [4, 12])
    >>> sum(count for _, count in balanced_pack(hist, PackLimits(20, 100, 4)))
    4
    """
    _, bound = _volume_bounds(hist, limits)
    if hist.num_graphs > MAX_GRAPHS:
        return None
    bins = np.repeat(np.arange(hist.num_tuples), hist.counts)
    nodes, edges = hist.num_nodes[bins], hist.num_edges[bins]
    order = np.lexsort((nodes, edges))[::-1]  # largest edges first
    bins, nodes, edges = bins[order], nodes[order], edges[order]
    best: list[Strategy] | None = None
    for packs in sorted({max(bound, int(np.ceil(bound * factor))) for factor in PACK_FACTORS}):
        pack_of = _repair(_deal(bins, packs), nodes, edges, limits, packs)
        strategies = _strategies(bins, pack_of, hist, limits)
        if best is None or num_packs(strategies) < num_packs(best):
            best = strategies
    return best


MAX_GRAPHS = 20_000_000  # graphs dealt one by one (about 0.5 GB of work arrays at most)
