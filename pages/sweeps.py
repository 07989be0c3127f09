"""Sweep grids for the Limit sweep page (helpers, not a page): default ranges, the grid of
limits a range gives, and checks with user-facing messages."""
from __future__ import annotations

from packing import SizeHistogram, default_limits

MAX_CELLS = 2500
RANGE_FIELDS = ("n0", "n1", "ns", "e0", "e1", "es")  # node from/to/step, edge from/to/step


def default_params(hist: SizeHistogram, max_graphs: int) -> dict:
    """From the largest graph up to four times it, twelve values per axis."""
    nodes, edges = default_limits(hist)

    def step(values: list[int]) -> int:
        return max(1, round((values[-1] - values[0]) / max(len(values) - 1, 1)))

    return {
        "n0": nodes[0], "n1": nodes[-1], "ns": step(nodes), "e0": edges[0], "e1": edges[-1], "es": step(edges),
        "max_graphs": max_graphs, "heuristic": "product", "algorithm": "best_fit",
    }


def grid(params: dict) -> tuple[list[int], list[int]]:
    """Node and edge limits of the sweep (each range includes its stop value).

    >>> grid({"n0": 10, "n1": 25, "ns": 10, "e0": 20, "e1": 20, "es": 5})
    ([10, 20, 25], [20])
    """

    def axis(start: int, stop: int, step: int) -> list[int]:
        values = list(range(int(start), int(stop) + 1, int(step)))
        if values and values[-1] != stop:
            values.append(int(stop))
        return values

    return axis(params["n0"], params["n1"], params["ns"]), axis(params["e0"], params["e1"], params["es"])


def check_grid(nodes: list[int], edges: list[int], params: dict) -> str | None:
    """A user-facing message when the ranges do not give a usable grid, else None."""
    if not nodes:
        return f"The node range is empty: start {params['n0']} is above stop {params['n1']}."
    if not edges:
        return f"The edge range is empty: start {params['e0']} is above stop {params['e1']}."
    if len(nodes) * len(edges) > MAX_CELLS:
        return (f"{len(nodes)} x {len(edges)} = {len(nodes) * len(edges):,} cells is more than {MAX_CELLS:,}; "
                "use larger steps or narrower ranges.")
    return None
