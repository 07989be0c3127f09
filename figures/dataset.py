"""Figures and tables of a dataset's sizes: the 2D (nodes, edges) histogram on a uniform
grid, the marginals and the statistics of Table 1 of the tuple-packing paper.
Pure functions of a ``SizeHistogram``, no Streamlit."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from packing import SizeHistogram

from .style import LAYOUT as _LAYOUT, plain

MAX_AXIS_CELLS = 200
#: Fewest size tuples for which "edges follow from nodes" is told (fewer are a few dots anyway).
FOLLOWS_MIN_TUPLES = 4


@dataclass(frozen=True)
class SizeGrid:
    """A (nodes, edges) histogram laid out on a uniform grid for a heatmap.

    Cell ``[j, i]`` covers nodes ``nodes[i]`` to ``nodes[i] + node_width - 1`` and edges
    ``edges[j]`` to ``edges[j] + edge_width - 1``; every cell has the same size, so an area
    means the same everywhere (a rare size never stretches into a large block), and holds
    the same number of the values that occur (widths are multiples of the data's ``*_step``).
    ``counts`` has shape (len(edges), len(nodes)); empty cells are NaN. ``follows``: every
    node count has one edge count (fully connected, k-NN, AFLOW graphs), so the graphs lie on
    a curve and one axis shows them (:func:`histogram_figure` draws bars then).
    """

    nodes: np.ndarray
    edges: np.ndarray
    counts: np.ndarray
    node_width: int
    edge_width: int
    node_step: int
    edge_step: int
    follows: bool  # every node count shown has one edge count: edges follow from nodes
    hidden_graphs: int
    hidden_tuples: int
    total_graphs: int

    @property
    def hidden_share(self) -> float:
        """Share of all graphs that the tail cut-off hides."""
        return self.hidden_graphs / self.total_graphs if self.total_graphs else 0.0


def _axis(values: np.ndarray, max_cells: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    """A uniform axis over the range of ``values``: (start of every bin, bin index of each
    value, bin width, step), with at most ``max_cells`` bins. The width is a multiple of
    the values' step (the greatest common divisor of their distances: 2 for directed bond
    counts), so every bin holds the same number of possible values and no row is empty
    by construction (stripes).

    >>> [a.tolist() if hasattr(a, "tolist") else a for a in _axis(np.array([3, 5, 10]), 4)]
    [[3, 5, 7, 9], [0, 1, 3], 2, 1]
    >>> [a.tolist() if hasattr(a, "tolist") else a for a in _axis(np.array([2, 6, 8, 20]), 4)]
    [[2, 8, 14, 20], [0, 0, 1, 3], 6, 2]
    """
    low, high = int(values.min()), int(values.max())
    step = max(1, int(np.gcd.reduce(values.astype(np.int64) - low)))
    width = step * max(1, -(-((high - low) // step + 1) // max_cells))
    bins = (high - low) // width + 1
    return low + width * np.arange(bins), (values - low) // width, width, step


def _kept(hist: SizeHistogram, min_count: int) -> np.ndarray:
    """The size tuples with at least ``min_count`` graphs (the most common one if none has:
    a cut-off never hides everything)."""
    keep = hist.counts >= max(int(min_count), 1)
    return keep if keep.any() else hist.counts == hist.counts.max()


def size_grid(hist: SizeHistogram, min_count: int = 1, max_cells: int = MAX_AXIS_CELLS) -> SizeGrid:
    """Lay ``hist`` out on a uniform grid, hiding tuples with fewer than ``min_count`` graphs.

    >>> grid = size_grid(SizeHistogram.from_sizes([2, 2, 3, 5], [2, 2, 4, 8]), min_count=2)
    >>> grid.nodes.tolist(), grid.edges.tolist(), grid.hidden_graphs
    ([2], [2], 2)
    """
    keep = _kept(hist, min_count)
    nodes, edges, counts = hist.num_nodes[keep], hist.num_edges[keep], hist.counts[keep]
    x, xi, node_width, node_step = _axis(nodes, max_cells)
    y, yi, edge_width, edge_step = _axis(edges, max_cells)
    grid = np.zeros((y.size, x.size))
    np.add.at(grid, (yi, xi), counts)
    grid[grid == 0] = np.nan
    return SizeGrid(
        nodes=x, edges=y, counts=grid, node_width=node_width, edge_width=edge_width, node_step=node_step,
        edge_step=edge_step, follows=np.unique(nodes).size == nodes.size and nodes.size >= FOLLOWS_MIN_TUPLES,
        hidden_graphs=int(hist.counts[~keep].sum()), hidden_tuples=int((~keep).sum()),
        total_graphs=hist.num_graphs,
    )


def log_ticks(low: float, high: float) -> list[float]:
    """Tick values for a log colour bar from ``low`` to ``high``: 1, 2 and 5 times powers of
    ten inside the range, thinned to at most about six, always with both ends labelled; a
    tick within a tenth of the bar (and a factor 1.25) of an end is left out, so that no two
    labels overlap on a short bar.

    >>> log_ticks(1, 1000)
    [1, 10, 100, 1000]
    >>> log_ticks(1200, 4300)
    [1200, 2000, 4300]
    >>> log_ticks(1, 1313)  # 1,000 would touch 1,313
    [1, 10, 100, 1313]
    """
    nice = [m * 10**p for p in range(int(np.floor(np.log10(low))), int(np.ceil(np.log10(high))) + 1)
            for m in (1, 2, 5)]
    inside = [t for t in nice if low < t < high]
    if len(inside) > 4:  # keep the powers of ten only
        inside = [t for t in inside if np.log10(t).is_integer()] or inside[:: len(inside) // 4 + 1]
    room = max(1.25, (high / low) ** 0.1)  # the factor a tick keeps from either end
    ticks = [low] + [t for t in inside if low * room < t < high / room] + [high]
    return [int(t) if float(t).is_integer() else t for t in dict.fromkeys(ticks)]


def _range(start: np.ndarray, width: int, step: int) -> np.ndarray:
    """Labels of grid cells: the size, or the first and last size that can occur in a bin.

    >>> _range(np.array([2, 6]), 4, 2).tolist()
    ['2-4', '6-8']
    """
    return np.array([str(v) for v in start]) if width == step else \
        np.array([f"{v}-{v + width - step}" for v in start])


def histogram_figure(
    hist: SizeHistogram, log_color: bool = True, min_count: int = 1, title: str | None = None,
    height: int = 480, compact: bool = False,
) -> tuple[go.Figure, SizeGrid]:
    """The 2D (nodes, edges) histogram as a heatmap on a uniform grid; hover shows nodes,
    edges, count and share; the colour bar is labelled whatever the counts span. Graphs whose
    edges follow from their nodes (one edge count per node count) are drawn as bars instead.

    Args:
        hist: the size histogram.
        log_color: colour by the logarithm of the counts.
        min_count: hide size tuples with fewer graphs (:func:`size_grid`).
        title: the figure's title; a default names what it shows.
        height: the figure's height in pixels.
        compact: short axis titles and subtitle, for small panels side by side (the hover
            still gives each cell's sizes).

    Returns:
        ``(figure, grid)``: the grid tells what is shown (cell widths, hidden graphs).

    >>> fig, grid = histogram_figure(SizeHistogram.from_sizes([2, 3, 3], [2, 4, 6]))
    >>> fig.data[0].type, grid.total_graphs, fig.layout.yaxis.range  # edges 2 to 6 in steps of 2: cells 1 to 7
    ('heatmap', 3, (1.0, 7.0))
    """
    grid = size_grid(hist, min_count)
    share = np.round(grid.counts / hist.num_graphs * 100, 5)  # the hover shows 3 decimals; keeps files small
    if grid.follows:
        return _follows_figure(hist, min_count, log_color, title, height, compact), grid
    node_labels = np.broadcast_to(_range(grid.nodes, grid.node_width, grid.node_step), grid.counts.shape)
    edge_labels = np.broadcast_to(_range(grid.edges, grid.edge_width, grid.edge_step)[:, None], grid.counts.shape)
    z = np.log10(grid.counts) if log_color else grid.counts
    colorbar: dict = {"title": "graphs"}
    if log_color:
        ticks = log_ticks(float(np.nanmin(grid.counts)), float(np.nanmax(grid.counts)))
        colorbar.update(tickvals=np.log10(ticks).tolist(), ticktext=[f"{t:,}" for t in ticks], title="graphs (log)")
    node_counts, edge_counts = grid.node_width // grid.node_step, grid.edge_width // grid.edge_step  # per cell
    centre = lambda start, width, step: start + (width - step) / 2  # noqa: E731 - cells drawn around their centre
    fig = go.Figure(
        go.Heatmap(
            x=centre(grid.nodes, grid.node_width, grid.node_step), y=centre(grid.edges, grid.edge_width, grid.edge_step),
            z=z,
            customdata=np.dstack([grid.counts, share, node_labels, edge_labels]).astype(object),
            colorscale="Viridis", colorbar=colorbar, hoverongaps=False, xgap=0, ygap=0,
            hovertemplate=(
                "nodes: %{customdata[2]}<br>edges: %{customdata[3]}<br>graphs: %{customdata[0]:,.0f}"
                "<br>share: %{customdata[1]:.3f}%<extra></extra>"
            ),
        )
    )
    fig.update_layout(
        title=plain(title) if title else "Graphs per (nodes, edges) size tuple",
        xaxis_title="nodes per graph" + (f" ({node_counts} counts per cell)" if node_counts > 1 and not compact
                                         else ""),
        yaxis_title="edges per graph" if compact else "edges per graph (directed" + (
            f", in steps of {grid.edge_step}" if grid.edge_step > 1 else "")
                    + (f"; {edge_counts} counts per cell)" if edge_counts > 1 else ")"),
        height=height, **_LAYOUT,
    )
    # whole cells at the ends too (autorange may cut the last row or column in half)
    fig.update_xaxes(range=[grid.nodes[0] - grid.node_step / 2, grid.nodes[-1] + grid.node_width - grid.node_step / 2])
    fig.update_yaxes(range=[grid.edges[0] - grid.edge_step / 2, grid.edges[-1] + grid.edge_width - grid.edge_step / 2])
    return fig, grid


def comparison_figures(hists: dict[str, SizeHistogram], shared: bool = True) -> dict[str, go.Figure]:
    """One compact histogram panel per dataset of ``hists`` (name -> histogram), to be shown
    side by side. ``shared``: every panel on the same node and edge axes and, for heatmaps,
    the same colour scale, so that a dataset of small graphs looks small next to one of
    large graphs (each on its own axes, QM9's 29 nodes would fill a panel as molpcba's 332 do).

    >>> figs = comparison_figures({"small": SizeHistogram.from_sizes([2, 3], [2, 4]),
    ...                            "large": SizeHistogram.from_sizes([2, 30, 30], [2, 60, 62])})
    >>> small, large = figs.values()
    >>> small.layout.xaxis.range == large.layout.xaxis.range, small.layout.yaxis.range == large.layout.yaxis.range
    (True, True)
    """
    figs = {name: histogram_figure(hist, title=name, height=360, compact=True)[0] for name, hist in hists.items()}
    if not shared:
        return figs
    for axis in ("xaxis", "yaxis"):
        ranges = [fig.layout[axis].range for fig in figs.values() if fig.data[0].type == "heatmap"]
        if axis == "xaxis":  # bar panels (edges follow from nodes) share the node axis too
            ranges += [(float(min(fig.data[0].x)) - 0.5, float(max(fig.data[0].x)) + 0.5)
                       for fig in figs.values() if fig.data[0].type == "bar"]
        if ranges:
            both = [min(r[0] for r in ranges), max(r[1] for r in ranges)]
            for fig in figs.values():
                if axis == "xaxis" or fig.data[0].type == "heatmap":
                    fig.layout[axis].range = both
    maps = [fig.data[0] for fig in figs.values() if fig.data[0].type == "heatmap"]
    if maps:
        low = min(float(np.nanmin(np.asarray(trace.z, dtype=float))) for trace in maps)
        high = max(float(np.nanmax(np.asarray(trace.z, dtype=float))) for trace in maps)
        ticks = log_ticks(10 ** low, 10 ** high)
        for trace in maps:  # the panels colour by log10(count)
            trace.update(zmin=low, zmax=high, colorbar=dict(tickvals=np.log10(ticks).tolist(),
                                                            ticktext=[f"{t:,.0f}" for t in ticks]))
    return figs


def _follows_figure(hist: SizeHistogram, min_count: int, log_scale: bool, title: str | None, height: int,
                    compact: bool) -> go.Figure:
    """Graphs per node count as bars, for graphs whose edges follow from their nodes (the 2D
    histogram would be a thin curve); the hover names each bar's edge count."""
    shown = _kept(hist, min_count)
    nodes, edges, counts = hist.num_nodes[shown], hist.num_edges[shown], hist.counts[shown]
    share = np.round(counts / hist.num_graphs * 100, 5)
    fig = go.Figure(go.Bar(
        x=nodes, y=counts, marker_color="#3b528b", customdata=np.stack([edges, share], axis=1),
        hovertemplate="nodes: %{x}<br>edges: %{customdata[0]:,}<br>graphs: %{y:,}<br>share: %{customdata[1]:.3f}%"
                      "<extra></extra>"))
    fig.update_layout(
        title=dict(text=plain(title) if title else "Graphs per (nodes, edges) size tuple", subtitle=dict(
            text="edges follow from nodes: hover a bar for its edges" if compact else
            "every node count has one edge count (edges follow from nodes), so one axis shows the histogram; hover "
            "a bar for its edges", font=dict(size=12))),
        xaxis_title="nodes per graph", yaxis=dict(title="graphs" + (" (log)" if log_scale else ""),
                                                   type="log" if log_scale else "linear"),
        height=height, **{**_LAYOUT, "margin": {**_LAYOUT["margin"], "t": 90}})  # room for the subtitle
    if log_scale:
        fig.update_yaxes(dtick=1)  # decades only: no "2, 5" between them
    return fig


def marginal_figure(hist: SizeHistogram, component: str, title: str | None = None) -> go.Figure:
    """Bar chart of graphs per number of nodes (``component="nodes"``) or of edges
    (``"edges"``); ``title`` replaces the default title.

    >>> marginal_figure(SizeHistogram.from_sizes([2, 3, 3], [2, 4, 6]), "nodes").data[0].y.tolist()
    [1, 2]
    """
    values, counts = hist.marginal(component)
    fig = go.Figure(
        go.Bar(
            x=values, y=counts, customdata=counts / hist.num_graphs * 100,
            hovertemplate=f"{component}: %{{x}}<br>graphs: %{{y:,}}<br>share: %{{customdata:.2f}}%<extra></extra>",
        )
    )
    fig.update_layout(
        title=plain(title) if title else f"Graphs per number of {component}", xaxis_title=f"{component} per graph",
        yaxis_title="graphs", height=320, bargap=0, **_LAYOUT,
    )
    return fig


def marginal_comparison_figure(hists: dict[str, SizeHistogram], component: str) -> go.Figure:
    """Share of graphs per number of nodes (``component="nodes"``) or of edges (``"edges"``),
    one line per dataset of ``hists`` (name -> histogram).

    >>> fig = marginal_comparison_figure({"a": SizeHistogram.from_sizes([2, 3], [2, 4])}, "edges")
    >>> fig.data[0].name, fig.data[0].y.tolist()
    ('a', [50.0, 50.0])
    """
    fig = go.Figure()
    for name, hist in hists.items():
        values, counts = hist.marginal(component)
        fig.add_trace(
            go.Scatter(
                x=values, y=counts / hist.num_graphs * 100, mode="lines", name=plain(name), line_shape="hv",
                hovertemplate=f"{plain(name)}<br>{component}: %{{x}}<br>share: %{{y:.2f}}%<extra></extra>",
            )
        )
    fig.update_layout(
        title=f"Share of graphs per number of {component}", xaxis_title=f"{component} per graph",
        yaxis_title="share of graphs (%)", height=340, legend=dict(orientation="h", y=-0.25), **_LAYOUT,
    )
    return fig


TABLE1_ROWS = {
    "graphs": "Number of graphs",
    "largest_nodes": "Max number of nodes",
    "largest_edges": "Max number of edges",
    "distinct_tuples": "Distinct (nodes, edges) size tuples",
    "node_efficiency": "Node efficiency (%) padding every graph to the largest",
    "edge_efficiency": "Edge efficiency (%) padding every graph to the largest",
    "node_speedup": "Potential speed-up for nodes over padding every graph to the largest",
    "edge_speedup": "Potential speed-up for edges over padding every graph to the largest",
    "mean_nodes": "Mean nodes per graph",
    "mean_edges": "Mean edges per graph",
}


def stats_table(hists: dict[str, SizeHistogram]) -> pd.DataFrame:
    """Dataset statistics in the rows of Table 1 of the tuple-packing paper, one column
    per dataset; efficiencies are padding to the largest graph, as text for display.

    >>> stats_table({"toy": SizeHistogram.from_sizes([2, 4], [2, 6])})["toy"].tolist()[:5]
    ['2', '4', '6', '2', '75.00']
    """
    columns = {}
    for name, hist in hists.items():
        stats = hist.stats()
        columns[name] = [
            f"{stats['graphs']:,}", f"{stats['largest_nodes']:,}", f"{stats['largest_edges']:,}",
            f"{stats['distinct_tuples']:,}", f"{stats['node_efficiency'] * 100:.2f}",
            f"{stats['edge_efficiency'] * 100:.2f}", f"{stats['node_speedup']:.2f}",
            f"{stats['edge_speedup']:.2f}", f"{stats['mean_nodes']:.2f}", f"{stats['mean_edges']:.2f}",
        ]
    return pd.DataFrame(columns, index=pd.Index(list(TABLE1_ROWS.values()), name="metric"))
