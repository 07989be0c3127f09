"""Plan metrics that follow from the number of packs alone (for sweeps and comparisons,
where building every pack's contents would be wasted work)."""
from __future__ import annotations

from .bounds import lower_bound
from .histogram import SizeHistogram


def harmonic_mean(a: float, b: float) -> float:
    """2ab / (a + b), 0 when both are 0.

    >>> harmonic_mean(0.5, 1.0)
    0.6666666666666666
    """
    return 2 * a * b / (a + b) if a + b else 0.0


def metrics_from_packs(hist: SizeHistogram, limits: tuple[int, int, int], packs: int) -> dict[str, float]:
    """Packs, lower bound, gap, efficiencies, harmonic mean and packing factor of a tuple
    packing plan with ``packs`` packs under ``limits`` (equal to ``PackingPlan`` metrics).

    >>> metrics_from_packs(SizeHistogram.from_sizes([3, 2], [4, 2]), (5, 6, 4), 1)["harmonic_mean"]
    1.0
    """
    max_nodes, max_edges, max_graphs = limits
    node_efficiency = hist.total_nodes / (packs * max_nodes)
    edge_efficiency = hist.total_edges / (packs * max_edges)
    bound = lower_bound(hist, max_nodes, max_edges, max_graphs)
    return {
        "packs": packs,
        "lower_bound": bound,
        "gap": packs / bound - 1,
        "node_efficiency": node_efficiency,
        "edge_efficiency": edge_efficiency,
        "harmonic_mean": harmonic_mean(node_efficiency, edge_efficiency),
        "packing_factor": hist.num_graphs / packs,
    }
