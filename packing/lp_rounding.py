"""A plan from the LP relaxation: the master's solution rounded down, the rest packed by
the best of our algorithms.

Method: the classic rounding of the Gilmore-Gomory cutting-stock LP (Gilmore and Gomory,
1961; see e.g. Wascher and Gau, "Heuristics for the integer one-dimensional cutting stock
problem: a computational study", OR Spektrum 18, 1996): take ``floor(x_a)`` packs of every
pattern ``a`` of the LP solution, drop copies a row does not need (the LP covers rows at
least), and pack the graphs left, at most one pattern's worth per fractional pattern, with
:func:`packing.api.best_plan`. The plan uses at most the LP's packs rounded down plus
those of the small remainder, which is why it beats greedy packing where the right mix of
packs matters more than the order (QM9 at twice the data-default limits, for example).
"""
from __future__ import annotations

import math

import numpy as np

from .greedy import Strategy
from .histogram import SizeHistogram
from .limits import PackLimits
from .column_generation import DEFAULT_TIME_BUDGET, LPBound, Progress, lp_bound
from .pattern_pricing import Pattern


def _rounded_down(solution: tuple[tuple[Pattern, float], ...], counts: np.ndarray) -> list[tuple[Pattern, int]]:
    """Whole packs of each pattern, with copies beyond a row's count taken out again."""
    packs = [(dict(pattern), math.floor(share + 1e-9)) for pattern, share in solution]
    packs = [(pattern, number) for pattern, number in packs if number > 0]
    covered = np.zeros(counts.size, dtype=object)
    for pattern, number in packs:
        for row, copies in pattern.items():
            covered[row] += copies * number
    for row in np.flatnonzero(covered > counts).tolist():
        excess = int(covered[row] - counts[row])
        trimmed: list[tuple[Pattern, int]] = []
        for pattern, number in packs:
            copies = pattern.get(row, 0)
            if excess and copies:
                # whole packs give up every copy of the row, then one pack gives up the rest
                emptied = min(number, excess // copies)
                if emptied:
                    trimmed.append(({r: c for r, c in pattern.items() if r != row}, emptied))
                    number, excess = number - emptied, excess - emptied * copies
                if number and excess:
                    trimmed.append(({**pattern, row: copies - excess}, 1))
                    number, excess = number - 1, 0
            if number:
                trimmed.append((pattern, number))
        packs = [(pattern, number) for pattern, number in trimmed if pattern]
    return packs


def lp_rounded_strategies(
    hist: SizeHistogram, limits: PackLimits, time_budget: float = DEFAULT_TIME_BUDGET,
    progress: Progress | None = None,
) -> tuple[list[Strategy], LPBound]:
    """Strategies (row indices with repetition, count) of the rounded LP plan and the LP
    run they come from (its bound proves how far the plan can be from optimal).

    >>> hist = SizeHistogram.from_counts([3, 2], [4, 2], [4, 6])
    >>> strategies, result = lp_rounded_strategies(hist, PackLimits(5, 6, 2))
    >>> sum(count for _, count in strategies), result.bound
    (5, 5)
    """
    from .api import best_plan

    result = lp_bound(hist, limits, time_budget, progress)
    whole = _rounded_down(result.solution, hist.counts)
    left = hist.counts.astype(np.int64).copy()
    for pattern, number in whole:
        for row, copies in pattern.items():
            left[row] -= copies * number
    strategies: dict[tuple[int, ...], int] = {}
    for pattern, number in whole:
        key = tuple(sorted(row for row, copies in pattern.items() for _ in range(copies)))
        strategies[key] = strategies.get(key, 0) + number
    rows = np.flatnonzero(left > 0)
    if rows.size:
        rest = SizeHistogram.from_counts(hist.num_nodes[rows], hist.num_edges[rows], left[rows])
        index = {(int(hist.num_nodes[r]), int(hist.num_edges[r])): int(r) for r in rows}
        for items, count in best_plan(rest, limits).packs:
            key = tuple(sorted(index[n, e] for n, e, copies in items for _ in range(copies)))
            strategies[key] = strategies.get(key, 0) + count
    return sorted(strategies.items(), key=lambda kv: (-kv[1], kv[0])), result
