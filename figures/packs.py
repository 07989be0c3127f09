"""Figures and tables of a packing plan: graphs per pack, pack fill, the most used pack
strategies and the comparison table (Table 2 layout). Pure functions, no Streamlit."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from packing import PackingPlan
from packing.words import describe_pack

from .style import LAYOUT as _LAYOUT


def graphs_per_pack_figure(plan: PackingPlan) -> go.Figure:
    """How many packs of ``plan`` hold 1, 2, ... graphs.

    >>> from packing import SizeHistogram, pack
    >>> plan = pack(SizeHistogram.from_sizes([2, 3, 4], [2, 4, 6]), max_nodes=5, max_edges=8)
    >>> list(graphs_per_pack_figure(plan).data[0].y)
    [1, 1]
    """
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
    span = max(per_pack) - min(per_pack) + 1
    fig.update_xaxes(tick0=0, dtick=max(1, int(np.ceil(span / 12))))  # whole numbers of graphs only
    return fig


def pack_fill_figure(plan: PackingPlan) -> go.Figure:
    """Distribution of node and edge fill (share of the limit used) over all packs of
    ``plan``, weighted by repeat counts, from the emptiest pack's fill to 100 %. Bins are
    1 % wide, or one slot of the smaller capacity wide when that is coarser (29 nodes: one
    bin per node count, 3.4 % each), so no bin falls between two possible fills and shows
    an empty bar that is not in the data. A 1D baseline's ignored side is measured against
    its largest sum, which the title says; a side the graphs have none of (no edges) is
    not drawn.

    >>> from packing import SizeHistogram, pack
    >>> plan = pack(SizeHistogram.from_sizes([2, 3, 4], [2, 4, 6]), max_nodes=5, max_edges=8)
    >>> fig = pack_fill_figure(plan)  # one bin per node slot (20 %), the emptiest pack 6 of 8 edges (75 %)
    >>> [trace.name for trace in fig.data], fig.layout.xaxis.range, list(fig.data[0].x)
    (['node fill', 'edge fill'], (70.0, 110.0), [80.0, 100.0])
    """
    sides = {"node fill": (plan.pack_nodes, plan.node_capacity, plan.total_nodes),
             "edge fill": (plan.pack_edges, plan.edge_capacity, plan.total_edges)}
    shown = {name: side for name, side in sides.items() if side[2]} or sides  # graphs without edges: nodes only
    fills = {name: np.clip(sums / max(capacity, 1), 0, 1) for name, (sums, capacity, _) in shown.items()}
    width = max(1.0, 100 / min(max(capacity, 1) for _, capacity, _ in shown.values()))
    emptiest = 100 * min(fill.min() for fill in fills.values())
    centres = np.arange(100.0, emptiest - width / 2, -width)[::-1]  # 100 % is a bin's centre
    edges = np.append(centres - width / 2, 100.0 + width / 2)
    fig = go.Figure()
    for name, fill in fills.items():
        counts, _ = np.histogram(100 * fill, bins=edges, weights=plan.pack_counts)
        fig.add_trace(
            go.Bar(
                x=centres.tolist(), y=counts, name=name, width=0.45 * width,
                hovertemplate=f"{name} %{{x:.1f}}% ± {width / 2:.2g}<br>packs: %{{y:,}}<extra></extra>",
            )
        )
    ignored = {"nodes": f"nodes: share of the largest sum, {plan.node_capacity:,}",
               "edges": f"edges: share of the largest sum, {plan.edge_capacity:,}"}.get(plan.method.unlimited)
    fig.update_layout(
        title="Pack fill (share of the limit used" + (f"; {ignored}, which this baseline pads to)" if ignored else ")"),
        xaxis_title="fill (%)", yaxis_title="packs", barmode="group", height=340,
        legend=dict(orientation="h", y=-0.25), **_LAYOUT,
    )
    fig.update_xaxes(range=[max(float(edges[0]), -width / 2), float(edges[-1])])
    return fig


def strategies_figure(plan: PackingPlan, top: int = 15) -> go.Figure:
    """The ``top`` most used distinct packs of ``plan``, by how many packs use them; each
    labelled ``copies x (nodes, edges)`` per size, shortened after three sizes (never
    mid-tuple).

    >>> from packing import SizeHistogram, pack
    >>> plan = pack(SizeHistogram.from_sizes([2, 3, 4], [2, 4, 6]), max_nodes=5, max_edges=8)
    >>> strategies_figure(plan, top=1).layout.title.text
    'The 1 most used pack strategies'
    """
    order = np.argsort(-plan.pack_counts, kind="stable")[:top][::-1]
    labels = [describe_pack(plan.packs[i][0], shown=3) for i in order]
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


#: Column labels of the comparison table (Table 2 layout), for ``st.dataframe(column_config=...)``.
COMPARE_LABELS = {
    "method": "Method", "heuristic": "Heuristic / 1D algorithm", "algorithm": "Algorithm",
    "keeps_limits": "Keeps limits", "packs": "Packs", "lower_bound": "Lower bound", "gap": "Gap to bound",
    "node_efficiency": "Node efficiency", "edge_efficiency": "Edge efficiency", "harmonic_mean": "Harmonic mean",
    "packing_factor": "Graphs per pack", "bound": "Bound",
}
#: The baselines' rows of a comparison table, in words (their ids kept: the API's names).
BASELINE_WORDS = {"none": "none (one graph per pack)", "node_only": "node_only (1D by nodes: edges ignored)",
                  "edge_only": "edge_only (1D by edges: nodes ignored)"}
#: Column labels of the published algorithm's table in the paper's convention.
PUBLISHED_LABELS = {
    "method": "Heuristic", "packs": "Packs", "tight_nodes": "Tight nodes", "tight_edges": "Tight edges",
    "tight_node_pct": "Node % (tight)", "tight_edge_pct": "Edge % (tight)",
    "paper_node_pct": "Paper: node %", "paper_edge_pct": "Paper: edge %",
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
    green, percentages as percentages, "no" where a plan breaks a limit and the baselines
    in words (``BASELINE_WORDS``).

    >>> table = pd.DataFrame({"method": ["sum / best_fit", "edge_only"], "keeps_limits": [True, False],
    ...                       "packs": [4, 1]})
    >>> styler = highlight_best(table)
    >>> styler.data["keeps_limits"].tolist(), styler.data["method"][1], "font-weight: bold" in styler.to_html()
    (['yes', 'no'], 'edge_only (1D by edges: nodes ignored)', True)
    """
    best = best_cells(frame)
    marks = pd.DataFrame(np.where(best, "font-weight: bold; background-color: #c7e9c0", ""),
                         index=best.index, columns=best.columns)
    percent = {c: "{:.2%}" for c in ("node_efficiency", "edge_efficiency", "harmonic_mean", "gap")}
    shown = frame.assign(keeps_limits=frame["keeps_limits"].map({True: "yes", False: "no"}),
                         method=frame["method"].replace(BASELINE_WORDS))
    return shown.style.apply(lambda _: marks, axis=None).format(
        {**percent, "packing_factor": "{:.2f}", "packs": "{:,}", "lower_bound": "{:,}"})
