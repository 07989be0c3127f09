"""The harmonic-mean heatmap of a limit sweep (``packing.sweep`` frame). No Streamlit."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .style import LAYOUT as _LAYOUT

SWEEP_TRACE = "limits"  # name of the clickable sweep trace (one point per grid cell)


def _cell_bounds(axis: np.ndarray, value: float) -> tuple[float, float]:
    """The extent of a heatmap cell centred at ``value``: halfway to its neighbours.

    >>> _cell_bounds(np.array([10, 20, 40]), 20)
    (15.0, 30.0)
    """
    index = int(np.searchsorted(axis, value))
    left = (axis[index] - axis[index - 1]) / 2 if index > 0 else None
    right = (axis[index + 1] - axis[index]) / 2 if index + 1 < len(axis) else None
    left = left if left is not None else (right if right is not None else 0.5)
    right = right if right is not None else left
    return float(value - left), float(value + right)


def sweep_figure(
    frame: pd.DataFrame, floor: float = 0.5, selected: tuple[int, int] | None = None
) -> go.Figure:
    """The harmonic-mean heatmap of a limit sweep.

    Infeasible cells (below the largest graph) stay empty and the best cell gets a star. An
    invisible square marker per cell (trace ``SWEEP_TRACE``, customdata = [max_nodes,
    max_edges]) carries the hover text and makes each cell clickable.

    Args:
        frame: the sweep, one row per limit pair, as ``packing.sweep`` returns it.
        floor: cells whose harmonic mean is below it are drawn grey.
        selected: the ``(max_nodes, max_edges)`` cell to frame in red; None for none.

    >>> from packing import SizeHistogram, sweep
    >>> frame = sweep(SizeHistogram.from_sizes([2, 3, 5], [2, 4, 8]), [5, 10], [8, 16], workers=1)
    >>> [trace.name for trace in sweep_figure(frame, selected=(5, 8)).data][1:]
    ['limits', 'best']
    """
    nodes = np.sort(frame["max_nodes"].unique())
    edges = np.sort(frame["max_edges"].unique())
    table = frame.set_index(["max_edges", "max_nodes"])
    hm = table["harmonic_mean"].unstack("max_nodes").reindex(index=edges, columns=nodes).to_numpy(float)
    good = np.where(hm >= floor, hm * 100, np.nan)
    low = np.where(hm < floor, 1.0, np.nan)
    fig = go.Figure()
    fig.add_trace(
        go.Heatmap(
            x=nodes, y=edges, z=good, zmin=floor * 100, zmax=100, colorscale="Viridis",
            colorbar=dict(title="harmonic<br>mean (%)"), hoverinfo="skip", hoverongaps=False,
        )
    )
    if np.isfinite(low).any():
        fig.add_trace(
            go.Heatmap(
                x=nodes, y=edges, z=low, colorscale=[[0, "#d9d9d9"], [1, "#d9d9d9"]], showscale=False,
                hoverinfo="skip", hoverongaps=False, name=f"below {floor:.0%}",
            )
        )
    feasible = frame[frame["feasible"].astype(bool)]
    custom = np.stack(
        [
            feasible["max_nodes"], feasible["max_edges"], feasible["harmonic_mean"] * 100,
            feasible["node_efficiency"] * 100, feasible["edge_efficiency"] * 100,
            feasible["packs"], feasible["lower_bound"], feasible["gap"] * 100,
        ],
        axis=1,
    ) if len(feasible) else np.empty((0, 8))
    cell = min(46, max(8, 520 // max(len(nodes), len(edges), 1)))
    fig.add_trace(
        go.Scatter(
            x=feasible["max_nodes"], y=feasible["max_edges"], mode="markers", name=SWEEP_TRACE,
            marker=dict(symbol="square", size=cell, color="rgba(0,0,0,0)", opacity=0.01),
            selected=dict(marker=dict(opacity=0.01)), unselected=dict(marker=dict(opacity=0.01)),
            customdata=custom, showlegend=False,
            hovertemplate=(
                "max nodes %{customdata[0]:.0f}, max edges %{customdata[1]:.0f}<br>"
                "harmonic mean %{customdata[2]:.2f}%<br>node efficiency %{customdata[3]:.2f}%<br>"
                "edge efficiency %{customdata[4]:.2f}%<br>packs %{customdata[5]:,.0f} "
                "(lower bound %{customdata[6]:,.0f}, gap %{customdata[7]:.2f}%)<extra>click to select</extra>"
            ),
        )
    )
    if len(feasible):
        best = feasible.loc[feasible["harmonic_mean"].idxmax()]
        fig.add_trace(
            go.Scatter(
                x=[best["max_nodes"]], y=[best["max_edges"]], mode="markers+text", name="best",
                marker=dict(symbol="star", size=16, color="white", line=dict(color="black", width=1.5)),
                text=["best"], textposition="top center", textfont=dict(color="black"),
                hoverinfo="skip", showlegend=False,
            )
        )
    if selected is not None and selected[0] in nodes and selected[1] in edges:
        x0, x1 = _cell_bounds(nodes, selected[0])
        y0, y1 = _cell_bounds(edges, selected[1])
        fig.add_shape(type="rect", x0=x0, x1=x1, y0=y0, y1=y1, line=dict(color="red", width=3), name="selected")
    fig.update_layout(
        title="Harmonic mean of node and edge efficiency per limit pair", xaxis_title="max nodes per pack",
        yaxis_title="max edges per pack", height=560, hovermode="closest", clickmode="event+select",
        hoverdistance=-1,  # the nearest cell centre is the cell under the pointer
        **_LAYOUT,
    )
    fig.update_xaxes(tickvals=_ticks(nodes))  # the swept limits, not round numbers between them
    fig.update_yaxes(tickvals=_ticks(edges))
    return fig


def _ticks(axis: np.ndarray, most: int = 16) -> list[int]:
    """At most ``most`` of the swept limits, evenly spaced, the first and last included.

    >>> _ticks(np.arange(222, 889, 61)), len(_ticks(np.arange(100)))
    ([222, 283, 344, 405, 466, 527, 588, 649, 710, 771, 832], 15)
    """
    step = -(-len(axis) // most)
    picked = list(axis[::step])
    if picked[-1] != axis[-1]:
        picked[-1] = axis[-1]
    return [int(value) for value in picked]
