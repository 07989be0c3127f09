"""Pricing for the pattern LP: the most one pack can be worth when every graph size has a value.

Given a value ``v_i >= 0`` per histogram row, find a pack (copies ``a_i <= count_i``)
within the limits (nodes, edges, graphs) that maximises ``sum a_i v_i``: a bounded 2D
knapsack with a cardinality limit. It is solved by dynamic programming over a (nodes,
edges) table, each row's copies split into powers of two (binary splitting), with the
table's cell decisions kept as bits so the best pack can be read back. Rows that another
row dominates (no larger, worth as much, enough graphs to fill a pack:
:meth:`PackPricer.dominated`) stay out of an exact table without changing its maximum;
under the duals of a column-generation master, most rows are dominated.

The answer is an **upper bound** on the most a pack can be worth, which is what the Farley
bound of :mod:`packing.column_generation` needs, and it stays one when the problem is relaxed to fit
the table:

* sizes and limits are divided by the greatest common divisor of the sizes (exact), and if
  the table would still exceed ``MAX_CELLS`` cells (or its decision bits
  ``MAX_DECISION_BYTES``), by a larger factor, rounding sizes and limits down: every pack
  within the limits stays within the rounded ones, so the maximum can only grow;
* when the graph limit can bind it is relaxed in Lagrangian fashion: for any ``mu >= 0``,
  ``max sum a_i (v_i - mu) + mu * G`` without the graph limit bounds the maximum with it;
* a bound without a table (:meth:`PackPricer.linear_bound`: the largest value per node
  times N, per edge times E, per graph times G) caps it;
* rows worth at most ``_TINY`` stay out of the table; the most they can add to a pack (their
  values times the copies a pack holds) is added to the bound.

Packs read back from a relaxed table can break a real limit; they are repaired (copies of
the least valuable sizes dropped) before use, and ``exact`` says whether the bound is the
true maximum.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from .histogram import most_graphs_per_pack
from .histogram import SizeHistogram
from .limits import PackLimits

MAX_CELLS = 2**18  # (nodes, edges) table cells, about 2 MB of values
MAX_DECISION_BYTES = 96 * 2**20  # decision bits kept for reading the best pack back
LAGRANGE_STEPS = 4  # extra tables tried for the graph limit when it can bind
_TINY = 1e-12

Pattern = dict[int, int]  # histogram row -> copies


class DeadlineReached(Exception):
    """The time budget ran out in the middle of a pricing table."""


@dataclass(frozen=True)
class Priced:
    """One pricing result: no pack within the limits is worth more than ``upper_bound``;
    ``pattern`` is a pack within the limits worth ``value`` (None if none was found);
    ``exact`` when ``upper_bound`` is the true maximum; ``more`` other packs within the
    limits, good but not the best (when asked for)."""

    upper_bound: float
    pattern: Pattern | None
    value: float
    exact: bool
    more: list[Pattern] = field(default_factory=list)


def _factor(sizes: np.ndarray, limit: int) -> int:
    """The exact divisor of one component: the gcd of its sizes; above the limit when every
    size is 0 (the component then never binds and its table axis has one cell)."""
    divisor = int(np.gcd.reduce(sizes))
    return divisor if divisor else limit + 1


class PackPricer:
    """Prices packs of one histogram within one set of limits (see the module docstring).

    >>> hist = SizeHistogram.from_counts([3, 2], [4, 2], [2, 3])
    >>> priced = PackPricer(hist, PackLimits(5, 6, 2)).price(np.array([0.6, 0.4]))
    >>> round(priced.upper_bound, 9), priced.pattern, priced.exact  # two (2, 2) graphs beat (3, 4) + (2, 2)
    (1.2, {0: 2}, True)
    """

    def __init__(self, hist: SizeHistogram, limits: PackLimits) -> None:
        self.nodes = hist.num_nodes.astype(np.int64)
        self.edges = hist.num_edges.astype(np.int64)
        self.limits = limits
        room = [np.full(self.nodes.size, limits.max_graphs, dtype=np.int64)]
        for sizes, limit in ((self.nodes, limits.max_nodes), (self.edges, limits.max_edges)):
            room.append(np.where(sizes > 0, limit // np.maximum(sizes, 1), limits.max_graphs))
        self.fitting = np.minimum.reduce(room)  # the most copies of a row the limits let one pack hold
        self.copies = np.minimum(self.fitting, hist.counts.astype(np.int64))  # ... and the row's count
        self.graphs_bind = most_graphs_per_pack(self.nodes, self.edges, hist.counts, limits.max_nodes,
                                                limits.max_edges) > limits.max_graphs
        self.exact_divisors = (_factor(self.nodes, limits.max_nodes), _factor(self.edges, limits.max_edges))
        self._by_size = np.lexsort((self.edges, self.nodes))
        self._level_starts = np.flatnonzero(np.diff(self.nodes[self._by_size], prepend=-1))
        self._edge_rank = np.searchsorted(np.unique(self.edges), self.edges)
        self._free = hist.counts >= self.fitting

    def dominated(self, values: np.ndarray) -> np.ndarray:
        """Rows no best pack needs: some other row is no larger in nodes and edges, worth as
        much, and has enough graphs to fill any pack alone (its count is at least the
        copies the limits allow). Any pack can trade each copy of a dominated row for one
        of that row, keeping every limit and losing no worth (the usual dominance of
        knapsack items; Kellerer, Pferschy and Pisinger, *Knapsack Problems*, 2004), so
        leaving them out of the table keeps its maximum. One sweep over node counts, with a
        running maximum over edge counts.

        >>> pricer = PackPricer(SizeHistogram.from_counts([2, 2, 3], [1, 3, 2], [9, 9, 9]), PackLimits(6, 6, 4))
        >>> pricer.dominated(np.array([0.5, 0.5, 0.6])).tolist()  # (2, 3) is worth no more than (2, 1)
        [False, True, False]
        """
        below = np.full(int(self._edge_rank.max(initial=0)) + 1, -np.inf)  # best free row at smaller node counts
        out = np.zeros(values.size, dtype=bool)
        for start, stop in zip(self._level_starts.tolist(), [*self._level_starts[1:].tolist(), values.size]):
            rows = self._by_size[start:stop]  # one node count, by edges
            worth, ranks = values[rows], self._edge_rank[rows]
            same = np.where(self._free[rows], worth, -np.inf)
            earlier = np.maximum.accumulate(np.concatenate([[-np.inf], same[:-1]]))
            out[rows] = (np.maximum(below[ranks], earlier) >= worth)
            placed = np.full(below.size, -np.inf)
            np.maximum.at(placed, ranks, same)
            below = np.maximum(below, np.maximum.accumulate(placed))
        return out

    # ----------------------------------------------------------------- the table
    def _divisors(self, pieces: int) -> tuple[int, int]:
        cells = max(1024, min(MAX_CELLS, MAX_DECISION_BYTES * 8 // max(pieces, 1)))
        node_div, edge_div = self.exact_divisors
        while (self.limits.max_nodes // node_div + 1) * (self.limits.max_edges // edge_div + 1) > cells:
            if self.limits.max_nodes // node_div >= self.limits.max_edges // edge_div:
                node_div *= 2
            else:
                edge_div *= 2
        return node_div, edge_div

    def _table(self, values: np.ndarray, deadline: float | None, extra: int = 0,
               completions: int = 0) -> tuple[float, list[Pattern], bool]:
        """Best worth of the (possibly rounded) table with the graph limit ignored, its
        pack, up to ``extra`` more packs (the best at smaller capacities where the best
        worth drops: each a different pack) and up to ``completions`` packs that each hold
        one graph of a row and the best of the table in the room it leaves (for the rows
        where that is worth most); the flag says whether the table was exact."""
        rows = np.flatnonzero(values > _TINY)
        pieces = self._pieces(rows)
        node_div, edge_div = self._divisors(len(pieces))
        exact = (node_div, edge_div) == self.exact_divisors
        if exact:  # the same maximum without dominated rows (a rounded table's could change, and with it
            rows = rows[~self.dominated(values)[rows]]  # the pricing bound of certificates made before)
            pieces = self._pieces(rows)
        cap_nodes, cap_edges = self.limits.max_nodes // node_div, self.limits.max_edges // edge_div
        small_nodes, small_edges = (self.nodes // node_div).tolist(), (self.edges // edge_div).tolist()
        best = np.zeros((cap_nodes + 1, cap_edges + 1))
        decisions: list[tuple[int, int, int, int, np.ndarray]] = []
        for done, (row, copies) in enumerate(pieces):
            if deadline is not None and done % 32 == 0 and time.perf_counter() > deadline:
                raise DeadlineReached
            shift_n, shift_e = copies * small_nodes[row], copies * small_edges[row]
            if shift_n > cap_nodes or shift_e > cap_edges:
                continue
            target = best[shift_n:, shift_e:]
            candidate = best[:cap_nodes + 1 - shift_n, :cap_edges + 1 - shift_e] + copies * values[row]
            better = candidate > target
            np.copyto(target, candidate, where=better)
            decisions.append((row, copies, shift_n, shift_e, np.packbits(better, axis=None)))
        cells = [(cap_nodes, cap_edges)]
        if extra:
            for line, along_edges in ((best[cap_nodes, :], True), (best[:, cap_edges], False)):
                drops = np.flatnonzero(line[1:] > line[:-1])[::-1][1:extra + 1]  # where the worth steps down
                cells += [(cap_nodes, int(at)) if along_edges else (int(at), cap_edges) for at in drops]
        packs = [self._read_back(decisions, cell, cap_edges) for cell in cells]
        if completions:
            room_n, room_e = cap_nodes - np.asarray(small_nodes)[rows], cap_edges - np.asarray(small_edges)[rows]
            fits = (room_n >= 0) & (room_e >= 0)
            rows, room_n, room_e = rows[fits], room_n[fits], room_e[fits]
            completed = values[rows] + best[room_n, room_e]
            for at in np.argsort(-completed, kind="stable")[:completions].tolist():
                pack = self._read_back(decisions, (int(room_n[at]), int(room_e[at])), cap_edges)
                row = int(rows[at])
                if pack.get(row, 0) < self.copies[row]:
                    pack[row] = pack.get(row, 0) + 1
                    packs.append(pack)
        return float(best[cap_nodes, cap_edges]), packs, exact

    def _pieces(self, rows: np.ndarray) -> list[tuple[int, int]]:
        """The table's items: each row's copies split into powers of two (binary splitting)."""
        pieces: list[tuple[int, int]] = []
        for row, most in zip(rows.tolist(), self.copies[rows].tolist()):
            step = 1
            while most > 0:
                pieces.append((row, min(step, most)))
                most -= step
                step *= 2
        return pieces

    @staticmethod
    def _read_back(decisions: list, cell: tuple[int, int], cap_edges: int) -> Pattern:
        """The pack behind one table cell, from the decision bits (last piece first)."""
        pattern: Pattern = {}
        at_n, at_e = cell
        for row, copies, shift_n, shift_e, bits in reversed(decisions):
            if at_n >= shift_n and at_e >= shift_e:
                flat = (at_n - shift_n) * (cap_edges + 1 - shift_e) + (at_e - shift_e)
                if bits[flat >> 3] >> (7 - (flat & 7)) & 1:
                    pattern[row] = pattern.get(row, 0) + copies
                    at_n, at_e = at_n - shift_n, at_e - shift_e
        return pattern

    # ----------------------------------------------------------------- packs
    def _repair(self, pattern: Pattern, values: np.ndarray) -> Pattern:
        """Drop copies of the least valuable sizes until the pack keeps every real limit."""
        pattern = {row: copies for row, copies in pattern.items() if copies > 0}
        limits = self.limits

        def over() -> bool:
            return (sum(self.nodes[r] * c for r, c in pattern.items()) > limits.max_nodes
                    or sum(self.edges[r] * c for r, c in pattern.items()) > limits.max_edges
                    or sum(pattern.values()) > limits.max_graphs)

        while pattern and over():
            weight = {row: values[row] / (self.nodes[row] / limits.max_nodes + self.edges[row] / limits.max_edges
                                          + 1 / limits.max_graphs) for row in pattern}
            cheapest = min(weight, key=weight.get)
            pattern[cheapest] -= 1
            if not pattern[cheapest]:
                del pattern[cheapest]
        return pattern

    def worth(self, pattern: Pattern, values: np.ndarray) -> float:
        """``sum a_i v_i`` of a pack."""
        return math.fsum(float(values[row]) * copies for row, copies in pattern.items())

    def price(self, values: np.ndarray, deadline: float | None = None, extra: int = 0,
              completions: int = 0) -> Priced:
        """The most a pack is worth under ``values`` (one per histogram row, >= 0), as an
        upper bound, and the best pack found within the limits (``more``: other good packs,
        up to ``extra`` from smaller capacities along each limit and up to ``completions``
        that each complete one graph of a valuable row with the best the room left holds).
        Raises :class:`DeadlineReached` when ``deadline`` (a ``time.perf_counter()`` time)
        passes."""
        values = np.maximum(np.asarray(values, dtype=np.float64), 0.0)
        worth, packs, exact = self._table(values, deadline, extra, completions)
        upper = worth + self._left_out(values)
        candidates = list(packs)
        if self.graphs_bind and sum(packs[0].values()) > self.limits.max_graphs:
            exact = False
            low, high = 0.0, float(values.max())
            for _ in range(LAGRANGE_STEPS):
                mu = (low + high) / 2
                shifted, shifted_packs, _ = self._table(values - mu, deadline)
                upper = min(upper, shifted + self._left_out(values - mu) + mu * self.limits.max_graphs)
                candidates.append(shifted_packs[0])
                if sum(shifted_packs[0].values()) > self.limits.max_graphs:
                    low = mu
                else:
                    high = mu
        repaired = [self._repair(candidate, values) for candidate in candidates]
        best = max(repaired, key=lambda p: self.worth(p, values))
        value = self.worth(best, values)
        more = [pack for pack in repaired if pack and pack != best]
        upper = max(min(upper, self.linear_bound(values)), value)
        return Priced(upper, best or None, value, exact and repaired[0] == packs[0], more)

    def _left_out(self, values: np.ndarray) -> float:
        """The most the rows the table leaves out (worth above 0, at most ``_TINY``) can add
        to a pack: 0 unless such rows exist."""
        small = (values > 0) & (values <= _TINY)
        return math.fsum((values[small] * self.copies[small]).tolist())

    def linear_bound(self, values: np.ndarray) -> float:
        """A bound without a table: a pack holds at most N nodes, E edges and G graphs, so it
        is worth at most the largest value per node times N (likewise per edge, per graph).
        It is 1 for the volume bound's duals n_i / N, e_i / E or 1 / G.

        >>> PackPricer(SizeHistogram.from_counts([2, 3], [1, 1], [5, 5]), PackLimits(6, 6, 4)).linear_bound(
        ...     np.array([2 / 6, 3 / 6]))
        1.0
        """
        values = np.maximum(np.asarray(values, dtype=np.float64), 0.0)
        worth = values > 0
        bounds = [float(values.max()) * self.limits.max_graphs]
        for sizes, limit in ((self.nodes, self.limits.max_nodes), (self.edges, self.limits.max_edges)):
            if worth.any() and (sizes[worth] > 0).all():
                bounds.append(float((values[worth] / sizes[worth]).max()) * limit)
        return min(bounds)
