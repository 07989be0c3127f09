"""Greedy tuple packing on the 2D histogram: best fit, worst fit and first fit.

Method: Krell et al., "Tuple Packing: Efficient Batching of Small Graphs in Graph Neural
Networks" (2022), sections 2.4-2.5, which extends the histogram packing of Kosec et al.,
"Packing: Towards 2x NLP BERT Acceleration" (2021), to (nodes, edges) tuples.

Bins of the histogram are visited from the largest heuristic value down; equal values are
ordered by nodes, then edges (descending), so results are deterministic. Open packs that
have the same remaining (nodes, edges, graph slots) are interchangeable for every later
decision, so they are kept together as one *group* with a count; placing a bin into a group
splits the group's count, exactly as the paper splits histogram counts. This is what makes
the engine fast: work grows with the number of distinct pack states, not with graphs.

Which open group receives a bin:

* ``best_fit``  - the fullest group that fits: the least room on its tighter side,
  measured against the limits (:func:`tightest_room`; equal ones by remaining nodes, then
  edges, then graphs held, smallest first); the paper's "longest-pack-first". Each chosen
  pack takes as many copies as fit. :mod:`packing.best_fit_grid` makes the same choices
  for many limit pairs at once.
* ``worst_fit`` - the emptiest group that fits (largest heuristic of the remaining space);
  the paper's "shortest-pack-first" (SPFHP in 1D). Each chosen pack takes one copy.
* ``first_fit`` - the group opened earliest that fits. Each chosen pack takes as many copies
  as fit.

When nothing fits, new packs are opened holding as many copies of the bin as fit.
"""
from __future__ import annotations

from bisect import bisect_left, insort
from typing import Iterator

import numpy as np

from .heuristics import Heuristic
from .histogram import most_graphs_per_pack
from .limits import PackLimits
from .packs import Pack, Strategy, merge, pack_from_copies

BEST_FIT = "best_fit"
WORST_FIT = "worst_fit"
FIRST_FIT = "first_fit"
FITS = (BEST_FIT, WORST_FIT, FIRST_FIT)


class ContentTree:
    """Pack contents stored as parent links, so adding a bin to a pack is O(1)."""

    def __init__(self) -> None:
        self.parent: list[int] = []
        self.item: list[int] = []
        self.copies: list[int] = []

    def add(self, parent: int, item: int, copies: int) -> int:
        self.parent.append(parent)
        self.item.append(item)
        self.copies.append(copies)
        return len(self.parent) - 1

    def items(self, node: int) -> Pack:
        """The pack a content node ends: (bin, copies) per bin, bins ascending; its size
        follows the bins added, never the copies.

        >>> tree = ContentTree()
        >>> tree.items(tree.add(tree.add(tree.add(-1, 3, 10**9), 1, 2), 3, 1))
        ((1, 2), (3, 1000000001))
        """
        parent, item, copies = self.parent, self.item, self.copies
        held: dict[int, int] = {}
        while node >= 0:
            held[item[node]] = held.get(item[node], 0) + copies[node]
            node = parent[node]
        return pack_from_copies(held)


