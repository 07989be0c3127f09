"""Best fit for many limit pairs at once: the pack counts of a whole sweep in one pass.

Every cell of a sweep visits the histogram bins in the same order (the order depends on
the heuristic only, never on the limits), so the cells can take each bin together. The
open pack groups of all cells live in flat numpy arrays (cell, room left in nodes and
edges, graphs held, packs); per bin, a handful of array operations over all cells do what
:func:`packing.greedy.count_packs` does for one, with the same choices, so each cell's
count is exactly the best-fit count of that cell on its own:

* a group fits when its room holds one copy of the bin; each fitting group can take
  ``packs x copies per pack`` copies (copies per pack: as many as fit);
* fitting groups are used fullest first: by their tightest room (the share of a limit
  left on their tighter side, :func:`packing.greedy.tightest_room`, here in whole
  numbers), then room in nodes, room in edges and graphs held (the order
  :mod:`packing.greedy` uses), each taken whole until the copies left are fewer than it
  takes; that one fills whole packs and puts the rest into one more pack;
* the copies no group takes open new packs holding as many copies as fit.

Groups with the same room are not always merged (they are used one after the other, so
the packs they end with are the same as if they were); a merge every so often keeps the
arrays small. Method: Krell et al., "Tuple Packing" (2022), sections 2.4-2.5 (histogram
best fit) and 3.2 (sweeping the limits).
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from .greedy import bin_order
from .histogram import most_graphs_by_volume
from .heuristics import Heuristic
from .limits import PackLimits

#: Size bins between two progress reports: a pass over 100,000 bins reports 100 times, and
#: a call per 1,000 bins costs nothing next to placing them.
PROGRESS_BINS = 1000
#: The lockstep pass is exact while graphs x graph limit (copies, summed in float64) and
#: node limit x edge limit (its whole-number ranks, see :func:`exact_in_lockstep`) stay below this.
EXACT_BELOW = 2**52
_MERGE_GROWTH = 2  # merge equal groups once the arrays have doubled since the last merge


def exact_in_lockstep(num_graphs: int, limits: Sequence[PackLimits]) -> bool:
    """Whether the lockstep pass counts ``num_graphs`` graphs under every one of ``limits``
    exactly. It sums copies in float64, and ranks groups by their tightest room in whole
    numbers, ``min(room nodes x max_edges, room edges x max_nodes)`` (the ratios of
    :func:`packing.greedy.tightest_room` times ``max_nodes x max_edges``): below
    ``EXACT_BELOW`` both are exact and the floats greedy compares keep the same order.

    >>> exact_in_lockstep(1_000, [PackLimits(64, 1_024)]), exact_in_lockstep(1_000, [PackLimits(2**30, 2**30)])
    (True, False)
    """
    most = [max(getattr(limit, name) for limit in limits) for name in ("max_graphs", "max_nodes", "max_edges")]
    return bool(limits) and num_graphs * most[0] < EXACT_BELOW and most[1] * most[2] < EXACT_BELOW


def graphs_can_bind(nodes: np.ndarray, edges: np.ndarray, counts: np.ndarray, limits: Sequence[PackLimits]) -> np.ndarray:
    """Per limit pair, whether a pack could ever hold more graphs than the graph limit
    (:func:`packing.histogram.most_graphs_per_pack` for many limits).

    >>> graphs_can_bind(np.array([1]), np.array([1]), np.array([9]), [PackLimits(4, 4, 2), PackLimits(4, 4, 8)]).tolist()
    [True, False]
    """
    node_limits = np.array([limit.max_nodes for limit in limits], dtype=np.int64)
    edge_limits = np.array([limit.max_edges for limit in limits], dtype=np.int64)
    graph_limits = np.array([limit.max_graphs for limit in limits], dtype=np.int64)
    most = np.minimum(most_graphs_by_volume(nodes, counts, node_limits), most_graphs_by_volume(edges, counts, edge_limits))
    return most > graph_limits


class _Groups:
    """Open pack groups of every cell as flat arrays; a group is (cell, room in nodes,
    room in edges, graphs held, packs). ``graphs`` is 0 in cells whose graph limit can
    never bind, as in :mod:`packing.greedy`. A closed group keeps its place with room -1
    (no bin fits it) until the next merge drops it. Cells and rooms are int32 when every
    limit allows (half the memory to scan per bin), graphs and packs int64."""

    COLUMNS = ("cell", "nodes", "edges", "graphs", "packs")

    def __init__(self, narrow: bool) -> None:
        self.size = 0
        self.merged_size = 0
        small = np.int32 if narrow else np.int64
        self.dtypes = dict(zip(self.COLUMNS, (small, small, small, np.int64, np.int64)))
        for name in self.COLUMNS:
            setattr(self, f"_{name}", np.zeros(1024, dtype=self.dtypes[name]))
        self._fit = np.zeros(1024, dtype=bool)
        self._scratch = np.zeros(1024, dtype=bool)

    def __getattr__(self, name: str) -> np.ndarray:
        if name in _Groups.COLUMNS:
            return self.__dict__[f"_{name}"][:self.size]
        raise AttributeError(name)

    def fitting(self, size_n: int, size_e: int) -> np.ndarray:
        """Indices of the groups with room for one graph of this size."""
        fit = np.greater_equal(self.nodes, size_n, out=self._fit[:self.size])
        fit &= np.greater_equal(self.edges, size_e, out=self._scratch[:self.size])
        return np.flatnonzero(fit)

    def close(self, index: np.ndarray) -> None:
        self._nodes[index] = -1
        self._edges[index] = -1

    def append(self, parts: list[tuple[np.ndarray, ...]]) -> None:
        added = sum(part[0].size for part in parts)
        if not added:
            return
        if self.size + added > self._cell.size:
            capacity = max(2 * self._cell.size, self.size + added)
            for name in self.COLUMNS:
                grown = np.zeros(capacity, dtype=self.dtypes[name])
                grown[:self.size] = getattr(self, name)
                setattr(self, f"_{name}", grown)
            self._fit, self._scratch = np.zeros(capacity, dtype=bool), np.zeros(capacity, dtype=bool)
        at = self.size
        for part in parts:
            count = part[0].size
            if count:
                for name, values in zip(self.COLUMNS, part):
                    self.__dict__[f"_{name}"][at:at + count] = values
                at += count
        self.size = at

    def merge_if_grown(self, floor: tuple[int, int]) -> None:
        """Drop the groups no bin from here on fits (room below ``floor``) and merge the
        groups of one cell with the same room and graphs (their packs add up)."""
        if self.size < 4096 or self.size < _MERGE_GROWTH * self.merged_size:
            return
        live = np.flatnonzero((self.nodes >= floor[0]) & (self.edges >= floor[1]))
        cell, nodes, edges, graphs, packs = (getattr(self, name)[live] for name in self.COLUMNS)
        order = _lexicographic_order([cell, nodes, edges, graphs])
        cell, nodes, edges, graphs = cell[order], nodes[order], edges[order], graphs[order]
        start = np.ones(order.size, dtype=bool)
        start[1:] = (cell[1:] != cell[:-1]) | (nodes[1:] != nodes[:-1]) | (edges[1:] != edges[:-1]) \
            | (graphs[1:] != graphs[:-1])
        first = np.flatnonzero(start)
        merged = (cell[first], nodes[first], edges[first], graphs[first],
                  np.add.reduceat(packs[order], first) if first.size else packs)
        self.size = 0
        self.append([merged])
        self.merged_size = self.size


def _lexicographic_order(columns: list[np.ndarray]) -> np.ndarray:
    """Indices that sort rows by ``columns`` (the first is the primary key), as
    ``np.lexsort(columns[::-1])``; one sort of a packed int64 key when the columns are
    whole numbers >= 0 that fit into 62 bits together (faster than a sort per column)."""
    if columns[0].size == 0:
        return np.zeros(0, dtype=np.int64)
    bits = [int(column.max()).bit_length() for column in columns]
    if sum(bits) > 62 or any(column.dtype.kind == "f" and not np.array_equal(column, np.floor(column))
                             for column in columns):
        return np.lexsort(columns[::-1])
    key = np.zeros(columns[0].size, dtype=np.int64)
    for column, width in zip(columns, bits):
        key <<= width
        key |= column.astype(np.int64)
    return np.argsort(key)


def _per_copy_room(room: np.ndarray, size: int) -> np.ndarray:
    """Copies of a bin of ``size`` that fit into each ``room`` (unbounded for size 0)."""
    return room // size if size else np.full(room.shape, np.iinfo(np.int64).max, dtype=np.int64)


def count_best_fit_grid(
    nodes: np.ndarray, edges: np.ndarray, counts: np.ndarray, limits: Sequence[PackLimits], heuristic: Heuristic,
    progress: Callable[[float], None] | None = None,
) -> np.ndarray:
    """The packs best fit uses under each of ``limits`` (each must hold every graph), the
    same numbers as :func:`packing.greedy.count_packs` gives one limit pair at a time.
    ``progress(share of the size bins placed)`` is told every ``PROGRESS_BINS`` bins.

    >>> from packing.heuristics import HEURISTICS
    >>> count_best_fit_grid(np.array([2, 1]), np.array([2, 2]), np.array([2, 2]),
    ...                     [PackLimits(3, 4, 4), PackLimits(6, 8, 4)], HEURISTICS["sum"]).tolist()
    [2, 1]
    """
    nodes, edges, counts = (np.asarray(values, dtype=np.int64) for values in (nodes, edges, counts))
    cells = len(limits)
    node_limits = np.array([limit.max_nodes for limit in limits], dtype=np.int64)
    edge_limits = np.array([limit.max_edges for limit in limits], dtype=np.int64)
    graph_limits = np.array([limit.max_graphs for limit in limits], dtype=np.int64)
    if cells and not exact_in_lockstep(int(counts.sum()), limits):
        raise ValueError("Too many graphs or too large limits for the lockstep best fit to count exactly; count "
                         "each limit pair with packing.greedy.count_packs.")
    binds = graphs_can_bind(nodes, edges, counts, limits)
    order = bin_order(nodes, edges, heuristic)
    order_nodes, order_edges, order_counts = nodes[order], edges[order], counts[order]
    floor_nodes = np.minimum.accumulate(order_nodes[::-1])[::-1].tolist()
    floor_edges = np.minimum.accumulate(order_edges[::-1])[::-1].tolist()
    opened = np.zeros(cells, dtype=np.int64)
    groups = _Groups(narrow=max(int(node_limits.max(initial=0)), int(edge_limits.max(initial=0)), cells) < 2**31)
    for position, (size_n, size_e, copies) in enumerate(zip(order_nodes.tolist(), order_edges.tolist(),
                                                            order_counts.tolist())):
        if progress is not None and position and not position % PROGRESS_BINS:
            progress(position / order.size)
        new_parts: list[tuple[np.ndarray, ...]] = []
        taken = np.zeros(cells, dtype=np.float64)
        fits = groups.fitting(size_n, size_e)
        if fits.size:
            cell = groups.cell[fits]
            room_n, room_e, held = groups.nodes[fits], groups.edges[fits], groups.graphs[fits]
            most = np.minimum(np.minimum(_per_copy_room(room_n, size_n), _per_copy_room(room_e, size_e)),
                              graph_limits[cell] - held)
            packs = groups.packs[fits]
            # copies a group can take, capped at one more than the bin has (no overflow)
            capacity = np.where(packs > copies // most, copies + 1, packs * most)
            taken = np.bincount(cell, weights=capacity.astype(np.float64), minlength=cells)
            whole = taken[cell] <= copies  # cells whose fitting groups all fill up
            used = np.flatnonzero(whole)
            over = np.flatnonzero(~whole)
            if over.size:
                over_cell = cell[over]
                rank = np.minimum(room_n[over] * edge_limits[over_cell], room_e[over] * node_limits[over_cell])
                # A group ranked below one that takes every copy alone is never reached:
                # only groups ranked at most the best such group of their cell are ordered.
                enough = np.full(cells, np.iinfo(np.int64).max)
                alone = capacity[over] >= copies
                np.minimum.at(enough, over_cell[alone], rank[alone])
                reached = rank <= enough[over_cell]
                over, rank = over[reached], rank[reached]
                ranked = over[_lexicographic_order([cell[over], rank, room_n[over], room_e[over], held[over]])]
                ranked_cell, ranked_capacity = cell[ranked], capacity[ranked]
                total = np.cumsum(ranked_capacity)
                starts = np.ones(ranked.size, dtype=bool)
                starts[1:] = ranked_cell[1:] != ranked_cell[:-1]
                before_cell = np.repeat((total - ranked_capacity)[starts], np.diff(np.append(np.flatnonzero(starts),
                                                                                              ranked.size)))
                before = total - ranked_capacity - before_cell  # copies taken by better groups of the cell
                fills = before + ranked_capacity <= copies
                used = np.concatenate([used, ranked[fills]])
                split = ranked[(before < copies) & ~fills]
                left = copies - before[(before < copies) & ~fills]
                full, rest = left // most[split], left % most[split]
                slot = fits[split]
                groups.packs[slot] -= full + (rest > 0)
                groups.close(slot[groups.packs[slot] == 0])
                split_cell = cell[split]
                for per_pack, pack_count, mask in ((most[split], full, full > 0), (rest, np.ones_like(rest), rest > 0)):
                    at = split[mask]
                    new_parts.append(_placed(split_cell[mask], room_n[at], room_e[at], held[at], per_pack[mask],
                                             pack_count[mask], size_n, size_e, binds, graph_limits))
            slot = fits[used]
            per_pack = most[used]
            groups.nodes[slot] -= per_pack * size_n
            groups.edges[slot] -= per_pack * size_e
            groups.graphs[slot] += np.where(binds[cell[used]], per_pack, 0)
            groups.close(slot[groups.graphs[slot] >= graph_limits[cell[used]]])
        left = copies - np.minimum(taken, copies).astype(np.int64)
        needing = np.flatnonzero(left > 0)
        if needing.size:
            per_pack = np.minimum(np.minimum(_per_copy_room(node_limits[needing], size_n),
                                             _per_copy_room(edge_limits[needing], size_e)), graph_limits[needing])
            full, rest = left[needing] // per_pack, left[needing] % per_pack
            opened[needing] += full + (rest > 0)
            zero = np.zeros(needing.size, dtype=np.int64)
            for per, pack_count, mask in ((per_pack, full, full > 0), (rest, np.ones_like(rest), rest > 0)):
                new_parts.append(_placed(needing[mask], node_limits[needing][mask], edge_limits[needing][mask],
                                         zero[mask], per[mask], pack_count[mask], size_n, size_e, binds, graph_limits))
        groups.append(new_parts)
        if position + 1 < len(floor_nodes):
            groups.merge_if_grown((floor_nodes[position + 1], floor_edges[position + 1]))
    return opened


def _placed(cell, room_n, room_e, held, per_pack, pack_count, size_n: int, size_e: int, binds,
            graph_limits) -> tuple[np.ndarray, ...]:
    """New groups: ``pack_count`` packs of each room after ``per_pack`` copies went in
    (closed, room -1, when they hold as many graphs as the limit)."""
    graphs = np.where(binds[cell], held + per_pack, 0)
    full = graphs >= graph_limits[cell]
    return (cell, np.where(full, -1, room_n - per_pack * size_n), np.where(full, -1, room_e - per_pack * size_e),
            graphs, pack_count)
