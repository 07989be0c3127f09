"""The formulas for efficiency, pack fill and the plan metrics, in one place.

Plans, sweeps, comparisons, figures and everything later use these, so a number means the
same wherever it is shown. Totals are Python integers (exact, no overflow).
"""
from __future__ import annotations

import numpy as np

from .bounds import Bounds
from .histogram import SizeHistogram
from .limits import PackLimits

METRIC_NAMES = ("packs", "lower_bound", "gap", "node_efficiency", "edge_efficiency", "harmonic_mean", "packing_factor")
BOUND_COLUMN = "bound"  # which bound ``lower_bound`` is (volume, large_items or lp)


def efficiency(real: int, packs: int, capacity: int) -> float:
    """Real items over the slots of ``packs`` packs of ``capacity`` each, in [0, 1]
    (1.0 when there are no slots).

    >>> efficiency(75, 2, 50)
    0.75
    """
    slots = int(packs) * int(capacity)
    return int(real) / slots if slots else 1.0


def fill(pack_sums: np.ndarray, capacity: int) -> np.ndarray:
    """Share of ``capacity`` each pack uses (1.0 for a capacity of 0).

    >>> fill(np.array([5, 10]), 20).tolist()
    [0.25, 0.5]
    """
    return np.asarray(pack_sums, dtype=np.float64) / capacity if capacity else np.ones(len(pack_sums))


def harmonic_mean(hist: SizeHistogram, node_efficiency: float, edge_efficiency: float) -> float:
    """2ab / (a + b) of the node and edge efficiency of a plan of ``hist`` (0 when both are
    0). A side the graphs have none of (a dataset without edges, e.g. radius graphs with a
    tiny cutoff) is left out, so the mean is the other side's efficiency, not 0: its slots
    are still counted as padding in its own efficiency.

    >>> harmonic_mean(SizeHistogram.from_sizes([3], [4]), 0.5, 1.0)
    0.6666666666666666
    >>> harmonic_mean(SizeHistogram.from_sizes([3, 2], [0, 0]), 0.8, 0.0)
    0.8
    """
    if hist.total_edges == 0 and hist.total_nodes:
        return node_efficiency
    if hist.total_nodes == 0 and hist.total_edges:
        return edge_efficiency
    total = node_efficiency + edge_efficiency
    return 2 * node_efficiency * edge_efficiency / total if total else 0.0


def metrics_from_packs(
    hist: SizeHistogram, limits: PackLimits, packs: int, bounds: Bounds,
) -> dict[str, float | str]:
    """Packs, lower bound (and which bound it is), gap, efficiencies, harmonic mean and
    packing factor of a plan that keeps ``limits`` with ``packs`` packs (the same numbers
    as ``PackingPlan``), against ``bounds`` (from :func:`packing.lower_bounds` for the
    same graphs and limits).

    >>> from packing import lower_bounds
    >>> hist, limits = SizeHistogram.from_sizes([3, 3, 3], [2, 2, 2]), PackLimits(5, 6, 4)
    >>> metrics = metrics_from_packs(hist, limits, 3, lower_bounds(hist, limits))
    >>> metrics["node_efficiency"], metrics["lower_bound"], metrics["bound"]
    (0.6, 3, 'large_items')
    """
    node_efficiency = efficiency(hist.total_nodes, packs, limits.max_nodes)
    edge_efficiency = efficiency(hist.total_edges, packs, limits.max_edges)
    return {
        "packs": packs,
        "lower_bound": bounds.best,
        "gap": packs / bounds.best - 1,
        BOUND_COLUMN: bounds.name_of_best,
        "node_efficiency": node_efficiency,
        "edge_efficiency": edge_efficiency,
        "harmonic_mean": harmonic_mean(hist, node_efficiency, edge_efficiency),
        "packing_factor": hist.num_graphs / packs,
    }
