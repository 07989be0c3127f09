"""The search behind ``best``: the candidate with the fewest packs, on several cores when the
histogram is large enough to be worth it.

Every candidate run is counted without building its plan and gives up as soon as it cannot
beat the best count found so far (:func:`packing.greedy.count_packs`). On large histograms
the candidates are split round-robin over worker processes, each searching its share the
same way; the winner is the same as one process finds: the fewest packs, ties to the first
candidate in order (a candidate that only ties the best of its own share gives up, but that
best comes earlier in the order).
"""
from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Callable

from .histogram import SizeHistogram
from .limits import PackLimits
from .method import PackMethod

#: Size tuples from which the candidates are searched in parallel (below, process start-up
#: costs more than it saves).
PARALLEL_FROM_TUPLES = 1000
MAX_SEARCH_WORKERS = 4

Counter = Callable[[SizeHistogram, PackLimits, PackMethod, "int | None"], "int | None"]


def _search_share(args: tuple) -> list[tuple[int, int | None]]:
    """(candidate index, packs or None when it gave up) for one share of the candidates."""
    hist, limits, share, bound, count = args
    found: list[tuple[int, int | None]] = []
    fewest = None
    for index, candidate in share:
        packs = count(hist, limits, candidate, None if fewest is None else fewest - 1)
        found.append((index, packs))
        if packs is not None:
            fewest = packs
            if packs == bound:  # nothing in this share can do better
                break
    return found


def fewest_packs(
    hist: SizeHistogram, limits: PackLimits, candidates: list[PackMethod], bound: int, count: Counter,
    workers: int | None = None,
) -> tuple[PackMethod, int]:
    """The candidate with the fewest packs (ties: the first) and its packs; ``count(hist,
    limits, method, give_up_above)`` counts one run. ``workers`` processes share the search
    (default: up to 4 cores for histograms of at least ``PARALLEL_FROM_TUPLES`` tuples).

    >>> from packing.api import count_tuple_packs
    >>> from packing.method import tuple_methods
    >>> hist = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2])
    >>> fewest_packs(hist, PackLimits(5, 6, 4), tuple_methods(), 2, count_tuple_packs)
    (PackMethod(algorithm='best_fit', heuristic='product', one_dim=None, weights=None, improve=False), 2)
    """
    if workers is None:
        workers = min(os.cpu_count() or 1, MAX_SEARCH_WORKERS) if hist.num_tuples >= PARALLEL_FROM_TUPLES else 1
    indexed = list(enumerate(candidates))
    shares = [(hist, limits, indexed[start::workers], bound, count) for start in range(max(workers, 1))]
    if workers <= 1:
        found = _search_share(shares[0])
    else:
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
            found = [item for result in pool.map(_search_share, shares) for item in result]
    counted = [(packs, index) for index, packs in found if packs is not None]
    packs, index = min(counted)
    return candidates[index], packs
