"""The search behind ``best``: the candidate with the fewest packs, on several cores when the
histogram is large enough to be worth it.

Every candidate run is counted without building its plan and gives up as soon as it cannot
beat the best count found so far (:func:`packing.greedy.count_packs`). On large histograms
the candidates run in worker processes, handed out one at a time in order, each told the
best count finished before it started; the winner is the same as one process finds: the
fewest packs, ties to the first candidate in order (a candidate that gives up needs at
least the packs of a candidate that finished before it started, so came earlier).
"""
from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Callable

from .exact_fill import Progress
from .histogram import SizeHistogram
from .limits import PackLimits
from .method import PackMethod

#: Size tuples from which the candidates are searched in parallel (below, process start-up
#: costs more than it saves).
PARALLEL_FROM_TUPLES = 1000
MAX_SEARCH_WORKERS = 4

Counter = Callable[[SizeHistogram, PackLimits, PackMethod, "int | None"], "int | None"]


def _count_one(args: tuple) -> int | None:
    """Packs of one candidate (None when it gave up), for a worker process."""
    hist, limits, candidate, give_up_above, count = args
    return count(hist, limits, candidate, give_up_above)


def _report(progress: Progress | None, done: int, candidates: list[PackMethod], index: int, packs: int | None) -> None:
    if progress is not None:
        result = "gave up" if packs is None else f"{packs:,} packs"
        progress(done / len(candidates), f"{done}/{len(candidates)} methods tried; {candidates[index].label}: {result}")


def fewest_packs(
    hist: SizeHistogram, limits: PackLimits, candidates: list[PackMethod], bound: int, count: Counter,
    workers: int | None = None, progress: Progress | None = None,
) -> tuple[PackMethod, int]:
    """The candidate with the fewest packs (ties: the first) and its packs; ``count(hist,
    limits, method, give_up_above)`` counts one run. ``workers`` processes share the search
    (default: up to 4 cores for histograms of at least ``PARALLEL_FROM_TUPLES`` tuples).
    ``progress(fraction, message)`` is told after each candidate. Candidates after one that
    reaches ``bound`` (a proven lower bound) are not run.

    >>> from packing.api import count_tuple_packs
    >>> from packing.method import tuple_methods
    >>> hist = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2])
    >>> fewest_packs(hist, PackLimits(5, 6, 4), tuple_methods(), 2, count_tuple_packs)
    (PackMethod(algorithm='best_fit', heuristic='product', one_dim=None, weights=None, improve=False), 2)
    """
    if workers is None:
        workers = min(os.cpu_count() or 1, MAX_SEARCH_WORKERS) if hist.num_tuples >= PARALLEL_FROM_TUPLES else 1
    if workers <= 1:
        found = _search_here(hist, limits, candidates, bound, count, progress)
    else:
        found = _search_in_pool(hist, limits, candidates, bound, count, workers, progress)
    packs, index = min((packs, index) for index, packs in found.items() if packs is not None)
    return candidates[index], packs


def _search_here(hist: SizeHistogram, limits: PackLimits, candidates: list[PackMethod], bound: int, count: Counter,
                 progress: Progress | None) -> dict[int, int | None]:
    """{candidate index: packs or None} of the candidates run in this process, in order."""
    found: dict[int, int | None] = {}
    fewest = None
    for index, candidate in enumerate(candidates):
        packs = count(hist, limits, candidate, None if fewest is None else fewest - 1)
        found[index] = packs
        _report(progress, len(found), candidates, index, packs)
        if packs is not None:
            fewest = packs
            if packs == bound:  # no later candidate can do better
                break
    return found


def _search_in_pool(hist: SizeHistogram, limits: PackLimits, candidates: list[PackMethod], bound: int,
                    count: Counter, workers: int, progress: Progress | None) -> dict[int, int | None]:
    """:func:`_search_here` on ``workers`` processes: each candidate is started, in order,
    when a worker is free, and gives up above the best count finished by then."""
    found: dict[int, int | None] = {}
    running: dict[Future, int] = {}
    fewest: int | None = None
    following = iter(enumerate(candidates))
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
        while True:
            while len(running) < workers and fewest != bound:
                index, candidate = next(following, (None, None))
                if index is None:
                    break
                give_up = None if fewest is None else fewest - 1
                running[pool.submit(_count_one, (hist, limits, candidate, give_up, count))] = index
            if not running:
                return found
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                index = running.pop(future)
                found[index] = packs = future.result()
                _report(progress, len(found), candidates, index, packs)
                if packs is not None and (fewest is None or packs < fewest):
                    fewest = packs
