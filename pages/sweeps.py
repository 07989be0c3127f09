"""Sweep grids for the Limit sweep page (helpers, not a page): default ranges, the grid of
limits a range gives (by the engine's own rule, :func:`packing.limit_grid`), and checks
with user-facing messages."""
from __future__ import annotations

from packing import TUPLE_ALGORITHMS, PackMethod, SizeHistogram, default_limits, limit_grid

MAX_CELLS = 2500
RANGE_FIELDS = ("n0", "n1", "ns", "e0", "e1", "es")  # node from/to/step, edge from/to/step
SETTINGS = (*RANGE_FIELDS, "max_graphs", "heuristic", "w_nodes", "w_edges", "algorithm")


def default_params(hist: SizeHistogram, max_graphs: int, method: PackMethod) -> dict:
    """From the largest graph up to four times it, twelve values per axis, with ``max_graphs``
    and the chosen ``method`` (a method the sweep does not offer: best fit, product).

    >>> hist = SizeHistogram.from_sizes([3], [4])
    >>> params = default_params(hist, 16, PackMethod("worst_fit", "weighted", weights=(2.0, 1.0)))
    >>> params["max_graphs"], sweep_method(params).label
    (16, 'worst fit, weighted(2,1) heuristic')
    >>> sweep_method(default_params(hist, 16, PackMethod("best"))).label
    'best fit, product heuristic'
    """
    nodes, edges = default_limits(hist)
    if method.algorithm not in TUPLE_ALGORITHMS:
        method = PackMethod()
    w_nodes, w_edges = method.weights or (1.0, 1.0)

    def step(values: list[int]) -> int:
        return max(1, round((values[-1] - values[0]) / max(len(values) - 1, 1)))

    return {
        "n0": nodes[0], "n1": nodes[-1], "ns": step(nodes), "e0": edges[0], "e1": edges[-1], "es": step(edges),
        "max_graphs": max_graphs, "heuristic": method.heuristic, "w_nodes": w_nodes, "w_edges": w_edges,
        "algorithm": method.algorithm,
    }


def sweep_method(params: dict) -> PackMethod:
    """The packing method of a sweep's settings (the weights count for the weighted heuristic only).

    >>> sweep_method({"algorithm": "first_fit", "heuristic": "weighted", "w_nodes": 2.0, "w_edges": 1.0}).label
    'first fit, weighted(2,1) heuristic'
    """
    weighted = params["heuristic"] == "weighted"
    weights = (params["w_nodes"], params["w_edges"]) if weighted else None
    return PackMethod(params["algorithm"], params["heuristic"], weights=weights)


def grid(params: dict) -> tuple[list[int], list[int]]:
    """Node and edge limits of the sweep (each range includes its stop value).

    >>> grid({"n0": 10, "n1": 25, "ns": 10, "e0": 20, "e1": 20, "es": 5})
    ([10, 20, 25], [20])
    """
    return (limit_grid(params["n0"], params["n1"], params["ns"], "node range"),
            limit_grid(params["e0"], params["e1"], params["es"], "edge range"))


def check_grid(params: dict) -> str | None:
    """A user-facing message when the ranges do not give a usable grid, else None."""
    try:
        nodes, edges = grid(params)
    except ValueError as error:
        return str(error)
    if len(nodes) * len(edges) > MAX_CELLS:
        return (f"{len(nodes)} x {len(edges)} = {len(nodes) * len(edges):,} cells is more than {MAX_CELLS:,}; "
                "use larger steps or narrower ranges.")
    return None
