"""Limit sweeps: pack under every (max_nodes, max_edges) pair of a grid.

Krell et al., "Tuple Packing" (2022), sections 2.5 and 3.2: because histogram packing
takes milliseconds, try every limit pair and choose on a harmonic-mean heatmap.
"""
from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from .api import ALGORITHMS, resolve_limits
from .greedy import count_packs
from .heuristics import resolve_heuristic
from .histogram import SizeHistogram
from .metrics import metrics_from_packs

SWEEP_COLUMNS = [
    "max_nodes", "max_edges", "max_graphs", "feasible", "packs", "lower_bound", "gap",
    "node_efficiency", "edge_efficiency", "harmonic_mean", "packing_factor",
]
Progress = Callable[[int, int], None]


def default_limits(hist: SizeHistogram, steps: int = 12, multiple: float = 4.0) -> tuple[list[int], list[int]]:
    """A grid from the largest graph up to ``multiple`` times it, ``steps`` values per axis.

    >>> default_limits(SizeHistogram.from_sizes([10], [20]), steps=3, multiple=2.0)
    ([10, 15, 20], [20, 30, 40])
    """
    largest_nodes, largest_edges = max(hist.max_nodes, 1), max(hist.max_edges, 1)
    nodes = np.linspace(largest_nodes, largest_nodes * multiple, steps)
    edges = np.linspace(largest_edges, largest_edges * multiple, steps)
    return sorted(set(np.round(nodes).astype(int).tolist())), sorted(set(np.round(edges).astype(int).tolist()))


def _cell(hist: SizeHistogram, max_nodes: int, max_edges: int, max_graphs: int,
          heuristic: str, algorithm: str, weights) -> dict:
    row = {"max_nodes": max_nodes, "max_edges": max_edges, "max_graphs": max_graphs}
    if max_nodes < hist.max_nodes or max_edges < hist.max_edges:
        return {**row, "feasible": False}
    limits = (max_nodes, max_edges, max_graphs)
    key = resolve_heuristic(heuristic, weights)
    packs = count_packs(hist.num_nodes, hist.num_edges, hist.counts, limits, key, algorithm)
    return {**row, "feasible": True, **metrics_from_packs(hist, limits, packs)}


def _cells(args) -> list[dict]:
    hist, pairs, max_graphs, heuristic, algorithm, weights = args
    return [_cell(hist, n, e, max_graphs, heuristic, algorithm, weights) for n, e in pairs]


def sweep(
    hist: SizeHistogram,
    node_limits: Sequence[int],
    edge_limits: Sequence[int],
    max_graphs: int = 256,
    heuristic: str = "product",
    algorithm: str = "best_fit",
    weights: tuple[float, float] | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Pack for every (max_nodes, max_edges) pair; one row per pair, in grid order.

    Pairs below the largest graph are kept with ``feasible=False`` and empty metrics.
    ``workers`` processes share the grid (default: all cores for large grids);
    ``progress(done, total)`` is called as chunks finish.

    >>> frame = sweep(SizeHistogram.from_sizes([2, 3, 5], [2, 4, 8]), [5, 10], [8, 16], workers=1)
    >>> frame[["max_nodes", "max_edges", "packs"]].values.tolist()
    [[5, 8, 2], [5, 16, 2], [10, 8, 2], [10, 16, 1]]
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"Sweeps run tuple packing; algorithm must be one of {', '.join(ALGORITHMS)}.")
    resolve_heuristic(heuristic, weights)
    resolve_limits(hist, None, None, max_graphs)
    pairs = [(int(n), int(e)) for n in sorted(set(node_limits)) for e in sorted(set(edge_limits))]
    if not pairs:
        raise ValueError("The sweep grid is empty: give at least one node limit and one edge limit.")
    if min(min(p) for p in pairs) < 1:
        raise ValueError("Sweep limits must be whole numbers >= 1.")
    if workers is None:
        workers = min(os.cpu_count() or 1, 4) if len(pairs) >= 64 else 1
    chunk = max(1, min(64, len(pairs) // (4 * workers) or 1))
    jobs = [(hist, pairs[i:i + chunk], max_graphs, heuristic, algorithm, weights)
            for i in range(0, len(pairs), chunk)]
    rows: list[dict] = []
    if workers <= 1:
        for job in jobs:
            rows.extend(_cells(job))
            if progress:
                progress(len(rows), len(pairs))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for result in pool.map(_cells, jobs):
                rows.extend(result)
                if progress:
                    progress(len(rows), len(pairs))
    return pd.DataFrame(rows, columns=SWEEP_COLUMNS)


def smallest_limits(frame: pd.DataFrame, min_efficiency: float) -> pd.Series | None:
    """The feasible row with the smallest ``max_nodes * max_edges`` whose node and edge
    efficiencies are both at least ``min_efficiency`` (a fraction); None if there is none.

    >>> frame = pd.DataFrame({"max_nodes": [5, 10], "max_edges": [8, 16], "feasible": [True, True],
    ...     "node_efficiency": [0.8, 0.96], "edge_efficiency": [0.9, 0.97]})
    >>> int(smallest_limits(frame, 0.95)["max_nodes"])
    10
    """
    good = frame[frame["feasible"].astype(bool)]
    good = good[(good["node_efficiency"] >= min_efficiency) & (good["edge_efficiency"] >= min_efficiency)]
    if good.empty:
        return None
    area = good["max_nodes"] * good["max_edges"]
    return good.loc[area.sort_values(kind="stable").index[0]]