class _OpenGroups:
    """Open pack groups keyed by remaining (nodes, edges, graph slots), searchable with numpy.

    ``rank`` orders the groups for the chosen fit (lowest rank wins): the tightest room for
    best fit, the negative heuristic of the remaining space for worst fit, the opening order
    for first fit.
    ``room_nodes_bound`` and ``room_edges_bound`` are at least the remaining nodes and
    edges of every group, and ``edges_at_nodes[r]`` (for node limits up to
    ``ROOM_INDEX_LIMIT``) at least the remaining edges of every group with ``r`` remaining
    nodes, so a bin that no group can take is mostly told so without a query over all
    groups (:meth:`could_fit`); they are made exact again after many groups have gone.

    For best fit (node limits up to ``ROOM_INDEX_LIMIT``), once ``BUCKETS_FROM`` groups and
    at least as many as the node limit are open at a time, the groups are also kept by
    remaining nodes, each such *bucket* sorted by (remaining edges, graphs, slot), with the
    least and the most remaining edges over all buckets from ``r`` remaining nodes up; a
    bin then mostly finds its group in a few buckets (:meth:`fits_in_turn`) instead of a query
    over all groups. With fewer groups that query is cheap, and with sparse buckets keeping
    them is not (ogbg-mol* open at most a few hundred groups, the ppa-like histogram 7,000
    with a node limit of 300).
    """

    ROOM_INDEX_LIMIT = 1 << 14
    BUCKETS_FROM = 1024  # open groups at which best fit starts keeping buckets
    BUCKET_VISITS = 8  # buckets one best-fit search reads before it asks numpy instead

    def __init__(self, heuristic: Heuristic, fit: str, limits: PackLimits) -> None:
        self.heuristic = heuristic
        self.fit = fit
        self.limits = limits
        max_nodes = limits.max_nodes
        self.edges_at_nodes = np.full(max_nodes + 1, -1, dtype=np.int64) if max_nodes <= self.ROOM_INDEX_LIMIT else None
        self.released = 0  # groups released since the bounds were last made exact
        self.room_nodes_bound = -1
        self.room_edges_bound = -1
        capacity = 64
        self.rem_nodes = np.full(capacity, -1, dtype=np.int64)  # -1 marks a free slot
        self.rem_edges = np.full(capacity, -1, dtype=np.int64)
        self.graphs = np.zeros(capacity, dtype=np.int64)
        self.rank = np.zeros(capacity, dtype=np.float64)
        self.state: list[tuple[int, int, int] | None] = [None] * capacity
        self.members: list[list | None] = [None] * capacity
        self.total: list[int] = [0] * capacity
        self.slot_of: dict[tuple[int, int, int], int] = {}
        self.free = list(range(capacity - 1, -1, -1))
        self.opened = 0
        self.may_file = fit == BEST_FIT and max_nodes <= self.ROOM_INDEX_LIMIT
        self.max_nodes = max_nodes
        # Once filed (see _file_groups), buckets[r]: (remaining edges, graphs, slot) of the
        # groups with r remaining nodes, sorted; least_from[r] / most_from[r]: the least /
        # most remaining edges of the groups with r or more remaining nodes (no_edges and -1
        # when there are none).
        self.buckets: list[list[tuple[int, int, int]]] | None = None
        self.no_edges = np.iinfo(np.int64).max
        self.least_from: list[int] = []
        self.most_from: list[int] = []

    def _grow(self) -> None:
        old = self.rem_nodes.size
        for name, fill in (("rem_nodes", -1), ("rem_edges", -1), ("graphs", 0), ("rank", 0.0)):
            array = getattr(self, name)
            setattr(self, name, np.concatenate([array, np.full(old, fill, dtype=array.dtype)]))
        self.state.extend([None] * old)
        self.members.extend([None] * old)
        self.total.extend([0] * old)
        self.free.extend(range(2 * old - 1, old - 1, -1))

    def add(self, state: tuple[int, int, int], node: int, count: int) -> None:
        slot = self.slot_of.get(state)
        if slot is None:
            if not self.free:
                self._grow()
            slot = self.free.pop()
            self.slot_of[state] = slot
            self.state[slot] = state
            self.members[slot] = [[node, count]]
            self.total[slot] = count
            self.rem_nodes[slot] = state[0]
            self.rem_edges[slot] = state[1]
            self.graphs[slot] = state[2]
            if self.fit == FIRST_FIT:
                self.rank[slot] = self.opened
            elif self.fit == BEST_FIT:
                self.rank[slot] = tightest_room(state[0], state[1], self.limits)
            else:
                self.rank[slot] = -self.heuristic.scalar(state[0], state[1])
            self.opened += 1
            if self.buckets is not None:
                insort(self.buckets[state[0]], (state[1], state[2], slot))
                self._settle(state[0], state[1], True)
                return
            if state[0] > self.room_nodes_bound:
                self.room_nodes_bound = state[0]
            if state[1] > self.room_edges_bound:
                self.room_edges_bound = state[1]
            if self.edges_at_nodes is not None and self.edges_at_nodes[state[0]] < state[1]:
                self.edges_at_nodes[state[0]] = state[1]
            if self.may_file and len(self.slot_of) >= max(self.BUCKETS_FROM, self.max_nodes):
                self._file_groups()
            return
        self.members[slot].append([node, count])
        self.total[slot] += count

    def take(self, slot: int, count: int) -> list[tuple[int, int]]:
        """Remove ``count`` packs from a group (most recently added members first)."""
        members = self.members[slot]
        taken: list[tuple[int, int]] = []
        need = count
        while need:
            member = members[-1]
            if member[1] <= need:
                members.pop()
                taken.append((member[0], member[1]))
                need -= member[1]
            else:
                member[1] -= need
                taken.append((member[0], need))
                need = 0
        self.total[slot] -= count
        if self.total[slot] == 0:
            self._release(slot)
        return taken

    def _file_groups(self) -> None:
        """Start keeping the buckets, from the groups open now."""
        self.buckets = [[] for _ in range(self.max_nodes + 1)]
        for (rem_nodes, rem_edges, graphs), slot in self.slot_of.items():
            self.buckets[rem_nodes].append((rem_edges, graphs, slot))
        self.least_from = [self.no_edges] * (self.max_nodes + 2)
        self.most_from = [-1] * (self.max_nodes + 2)
        for rem_nodes in range(self.max_nodes, -1, -1):
            bucket = self.buckets[rem_nodes]
            bucket.sort()
            low, high = self.least_from[rem_nodes + 1], self.most_from[rem_nodes + 1]
            self.least_from[rem_nodes] = min(bucket[0][0], low) if bucket else low
            self.most_from[rem_nodes] = max(bucket[-1][0], high) if bucket else high

    def _settle(self, nodes: int, edges: int, added: bool) -> None:
        """Keep ``least_from`` and ``most_from`` exact after a group with ``edges`` remaining
        edges joined (``added``) or left bucket ``nodes``; buckets below it see the change
        too, down to the first that does not."""
        least, most = self.least_from, self.most_from
        if added:
            below = nodes
            while below >= 0 and least[below] > edges:
                least[below] = edges
                below -= 1
            while nodes >= 0 and most[nodes] < edges:
                most[nodes] = edges
                nodes -= 1
            return
        if least[nodes] < edges < most[nodes]:
            return
        buckets = self.buckets
        while nodes >= 0:
            bucket = buckets[nodes]
            low, high = least[nodes + 1], most[nodes + 1]
            if bucket:
                if bucket[0][0] < low:
                    low = bucket[0][0]
                if bucket[-1][0] > high:
                    high = bucket[-1][0]
            if low == least[nodes] and high == most[nodes]:
                return
            least[nodes], most[nodes] = low, high
            nodes -= 1

    def _release(self, slot: int) -> None:
        if self.buckets is not None:
            rem_nodes, rem_edges, graphs = self.state[slot]
            bucket = self.buckets[rem_nodes]
            del bucket[bisect_left(bucket, (rem_edges, graphs, slot))]
            self._settle(rem_nodes, rem_edges, False)
        del self.slot_of[self.state[slot]]
        self.state[slot] = None
        self.members[slot] = None
        self.rem_nodes[slot] = -1
        self.rem_edges[slot] = -1
        self.free.append(slot)
        self.released += 1

    def ranked_fits(self, nodes: int, edges: int, first_only: bool) -> list[int]:
        """Slots of the groups a bin of this size fits into, best rank first; equal ranks
        by remaining nodes, then edges, then graphs held (smallest first), so the order
        depends on the groups alone (:mod:`packing.best_fit_grid` uses the same)."""
        fits = ((self.rem_nodes >= nodes) & (self.rem_edges >= edges)).nonzero()[0]
        if fits.size <= 1:
            return fits.tolist()
        rank = self.rank[fits]
        if first_only:
            fits = fits[rank == rank.min()]
            if fits.size == 1:
                return fits.tolist()
            rank = self.rank[fits]
        ranked = fits[np.lexsort((self.graphs[fits], self.rem_edges[fits], self.rem_nodes[fits], rank))]
        return ranked[:1].tolist() if first_only else ranked.tolist()

    def _bucket_search(self, nodes: int, edges: int) -> int | None:
        """The best-fit slot (-1: none fits), or None when ``BUCKET_VISITS`` buckets did not
        settle it.

        Buckets are read from ``nodes`` remaining nodes up. Within a bucket the first group
        with enough edges is its best (the tightest room grows with either room; equal values
        go to fewer edges, then fewer graphs), and no group in buckets from ``r`` up can rank
        below the tightest room of (``r``, the least edges there, at least ``edges``), nor win
        a tie against a group with fewer remaining nodes; so the search stops there, or when
        no group from ``r`` up has ``edges`` left.
        """
        least, most, buckets, limits = self.least_from, self.most_from, self.buckets, self.limits
        best_score, best_slot = None, -1
        for rem_nodes in range(nodes, min(nodes + self.BUCKET_VISITS, len(buckets))):
            if most[rem_nodes] < edges:
                return best_slot
            if best_score is not None and tightest_room(rem_nodes, max(edges, least[rem_nodes]), limits) >= best_score:
                return best_slot
            bucket = buckets[rem_nodes]
            at = bisect_left(bucket, (edges,))
            if at < len(bucket):
                rem_edges, _, slot = bucket[at]
                value = tightest_room(rem_nodes, rem_edges, limits)
                if best_score is None or value < best_score:
                    best_score, best_slot = value, slot
        return best_slot if nodes + self.BUCKET_VISITS >= len(buckets) else None

    def fits_in_turn(self, nodes: int, edges: int) -> Iterator[int]:
        """For best fit with buckets: the slots :meth:`ranked_fits` lists, each found only
        when the previous one has been used, on the groups then open (where the buckets
        leave one open, the rest of the list comes from one query). The order is the same
        as long as a group that fits changes only by leaving once used up (the greedy pass
        fills each chosen pack with as many copies as fit, so no pack it makes fits the bin
        again while copies are left)."""
        while True:
            slot = self._bucket_search(nodes, edges)
            if slot is None:
                yield from self.ranked_fits(nodes, edges, False)
                return
            if slot < 0:
                return
            yield slot

    def could_fit(self, nodes: int, edges: int) -> bool:
        """False only if no group has room for a graph of this size (True may be wrong,
        except while the buckets are kept)."""
        if self.buckets is not None:
            return self.most_from[nodes] >= edges
        if self.released > max(64, len(self.slot_of)):
            self._exact_bounds()
        if nodes > self.room_nodes_bound or edges > self.room_edges_bound:
            return False
        return self.edges_at_nodes is None or self.edges_at_nodes[nodes:].max() >= edges

    def _exact_bounds(self) -> None:
        live = self.rem_nodes >= 0
        self.room_nodes_bound = int(self.rem_nodes.max())
        self.room_edges_bound = int(self.rem_edges.max())
        if self.edges_at_nodes is not None:
            self.edges_at_nodes.fill(-1)
            np.maximum.at(self.edges_at_nodes, self.rem_nodes[live], self.rem_edges[live])
        self.released = 0

    def close_below(self, min_nodes: int, min_edges: int) -> tuple[list[tuple[int, int]], int, int]:
        """Close every group that no remaining bin can fit into; return its packs and the
        node and edge room they leave unused."""
        live = self.rem_nodes >= 0
        dead_end = np.flatnonzero(live & ((self.rem_nodes < min_nodes) | (self.rem_edges < min_edges)))
        packs = np.array([self.total[slot] for slot in dead_end.tolist()], dtype=np.int64)
        wasted_nodes = int(np.dot(self.rem_nodes[dead_end], packs)) if dead_end.size else 0
        wasted_edges = int(np.dot(self.rem_edges[dead_end], packs)) if dead_end.size else 0
        closed: list[tuple[int, int]] = []
        for slot in dead_end.tolist():
            closed.extend((node, count) for node, count in self.members[slot])
            self._release(slot)
        return closed, wasted_nodes, wasted_edges

    def drain(self) -> list[tuple[int, int]]:
        return self.close_below(np.iinfo(np.int64).max, np.iinfo(np.int64).max)[0]


