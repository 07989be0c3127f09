"""The lower bounds that need no LP: the volume bound and the large-items bound.

* ``volume``: ``max(ceil(sum n / N), ceil(sum e / E), ceil(graphs / G))``.
* ``large_items``: counts graphs that cannot share a pack. The largest of

  - the bound L2 of Martello and Toth ("Lower bounds and reduction procedures for the bin
    packing problem", Discrete Applied Mathematics 28, 1990) on nodes and on edges, with
    the histogram's counts and the graph limit: for a threshold K <= C/2, graphs larger
    than C - K fit with no graph of size >= K, graphs larger than C/2 need a pack each,
    and the graphs of size >= K need at least their volume over C and their number over G
    in packs;
  - a 2D bound: graphs with more than N/2 nodes or more than E/2 edges
    (no two of the first kind share a pack, nor two of the second); a pack holds at most
    one of each kind, so they need as many packs as they are, less the most pairs of one
    of each kind that fit together (an exact maximum matching, found greedily because
    "fits into the room left by" is a 2D dominance order);

  it is never below the volume bound (the threshold K = 0 of L2 is the volume bound).

They take well under 10 ms on a few hundred size tuples, so every plan, sweep cell and
comparison row carries them; the algorithms that stop at a proven optimum (exact fill, the
LP's seed) use them too. :mod:`packing.bounds` adds the LP bound and names the best.
"""
from __future__ import annotations

from bisect import bisect_right, insort

import numpy as np

from .histogram import SizeHistogram
from .limits import PackLimits
from .sides import EDGES, NODES, SIDES


