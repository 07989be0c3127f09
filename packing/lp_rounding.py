"""A plan from the LP relaxation: the master's solution rounded down, the rest packed by
the best of our algorithms.

Method: the classic rounding of the Gilmore-Gomory cutting-stock LP (Gilmore and Gomory,
1961; see e.g. Wascher and Gau, "Heuristics for the integer one-dimensional cutting stock
problem: a computational study", OR Spektrum 18, 1996): take ``floor(x_a)`` packs of every
pattern ``a`` of the LP solution, drop copies a row does not need (the LP covers rows at
least), and pack the graphs left, at most one pattern's worth per fractional pattern, with
the best of all (the composer :func:`packing.api.lp_rounded_plan` does that). The plan uses
at most the LP's packs rounded down plus those of the small remainder, which is why it
beats greedy packing where the right mix of packs matters more than the order (QM9 at twice
the data-default limits, for example).
"""
from __future__ import annotations

import math

import numpy as np

from .packs import Strategy, merge, pack_from_copies
from .pattern_pricing import Pattern


def _whole_packs(solution: tuple[tuple[Pattern, float], ...], counts: np.ndarray) -> list[tuple[Pattern, int]]:
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


def rounded_down(solution: tuple[tuple[Pattern, float], ...], counts: np.ndarray) -> tuple[list[Strategy], np.ndarray]:
    """The LP solution ``(pattern, packs)`` rounded down to whole packs that take no row
    beyond its count, as strategies, and the graphs of each row left for another algorithm.

    >>> rounded_down((({0: 2}, 1.5), ({0: 1, 1: 1}, 2.0)), np.array([4, 3]))
    ([(((0, 1), (1, 1)), 2), (((0, 2),), 1)], array([0, 1]))
    """
    whole = _whole_packs(solution, counts)
    left = counts.astype(np.int64).copy()
    for pattern, number in whole:
        for row, copies in pattern.items():
            left[row] -= copies * number
    return merge((pack_from_copies(pattern), number) for pattern, number in whole), left
