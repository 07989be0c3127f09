"""Limit sweeps: pack under every (max_nodes, max_edges) pair of a grid.

Krell et al., "Tuple Packing" (2022), sections 2.5 and 3.2: because histogram packing
takes milliseconds, try every limit pair and choose on a harmonic-mean heatmap.

Best fit, the default, counts whole chunks of the grid in one lockstep pass
(:mod:`packing.best_fit_grid`): the cells share the bin order and every per-bin step,
and each cell's count is still exactly its own best-fit run's. The other algorithms
pack cell by cell.
"""
from __future__ import annotations

import os
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import nullcontext
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from .api import count_tuple_packs
from .best_fit_grid import count_best_fit_grid, exact_in_lockstep
from .bounds import lower_bounds
from .histogram import SizeHistogram
from .limits import DEFAULT_MAX_GRAPHS, MAX_PACK_LIMIT, PackLimits, limit_number, whole_number
from .method import BEST_FIT, PUBLISHED, PackMethod, TUPLE_ALGORITHMS
from .metrics import BOUND_COLUMN, metrics_from_packs

SWEEP_COLUMNS = [
    "max_nodes", "max_edges", "max_graphs", "feasible", "packs", "lower_bound", "gap", BOUND_COLUMN,
    "node_efficiency", "edge_efficiency", "harmonic_mean", "packing_factor", "method",
]
MAX_CELLS = 1_000_000  # limit pairs one sweep may hold
MAX_AXIS = 100_000  # values one axis of a grid may hold
MAX_WORKERS = 64
LOCKSTEP_CHUNK = 256  # fewest cells per chunk for the lockstep best fit (its cost per bin is per chunk)
Progress = Callable[[int, int], None]


def limit_grid(start: int, stop: int, step: int, name: str = "range") -> list[int]:
    """The limits ``start, start + step, ...`` up to ``stop``, with ``stop`` always included:
    the one rule the CLI (``--nodes 100:420:50``) and the dashboard's ranges share.

    >>> limit_grid(100, 420, 50)
    [100, 150, 200, 250, 300, 350, 400, 420]
    >>> limit_grid(5, 5, 1)
    [5]
    """
    start, stop = whole_number(start, f"{name} start"), whole_number(stop, f"{name} stop")
    step = whole_number(step, f"{name} step")
    if start > stop:
        raise ValueError(f"The {name} is empty: start {start:,} is above stop {stop:,}.")
    if (stop - start) // step + 1 + ((stop - start) % step > 0) > MAX_AXIS:  # the steps, and stop off the steps
        raise ValueError(f"The {name} {start:,} to {stop:,} in steps of {step:,} has more than {MAX_AXIS:,} values; "
                         "use a larger step.")
    values = list(range(start, stop + 1, step))
    return values if values[-1] == stop else values + [stop]


def default_limits(hist: SizeHistogram, steps: int = 12, multiple: float = 4.0) -> tuple[list[int], list[int]]:
    """A grid from the largest graph up to ``multiple`` times it, ``steps`` values per axis.

    >>> default_limits(SizeHistogram.from_sizes([10], [20]), steps=3, multiple=2.0)
    ([10, 15, 20], [20, 30, 40])
    """
    largest_nodes, largest_edges = max(hist.largest_nodes, 1), max(hist.largest_edges, 1)
    nodes = np.linspace(largest_nodes, min(largest_nodes * multiple, MAX_PACK_LIMIT), steps)
    edges = np.linspace(largest_edges, min(largest_edges * multiple, MAX_PACK_LIMIT), steps)
    return sorted(set(np.round(nodes).astype(int).tolist())), sorted(set(np.round(edges).astype(int).tolist()))


def _counts(hist: SizeHistogram, cells: list[PackLimits], method: PackMethod,
            share: Callable[[float], None] | None = None) -> list[int]:
    """The pack count of ``method`` under each limit pair (each must hold every graph);
    ``share(fraction)`` follows a lockstep pass."""
    if _lockstep(hist, cells, method):
        counts = count_best_fit_grid(hist.num_nodes, hist.num_edges, hist.counts, cells, method.heuristic_key(),
                                     share)
        return counts.tolist()
    return [count_tuple_packs(hist, limits, method) for limits in cells]


