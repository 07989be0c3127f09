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

import numpy as np

from .greedy import BEST_FIT, greedy_pack
from .packs import Strategy, in_rows, num_packs, pack_from_copies
from .heuristics import HEURISTICS
from .limits import PackLimits

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


def _candidates(order: np.ndarray, primary: np.ndarray, available: np.ndarray) -> list[int]:
    """Per primary size, the live bins with the smallest secondary size (order is sorted so)."""
    taken: dict[int, int] = {}
    out = []
    for index in order.tolist():
        if available[index] <= 0 or primary[index] == 0:
            continue
        size = int(primary[index])
        if taken.get(size, 0) < CANDIDATES_PER_SIZE:
            taken[size] = taken.get(size, 0) + 1
            out.append(index)
    return out


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
    [((0, 0), 1), ((1, 1, 2, 2), 1)]
    """
    return _exact_fill(nodes, edges, counts, limits, budget, stop_when_full)[0]


def _exact_fill(nodes, edges, counts, limits: PackLimits, budget: int, stop_when_full: bool) -> tuple[list[Strategy], int]:
    """:func:`exact_fill_pack` and the knapsack cells it used."""
    primary, secondary, cap_primary, cap_secondary = _binding_first(nodes, edges, counts, limits)
    max_graphs = limits.max_graphs
    available = counts.astype(np.int64).copy()
    order = np.lexsort((secondary, -primary))  # largest binding size first
    strategies: list[Strategy] = []
    used = 0
    while used < budget:
        live = order[(available[order] > 0) & (primary[order] > 0)]
        if live.size == 0:
            break
        first = int(live[0])
        available[first] -= 1
        room = min(cap_primary - int(primary[first]), int(np.dot(primary, available)))
        chosen, work = _fill(_candidates(live, primary, available), primary, secondary, available,
                             room, cap_secondary - int(secondary[first]), max_graphs - 1, stop_when_full)
        used += work
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
        strategies.append((pack_from_copies(chosen), repeat))
    if available.any():  # graphs left when the budget ran out, or of zero binding size
        rest = np.flatnonzero(available)
        strategies += in_rows(greedy_pack(nodes[rest], edges[rest], available[rest], limits, HEURISTICS["product"],
                                          BEST_FIT), rest)
    return strategies, used


def improve(
    nodes: np.ndarray, edges: np.ndarray, counts: np.ndarray, limits: PackLimits,
    strategies: list[Strategy], bound: int, budget: int = WORK_BUDGET,
) -> list[Strategy]:
    """Re-pack the packs of ``strategies`` that have slack in the binding limit with
    :func:`exact_fill_pack` (first its fast variant, then, with the budget left, the
    thorough one); return whichever plan uses the fewest packs.

    Plans already at ``bound`` (a proven lower bound on the packs), packs whose graph slots
    are full, and binding limits above ``MAX_KNAPSACK_CAPACITY`` (where packs hold so many
    graphs that the slack is a sliver) are left as they are. The work is bounded by ``budget`` (see
    :func:`exact_fill_pack`).

    >>> nodes, edges, counts = np.array([4, 3, 2, 1]), np.array([1, 1, 1, 1]), np.array([1, 1, 1, 1])
    >>> slack = [((0,), 1), ((1, 3), 1), ((2,), 1)]
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
        if int(primary[list(items)].sum()) == cap_primary or len(items) == max_graphs:
            kept.append((items, count))
        else:
            loose_packs += count
            np.add.at(loose, list(items), count)
    if loose_packs == 0:
        return strategies
    mask = loose > 0
    bins = np.flatnonzero(mask)
    best, fewest = None, loose_packs
    for stop_when_full in (True, False):  # the fast variant first; the thorough one with what is left
        repacked, used = _exact_fill(nodes[mask], edges[mask], loose[mask], limits, budget, stop_when_full)
        budget -= used
        if num_packs(repacked) < fewest:
            best, fewest = repacked, num_packs(repacked)
        if budget <= 0:
            break
    if best is None:
        return strategies
    return kept + [(tuple(int(bins[i]) for i in items), count) for items, count in best]