def _ceil_div(total: int, limit: int) -> int:
    return -(-int(total) // int(limit))


def volume_bound(
    total_nodes: int, total_edges: int, graphs: int,
    max_nodes: int | None, max_edges: int | None, max_graphs: int,
) -> int:
    """max(ceil(nodes / N), ceil(edges / E), ceil(graphs / G)); a limit of None is not counted.

    >>> volume_bound(15, 3, 3, 10, None, 8)
    2
    """
    bounds = [_ceil_div(graphs, max_graphs)]
    if max_nodes is not None:
        bounds.append(_ceil_div(total_nodes, max_nodes))
    if max_edges is not None:
        bounds.append(_ceil_div(total_edges, max_edges))
    return max(bounds)


def check_side(limits: PackLimits, unlimited: str | None) -> None:
    """A ``ValueError`` unless ``limits`` is a PackLimits and ``unlimited`` None or a side.

    >>> check_side(PackLimits(10, 10, 8), "nodes")  # accepted: no error, returns None
    >>> check_side(PackLimits(10, 10, 8), "graphs")
    Traceback (most recent call last):
    ...
    ValueError: unlimited must be None, 'nodes' or 'edges', got 'graphs'.
    """
    if not isinstance(limits, PackLimits):
        raise ValueError(f"limits must be a PackLimits, got {limits!r}.")
    if unlimited is not None and unlimited not in SIDES:
        raise ValueError(f"unlimited must be None, {NODES!r} or {EDGES!r}, got {unlimited!r}.")


def lower_bound(hist: SizeHistogram, limits: PackLimits, unlimited: str | None = None) -> int:
    """The volume bound max(ceil(sum n / N), ceil(sum e / E), ceil(graphs / G)).

    No plan that keeps ``limits`` can use fewer packs. ``unlimited`` (``"nodes"`` or
    ``"edges"``) leaves that component out, for the 1D baselines that do not keep it.
    :func:`lower_bounds` gives stronger bounds.

    >>> lower_bound(SizeHistogram.from_sizes([5, 5, 5], [1, 1, 1]), PackLimits(10, 10, 8))
    2
    """
    check_side(limits, unlimited)
    return volume_bound(
        hist.total_nodes, hist.total_edges, hist.num_graphs,
        None if unlimited == NODES else limits.max_nodes,
        None if unlimited == EDGES else limits.max_edges,
        limits.max_graphs,
    )


def martello_toth_l2(sizes: np.ndarray, counts: np.ndarray, capacity: int, max_graphs: int) -> int:
    """Martello and Toth's L2 bound for packs of ``capacity``, with graph counts and at most
    ``max_graphs`` graphs per pack: the maximum over thresholds K <= capacity / 2 of
    ``#(w > C - K) + max(#(C/2 < w <= C - K), ceil(vol(K <= w <= C - K) / C),
    ceil(#(K <= w <= C - K) / G))``. Sizes must not exceed ``capacity``.

    >>> martello_toth_l2(np.array([6, 5, 4]), np.array([1, 1, 1]), 10, 256)  # 6 + 4, then 5: the volume's 2
    2
    >>> martello_toth_l2(np.array([15]), np.array([7]), 29, 256)  # each more than half the limit
    7
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    counts = np.asarray(counts, dtype=np.int64)
    order = np.argsort(sizes, kind="stable")
    values, first = np.unique(sizes[order], return_index=True)
    per_value = np.add.reduceat(counts[order], first)
    volume = values * per_value  # each below the histogram's total, which is below 2**62
    graphs_from = np.concatenate([np.cumsum(per_value[::-1])[::-1], [0]])  # graphs of size >= values[i]
    volume_from = np.concatenate([np.cumsum(volume[::-1])[::-1], [0]])
    thresholds = np.concatenate([[0], values[(values > 0) & (2 * values <= capacity)]])
    start = np.searchsorted(values, thresholds, side="left")  # first size >= K
    huge = np.searchsorted(values, capacity - thresholds, side="right")  # first size > C - K
    large = int(np.searchsorted(values, capacity // 2, side="right"))  # first size > C / 2
    alone = graphs_from[huge]
    over_half = graphs_from[large] - alone
    rest_volume = volume_from[start] - volume_from[huge]
    rest_graphs = graphs_from[start] - alone
    need = np.maximum(np.maximum(over_half, -(-rest_volume // capacity)), -(-rest_graphs // max_graphs))
    return int((alone + need).max())


def _room_matching(rooms: list[tuple[int, int, int]], guests: list[tuple[int, int, int]]) -> int:
    """The most (room, guest) pairs with guest nodes <= room nodes and guest edges <= room
    edges, each room and guest used at most its count: rooms by nodes ascending, each
    takes the available guests with the most edges that fit (optimal for this 2D order)."""
    guests = sorted(guests)
    available: list[int] = []  # guest edges, sorted
    left: dict[int, int] = {}
    position, matched = 0, 0
    for room_nodes, room_edges, count in sorted(rooms):
        while position < len(guests) and guests[position][0] <= room_nodes:
            _, edges, copies = guests[position]
            if edges not in left:
                insort(available, edges)
                left[edges] = 0
            left[edges] += copies
            position += 1
        while count and available:
            index = bisect_right(available, room_edges) - 1
            if index < 0:
                break
            edges = available[index]
            taken = min(count, left[edges])
            count -= taken
            matched += taken
            left[edges] -= taken
            if not left[edges]:
                del left[edges]
                available.pop(index)
    return matched


def incompatible_bound(hist: SizeHistogram, limits: PackLimits) -> int:
    """Packs needed by the graphs with more than half the node limit or more than half the
    edge limit: a pack holds at most one of each kind, so they need their number less
    the most pairs (one of each kind, neither of both) that fit into one pack.

    >>> incompatible_bound(SizeHistogram.from_counts([6, 2], [1, 9], [3, 2]), PackLimits(10, 10, 256))
    3
    >>> incompatible_bound(SizeHistogram.from_counts([6, 5], [1, 9], [3, 2]), PackLimits(10, 10, 256))
    5
    """
    nodes, edges, counts = hist.num_nodes, hist.num_edges, hist.counts
    many_nodes = 2 * nodes > limits.max_nodes
    many_edges = 2 * edges > limits.max_edges
    big = int(counts[many_nodes | many_edges].sum())
    if limits.max_graphs < 2:
        return big
    node_side = many_nodes & ~many_edges
    edge_side = many_edges & ~many_nodes
    rooms = list(zip((limits.max_nodes - nodes[node_side]).tolist(), (limits.max_edges - edges[node_side]).tolist(),
                     counts[node_side].tolist()))
    guests = list(zip(nodes[edge_side].tolist(), edges[edge_side].tolist(), counts[edge_side].tolist()))
    return big - (_room_matching(rooms, guests) if rooms and guests else 0)


def large_items_bound(hist: SizeHistogram, limits: PackLimits, unlimited: str | None = None) -> tuple[int, str]:
    """The combinatorial bound and which argument gives it: ``"nodes"`` or ``"edges"``
    (Martello-Toth L2 of that component), ``"incompatible"`` (the 2D bound); never below
    the volume bound. ``unlimited`` leaves a component out, as in :func:`lower_bound`.

    >>> large_items_bound(SizeHistogram.from_counts([15, 3], [20, 2], [7, 20]), PackLimits(29, 100, 256))
    (7, 'nodes')
    """
    check_side(limits, unlimited)
    candidates = []
    if unlimited != NODES:
        candidates.append((martello_toth_l2(hist.num_nodes, hist.counts, limits.max_nodes, limits.max_graphs), NODES))
    if unlimited != EDGES:
        candidates.append((martello_toth_l2(hist.num_edges, hist.counts, limits.max_edges, limits.max_graphs), EDGES))
    if unlimited is None:
        candidates.append((incompatible_bound(hist, limits), "incompatible"))
    value, name = max(candidates, key=lambda pair: pair[0])
    return max(value, lower_bound(hist, limits, unlimited)), name