def _lockstep(hist: SizeHistogram, cells: list[PackLimits], method: PackMethod) -> bool:
    """Whether the cells are counted in one lockstep best-fit pass (exact in this range)."""
    return method.algorithm == BEST_FIT and len(cells) > 1 and exact_in_lockstep(hist.num_graphs, cells)


def _cells_done(progress: Progress | None, done: int, chunk: int, total: int) -> Callable[[float], None] | None:
    """``progress`` told of a chunk of ``chunk`` cells after ``done`` by the share of it done.

    >>> _cells_done(lambda done, total: print(done, total), 10, 4, 20)(0.5)
    12 20
    """
    if progress is None:
        return None
    return lambda share: progress(done + int(share * chunk), total)


def _cells(args, share: Callable[[float], None] | None = None) -> list[dict]:
    hist, cells, method = args
    rows = [{**limits.to_dict(), "feasible": limits.fits(hist)} for limits in cells]
    feasible = [limits for limits, row in zip(cells, rows) if row["feasible"]]
    counts = iter(_counts(hist, feasible, method, share))
    return [{**row, **metrics_from_packs(hist, limits, next(counts), lower_bounds(hist, limits))}
            if row["feasible"] else row for limits, row in zip(cells, rows)]


def _axis(values: Sequence[int], name: str) -> list[int]:
    checked = sorted({limit_number(value, name) for value in values})
    if not checked:
        raise ValueError(f"The sweep grid is empty: give at least one {name}.")
    if len(checked) > MAX_AXIS:
        raise ValueError(f"{len(checked):,} {name}s is more than {MAX_AXIS:,}; use a coarser grid.")
    return checked


def sweep_cells(
    node_limits: Sequence[int], edge_limits: Sequence[int], max_graphs: int, method: PackMethod,
) -> list[PackLimits]:
    """The limit pairs :func:`sweep` packs, in grid order (each axis sorted, repeats
    dropped), once the grid and the method are checked: a ``ValueError`` says what is wrong,
    so a caller can refuse a bad sweep before it starts workers.

    >>> [cell.to_dict() for cell in sweep_cells([20, 10, 20], [8], 4, PackMethod())]
    [{'max_nodes': 10, 'max_edges': 8, 'max_graphs': 4}, {'max_nodes': 20, 'max_edges': 8, 'max_graphs': 4}]
    """
    if not isinstance(method, PackMethod) or not method.is_tuple_packing:
        raise ValueError(f"Sweeps run one tuple packing algorithm ({', '.join(TUPLE_ALGORITHMS)}, {PUBLISHED}); "
                         f"got {method!r}.")
    nodes, edges = _axis(node_limits, "node limit"), _axis(edge_limits, "edge limit")
    if len(nodes) * len(edges) > MAX_CELLS:
        raise ValueError(f"{len(nodes):,} x {len(edges):,} = {len(nodes) * len(edges):,} limit pairs is more than "
                         f"{MAX_CELLS:,}; use larger steps or narrower ranges.")
    return [PackLimits(n, e, max_graphs) for n in nodes for e in edges]