def tightest_room(room_nodes: int, room_edges: int, limits: PackLimits) -> float:
    """How much room a pack has left, for best fit (smaller is fuller): the share of its
    limit left on the pack's tighter side, ``min(room_nodes / max_nodes, room_edges / max_edges)``.

    Measured against the limits, nodes and edges count alike whatever their scale (edge
    limits are often 10-30x node limits, so a heuristic of the raw room mostly sees the
    edges even where the nodes fill the packs). Against ranking by the bin order's heuristic
    it saves 0.3-0.6 % of the packs on random histograms with the sum, max and edge
    heuristics and barely moves the real ones (BENCHMARKS.md, "Best fit's pack ranking").

    >>> tightest_room(5, 400, PackLimits(10, 1000))  # half the nodes and 40 % of the edges left
    0.4
    """
    return min(room_nodes / limits.max_nodes, room_edges / limits.max_edges)


def _copies_that_fit(nodes: int, edges: int, room_nodes: int, room_edges: int, room_graphs: int) -> int:
    by_nodes = room_nodes // nodes if nodes else room_graphs
    by_edges = room_edges // edges if edges else room_graphs
    return min(by_nodes, by_edges, room_graphs)


def bin_order(nodes: np.ndarray, edges: np.ndarray, heuristic: Heuristic) -> np.ndarray:
    """Indices of histogram bins from the largest heuristic value down (ties: nodes, edges).

    >>> from packing.heuristics import HEURISTICS
    >>> bin_order(np.array([2, 3, 1, 3]), np.array([5, 1, 9, 4]), HEURISTICS["sum"]).tolist()  # sums 7, 4, 10, 7
    [2, 3, 0, 1]
    """
    return np.lexsort((-edges, -nodes, -heuristic.array(nodes, edges)))


