"""The harmonic-mean heatmap of a limit sweep (``packing.sweep`` frame). No Streamlit.

Every swept limit is one equal cell, at positions 0, 1, 2, ... of each axis labelled with
the limit itself: a grid whose last step is short (``--edges 502:2008:167`` ends 2,005,
2,008) draws its last row as wide as the others instead of a sliver under a smudge of two
labels. :func:`clicked_limits` turns a position back into the limits.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .style import LAYOUT as _LAYOUT

SWEEP_TRACE = "limits"  # name of the clickable sweep trace (one point per grid cell)
GREY = "#d9d9d9"


def sweep_axes(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The swept node and edge limits, sorted: the heatmap's columns and rows.

    >>> [axis.tolist() for axis in sweep_axes(pd.DataFrame({"max_nodes": [20, 10, 20], "max_edges": [8, 8, 9]}))]
    [[10, 20], [8, 9]]
    """
    return np.sort(frame["max_nodes"].unique()), np.sort(frame["max_edges"].unique())


def clicked_limits(frame: pd.DataFrame, x: float, y: float) -> tuple[int, int]:
    """The ``(max_nodes, max_edges)`` of the cell at heatmap position ``(x, y)``.

    >>> clicked_limits(pd.DataFrame({"max_nodes": [10, 20], "max_edges": [8, 9]}), 1, 0.0)
    (20, 8)
    """
    nodes, edges = sweep_axes(frame)
    return int(nodes[int(round(float(x)))]), int(edges[int(round(float(y)))])


