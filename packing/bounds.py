"""Lower bounds on the number of packs any plan needs."""
from __future__ import annotations

from .histogram import SizeHistogram
from .limits import PackLimits


def _ceil_div(total: int, limit: int) -> int:
    return -(-int(total) // int(limit))


def volume_bound(
    total_nodes: int, total_edges: int, graphs: int,
    max_nodes: int | None, max_edges: int | None, max_graphs: int,
) -> int:
    """max(ceil(nodes / N), ceil(edges / E), ceil(graphs / G)); a limit of None is not counted.

    >>> volume_bound(15, 3, 3, 10, None, 8)
    2
    """
    bounds = [_ceil_div(graphs, max_graphs)]
    if max_nodes is not None:
        bounds.append(_ceil_div(total_nodes, max_nodes))
    if max_edges is not None:
        bounds.append(_ceil_div(total_edges, max_edges))
    return max(bounds)


def lower_bound(hist: SizeHistogram, limits: PackLimits, unlimited: str | None = None) -> int:
    """The volume bound max(ceil(sum n / N), ceil(sum e / E), ceil(graphs / G)).

    No plan that keeps ``limits`` can use fewer packs; ``num_packs / lower_bound - 1`` is
    the optimality gap. ``unlimited`` (``"nodes"`` or ``"edges"``) leaves that component out,
    for the 1D baselines that do not keep it.

    >>> lower_bound(SizeHistogram.from_sizes([5, 5, 5], [1, 1, 1]), PackLimits(10, 10, 8))
    2
    """
    if not isinstance(limits, PackLimits):
        raise ValueError(f"limits must be a PackLimits, got {limits!r}.")
    return volume_bound(
        hist.total_nodes, hist.total_edges, hist.num_graphs,
        None if unlimited == "nodes" else limits.max_nodes,
        None if unlimited == "edges" else limits.max_edges,
        limits.max_graphs,
    )
