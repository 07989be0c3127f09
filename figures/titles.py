"""Titles of exported figures: what a figure shows, then the dataset, split, method and
limits it belongs to, with room kept so the colour bar never reaches the title."""
from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from packing import PackingPlan

#: Top margin (pixels) of a figure with a two-line title.
TITLE_MARGIN = 100
#: Share of the plot height a colour bar takes, anchored at the bottom: it ends below the title.
COLORBAR_LEN = 0.85


def subject(dataset: dict[str, Any], plan: PackingPlan) -> str:
    """The dataset (the ``dataset`` section of a ``packing.export`` configuration: name,
    split, options), the plan's method and its limits, in one line.

    >>> from packing import PackLimits, SizeHistogram, pack
    >>> plan = pack(SizeHistogram.from_sizes([3, 2], [4, 2]), PackLimits(29, 700, 256))
    >>> subject({"name": "qm9", "split": "all", "options": {"graph": "radius", "cutoff": 5.0}}, plan)
    'qm9 (all, graph=radius, cutoff=5.0): best fit, product heuristic; limits 29 nodes, 700 edges, 256 graphs'
    """
    where = ", ".join([dataset["split"], *(f"{key}={value}" for key, value in dataset.get("options", {}).items())])
    limits = plan.limits
    return (f"{dataset['name']} ({where}): {plan.label}; limits {limits.max_nodes:,} nodes, "
            f"{limits.max_edges:,} edges, {limits.max_graphs:,} graphs")


def titled(fig: go.Figure, line: str) -> go.Figure:
    """``fig`` with ``line`` under its title (smaller), a top margin that holds both lines and
    every colour bar shortened from the bottom, so it never collides with the title.

    >>> fig = titled(go.Figure(go.Heatmap(z=[[1, 2]]), layout=dict(title="Counts")), "qm9 (all)")
    >>> fig.layout.title.text, fig.layout.margin.t, fig.data[0].colorbar.len
    ('Counts<br><sup>qm9 (all)</sup>', 100, 0.85)
    """
    title = fig.layout.title.text or ""
    fig.update_layout(title_text=f"{title}<br><sup>{line}</sup>",
                      margin_t=max(TITLE_MARGIN, (fig.layout.margin.t or 0) + 40))
    fig.update_traces(colorbar=dict(len=COLORBAR_LEN, y=0, yanchor="bottom"), selector=dict(type="heatmap"))
    return fig
