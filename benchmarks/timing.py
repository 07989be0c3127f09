"""Timing helper shared by the benchmark scripts."""
from __future__ import annotations

import statistics
import time
from typing import Callable


def timed(run: Callable[[], object], repeats: int, warmup: bool = False) -> tuple[float, object]:
    """Median wall time over ``repeats`` runs (after one untimed run when ``warmup``) and
    the last result.

    >>> seconds, value = timed(lambda: 2 + 2, repeats=3)
    >>> value, seconds >= 0
    (4, True)
    """
    result = run() if warmup else None
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result
