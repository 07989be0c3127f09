"""Lower bounds on the number of packs any plan needs."""
from __future__ import annotations

from .histogram import SizeHistogram


def _ceil_div(total: int, limit: int) -> int:
    return -(-total // limit)


def lower_bound(hist: SizeHistogram, max_nodes: int, max_edges: int, max_graphs: int) -> int:
    """The volume bound max(ceil(sum n / N), ceil(sum e / E), ceil(graphs / G)).

    No plan can use fewer packs; ``num_packs / lower_bound - 1`` is the optimality gap.

    >>> lower_bound(SizeHistogram.from_sizes([5, 5, 5], [1, 1, 1]), 10, 10, 8)
    2
    """
    for name, value in (("max_nodes", max_nodes), ("max_edges", max_edges), ("max_graphs", max_graphs)):
        if value <= 0:
            raise ValueError(f"{name} must be positive, got {value}.")
    return max(
        _ceil_div(hist.total_nodes, max_nodes),
        _ceil_div(hist.total_edges, max_edges),
        _ceil_div(hist.num_graphs, max_graphs),
    )