def sweep(
    hist: SizeHistogram,
    node_limits: Sequence[int],
    edge_limits: Sequence[int],
    max_graphs: int = DEFAULT_MAX_GRAPHS,
    method: PackMethod | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
    executor: Executor | None = None,
) -> pd.DataFrame:
    """Pack with ``method`` (tuple packing; default best fit, product) for every
    (max_nodes, max_edges) pair; one row per pair, in grid order, with ``SWEEP_COLUMNS``
    (``method`` is the method's label, so a saved table says how it was packed).

    Pairs below the largest graph are kept with ``feasible=False`` and empty metrics
    (``packs`` and ``lower_bound`` are whole numbers, pandas' nullable ``Int64``: empty
    there, never a float, so a saved table holds them as integers).
    ``workers`` processes share the grid (default: up to 4 cores for large grids);
    ``progress(done, total)`` is called as chunks finish (and, in this process, during a
    lockstep pass, ``done`` counting its cells by the share of the size bins placed). At most ``MAX_CELLS`` pairs.
    Best fit counts a chunk of at least ``LOCKSTEP_CHUNK`` pairs in one lockstep pass
    (:mod:`packing.best_fit_grid`; each cell's count is the one ``pack()`` gives), so a
    grid of up to that many pairs runs in this process, larger ones in about two chunks
    per worker; the other algorithms pack cell by cell in chunks of at most 64.
    ``executor`` (any ``concurrent.futures.Executor``, e.g. a Dask client's
    ``get_executor()``) runs the chunks instead of local processes and is left open;
    ``workers`` then only sizes the chunks (default: as for ``MAX_WORKERS``).

    >>> frame = sweep(SizeHistogram.from_sizes([2, 3, 5], [2, 4, 8]), [5, 10], [8, 16], workers=1)
    >>> frame[["max_nodes", "max_edges", "packs"]].values.tolist()
    [[5, 8, 2], [5, 16, 2], [10, 8, 2], [10, 16, 1]]
    """
    method = PackMethod() if method is None else method
    cells = sweep_cells(node_limits, edge_limits, max_graphs, method)
    if workers is None:
        workers = MAX_WORKERS if executor is not None else min(os.cpu_count() or 1, 4) if len(cells) >= 64 else 1
    workers = min(whole_number(workers, "workers", 1, MAX_WORKERS), len(cells))
    if method.algorithm == BEST_FIT:
        chunk = max(LOCKSTEP_CHUNK, -(-len(cells) // (2 * workers)))
    else:
        chunk = max(1, min(64, len(cells) // (4 * workers) or 1))
    jobs = [(hist, cells[i:i + chunk], method) for i in range(0, len(cells), chunk)]
    workers = min(workers, len(jobs))
    rows: list[dict] = []
    if workers <= 1 and executor is None:
        for job in jobs:
            rows.extend(_cells(job, _cells_done(progress, len(rows), len(job[1]), len(cells))))
            if progress:
                progress(len(rows), len(cells))
    else:
        with nullcontext(executor) if executor is not None else ProcessPoolExecutor(max_workers=workers) as pool:
            for result in pool.map(_cells, jobs):
                rows.extend(result)
                if progress:
                    progress(len(rows), len(cells))
    frame = pd.DataFrame(rows).assign(method=method.label).reindex(columns=SWEEP_COLUMNS)
    return frame.astype({"packs": "Int64", "lower_bound": "Int64"})


def smallest_limits(frame: pd.DataFrame, min_efficiency: float) -> pd.Series | None:
    """The feasible row with the smallest ``max_nodes * max_edges`` whose node and edge
    efficiencies are both at least ``min_efficiency`` (a fraction); None if there is none.
    A side the graphs have none of (edge efficiency 0 in every cell: a dataset without
    edges) is left out, as :func:`packing.metrics.harmonic_mean` leaves it out.

    >>> frame = pd.DataFrame({"max_nodes": [5, 10], "max_edges": [8, 16], "feasible": [True, True],
    ...     "node_efficiency": [0.8, 0.96], "edge_efficiency": [0.9, 0.97]})
    >>> int(smallest_limits(frame, 0.95)["max_nodes"])
    10
    """
    if isinstance(min_efficiency, bool) or not isinstance(min_efficiency, (int, float)) or \
            not 0 < min_efficiency <= 1:  # NaN fails this too
        raise ValueError(f"min_efficiency is a fraction above 0 and at most 1 (0.95 for 95 %), got {min_efficiency!r}.")
    good = frame[frame["feasible"].astype(bool)]
    sides = [side for side in ("node_efficiency", "edge_efficiency") if (good[side] > 0).any()]
    good = good[(good[sides] >= min_efficiency).all(axis=1)]
    if good.empty:
        return None
    area = good["max_nodes"] * good["max_edges"]
    return good.loc[area.sort_values(kind="stable").index[0]]
