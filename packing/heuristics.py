"""Monotone heuristics that turn a (nodes, edges) pair into one packing priority.

Krell et al., "Tuple Packing" (2022), section 2.3: a heuristic h is monotone when
a >= b and c >= d imply h(a, c) >= h(b, d).  It orders the incoming histogram bins
(largest first) and ranks open packs by their remaining space.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

Heuristic = Callable[[np.ndarray, np.ndarray], np.ndarray]

HEURISTICS: dict[str, Heuristic] = {
    "product": lambda nodes, edges: np.multiply(nodes, edges, dtype=np.float64),
    "sum": lambda nodes, edges: np.add(nodes, edges, dtype=np.float64),
    "max": lambda nodes, edges: np.maximum(nodes, edges).astype(np.float64),
    # A real minimum: the public reference code maps "min" to max by mistake.
    "min": lambda nodes, edges: np.minimum(nodes, edges).astype(np.float64),
    "node": lambda nodes, edges: np.asarray(nodes, dtype=np.float64) + 0 * np.asarray(edges),
    "edge": lambda nodes, edges: np.asarray(edges, dtype=np.float64) + 0 * np.asarray(nodes),
}


def weighted_sum(node_weight: float, edge_weight: float) -> Heuristic:
    """The heuristic ``node_weight * nodes + edge_weight * edges`` (weights >= 0).

    >>> float(weighted_sum(2.0, 0.5)(np.array(3), np.array(4)))
    8.0
    """
    if node_weight < 0 or edge_weight < 0 or node_weight + edge_weight == 0:
        raise ValueError("Weighted-sum weights must be non-negative and not both zero.")
    return lambda nodes, edges: node_weight * np.asarray(nodes, np.float64) + edge_weight * np.asarray(
        edges, np.float64
    )


def resolve_heuristic(name: str, weights: tuple[float, float] | None = None) -> Heuristic:
    """Look a heuristic up by name; ``"weighted"`` needs ``weights=(node_w, edge_w)``.

    >>> float(resolve_heuristic("min")(np.array(3), np.array(5)))
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
