"""Titles of exported figures: what a figure shows, then the dataset, split, method and
limits it belongs to, with room kept so the colour bar never reaches the title."""
from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from packing import PackingPlan

from .style import plain

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
    return f"{dataset_words(dataset)}: {plan.label}; limits {plan.limits}"


def sweep_subject(dataset: dict[str, Any], sweep: pd.DataFrame) -> str:
    """The dataset and what a sweep table packed with: its own method (the ``method``
    column :func:`packing.sweep` writes) and graph limit, which may differ from the plan's.

    >>> from packing import SizeHistogram, sweep
    >>> frame = sweep(SizeHistogram.from_sizes([3, 2], [4, 2]), [4, 8], [4], max_graphs=64, workers=1)
    >>> sweep_subject({"name": "qm9", "split": "all", "options": {}}, frame)
    'qm9 (all): sweep with best fit, product heuristic; 64 graphs per pack'
    """
    method = sweep_method(sweep) or "a method the sweep table does not record"
    graphs = " or ".join(f"{int(g):,}" for g in sorted(set(sweep["max_graphs"]))) if "max_graphs" in sweep else "?"
    return f"{dataset_words(dataset)}: sweep with {method}; {graphs} graphs per pack"


def sweep_method(sweep: pd.DataFrame) -> str | None:
    """The label of the method a sweep table was packed with (its ``method`` column), None
    for a table written before sweeps recorded it.

    >>> sweep_method(pd.DataFrame({"method": ["best fit, sum heuristic"]})), sweep_method(pd.DataFrame())
    ('best fit, sum heuristic', None)
    """
    return str(sweep["method"].iloc[0]) if "method" in sweep and len(sweep) else None


def dataset_words(dataset: dict[str, Any]) -> str:
    """The dataset section of a configuration in words: its name, split and options.

    >>> dataset_words({"name": "aflow", "split": "all", "options": {"k": 24}})
    'aflow (all, k=24)'
    """
    where = ", ".join([dataset["split"], *(f"{key}={value}" for key, value in dataset.get("options", {}).items())])
    return f"{dataset['name']} ({where})"


def titled(fig: go.Figure, line: str) -> go.Figure:
    """``fig`` with ``line`` (text, shown as typed) under its title (smaller), a top margin that holds both lines and
    every colour bar shortened from the bottom, so it never collides with the title, with
    its title beside it.

    >>> fig = titled(go.Figure(go.Heatmap(z=[[1, 2]]), layout=dict(title="Counts")), "qm9 (all)")
    >>> fig.layout.title.text, fig.layout.margin.t, fig.data[0].colorbar.len
    ('Counts<br><sup>qm9 (all)</sup>', 100, 0.85)
    """
    title = fig.layout.title.text or ""
    fig.update_layout(title_text=f"{title}<br><sup>{plain(line)}</sup>",
                      margin_t=max(TITLE_MARGIN, (fig.layout.margin.t or 0) + 40))
    fig.update_traces(colorbar=dict(len=COLORBAR_LEN, y=0, yanchor="bottom", title_side="right"),
                      selector=dict(type="heatmap"))  # a title beside the bar never covers its top tick
    return fig
