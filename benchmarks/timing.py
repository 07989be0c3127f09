"""Timing and result files shared by the benchmark scripts."""
from __future__ import annotations

import os
import platform
import statistics
import time
from pathlib import Path
from typing import Callable

import pandas as pd


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


RESULTS = Path(__file__).resolve().parent / "results"


def save_results(table: pd.DataFrame, name: str) -> Path:
    """Stamp ``table`` with the machine it ran on and write ``benchmarks/results/<name>.csv``."""
    table = table.assign(machine=f"{platform.machine()}, {os.cpu_count()} cores")
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.csv"
    table.to_csv(path, index=False)
    print(f"\nwrote {path}")
    return path