def sweep_figure(frame: pd.DataFrame, floor: float = 0.5, selected: tuple[int, int] | None = None,
                 clickable: bool = True, priced_by: str | None = None,
                 recommended: tuple[int, int] | None = None) -> go.Figure:
    """The heatmap of a limit sweep: the harmonic mean of node and edge efficiency, or with
    ``priced_by`` the estimated steady epoch of a sweep priced by
    ``packing.recommend.price_sweep`` (its ``steady_epoch_s``; lower is better).

    Infeasible cells (below the largest graph) stay empty, cells below ``floor`` (harmonic
    mean) are grey (the legend says so), the best cell by harmonic mean gets a star and, when
    priced, the fastest cell a second one. An invisible square marker per cell (trace
    ``SWEEP_TRACE``, customdata = [max_nodes, max_edges, ...]) carries the hover text and
    makes each cell clickable.

    Args:
        frame: the sweep, one row per limit pair, as ``packing.sweep`` returns it (priced
            by ``price_sweep`` for the time metric).
        floor: cells whose harmonic mean is below it are drawn grey.
        selected: the ``(max_nodes, max_edges)`` cell to frame in red; None for none.
        clickable: whether the hover invites a click (the Sweep page) or not (the report).
        priced_by: what priced the cells, in words (device, mode, batch size); None: the
            harmonic mean is shown.
        recommended: the recommended configuration's ``(max_nodes, max_edges)``, marked with
            a diamond where it lies within the grid's ranges.

    >>> from packing import SizeHistogram, sweep
    >>> frame = sweep(SizeHistogram.from_sizes([2, 3, 5], [2, 4, 8]), [5, 10], [8, 16], workers=1)
    >>> [trace.name for trace in sweep_figure(frame, selected=(5, 8), recommended=(7, 12)).data][1:]
    ['limits', 'best', 'recommended']
    """
    nodes, edges = sweep_axes(frame)
    column = {int(value): index for index, value in enumerate(nodes)}
    row = {int(value): index for index, value in enumerate(edges)}
    table = frame.set_index(["max_edges", "max_nodes"])
    hm = table["harmonic_mean"].unstack("max_nodes").reindex(index=edges, columns=nodes).to_numpy(float)
    grey = hm < floor
    if priced_by is not None:  # steps that carry another batch size are no candidates
        near = table["near_batch_size"].astype(float).unstack("max_nodes").reindex(index=edges, columns=nodes)
        grey |= near.to_numpy(float) == 0
    low = np.where(grey, 1.0, np.nan)
    x, y = np.arange(len(nodes)), np.arange(len(edges))
    fig = go.Figure()
    if priced_by is None:
        fig.add_trace(
            go.Heatmap(
                x=x, y=y, z=np.where(hm >= floor, hm * 100, np.nan), zmin=floor * 100, zmax=100, colorscale="Viridis",
                colorbar=dict(title=dict(text="harmonic mean (%)", side="right")), hoverinfo="skip", hoverongaps=False,
            )
        )
    else:
        seconds = table["steady_epoch_s"].unstack("max_nodes").reindex(index=edges, columns=nodes).to_numpy(float)
        fig.add_trace(
            go.Heatmap(
                x=x, y=y, z=np.where(grey, np.nan, seconds), colorscale="Viridis_r",
                colorbar=dict(title=dict(text="steady epoch (s), lower is better", side="right")),
                hoverinfo="skip", hoverongaps=False,
            )
        )
    if np.isfinite(low).any():
        fig.add_trace(
            go.Heatmap(
                x=x, y=y, z=low, colorscale=[[0, GREY], [1, GREY]], showscale=False,
                hoverinfo="skip", hoverongaps=False, name=f"below {floor:.0%}",
            )
        )
        words = f"harmonic mean below {floor:.0%}" + ("" if priced_by is None else
                                                        " or steps 2 % or more off the batch size")
        fig.add_trace(  # the grey cells' legend entry (a heatmap has none)
            go.Scatter(x=[None], y=[None], mode="markers", name=words,
                       marker=dict(symbol="square", size=12, color=GREY), showlegend=True, hoverinfo="skip")
        )
    feasible = frame[frame["feasible"].astype(bool)]
    priced = [feasible["packs_per_step"], feasible["steady_epoch_s"], feasible["step_s"] * 1e3,
              feasible["padded_graphs"]] if priced_by is not None else []
    custom = np.stack(
        [
            feasible["max_nodes"], feasible["max_edges"], feasible["harmonic_mean"] * 100,
            feasible["node_efficiency"] * 100, feasible["edge_efficiency"] * 100,
            feasible["packs"], feasible["lower_bound"], feasible["gap"] * 100, *priced,
        ],
        axis=1,
    ).astype(float) if len(feasible) else np.empty((0, 8 + len(priced)))
    timing = ("" if priced_by is None else
              "<br>%{customdata[8]:,.0f} pack(s) a step: steady epoch %{customdata[9]:.3g} s "
              "(%{customdata[10]:.3g} ms a step, at most %{customdata[11]:,.0f} graph slots)")
    cell = min(46, max(8, 520 // max(len(nodes), len(edges), 1)))
    fig.add_trace(
        go.Scatter(
            x=[column[int(n)] for n in feasible["max_nodes"]], y=[row[int(e)] for e in feasible["max_edges"]],
            mode="markers", name=SWEEP_TRACE,
            marker=dict(symbol="square", size=cell, color="rgba(0,0,0,0)", opacity=0.01),
            selected=dict(marker=dict(opacity=0.01)), unselected=dict(marker=dict(opacity=0.01)),
            customdata=custom, showlegend=False,
            hovertemplate=(
                "max nodes %{customdata[0]:,.0f}, max edges %{customdata[1]:,.0f}<br>"
                "harmonic mean %{customdata[2]:.2f}%<br>node efficiency %{customdata[3]:.2f}%<br>"
                "edge efficiency %{customdata[4]:.2f}%<br>packs %{customdata[5]:,.0f} "
                "(lower bound %{customdata[6]:,.0f}, gap %{customdata[7]:.2f}%)" + timing
                + ("<extra>click to select</extra>" if clickable else "<extra></extra>")
            ),
        )
    )
    stars = [("best", feasible["harmonic_mean"].idxmax())] if len(feasible) else []
    near = feasible[feasible["near_batch_size"].astype(bool)] if priced_by is not None else feasible.iloc[:0]
    if len(near):
        stars.append(("fastest", near["steady_epoch_s"].idxmin()))
    for name, index in stars:
        best = feasible.loc[index]
        best_row = row[int(best["max_edges"])]
        fig.add_trace(
            go.Scatter(
                x=[column[int(best["max_nodes"])]], y=[best_row], mode="markers+text",
                name=name, marker=dict(symbol="star", size=16, color="white", line=dict(color="black", width=1.5)),
                text=[name], textfont=dict(color="black"),  # below the star in the top row, which clips above
                textposition="bottom center" if best_row == len(edges) - 1 else "top center",
                hoverinfo="skip", showlegend=False,
            )
        )
    spot = grid_position(recommended, nodes, edges)
    if spot is not None:
        fig.add_trace(
            go.Scatter(x=[spot[0]], y=[spot[1]], mode="markers", name="recommended",
                       marker=dict(symbol="diamond", size=15, color="#d62728", line=dict(color="white", width=2)),
                       hovertemplate=(f"recommended: {recommended[0]:,} nodes, {recommended[1]:,} edges"
                                      "<extra></extra>"), showlegend=True)
        )
    if selected is not None and selected[0] in column and selected[1] in row:
        x0, y0 = column[selected[0]], row[selected[1]]
        fig.add_shape(type="rect", x0=x0 - 0.5, x1=x0 + 0.5, y0=y0 - 0.5, y1=y0 + 0.5,
                      line=dict(color="red", width=3), name="selected")
    title = "Harmonic mean of node and edge efficiency per limit pair" if priced_by is None else \
        f"Estimated steady epoch per limit pair, {priced_by}"
    fig.update_layout(
        title=title, xaxis_title="max nodes per pack",
        yaxis_title="max edges per pack", height=560, hovermode="closest", clickmode="event+select",
        hoverdistance=-1,  # the nearest cell centre is the cell under the pointer
        legend=dict(orientation="h", x=0, y=1.0, xanchor="left", yanchor="bottom"),
        **_LAYOUT,
    )
    for axis, values, update in ((x, nodes, fig.update_xaxes), (y, edges, fig.update_yaxes)):
        shown = _ticks(len(values))  # the swept limits, not round numbers between them
        update(tickvals=[int(axis[i]) for i in shown], ticktext=[f"{int(values[i]):,}" for i in shown],
               range=[-0.5, len(values) - 0.5], showgrid=False, zeroline=False)
    return fig


def grid_position(limits: tuple[int, int] | None, nodes: np.ndarray,
                   edges: np.ndarray) -> tuple[float, float] | None:
    """Where ``(max_nodes, max_edges)`` lies on a heatmap of these axes: a cell's position,
    or between two cells' (linear in the limits); None outside the swept ranges.

    >>> grid_position((15, 8), np.array([10, 20]), np.array([8, 16])), grid_position((30, 8), np.array([10, 20]), np.array([8]))
    ((0.5, 0.0), None)
    """
    if limits is None or not (nodes[0] <= limits[0] <= nodes[-1] and edges[0] <= limits[1] <= edges[-1]):
        return None
    return (float(np.interp(limits[0], nodes, np.arange(len(nodes)))),
            float(np.interp(limits[1], edges, np.arange(len(edges)))))


def _ticks(count: int, most: int = 16) -> list[int]:
    """The positions of at most ``most`` of ``count`` swept limits, evenly spaced, the first
    and last included.

    >>> _ticks(11), len(_ticks(100))
    ([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 15)
    >>> _ticks(20)
    [0, 2, 4, 6, 8, 10, 12, 14, 16, 19]
    """
    step = -(-count // most)
    picked = list(range(0, count, step))
    picked[-1] = count - 1
    return picked
