"""Plotly figures of the batching comparison: pure functions of the
:func:`packing.batching.compare_batching` table and its run summaries, no Streamlit.

Every figure shows each strategy in the same colour and under the same name.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .style import LAYOUT as _LAYOUT, needs_log_axis

LABELS = {
    "static_constant": "static-constant",
    "static_64": "static-64",
    "static_pow2": "static-2^N",
    "dynamic": "dynamic (jraph)",
    "pyg_dynamic": "PyG DynamicBatchSampler",
    "buckets": "shape buckets",
    "packing": "packing",
}
COLORS = {
    "static_constant": "#8c564b",
    "static_64": "#1f77b4",
    "static_pow2": "#17becf",
    "dynamic": "#ff7f0e",
    "pyg_dynamic": "#9467bd",
    "buckets": "#2ca02c",
    "packing": "#d62728",
}
_LEGEND = dict(orientation="h", y=-0.22)


def label(strategy: str) -> str:
    """The name a strategy is shown under.

    >>> label("static_64"), label("pyg_dynamic")
    ('static-64', 'PyG DynamicBatchSampler')
    """
    return LABELS.get(strategy, strategy)


def padding_figure(table: pd.DataFrame) -> go.Figure:
    """Node, edge and graph efficiency per strategy (real share of the padded batch), as
    grouped horizontal bars; the hover adds the padded fraction and the shapes.

    Args:
        table: the comparison table of ``compare_batching``, one row per strategy.

    >>> from packing import SizeHistogram
    >>> from packing.batching import compare_batching
    >>> table = compare_batching(SizeHistogram.from_counts([3, 8], [4, 14], [20, 4]), batch_size=4)
    >>> [trace.name for trace in padding_figure(table).data]
    ['real nodes', 'real edges', 'real graphs']
    """
    names = [label(s) for s in table["strategy"]]
    fig = go.Figure()
    for column, word, color in (("node_efficiency", "nodes", "#1f77b4"), ("edge_efficiency", "edges", "#ff7f0e"),
                                ("graph_efficiency", "graphs", "#7f7f7f")):
        values = 100 * table[column].to_numpy(dtype=float)
        fig.add_bar(
            y=names, x=values, orientation="h", name=f"real {word}", marker_color=color,
            text=[f"{v:.2f} %" for v in values], textposition="outside",  # the table's and the report's rounding
            customdata=np.stack([100 - values, table["distinct_shapes"]], axis=1),
            hovertemplate=(f"%{{y}}<br>real {word}: %{{x:.2f}} %<br>padding: %{{customdata[0]:.2f}} %"
                           "<br>distinct shapes: %{customdata[1]:,}<extra></extra>"),
        )
    fig.update_layout(title="Real share of every padded batch (the rest is padding)", barmode="group",
                      xaxis=dict(title="real share (%)", range=[0, 112]), yaxis=dict(autorange="reversed"),
                      height=160 + 62 * len(names), legend=_LEGEND, **_LAYOUT)
    return fig


def _merged(curves: dict[str, tuple[np.ndarray, np.ndarray]]) -> list[tuple[list[str], np.ndarray, np.ndarray]]:
    """The curves once per distinct line: strategies whose (x, y) are equal share one line,
    named after all of them, so that no line hides under another.

    >>> [names for names, _, _ in _merged({"a": ([1, 2], [3, 4]), "b": ([1, 2], [3, 5]), "c": ([1, 2], [3, 4])})]
    [['a', 'c'], ['b']]
    """
    groups: dict[tuple, list[str]] = {}
    for strategy, (x, y) in curves.items():
        key = (tuple(np.asarray(x).tolist()), tuple(np.round(np.asarray(y, dtype=float), 9).tolist()))
        groups.setdefault(key, []).append(strategy)
    return [(names, *curves[names[0]]) for names in groups.values()]


def shapes_figure(summaries: dict[str, dict[str, Any]]) -> go.Figure:
    """Distinct padded shapes seen by each training step (log x): every new shape is a
    compilation for JAX's jit or torch.compile.

    Args:
        summaries: each strategy's run summary (``table.attrs["summaries"]`` of
            ``compare_batching``), by strategy name.

    >>> from packing import SizeHistogram
    >>> from packing.batching import compare_batching
    >>> table = compare_batching(SizeHistogram.from_counts([3, 8], [4, 14], [20, 4]), batch_size=4)
    >>> [trace.name for trace in shapes_figure(table.attrs["summaries"]).data]  # equal lines drawn once
    ['static-constant = static-64 = dynamic (jraph) = packing', 'static-2^N = shape buckets', 'PyG DynamicBatchSampler']
    """
    curves = {strategy: (np.array(summary["shape_first_steps"]["step"]) + 1,  # from step 1 on a log axis
                         np.array(summary["shape_first_steps"]["distinct_shapes"])) for strategy, summary in
              summaries.items()}
    fig = go.Figure()
    for strategies, steps, counts in _merged(curves):  # one line where new shapes came at the same steps
        ends = sorted({summaries[strategy]["steps"] for strategy in strategies})
        if steps.size and steps[-1] < ends[-1]:  # hold the count to the end of the (longest) run
            steps, counts = np.append(steps, ends[-1]), np.append(counts, counts[-1])
        name = " = ".join(label(strategy) for strategy in strategies)
        runs = f"<br>their runs end at steps {ends[0]:,} to {ends[-1]:,}" if len(ends) > 1 else ""
        fig.add_scatter(x=steps, y=counts, mode="lines+markers", line_shape="hv", name=name,
                        line_color=COLORS.get(strategies[0]), marker=dict(size=4),
                        hovertemplate=f"{name}<br>step %{{x:,}}: %{{y:,}} shapes{runs}<extra></extra>")
    decades = lambda largest: {"dtick": 1} if largest >= 10 else {}  # noqa: E731 - no "2, 5" between decades
    fig.update_layout(title="Distinct padded shapes over training steps (each one a compilation)",
                      xaxis=dict(title="training step", type="log",
                                 **decades(max((s["steps"] for s in summaries.values()), default=0))),
                      yaxis=dict(title="distinct shapes", type="log",
                                 **decades(max((int(c.max()) for _, c in curves.values() if c.size), default=0))),
                      height=420, legend=_LEGEND, **_LAYOUT)
    return fig


def graphs_per_batch_figure(summaries: dict[str, dict[str, Any]]) -> go.Figure:
    """Share of batches holding k real graphs, per strategy.

    Args:
        summaries: each strategy's run summary (``table.attrs["summaries"]`` of
            ``compare_batching``), by strategy name.

    >>> from packing import SizeHistogram
    >>> from packing.batching import compare_batching
    >>> table = compare_batching(SizeHistogram.from_counts([3, 8], [4, 14], [20, 4]), batch_size=4)
    >>> fig = graphs_per_batch_figure(table.attrs["summaries"])  # all but PyG's sampler hold 3 (B - 1) per batch
    >>> [(trace.name, trace.x.tolist()) for trace in fig.data][1:]
    [('PyG DynamicBatchSampler', [10, 11, 12, 13, 14])]
    """
    curves = {}
    for strategy, summary in summaries.items():
        counts = summary["graphs_per_batch"]
        graphs = np.array([int(k) for k in counts])
        batches = np.array(list(counts.values()), dtype=float)
        every = np.arange(graphs.min(), graphs.max() + 1)
        share = np.zeros(every.size)
        share[graphs - every[0]] = 100 * batches / batches.sum()  # counts no batch has are 0 %, not skipped
        curves[strategy] = every, share
    fig = go.Figure()
    for strategies, graphs, share in _merged(curves):
        name = " = ".join(label(strategy) for strategy in strategies)
        fig.add_scatter(x=graphs, y=share, name=name, mode="lines+markers", line_color=COLORS.get(strategies[0]),
                        hovertemplate=f"{name}<br>%{{x}} graphs: %{{y:.2f}} % of batches<extra></extra>")
    fig.update_layout(title="Real graphs per batch", xaxis_title="real graphs in the batch",
                      yaxis_title="share of batches (%)", height=380, legend=_LEGEND, **_LAYOUT)
    return fig


def weighted_quantiles(counts: dict[str, list[int]], shares: tuple[float, ...]) -> list[float]:
    """Quantiles of a distribution given as ``{"values": [...], "counts": [...]}``.

    >>> weighted_quantiles({"values": [1, 2, 3], "counts": [1, 1, 2]}, (0.0, 0.5, 1.0))
    [1.0, 2.0, 3.0]
    """
    values = np.asarray(counts["values"], dtype=float)
    cumulative = np.cumsum(counts["counts"]) / np.sum(counts["counts"])
    return [float(values[min(np.searchsorted(cumulative, share - 1e-12), values.size - 1)]) for share in shares]


def batch_sizes_figure(summaries: dict[str, dict[str, Any]]) -> go.Figure:
    """Real and padded nodes and edges per batch, as boxes (whiskers: smallest and largest,
    box: quartiles) per strategy: the gap between the two is the padding.

    Args:
        summaries: each strategy's run summary (``table.attrs["summaries"]`` of
            ``compare_batching``), by strategy name.

    >>> from packing import SizeHistogram
    >>> from packing.batching import compare_batching
    >>> table = compare_batching(SizeHistogram.from_counts([3, 8], [4, 14], [20, 4]), batch_size=4)
    >>> [trace.name for trace in batch_sizes_figure(table.attrs["summaries"]).data][:2]
    ['real', 'padded']
    """
    fig = make_subplots(rows=1, cols=2, subplot_titles=("nodes per batch", "edges per batch"),
                        horizontal_spacing=0.14)
    names = [label(s) for s in summaries]
    for column, component in enumerate(("nodes", "edges"), start=1):
        medians = []
        for kind, color in (("real", "#7f7f7f"), ("padded", "#d62728")):
            stats = np.array([weighted_quantiles(summary[f"{kind}_{component}"], (0.0, 0.25, 0.5, 0.75, 1.0))
                              for summary in summaries.values()])
            medians += stats[:, 2].tolist()
            fig.add_trace(go.Box(
                y=names, lowerfence=stats[:, 0], q1=stats[:, 1], median=stats[:, 2], q3=stats[:, 3],
                upperfence=stats[:, 4], orientation="h", name=kind, marker_color=color, legendgroup=kind,
                showlegend=column == 1, offsetgroup=kind,
            ), row=1, col=column)
        if needs_log_axis(medians):  # one strategy's huge batches would flatten every other box
            fig.update_xaxes(type="log", title_text=f"{component} (log scale)", row=1, col=column)
    fig.update_layout(title="Nodes and edges per batch, real and padded", boxmode="group", height=170 + 55 * len(names),
                      legend=_LEGEND, **_LAYOUT)
    fig.update_yaxes(autorange="reversed")
    return fig


def bucket_curve_figure(curve: list[dict[str, float]], packing: dict[str, float] | None, chosen: int) -> go.Figure:
    """Node and edge efficiency of shape buckets for K = 1 .. 16 shapes on this run's
    batches, the chosen K marked, with packing (one shape) as a point at K = 1.

    Args:
        curve: one point per K (``shapes``, ``used_shapes``, ``node_efficiency``,
            ``edge_efficiency``): the shape-bucket strategy's ``bucket_curve`` summary.
        packing: packing's row of the comparison table (any mapping with
            ``node_efficiency`` and ``edge_efficiency``), or None to leave the point out.
        chosen: the K the run used, marked with a line.

    >>> from packing import SizeHistogram
    >>> from packing.batching import compare_batching
    >>> table = compare_batching(SizeHistogram.from_counts([3, 8], [4, 14], [20, 4]), batch_size=4)
    >>> curve = table.attrs["summaries"]["buckets"]["bucket_curve"]
    >>> packing = table.set_index("strategy").loc["packing"]
    >>> [trace.name for trace in bucket_curve_figure(curve, packing, chosen=8).data][:2]
    ['buckets: real nodes', 'packing: real nodes']
    """
    shapes = [point["shapes"] for point in curve]
    fig = go.Figure()
    for column, word, color in (("node_efficiency", "nodes", "#1f77b4"), ("edge_efficiency", "edges", "#ff7f0e")):
        values = [100 * point[column] for point in curve]
        fig.add_scatter(x=shapes, y=values, mode="lines+markers", name=f"buckets: real {word}", line_color=color,
                        customdata=[point["used_shapes"] for point in curve],
                        hovertemplate=(f"%{{x}} shapes allowed (%{{customdata}} used)<br>real {word}: "
                                       "%{y:.2f} %<extra></extra>"))
        if packing is not None:
            fig.add_scatter(x=[1], y=[100 * packing[column]], mode="markers", name=f"packing: real {word}",
                            marker=dict(symbol="star", size=16, color=color, line=dict(color="black", width=1)),
                            hovertemplate=f"packing, one shape<br>real {word}: %{{y:.2f}} %<extra></extra>")
    fig.add_vline(x=chosen, line_dash="dot", line_color="#2ca02c",
                  annotation_text=f"K = {chosen}", annotation_position="top")
    fig.update_layout(title="Padding against the number of shapes: shape buckets and packing",
                      xaxis=dict(title="shapes (compilations) K", dtick=1), yaxis_title="real share (%)",
                      height=400, legend=_LEGEND, **_LAYOUT)
    return fig
