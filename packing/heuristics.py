"""Monotone heuristics that turn a (nodes, edges) pair into one packing priority.

Krell et al., "Tuple Packing" (2022), section 2.3: a heuristic h is monotone when
a >= b and c >= d imply h(a, c) >= h(b, d).  It orders the incoming histogram bins
(largest first); the published algorithm and worst fit also rank open packs by the
heuristic of their remaining space (best fit ranks them by
:func:`packing.greedy.tightest_room`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Heuristic:
    """A named monotone heuristic with a vectorised and a scalar form (same values).

    >>> HEURISTICS["product"].scalar(3, 4), HEURISTICS["product"].array(np.array([3]), np.array([4])).tolist()
    (12.0, [12.0])
    """

    name: str
    scalar: Callable[[int, int], float]
    vector: Callable[[np.ndarray, np.ndarray], np.ndarray]

    def array(self, nodes: np.ndarray, edges: np.ndarray) -> np.ndarray:
        return np.asarray(self.vector(np.asarray(nodes, np.float64), np.asarray(edges, np.float64)))


HEURISTICS: dict[str, Heuristic] = {
    "product": Heuristic("product", lambda n, e: float(n * e), lambda n, e: n * e),
    "sum": Heuristic("sum", lambda n, e: float(n + e), lambda n, e: n + e),
    "max": Heuristic("max", lambda n, e: float(max(n, e)), np.maximum),
    # A real minimum: the public reference code maps "min" to max by mistake.
    "min": Heuristic("min", lambda n, e: float(min(n, e)), np.minimum),
    "node": Heuristic("node", lambda n, e: float(n), lambda n, e: n + 0 * e),
    "edge": Heuristic("edge", lambda n, e: float(e), lambda n, e: e + 0 * n),
}


def weighted_sum(node_weight: float, edge_weight: float) -> Heuristic:
    """The heuristic ``node_weight * nodes + edge_weight * edges`` (weights >= 0).

    >>> weighted_sum(2.0, 0.5).scalar(3, 4)
    8.0
    """
    if node_weight < 0 or edge_weight < 0 or node_weight + edge_weight == 0:
        raise ValueError("Weighted-sum weights must be non-negative and not both zero.")
    return Heuristic(
        f"weighted({node_weight:g},{edge_weight:g})",
        lambda n, e: float(node_weight * n + edge_weight * e),
        lambda n, e: node_weight * n + edge_weight * e,
    )


def resolve_heuristic(name: str, weights: tuple[float, float] | None = None) -> Heuristic:
    """Look a heuristic up by name; ``"weighted"`` needs ``weights=(node_w, edge_w)``.

    >>> resolve_heuristic("min").scalar(3, 5)
    3.0
    """
    if name == "weighted":
        if weights is None:
            raise ValueError("The 'weighted' heuristic needs weights=(node_weight, edge_weight).")
        return weighted_sum(*weights)
    if name not in HEURISTICS:
        known = ", ".join([*HEURISTICS, "weighted"])
        raise ValueError(f"Unknown heuristic {name!r}; choose one of: {known}.")
    return HEURISTICS[name]