def _run(
    nodes: np.ndarray,
    edges: np.ndarray,
    counts: np.ndarray,
    limits: PackLimits,
    heuristic: Heuristic,
    fit: str,
    tree: ContentTree | None,
    give_up_above: int | None = None,
) -> list[tuple[int, int]] | None:
    """The greedy pass; returns the closed (content node, count) pairs. Pack contents are
    recorded in ``tree`` when one is given (counting packs needs none). The pass gives up
    (returns None) as soon as it is sure to need more than ``give_up_above`` packs: it has
    opened more, or the room its closed packs left unused proves it will."""
    if fit not in FITS:
        raise ValueError(f"Unknown algorithm {fit!r}; choose one of {', '.join(FITS)}.")
    max_nodes, max_edges, max_graphs = limits.max_nodes, limits.max_edges, limits.max_graphs
    order = bin_order(nodes, edges, heuristic)
    sizes_n = nodes[order].astype(np.int64)
    sizes_e = edges[order].astype(np.int64)
    floor_n = np.minimum.accumulate(sizes_n[::-1])[::-1]
    floor_e = np.minimum.accumulate(sizes_e[::-1])[::-1]
    floor_moves = np.ones(order.size, dtype=bool)
    floor_moves[1:] = (floor_n[1:] != floor_n[:-1]) | (floor_e[1:] != floor_e[:-1])
    # A bin is a loner when a pack holding one copy takes nothing else: its room is below
    # what every bin from here on needs (or the graph limit is 1). A loner that no open
    # group has room for opens one closed pack per copy, with no search at all.
    loner = (max_graphs <= 1) | (max_nodes - sizes_n < floor_n) | (max_edges - sizes_e < floor_e)
    steps = zip(order.tolist(), sizes_n.tolist(), sizes_e.tolist(), counts[order].tolist(), floor_moves.tolist(),
                floor_n.tolist(), floor_e.tolist(), loner.tolist())
    add_content = tree.add if tree is not None else (lambda parent, item, copies: -1)

    graphs_can_bind = most_graphs_per_pack(nodes, edges, counts, max_nodes, max_edges) > max_graphs
    groups = _OpenGroups(heuristic, fit, limits)
    closed: list[tuple[int, int]] = []
    floor = (-1, -1)
    opened = 0
    # Room left unused in closed packs is lost for good, so no pass can end with fewer than
    # (all nodes + that room) / max_nodes packs, and the same for edges: a pass that will
    # need more packs than it may use gives up early.
    volume = (int(np.dot(nodes.astype(np.int64), counts)), int(np.dot(edges.astype(np.int64), counts)))
    wasted = [0, 0]

    def place(room_nodes: int, room_edges: int, graphs: int, node: int, count: int) -> None:
        if graphs >= max_graphs or room_nodes < floor[0] or room_edges < floor[1]:
            closed.append((node, count))
            wasted[0] += room_nodes * count
            wasted[1] += room_edges * count
        else:
            groups.add((room_nodes, room_edges, graphs if graphs_can_bind else 0), node, count)

    def beaten() -> bool:
        return give_up_above is not None and (
            opened > give_up_above or -(-(volume[0] + wasted[0]) // max_nodes) > give_up_above
            or -(-(volume[1] + wasted[1]) // max_edges) > give_up_above)

    for item, size_n, size_e, remaining, floor_moved, next_floor_n, next_floor_e, alone in steps:
        if floor_moved:
            floor = (next_floor_n, next_floor_e)
            dead, wasted_nodes, wasted_edges = groups.close_below(*floor)
            closed.extend(dead)
            wasted[0] += wasted_nodes
            wasted[1] += wasted_edges
        if beaten():
            return None
        if alone and not groups.could_fit(size_n, size_e):
            opened += remaining
            if beaten():  # as where packs are opened below, so that could_fit's guesses never show
                return None
            closed.append((add_content(-1, item, 1), remaining))
            wasted[0] += (max_nodes - size_n) * remaining
            wasted[1] += (max_edges - size_e) * remaining
            continue
        # Best and first fit fill each chosen pack with as many copies as fit, so a pack
        # that took the bin cannot take it again: one ranked query of all fitting groups
        # serves the bin (just the top one for a single graph; with buckets, the groups come
        # one at a time, in the same order). Worst fit adds one copy per pack and asks again
        # each time.
        first_only = fit == WORST_FIT or remaining == 1
        while remaining:
            if not groups.could_fit(size_n, size_e):
                slots = []
            elif groups.buckets is not None:
                slots = groups.fits_in_turn(size_n, size_e)
            else:
                slots = groups.ranked_fits(size_n, size_e, first_only)
            for slot in slots:
                state = groups.state[slot]
                room_nodes, room_edges, graphs = state
                most = 1 if fit == WORST_FIT else _copies_that_fit(
                    size_n, size_e, room_nodes, room_edges, max_graphs - graphs
                )
                # Fill whole packs of this group; copies left over (fewer than fill a pack)
                # go into one more pack of the same group while it has any.
                while remaining and groups.state[slot] == state:
                    per_pack = min(most, remaining)
                    packs = min(groups.total[slot], remaining // per_pack)
                    for node, count in groups.take(slot, packs):
                        child = add_content(node, item, per_pack)
                        place(room_nodes - per_pack * size_n, room_edges - per_pack * size_e,
                              graphs + per_pack, child, count)
                    remaining -= packs * per_pack
                if not remaining:
                    break
            if remaining and slots and fit == WORST_FIT:
                continue
            if remaining:
                per_pack = _copies_that_fit(size_n, size_e, max_nodes, max_edges, max_graphs)
                full, rest = divmod(remaining, per_pack)
                opened += full + (1 if rest else 0)
                if beaten():
                    return None
                for copies, packs in ((per_pack, full), (rest, 1 if rest else 0)):
                    if packs:
                        node = add_content(-1, item, copies)
                        place(max_nodes - copies * size_n, max_edges - copies * size_e, copies, node, packs)
                remaining = 0
    closed.extend(groups.drain())
    return closed


def greedy_pack(nodes: np.ndarray, edges: np.ndarray, counts: np.ndarray, limits: PackLimits, heuristic: Heuristic,
                fit: str = BEST_FIT) -> list[Strategy]:
    """Pack histogram bins into packs within ``limits``.

    Returns strategies ``(((bin, copies), ...), repeat count)`` (:mod:`packing.packs`).
    Every bin must fit into an empty pack on its own (the caller checks this).

    >>> from packing.heuristics import HEURISTICS
    >>> greedy_pack(np.array([2, 1]), np.array([2, 2]), np.array([2, 2]), PackLimits(3, 4, 4), HEURISTICS["sum"])
    [(((0, 1), (1, 1)), 2)]
    """
    tree = ContentTree()
    return merge_strategies(tree, _run(nodes, edges, counts, limits, heuristic, fit, tree))


def merge_strategies(tree: ContentTree, closed: list[tuple[int, int]]) -> list[Strategy]:
    """Strategies from closed (content node, count) pairs: equal contents merged, the most
    used first.

    >>> tree = ContentTree()
    >>> two_of_0, one_of_1 = tree.add(-1, 0, 2), tree.add(-1, 1, 1)
    >>> with_1 = tree.add(two_of_0, 1, 1)  # bin 1 added to the pack holding two of bin 0
    >>> merge_strategies(tree, [(with_1, 2), (one_of_1, 1), (with_1, 3)])
    [(((0, 2), (1, 1)), 5), (((1, 1),), 1)]
    """
    return merge((tree.items(node), count) for node, count in closed)


def count_packs(nodes: np.ndarray, edges: np.ndarray, counts: np.ndarray, limits: PackLimits, heuristic: Heuristic,
                fit: str = BEST_FIT, give_up_above: int | None = None) -> int | None:
    """Only the number of packs :func:`greedy_pack` would use (faster: no pack contents);
    None as soon as more than ``give_up_above`` packs are needed.

    >>> from packing.heuristics import HEURISTICS
    >>> count_packs(np.array([2, 1]), np.array([2, 2]), np.array([2, 2]), PackLimits(3, 4, 4), HEURISTICS["sum"])
    2
    >>> count_packs(np.array([2, 1]), np.array([2, 2]), np.array([2, 2]), PackLimits(3, 4, 4), HEURISTICS["sum"],
    ...             give_up_above=1) is None
    True
    """
    closed = _run(nodes, edges, counts, limits, heuristic, fit, None, give_up_above)
    return None if closed is None else sum(count for _, count in closed)
