"""Exact-fill packing: build one pack pattern at a time so that the binding limit is met
exactly, then repeat that pattern as often as the histogram allows.

Method: the Minimum Bin Slack idea of Gupta and Ho, "A new heuristic algorithm for the
one-dimensional bin-packing problem" (Production Planning & Control, 1999): each pack is
chosen to leave the least slack, with the largest remaining graph always in it. Here the
slack is minimised by a bounded knapsack over the binding component (the one whose volume
bound is larger), keeping the other component and the graph count within their limits.
On histograms a pattern is repeated while its graphs last, so the number of knapsack
solves grows with the number of distinct patterns, not with the number of graphs.

`improve` applies it where greedy packing leaves slack: packs that are exactly full are
kept, the rest are dissolved and re-packed; the result is kept only if it uses fewer packs.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Callable

import numpy as np

from .greedy import BEST_FIT, greedy_pack
from .packs import Strategy, graphs_in, in_rows, num_packs, pack_from_copies
from .heuristics import HEURISTICS
from .limits import PackLimits

#: ``progress(fraction done, message)``: how the engine's long searches report (column
#: generation, exact fill, best of all).
Progress = Callable[[float, str], None]

CANDIDATES_PER_SIZE = 2  # graphs per binding-component size the knapsack may choose from
MAX_KNAPSACK_CAPACITY = 20_000  # above this binding limit `improve` leaves greedy plans as they are
#: Knapsack table cells one improvement may update (a few tenths of a second here).
#: When it is spent, the graphs not yet placed go to best fit: the work is bounded and the
#: result deterministic, whatever the machine.
WORK_BUDGET = 15_000_000


def _binding_first(nodes, edges, counts, limits: PackLimits):
    """(primary sizes, secondary sizes, primary cap, secondary cap) with the binding limit first."""
    max_nodes, max_edges = limits.max_nodes, limits.max_edges
    node_volume = float(np.dot(nodes, counts)) / max_nodes
    edge_volume = float(np.dot(edges, counts)) / max_edges
    if node_volume >= edge_volume:
        return nodes, edges, max_nodes, max_edges
    return edges, nodes, max_edges, max_nodes


class _LiveBins:
    """The bins with graphs left and a binding size, grouped by binding size (largest
    first), each group in the knapsack's order: what :func:`_exact_fill` asks of them per
    pattern costs the sizes that fit, not every bin.

    >>> live = _LiveBins(np.array([0, 1, 2]), np.array([3, 3, 1]), np.array([1, 2, 1]))
    >>> live.first(), live.candidates(room=3), live.candidates(room=3, spent=0), live.candidates(room=2)
    (0, [0, 1, 2], [1, 2], [2])
    """

    def __init__(self, order: np.ndarray, primary: np.ndarray, available: np.ndarray) -> None:
        self.groups: dict[int, list[int]] = {}
        for index in order.tolist():
            if available[index] > 0 and primary[index] > 0:
                self.groups.setdefault(int(primary[index]), []).append(index)
        self.sizes = sorted(self.groups)  # ascending; walked from the largest that fits down
        self.primary = primary

    def first(self) -> int | None:
        """The first live bin of the largest binding size (None once none is left)."""
        return self.groups[self.sizes[-1]][0] if self.sizes else None

    def candidates(self, room: int, spent: int | None = None) -> list[int]:
        """Per binding size up to ``room``, largest first, its first ``CANDIDATES_PER_SIZE``
        bins (larger sizes could not go into the knapsack); ``spent`` is a bin kept here
        that has no graph left for now."""
        out: list[int] = []
        groups, sizes = self.groups, self.sizes
        for position in range(bisect_right(sizes, room) - 1, -1, -1):
            group = groups[sizes[position]]
            out.extend(group[1:1 + CANDIDATES_PER_SIZE] if group[0] == spent else group[:CANDIDATES_PER_SIZE])
        return out

    def used_up(self, index: int) -> None:
        """Forget a bin whose graphs are all packed."""
        size = int(self.primary[index])
        group = self.groups[size]
        group.remove(index)
        if not group:
            del self.groups[size]
            del self.sizes[bisect_left(self.sizes, size)]


def _fill(candidates, primary, secondary, available, cap_primary, cap_secondary, max_items, stop_when_full):
    """Bounded knapsack: multiplicities that reach the largest primary sum <= cap_primary
    with the least secondary sum <= cap_secondary (with ``stop_when_full``: the first found
    that meets the primary cap exactly). Returns ({bin: copies}, table cells updated)."""
    least = np.full(cap_primary + 1, np.inf)  # least secondary sum reaching each primary sum
    least[0] = 0.0
    pieces: list[tuple[int, int, int, np.ndarray]] = []  # bin, copies, shift, cells it improved
    work = 0
    for index in candidates:
        size_p, size_s = int(primary[index]), int(secondary[index])
        if size_p > cap_primary or size_s > cap_secondary:
            continue
        bound = min(int(available[index]), cap_primary // size_p, max_items,
                    cap_secondary // size_s if size_s else max_items)
        step = 1
        while bound > 0:  # binary splitting of the copy bound
            copies = min(step, bound)
            bound -= copies
            step *= 2
            shift = copies * size_p
            candidate = least[:-shift] + copies * size_s
            better = candidate < least[shift:]
            work += better.size
            if better.any():
                np.copyto(least[shift:], candidate, where=better)
                pieces.append((index, copies, shift, better))
        if stop_when_full and least[cap_primary] <= cap_secondary:  # exactly full already
            break
    reach = int(np.flatnonzero(least <= cap_secondary).max())
    chosen: dict[int, int] = {}
    for index, copies, shift, better in reversed(pieces):
        if reach >= shift and better[reach - shift]:
            chosen[index] = chosen.get(index, 0) + copies
            reach -= shift
    return chosen, work


def exact_fill_pack(
    nodes: np.ndarray, edges: np.ndarray, counts: np.ndarray, limits: PackLimits, budget: int = WORK_BUDGET,
    stop_when_full: bool = False,
) -> list[Strategy]:
    """Pack histogram bins with least-slack patterns; returns (bin indices, count) strategies.

    Each pattern holds the largest graph left and fills the binding limit as far as possible
    with the least use of the other; ``stop_when_full`` takes the first exactly full pattern
    found instead (much faster, sometimes fewer packs, sometimes more). Patterns are built
    while ``budget`` knapsack cells last; graphs left then, and graphs of zero binding size,
    are placed by best fit.

    >>> exact_fill_pack(np.array([3, 2, 1]), np.array([1, 1, 1]), np.array([2, 2, 2]), PackLimits(6, 10, 4))
    [(((0, 2),), 1), (((1, 2), (2, 2)), 1)]
    """
    return _exact_fill(nodes, edges, counts, limits, budget, stop_when_full)[0]


def _exact_fill(nodes, edges, counts, limits: PackLimits, budget: int, stop_when_full: bool,
                spending: Callable[[int], None] | None = None) -> tuple[list[Strategy], int]:
    """:func:`exact_fill_pack` and the knapsack cells it used; ``spending(cells)`` is told
    the cells used so far after each pattern."""
    primary, secondary, cap_primary, cap_secondary = _binding_first(nodes, edges, counts, limits)
    max_graphs = limits.max_graphs
    available = counts.astype(np.int64).copy()
    order = np.lexsort((secondary, -primary))  # largest binding size first
    strategies: list[Strategy] = []
    used = 0
    live = _LiveBins(order, primary, available)
    left = int(np.dot(primary, available))  # the binding size of the graphs not yet placed
    while used < budget:
        first = live.first()
        if first is None:
            break
        available[first] -= 1
        room = min(cap_primary - int(primary[first]), left - int(primary[first]))
        chosen, work = _fill(live.candidates(room, None if available[first] else first), primary, secondary, available,
                             room, cap_secondary - int(secondary[first]), max_graphs - 1, stop_when_full)
        used += work
        if spending is not None:
            spending(used)
        available[first] += 1
        chosen[first] = chosen.get(first, 0) + 1
        while sum(chosen.values()) > max_graphs:  # the knapsack does not count graphs
            smallest = min(chosen, key=lambda i: (primary[i], i))
            chosen[smallest] -= 1
            if not chosen[smallest]:
                del chosen[smallest]
        repeat = min(int(available[i]) // copies for i, copies in chosen.items())
        for index, copies in chosen.items():
            available[index] -= copies * repeat
            left -= int(primary[index]) * copies * repeat
            if not available[index]:
                live.used_up(index)
        strategies.append((pack_from_copies(chosen), repeat))
    if available.any():  # graphs left when the budget ran out, or of zero binding size
        rest = np.flatnonzero(available)
        strategies += in_rows(greedy_pack(nodes[rest], edges[rest], available[rest], limits, HEURISTICS["product"],
                                          BEST_FIT), rest)
    return strategies, used


def improve(
    nodes: np.ndarray, edges: np.ndarray, counts: np.ndarray, limits: PackLimits,
    strategies: list[Strategy], bound: int, budget: int = WORK_BUDGET, progress: Progress | None = None,
) -> list[Strategy]:
    """Re-pack the packs of ``strategies`` that have slack in the binding limit with
    :func:`exact_fill_pack` (first its fast variant, then, with the budget left, the
    thorough one); return whichever plan uses the fewest packs.

    Plans already at ``bound`` (a proven lower bound on the packs), packs whose graph slots
    are full, and binding limits above ``MAX_KNAPSACK_CAPACITY`` (where packs hold so many
    graphs that the slack is a sliver) are left as they are. The work is bounded by ``budget`` (see
    :func:`exact_fill_pack`); ``progress(fraction, message)`` is told the share of it spent
    after each pattern.

    >>> nodes, edges, counts = np.array([4, 3, 2, 1]), np.array([1, 1, 1, 1]), np.array([1, 1, 1, 1])
    >>> slack = [(((0, 1),), 1), (((1, 1), (3, 1)), 1), (((2, 1),), 1)]
    >>> sum(c for _, c in improve(nodes, edges, counts, PackLimits(5, 9, 4), slack, bound=2))
    2
    """
    primary, _, cap_primary, _ = _binding_first(nodes, edges, counts, limits)
    max_graphs = limits.max_graphs
    if cap_primary > MAX_KNAPSACK_CAPACITY or num_packs(strategies) <= bound:
        return strategies
    kept: list[Strategy] = []
    loose = np.zeros_like(counts)
    loose_packs = 0
    for items, count in strategies:
        if sum(int(primary[row]) * copies for row, copies in items) == cap_primary or graphs_in(items) == max_graphs:
            kept.append((items, count))
        else:
            loose_packs += count
            for row, copies in items:
                loose[row] += copies * count
    if loose_packs == 0:
        return strategies
    mask = loose > 0
    bins = np.flatnonzero(mask)
    best, fewest = None, loose_packs
    total = budget

    def spending(used: int) -> None:
        if progress is not None:
            spent = total - budget + used
            progress(min(spent / total, 1.0), f"exact fill: {spent:,} of {total:,} knapsack cells")

    for stop_when_full in (True, False):  # the fast variant first; the thorough one with what is left
        repacked, used = _exact_fill(nodes[mask], edges[mask], loose[mask], limits, budget, stop_when_full, spending)
        budget -= used
        if num_packs(repacked) < fewest:
            best, fewest = repacked, num_packs(repacked)
        if budget <= 0:
            break
    if best is None:
        return strategies
    return kept + in_rows(best, bins)
