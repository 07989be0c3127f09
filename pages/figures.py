"""Plotly figure builders for the dashboard: pure functions, no Streamlit.

Every builder takes engine objects (``SizeHistogram``, ``PackingPlan``, sweep frames) and
returns a ``plotly.graph_objects.Figure``; pages only place them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from packing import PackingPlan, SizeHistogram
from packing.plan import describe

MAX_AXIS_CELLS = 200
SWEEP_TRACE = "limits"  # name of the clickable sweep trace (one point per grid cell)
_LAYOUT = dict(margin=dict(l=60, r=20, t=50, b=50), template="plotly_white")


@dataclass(frozen=True)
class SizeGrid:
    """A (nodes, edges) histogram laid out on a uniform grid for a heatmap.

    Cell ``[j, i]`` covers nodes ``nodes[i]`` to ``nodes[i] + node_width - 1`` and edges
    ``edges[j]`` to ``edges[j] + edge_width - 1``; every cell has the same size, so an area
    means the same everywhere (a rare size never stretches into a large block). ``counts``
    has shape (len(edges), len(nodes)); empty cells are NaN.
    """

    nodes: np.ndarray
    edges: np.ndarray
    counts: np.ndarray
    node_width: int
    edge_width: int
    hidden_graphs: int
    hidden_tuples: int
    total_graphs: int

    @property
    def hidden_share(self) -> float:
        """Share of all graphs that the tail cut-off hides."""
        return self.hidden_graphs / self.total_graphs if self.total_graphs else 0.0


def _axis(values: np.ndarray, max_cells: int) -> tuple[np.ndarray, np.ndarray, int]:
    """A uniform axis over the range of ``values``: (start of every bin, bin index of each
    value, bin width), with at most ``max_cells`` bins.

    >>> [a.tolist() if hasattr(a, "tolist") else a for a in _axis(np.array([3, 5, 10]), 4)]
    [[3, 5, 7, 9], [0, 1, 3], 2]
    """
    low, high = int(values.min()), int(values.max())
    width = max(1, -(-(high - low + 1) // max_cells))
    bins = (high - low) // width + 1
    return low + width * np.arange(bins), (values - low) // width, width


def size_grid(hist: SizeHistogram, min_count: int = 1, max_cells: int = MAX_AXIS_CELLS) -> SizeGrid:
    """Lay ``hist`` out on a uniform grid, hiding tuples with fewer than ``min_count`` graphs.

    >>> grid = size_grid(SizeHistogram.from_sizes([2, 2, 3, 5], [2, 2, 4, 8]), min_count=2)
    >>> grid.nodes.tolist(), grid.edges.tolist(), grid.hidden_graphs
    ([2], [2], 2)
    """
    keep = hist.counts >= max(int(min_count), 1)
    if not keep.any():  # never hide everything: keep the most common tuple
        keep = hist.counts == hist.counts.max()
    nodes, edges, counts = hist.num_nodes[keep], hist.num_edges[keep], hist.counts[keep]
    x, xi, node_width = _axis(nodes, max_cells)
    y, yi, edge_width = _axis(edges, max_cells)
    grid = np.zeros((y.size, x.size))
    np.add.at(grid, (yi, xi), counts)
    grid[grid == 0] = np.nan
    return SizeGrid(
        nodes=x, edges=y, counts=grid, node_width=node_width, edge_width=edge_width,
        hidden_graphs=int(hist.counts[~keep].sum()), hidden_tuples=int((~keep).sum()),
        total_graphs=hist.num_graphs,
    )


def log_ticks(low: float, high: float) -> list[float]:
    """Tick values for a log colour bar from ``low`` to ``high``: 1, 2 and 5 times powers of
    ten inside the range, thinned to at most about six, always with both ends labelled.

    >>> log_ticks(1, 1000)
    [1, 10, 100, 1000]
    >>> log_ticks(1200, 4300)
    [1200, 2000, 4300]
    """
    nice = [m * 10**p for p in range(int(np.floor(np.log10(low))), int(np.ceil(np.log10(high))) + 1)
            for m in (1, 2, 5)]
    inside = [t for t in nice if low < t < high]
    if len(inside) > 4:  # keep the powers of ten only
        inside = [t for t in inside if np.log10(t).is_integer()] or inside[:: len(inside) // 4 + 1]
    ticks = [low] + [t for t in inside if low * 1.25 < t < high / 1.25] + [high]
    return [int(t) if float(t).is_integer() else t for t in dict.fromkeys(ticks)]


def _range(start: np.ndarray, width: int) -> np.ndarray:
    """Labels of grid cells: the size, or the first and last size of a bin."""
    return np.array([str(v) for v in start]) if width == 1 else \
        np.array([f"{v}-{v + width - 1}" for v in start])


def histogram_figure(
    hist: SizeHistogram, log_color: bool = True, min_count: int = 1, title: str | None = None,
    height: int = 480,
) -> tuple[go.Figure, SizeGrid]:
    """The 2D (nodes, edges) histogram as a heatmap on a uniform grid; hover shows nodes,
    edges, count and share; the colour bar is labelled whatever the counts span."""
    grid = size_grid(hist, min_count)
    share = grid.counts / hist.num_graphs * 100
    node_labels = np.broadcast_to(_range(grid.nodes, grid.node_width), grid.counts.shape)
    edge_labels = np.broadcast_to(_range(grid.edges, grid.edge_width)[:, None], grid.counts.shape)
    z = np.log10(grid.counts) if log_color else grid.counts
    colorbar: dict = {"title": "graphs"}
    if log_color:
        ticks = log_ticks(float(np.nanmin(grid.counts)), float(np.nanmax(grid.counts)))
        colorbar.update(tickvals=np.log10(ticks).tolist(), ticktext=[f"{t:,}" for t in ticks], title="graphs (log)")
    centre = lambda start, width: start + (width - 1) / 2  # noqa: E731 - cells are drawn around their centre
    fig = go.Figure(
        go.Heatmap(
            x=centre(grid.nodes, grid.node_width), y=centre(grid.edges, grid.edge_width), z=z,
            customdata=np.dstack([grid.counts, share, node_labels, edge_labels]).astype(object),
            colorscale="Viridis", colorbar=colorbar, hoverongaps=False, xgap=0, ygap=0,
            hovertemplate=(
                "nodes: %{customdata[2]}<br>edges: %{customdata[3]}<br>graphs: %{customdata[0]:,.0f}"
                "<br>share: %{customdata[1]:.3f}%<extra></extra>"
            ),
        )
    )
    binned = grid.node_width > 1 or grid.edge_width > 1
    fig.update_layout(
        title=title or "Graphs per (nodes, edges) size tuple",
        xaxis_title="nodes per graph" + (f" (bins of {grid.node_width})" if grid.node_width > 1 else ""),
        yaxis_title="edges per graph (directed)" + (f" (bins of {grid.edge_width})" if grid.edge_width > 1 else ""),
        height=height, **_LAYOUT,
    )
    if binned:
        fig.add_annotation(text=f"each cell: {grid.node_width} node value(s) x {grid.edge_width} edge value(s)",
                           xref="paper", yref="paper", x=1, y=1.06, showarrow=False, font=dict(size=11))
    return fig, grid


def marginal_figure(hist: SizeHistogram, component: str, title: str | None = None) -> go.Figure:
    """Bar chart of graphs per number of nodes (or edges)."""
    values, counts = hist.marginal(component)
    fig = go.Figure(
        go.Bar(
            x=values, y=counts, customdata=counts / hist.num_graphs * 100,
            hovertemplate=f"{component}: %{{x}}<br>graphs: %{{y:,}}<br>share: %{{customdata:.2f}}%<extra></extra>",
        )
    )
    fig.update_layout(
        title=title or f"Graphs per number of {component}", xaxis_title=f"{component} per graph",
        yaxis_title="graphs", height=320, bargap=0, **_LAYOUT,
    )
    return fig


def marginal_comparison_figure(hists: dict[str, SizeHistogram], component: str) -> go.Figure:
    """Share of graphs per number of nodes (or edges), one line per dataset."""
    fig = go.Figure()
    for name, hist in hists.items():
        values, counts = hist.marginal(component)
        fig.add_trace(
            go.Scatter(
                x=values, y=counts / hist.num_graphs * 100, mode="lines", name=name, line_shape="hv",
                hovertemplate=f"{name}<br>{component}: %{{x}}<br>share: %{{y:.2f}}%<extra></extra>",
            )
        )
    fig.update_layout(
        title=f"Share of graphs per number of {component}", xaxis_title=f"{component} per graph",
        yaxis_title="share of graphs (%)", height=340, legend=dict(orientation="h", y=-0.25), **_LAYOUT,
    )
    return fig


def graphs_per_pack_figure(plan: PackingPlan) -> go.Figure:
    """How many packs hold 1, 2, ... graphs."""
    per_pack = plan.graphs_per_pack()
    fig = go.Figure(
        go.Bar(
            x=list(per_pack), y=list(per_pack.values()),
            hovertemplate="%{x} graphs per pack<br>packs: %{y:,}<extra></extra>",
        )
    )
    fig.update_layout(
        title="Graphs per pack", xaxis_title="graphs in the pack", yaxis_title="packs", height=340, **_LAYOUT
    )
    return fig


def pack_fill_figure(plan: PackingPlan, buckets: int = 20) -> go.Figure:
    """Distribution of node and edge fill over all packs (weighted by repeat counts)."""
    edges = np.linspace(0.0, 1.0, buckets + 1)
    centers = (edges[:-1] + edges[1:]) / 2 * 100
    fig = go.Figure()
    fills = {
        "node fill": plan.pack_nodes / plan.node_capacity,
        "edge fill": plan.pack_edges / max(plan.edge_capacity, 1),
    }
    for name, fill in fills.items():
        counts, _ = np.histogram(np.clip(fill, 0, 1), bins=edges, weights=plan.pack_counts)
        fig.add_trace(
            go.Bar(
                x=centers, y=counts, name=name, width=100 / buckets * 0.45,
                hovertemplate=f"{name} %{{x:.1f}}% ± {50 / buckets:.1f}<br>packs: %{{y:,}}<extra></extra>",
            )
        )
    fig.update_layout(
        title="Pack fill (share of the limit used)", xaxis_title="fill (%)", yaxis_title="packs",
        barmode="group", height=340, legend=dict(orientation="h", y=-0.25), **_LAYOUT,
    )
    fig.update_xaxes(range=[0, 100])
    return fig


def strategies_figure(plan: PackingPlan, top: int = 15) -> go.Figure:
    """The ``top`` most used distinct packs, by how many packs use them; each labelled
    ``copies x (nodes, edges)`` per size, shortened after three sizes (never mid-tuple)."""
    order = np.argsort(-plan.pack_counts, kind="stable")[:top][::-1]
    labels = [describe(plan.packs[i][0], shown=3) for i in order]
    counts = plan.pack_counts[order]
    fig = go.Figure(
        go.Bar(
            x=counts, y=labels, orientation="h",
            customdata=np.stack([plan.pack_graphs[order], plan.pack_nodes[order], plan.pack_edges[order],
                                 counts / plan.num_packs * 100], axis=1),
            hovertemplate=(
                "%{y}<br>used by %{x:,} packs (%{customdata[3]:.1f}%)<br>%{customdata[0]} graphs, "
                "%{customdata[1]} nodes, %{customdata[2]} edges<extra></extra>"
            ),
        )
    )
    fig.update_layout(
        title=f"The {len(order)} most used pack strategies", xaxis_title="packs using it",
        height=max(320, 26 * len(order) + 120), **_LAYOUT,
    )
    fig.update_layout(margin=dict(l=20, r=20, t=50, b=50))
    fig.update_yaxes(automargin=True)
    return fig


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

    Cells below ``floor`` are drawn grey, infeasible cells (below the largest graph) stay
    empty, the best cell gets a star and ``selected`` a red frame. An invisible square marker
    per cell (trace ``SWEEP_TRACE``, customdata = [max_nodes, max_edges]) carries the hover
    text and makes each cell clickable.
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
    return fig


#: Column labels of the comparison table (Table 2 layout), for ``st.dataframe(column_config=...)``.
COMPARE_LABELS = {
    "method": "Method", "heuristic": "Heuristic / 1D algorithm", "algorithm": "Algorithm",
    "keeps_limits": "Keeps limits", "packs": "Packs", "lower_bound": "Lower bound", "gap": "Gap to bound",
    "node_efficiency": "Node efficiency", "edge_efficiency": "Edge efficiency", "harmonic_mean": "Harmonic mean",
    "packing_factor": "Graphs per pack", "bound": "Bound",
}
#: Column labels of the published algorithm's table in the paper's convention.
PUBLISHED_LABELS = {
    "method": "Heuristic", "packs": "Packs", "tight_nodes": "Tight max nodes", "tight_edges": "Tight max edges",
    "tight_node_pct": "Node efficiency (%, tight)", "tight_edge_pct": "Edge efficiency (%, tight)",
    "paper_node_pct": "Paper: node (%)", "paper_edge_pct": "Paper: edge (%)",
}


def best_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """Which cells of a comparison table (Table 2 layout) hold the best value of their metric
    column among the rows that keep every limit: packs and gap are best when lowest,
    efficiencies and packing factor when highest. Node-only and edge-only break a limit, so
    their numbers are never best.

    >>> table = pd.DataFrame({"method": ["sum / best_fit", "edge_only"], "keeps_limits": [True, False],
    ...                       "packs": [4, 1]})
    >>> best_cells(table)["packs"].tolist()
    [True, False]
    """
    lower_better = {"packs", "gap"}
    higher_better = {"node_efficiency", "edge_efficiency", "harmonic_mean", "packing_factor"}
    ranked = frame["keeps_limits"].astype(bool)
    best = pd.DataFrame(False, index=frame.index, columns=frame.columns)
    for name in frame.columns:
        if name in lower_better:
            best[name] = ranked & (frame[name] == frame.loc[ranked, name].min())
        elif name in higher_better:
            best[name] = ranked & (frame[name] == frame.loc[ranked, name].max())
    return best


def highlight_best(frame: pd.DataFrame) -> "pd.io.formats.style.Styler":
    """Style a comparison table (Table 2 layout): the cells of :func:`best_cells` in bold on
    green, percentages as percentages, and "no" where a plan breaks a limit."""
    best = best_cells(frame)
    marks = pd.DataFrame(np.where(best, "font-weight: bold; background-color: #c7e9c0", ""),
                         index=best.index, columns=best.columns)
    percent = {c: "{:.2%}" for c in ("node_efficiency", "edge_efficiency", "harmonic_mean", "gap")}
    shown = frame.assign(keeps_limits=frame["keeps_limits"].map({True: "yes", False: "no: breaks one"}))
    return shown.style.apply(lambda _: marks, axis=None).format(
        {**percent, "packing_factor": "{:.2f}", "packs": "{:,}", "lower_bound": "{:,}"})


TABLE1_ROWS = {
    "graphs": "Number of graphs",
    "max_nodes": "Max number of nodes",
    "max_edges": "Max number of edges",
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
            f"{stats['graphs']:,}", f"{stats['max_nodes']:,}", f"{stats['max_edges']:,}",
            f"{stats['distinct_tuples']:,}", f"{stats['node_efficiency'] * 100:.2f}",
            f"{stats['edge_efficiency'] * 100:.2f}", f"{stats['node_speedup']:.2f}",
            f"{stats['edge_speedup']:.2f}", f"{stats['mean_nodes']:.2f}", f"{stats['mean_edges']:.2f}",
        ]
    return pd.DataFrame(columns, index=pd.Index(list(TABLE1_ROWS.values()), name="metric"))
