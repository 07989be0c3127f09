"""Plotly figures of a throughput estimate: pure functions of the
:func:`throughput.estimate` table, no Streamlit. Strategies keep the names and colours of
the Batching page."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from packing.words import run_length_words, three_digits

from .batching import COLORS, label as batching_label
from .style import LAYOUT, needs_log_axis, plain

PYG_DATALOADER_LABEL = "PyG DataLoader (no padding)"
_BASELINE_COLOR = "#7f7f7f"
#: The subtitle's first line by calibration mode (an eager one's for a table without a mode).
MODE_WORDS = {"compile": "Steady epoch: every shape compiled. Whole run: every compilation once.",
              "cudagraph": "Steady epoch: every shape captured as a CUDA graph (PyG's DataLoader runs eagerly). "
                           "Whole run: every capture once.",
              "eager": "Eager mode: nothing is compiled."}


def label(strategy: str) -> str:
    """The name a strategy is shown under (the Batching page's, plus PyG's DataLoader).

    >>> label("pyg_dataloader"), label("static_64")
    ('PyG DataLoader (no padding)', 'static-64')
    """
    return PYG_DATALOADER_LABEL if strategy == "pyg_dataloader" else batching_label(strategy)


def _bars(table: pd.DataFrame, column: str, low: str, high: str, speedup: str,
          speedup_words: str = "") -> tuple[go.Bar, list[tuple]]:
    """One panel's bars (with the band as error bars) and the text past each error bar
    (the time, then the speed-up followed by ``speedup_words``). A row whose shapes the
    calibration never timed (``extrapolated``) is drawn faded, without a band (the band is
    the fit's error on timed shapes), and its text says "extrapolated"."""
    names = [label(s) for s in table["strategy"]]
    captured = table.attrs.get("calibration", {}).get("mode") == "cudagraph"
    one_off, one_off_words = ("capture_seconds", "CUDA graph captures") if captured else \
        ("compile_seconds", "compilations")
    value = table[column].to_numpy(dtype=float)
    guessed = table["extrapolated"].to_numpy(dtype=bool) if "extrapolated" in table else np.zeros(len(table), bool)
    upper = np.where(guessed, value, table[high].to_numpy(dtype=float))
    lower = np.where(guessed, value, table[low].to_numpy(dtype=float))
    baseline = table.attrs.get("baseline")
    band = [f"{three_digits(lo)} to {three_digits(hi)} s" if not out else "extrapolated: no band" for lo, hi, out in
            zip(lower, upper, guessed)]
    bar = go.Bar(
        y=names, x=value.tolist(), orientation="h", name=column,
        marker_color=[COLORS.get(s, _BASELINE_COLOR) for s in table["strategy"]],
        marker_opacity=np.where(guessed, 0.4, 1.0).tolist(),
        marker_pattern_shape=["/" if s == baseline else "" for s in table["strategy"]],
        error_x=dict(type="data", symmetric=False, color="#444",  # None: no error bar at all (0 draws a tick)
                     array=[None if out else float(e) for e, out in zip(upper - value, guessed)],
                     arrayminus=[None if out else float(e) for e, out in zip(value - lower, guessed)]),
        customdata=np.stack([band, table["step_ms"], table["steps_per_epoch"], table[one_off]],
                            axis=1).astype(object),
        hovertemplate=("%{y}<br>%{x:,.3r} s (%{customdata[0]})"
                       "<br>step: %{customdata[1]:.2f} ms x %{customdata[2]:,.1f} steps per epoch"
                       f"<br>{one_off_words} in the run: %{{customdata[3]:,.3r}} s<extra></extra>"))
    bounds = [f" ({bound}-bound)" for bound in table["bound_by"]] if column.startswith("wall_") else [""] * len(table)
    # "extrapolated" on a line of its own: one line with it ran past the panel's right edge
    texts = [(name, right, f"{three_digits(v)} s{bound}, {x:.2f}x{speedup_words}" + ("<br>extrapolated" if out else ""))
             for name, right, v, x, bound, out in zip(names, upper, value, table[speedup], bounds, guessed)]
    return bar, texts


def shows_wall(table: pd.DataFrame) -> bool:
    """Whether ``table`` has wall times (its calibration timed the loaders).

    >>> shows_wall(pd.DataFrame({"strategy": ["packing"]}))
    False
    """
    return bool(table.attrs.get("wall", {}).get("priced"))


def _time_words(table: pd.DataFrame, wall: bool) -> str:
    """The subtitle's line on what the bars time."""
    if not wall:
        return "Model time: forward, backward, optimizer step; loading batches not included."
    workers = table.attrs["wall"]["workers"]
    return (f"Wall time: model step and loading, {workers} loader worker{'s' if workers != 1 else ''}; after each bar, "
            "which of the two bounds it.")


def epoch_figure(table: pd.DataFrame, wall: bool = False) -> go.Figure:
    """Two panels side by side: the steady epoch (every shape compiled) and the whole run
    (every compilation once) per strategy, in wall time (model and loading, with which of
    the two bounds each row) or model time only, horizontal bars with the cost model's band as
    error bars and, past each, the time and the speed-up over the baseline (hatched). A run
    of a number of steps trains other numbers of graphs in each row, so its speed-up (per
    graph trained) is not the ratio of its bars and says "per graph". The title names the
    device the calibration measured.

    Args:
        table: the estimate of ``throughput.estimate`` (one row per strategy; its ``attrs``
            name the run, the baseline and the calibration).
        wall: plot wall times (the table must have them: :func:`shows_wall`), else model
            times.

    >>> from packing import SizeHistogram
    >>> from throughput import estimate, load_calibration, shipped_calibrations
    >>> cal = load_calibration(shipped_calibrations()[0])
    >>> table = estimate(SizeHistogram.from_counts([3, 8], [4, 14], [20, 4]), 4, cal)
    >>> fig = epoch_figure(table)
    >>> len(fig.data), fig.layout.annotations[1].text, fig.data[0].y[-1]
    (2, 'Whole run (1 epoch)', 'PyG DataLoader (no padding)')
    >>> fig.layout.title.subtitle.text.split("<br>")
    ['Eager mode: nothing is compiled.', 'Model time: forward, backward, optimizer step; loading batches not included.', 'After each bar: the time and the speed-up over PyG DataLoader (no padding) (hatched).']
    >>> fig.layout.title.text.split("<br>")[1] == f"on {cal.device_name}, {cal.created[:10]}"
    True
    """
    run = table.attrs.get("run", {})
    # short panel titles: side by side they share half the width each (a laptop's 1,024 px)
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.12, subplot_titles=(
        "Steady epoch", f"Whole run ({run_length_words(run)})"))
    run_speedup_words = " per graph" if run.get("steps") else ""
    panels = (("wall_steady_epoch_s", "wall_steady_low", "wall_steady_high", "wall_speedup_steady", ""),
              ("wall_run_s", "wall_run_low", "wall_run_high", "wall_speedup_run", run_speedup_words)) if wall else \
        (("steady_epoch_s", "steady_low", "steady_high", "speedup_steady", ""),
         ("run_s", "run_low", "run_high", "speedup_run", run_speedup_words))
    for col, (column, low, high, speedup, words) in enumerate(panels, start=1):
        bar, texts = _bars(table, column, low, high, speedup, words)
        fig.add_trace(bar, row=1, col=col)
        log = needs_log_axis(table[column])  # one slow row (an extrapolated epoch) would flatten the others
        for name, right, text in texts:  # a log axis places annotations by log10 of the value
            fig.add_annotation(x=math.log10(right) if log else right, y=name, text=text, xanchor="left", xshift=6,
                               showarrow=False, font=dict(size=11, color="#333"), row=1, col=col)
        if log:
            lowest, highest = float(table[low].min()), float(table[high].max())
            fig.update_xaxes(type="log", title_text="seconds (log scale)", row=1, col=col,
                             range=[math.log10(lowest / 2), math.log10(highest * 6)])  # room for the text
        else:
            fig.update_xaxes(title_text="seconds", range=[0, 1.55 * float(table[high].max())], row=1, col=col)
    calibration = table.attrs.get("calibration", {})
    baseline = table.attrs.get("baseline")
    lines = [MODE_WORDS.get(calibration.get("mode"), MODE_WORDS["eager"]), _time_words(table, wall)]
    if baseline:
        lines.append(f"After each bar: the time and the speed-up over {label(baseline)} (hatched).")
    full = plain(calibration.get("label", "?"))
    where = plain(f" on {calibration.get('device', {}).get('name')}, {str(calibration.get('created'))[:10]}")
    text = f"Training time, priced with {full.removesuffix(where)}<br>{where.strip()}" if full.endswith(where) else \
        f"Training time, priced with {full}"  # two lines where the label allows: a title does not wrap
    height = 240 + 50 * len(table)
    fig.update_layout(
        title=dict(text=text, font=dict(size=16), yref="container",
                   y=1 - 36 / height, yanchor="top",  # 36 px below the top, clear of the subtitle
                   subtitle=dict(text="<br>".join(lines), font=dict(size=12))),
        yaxis=dict(autorange="reversed"), height=height, showlegend=False,
        **{**LAYOUT, "margin": {**LAYOUT["margin"], "t": 140}})
    return fig
