"""Plotly figures of a throughput estimate: pure functions of the
:func:`throughput.estimate` table, no Streamlit. Strategies keep the names and colours of
the Batching page."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from pages.batching_figures import COLORS, label as batching_label

PYG_DATALOADER_LABEL = "PyG DataLoader (no padding)"
_BASELINE_COLOR = "#7f7f7f"


def label(strategy: str) -> str:
    """The name a strategy is shown under (the Batching page's, plus PyG's DataLoader)."""
    return PYG_DATALOADER_LABEL if strategy == "pyg_dataloader" else batching_label(strategy)


def epoch_figure(table: pd.DataFrame) -> go.Figure:
    """Time per epoch per strategy as horizontal bars with the fit's error band as error
    bars; past each error bar, the epoch time, graphs per second and speed-up over the
    baseline (also the bar's ``text``)."""
    names = [label(s) for s in table["strategy"]]
    epoch = table["epoch_seconds"].to_numpy(dtype=float)
    high, low = table["epoch_high"].to_numpy(dtype=float), table["epoch_low"].to_numpy(dtype=float)
    calibration = table.attrs.get("calibration", {})
    baseline = table.attrs.get("baseline")
    fig = go.Figure(go.Bar(
        y=names, x=epoch.tolist(), orientation="h",
        marker_color=[COLORS.get(s, _BASELINE_COLOR) for s in table["strategy"]],
        marker_pattern_shape=["/" if s == baseline else "" for s in table["strategy"]],
        error_x=dict(type="data", symmetric=False, array=(high - epoch).tolist(), arrayminus=(epoch - low).tolist(),
                     color="#444"),
        text=[f"{e:.3g} s, {g:,.0f} graphs/s, {s:.2f}x" for e, g, s in
              zip(epoch, table["graphs_per_second"], table["speedup"])],
        textposition="none",
        customdata=np.stack([table["step_ms"], table["steps_per_epoch"], table["compile_seconds_per_epoch"],
                             table["epoch_low"], table["epoch_high"]], axis=1),
        hovertemplate=("%{y}<br>epoch: %{x:.3g} s (%{customdata[3]:.3g} to %{customdata[4]:.3g} s)"
                       "<br>step: %{customdata[0]:.2f} ms x %{customdata[1]:,.1f} steps"
                       "<br>compilations: %{customdata[2]:.3g} s per epoch<extra></extra>"),
    ))
    for name, right, text in zip(names, high, fig.data[0].text):  # each bar's numbers past its error bar
        fig.add_annotation(x=right, y=name, text=text, xanchor="left", xshift=6, showarrow=False,
                           font=dict(size=12, color="#333"))
    device = calibration.get("device", {}).get("name", "?")
    fig.update_layout(
        title=f"Time per epoch on {device} (bars: error band of the cost model; hatched: your current batching)",
        xaxis=dict(title="seconds per epoch", range=[0, 1.4 * float(high.max())]),
        yaxis=dict(autorange="reversed"), height=160 + 50 * len(names), showlegend=False,
        margin=dict(l=60, r=20, t=50, b=50), template="plotly_white")
    return fig
