"""One pack, as the engine's algorithms pass it around, and its one converter to a plan.

Inside the engine a pack is the histogram rows of its graphs with how many copies of each,
rows ascending (:data:`Pack`): it takes room per distinct size, never per graph, so a pack
of a billion graphs of one size is one pair. A plan's distinct pack with its repeat count
is a :data:`Strategy`. Every algorithm (greedy, published, 1D, balanced, exact fill, LP
rounding) returns strategies.

A :class:`packing.PackingPlan` outlives the histogram's row numbering (it is written to
files and read back against other histograms), so it stores a pack by its graph sizes:
``(nodes, edges, copies)`` per size, largest first (:data:`Items`). :func:`items_of` and
:func:`runs_of` are the only conversions between the two (:func:`pack_of` lists the rows
one per graph, for code that handles graphs one by one).

>>> hist = SizeHistogram.from_counts([2, 3], [1, 4], [5, 5])
>>> items = items_of(((0, 2), (1, 1)), hist)
>>> items, runs_of(items, row_index(hist))
(((3, 4, 1), (2, 1, 2)), ((0, 2), (1, 1)))
"""
from __future__ import annotations

from collections import Counter
from operator import itemgetter
from typing import Iterable, Mapping

from .histogram import SizeHistogram

#: One pack: (histogram row, copies) per row it holds, rows ascending, copies at least 1.
Pack = tuple[tuple[int, int], ...]
#: One distinct pack and how many packs of a plan hold it.
Strategy = tuple[Pack, int]
#: One pack by graph sizes: (nodes, edges, copies) per size, largest first.
Items = tuple[tuple[int, int, int], ...]


def pack_from_copies(copies: Mapping[int, int]) -> Pack:
    """The pack holding ``copies[row]`` graphs of each row (the LP's ``{row: copies}``).

    >>> pack_from_copies({4: 1, 2: 2, 3: 0})
    ((2, 2), (4, 1))
    """
    return tuple(sorted((row, number) for row, number in copies.items() if number))


def pack_from_rows(rows: Iterable[int]) -> Pack:
    """The pack holding one graph of each row listed (rows may repeat).

    >>> pack_from_rows([4, 2, 2])
    ((2, 2), (4, 1))
    """
    return pack_from_copies(Counter(rows))


def copies_of(pack: Pack) -> dict[int, int]:
    """``{row: copies}`` of a pack.

    >>> copies_of(((2, 2), (4, 1)))
    {2: 2, 4: 1}
    """
    return dict(pack)


def graphs_in(pack: Pack) -> int:
    """The graphs a pack holds.

    >>> graphs_in(((2, 2), (4, 1)))
    3
    """
    return sum(copies for _, copies in pack)


def row_index(hist: SizeHistogram) -> dict[tuple[int, int], int]:
    """``{(nodes, edges): row}`` of a histogram, for :func:`pack_of`.

    >>> row_index(SizeHistogram.from_counts([3, 2], [4, 1], [5, 5]))
    {(2, 1): 0, (3, 4): 1}
    """
    return {(int(n), int(e)): row for row, (n, e) in enumerate(zip(hist.num_nodes.tolist(), hist.num_edges.tolist()))}


def items_of(pack: Pack, hist: SizeHistogram) -> Items:
    """A pack by graph sizes, largest first (histogram rows are sorted by (nodes, edges), so
    walking them from the last lists the sizes largest first).

    >>> items_of(((0, 1), (1, 2)), SizeHistogram.from_counts([2, 3], [1, 4], [5, 5]))
    ((3, 4, 2), (2, 1, 1))
    """
    nodes, edges = hist.num_nodes, hist.num_edges
    return tuple((nodes.item(row), edges.item(row), copies) for row, copies in reversed(pack))


def totals(items: Items) -> tuple[int, int, int]:
    """The nodes, edges and graphs of a pack given by graph sizes.

    >>> totals(((3, 4, 2), (2, 1, 1)))
    (8, 9, 3)
    """
    return (sum(n * k for n, _, k in items), sum(e * k for _, e, k in items), sum(k for _, _, k in items))


def runs_of(items: Items, rows: Mapping[tuple[int, int], int]) -> Pack:
    """The engine's pack of a pack given by sizes (``rows`` from :func:`row_index`); a
    ``KeyError`` for a size the histogram does not have.

    >>> runs_of(((3, 4, 2), (2, 1, 1)), {(2, 1): 0, (3, 4): 1})
    ((0, 1), (1, 2))
    """
    return pack_from_copies({rows[n, e]: copies for n, e, copies in items})


def pack_of(items: Items, rows: Mapping[tuple[int, int], int]) -> tuple[int, ...]:
    """The rows of a pack given by sizes (``rows`` from :func:`row_index`), one per graph,
    ascending; a ``KeyError`` for a size the histogram does not have.

    >>> pack_of(((3, 4, 2), (2, 1, 1)), {(2, 1): 0, (3, 4): 1})
    (0, 1, 1)
    """
    return tuple(sorted(rows[n, e] for n, e, copies in items for _ in range(copies)))


def in_rows(strategies: Iterable[Strategy], rows) -> list[Strategy]:
    """Strategies of a part of a histogram, in the whole histogram's rows: the part's row
    ``i`` is row ``rows[i]`` of the whole (``rows`` ascending, so packs stay ascending).
    The algorithms that pack their leftover graphs as a histogram of their own use it.

    >>> in_rows([(((0, 1), (1, 2)), 2)], [3, 7])
    [(((3, 1), (7, 2)), 2)]
    """
    return [(tuple((int(rows[row]), copies) for row, copies in pack), count) for pack, count in strategies]


def num_packs(strategies: Iterable[Strategy]) -> int:
    """The packs of a list of strategies: their counts summed.

    >>> num_packs([(((0, 1), (1, 1)), 2), (((2, 1),), 5)])
    7
    """
    return sum(count for _, count in strategies)


def row_order(pack: Pack) -> tuple[tuple[int, int, int], ...]:
    """A sort key that orders packs as their rows listed one per graph would be ordered: a
    row whose run is the pack's last comes before the same row with more to follow (the
    shorter list of rows is a prefix, or its next row is the larger); runs with more to
    follow go first with more copies (the other list reaches a larger row sooner).

    >>> packs = [((0, 1), (1, 1)), ((0, 2),), ((0, 2), (1, 1)), ((0, 1),)]  # 0 1 / 0 0 / 0 0 1 / 0
    >>> sorted(packs, key=row_order) == [((0, 1),), ((0, 2),), ((0, 2), (1, 1)), ((0, 1), (1, 1))]
    True
    """
    last = len(pack) - 1
    return tuple((row, 0, copies) if at == last else (row, 1, -copies) for at, (row, copies) in enumerate(pack))


def merge(strategies: Iterable[Strategy]) -> list[Strategy]:
    """Equal packs counted together, the most used first (ties: by rows, :func:`row_order`).

    >>> merge([(((0, 1), (1, 1)), 2), (((2, 1),), 5), (((0, 1), (1, 1)), 4)])
    [(((0, 1), (1, 1)), 6), (((2, 1),), 5)]
    """
    merged: dict[Pack, int] = {}
    for pack, count in strategies:
        merged[pack] = merged.get(pack, 0) + count
    ordered = sorted(merged.items(), key=lambda strategy: row_order(strategy[0]))  # packs differ: counts never decide
    ordered.sort(key=itemgetter(1), reverse=True)  # stable: equal counts stay by rows
    return ordered
