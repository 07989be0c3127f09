"""The one-file report of a chosen configuration: one self-contained HTML file (plotly.js
inlined once, works offline) with the dataset and its provenance, the statistics, the size
histogram, the chosen limits and method with efficiency, gap and bound (and the proof when
one was run), the packs' fill, the sweep heatmap with the chosen cell (when a sweep is
given), the batching comparison, the throughput estimate with its calibration and its
check, and the configuration JSON itself (shown and downloadable) with the PyG training
snippet for it.

Everything comes from a configuration verified by :func:`packing.io.load_config` (the
Export page builds the same file from the configuration it exports), so the report's
numbers are the file's.
"""
from __future__ import annotations

import html
from typing import Any, Callable

import pandas as pd
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from data_loaders.registry import task_of
from packing import PackingPlan, config_histogram
from packing.io import config_json
from packing.words import (bound_words, describe_settings, metric_notes, run_length_words, short_run_note,
                           three_digits, unused_graph_slots)
from throughput.report import notes as estimate_notes

from . import batching, throughput
from .dataset import histogram_figure, stats_table
from .packs import graphs_per_pack_figure, pack_fill_figure, strategies_figure
from .snippet import training_snippet
from .sweep import sweep_figure
from .titles import dataset_words, subject, sweep_method, sweep_subject, titled

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1150px;
       color: #222; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
table { border-collapse: collapse; margin: 0.6em 0 1em; font-size: 0.92em; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; } th { background: #f4f4f4; }
.note { color: #555; font-size: 0.92em; } pre { background: #f7f7f7; padding: 1em; overflow: auto; max-height: 30em; }
nav a { margin-right: 1em; } .wide { overflow-x: auto; } .flag { white-space: nowrap; } .row { display: flex; gap: 2em; align-items: flex-start; flex-wrap: wrap; }
table.facts td { text-align: left; } table.facts td:first-child { color: #555; white-space: nowrap; }
@page { size: A4 landscape; margin: 12mm; }
.print-only { display: none; }
@media print { body { margin: 0; max-width: none; }
               nav, details, #download-config, .modebar-container, .screen-only { display: none; }
               .print-only { display: inline; }
               .figure, table, h2, h3, .row > div { break-inside: avoid; } h2, h3, section > p { break-after: avoid; }
               pre { max-height: none; overflow: visible; white-space: pre-wrap; } .wide { overflow: visible; } }
"""


def batching_frame(section: dict[str, Any]) -> pd.DataFrame:
    """The ``batching`` section's table as :func:`packing.batching.compare_batching` gave it
    (its ``run`` in ``attrs``).

    >>> batching_frame({"run": {"batch_size": 4}, "table": [{"strategy": "packing"}]}).attrs["run"]
    {'batch_size': 4}
    """
    frame = pd.DataFrame(section["table"])
    frame.attrs["run"] = section["run"]
    return frame


def throughput_frame(section: dict[str, Any]) -> pd.DataFrame:
    """The ``throughput`` section's table as :func:`throughput.estimate` gave it (its run,
    calibration, baseline and how its wall time was priced in ``attrs``), for
    :func:`figures.throughput.epoch_figure`.

    >>> throughput_frame({"run": {}, "calibration": {"label": "x"}, "baseline": "static_64", "wall": {"priced": False},
    ...                   "table": [{"strategy": "packing"}]}).attrs["baseline"]
    'static_64'
    """
    frame = pd.DataFrame(section["table"])
    frame.attrs.update(run=section["run"], calibration=section["calibration"], baseline=section["baseline"],
                       wall=section["wall"])
    return frame


def recommended_limits(config: dict[str, Any]) -> tuple[int, int] | None:
    """The ``(max_nodes, max_edges)`` of the recommendation a configuration carries (its
    ``recommendation`` section, kept as written), when it holds them as whole numbers.

    >>> recommended_limits({"recommendation": {"limits": {"max_nodes": 583, "max_edges": 1206}}})
    (583, 1206)
    >>> recommended_limits({"recommendation": "yes"}), recommended_limits({})
    (None, None)
    """
    section = config.get("recommendation")
    limits = section.get("limits") if isinstance(section, dict) else None
    if not isinstance(limits, dict):
        return None
    values = (limits.get("max_nodes"), limits.get("max_edges"))
    return values if all(isinstance(v, int) and not isinstance(v, bool) for v in values) else None  # type: ignore


def report_figures(config: dict[str, Any], plan: PackingPlan, sweep: pd.DataFrame | None = None,
                   ) -> dict[str, Callable[[], go.Figure]]:
    """Name -> function building each figure of the report, titled with the dataset, split,
    method and limits (the Export page offers the same figures as PNG and HTML). The sweep
    heatmap comes with ``sweep`` (a :func:`packing.sweep` frame; titled with the sweep's
    own method and graph limit), the batching and
    throughput charts with those sections of the configuration.

    >>> from packing import PackLimits, SizeHistogram, pack
    >>> from packing import export_config
    >>> hist = SizeHistogram.from_sizes([3, 2, 3], [4, 2, 4])
    >>> plan = pack(hist, PackLimits(5, 6, 4))
    >>> list(report_figures(export_config(plan, hist, {"dataset": "toy"}), plan))
    ['size-histogram', 'graphs-per-pack', 'pack-fill', 'pack-strategies']
    """
    line = subject(config["dataset"], plan)
    limits = (plan.limits.max_nodes, plan.limits.max_edges)
    builders: dict[str, tuple[Callable[[], go.Figure], str]] = {
        "size-histogram": (lambda: histogram_figure(config_histogram(config))[0], line),
        "graphs-per-pack": (lambda: graphs_per_pack_figure(plan), line),
        "pack-fill": (lambda: pack_fill_figure(plan), line),
        "pack-strategies": (lambda: strategies_figure(plan), line),
    }
    if sweep is not None:  # titled with the sweep's own method and graph limit; the recommendation marked
        builders["sweep-heatmap"] = (lambda: sweep_figure(sweep, selected=limits, clickable=False,
                                                          recommended=recommended_limits(config)),
                                     sweep_subject(config["dataset"], sweep))
    if "batching" in config:
        builders["batching-padding"] = (lambda: batching.padding_figure(batching_frame(config["batching"])), line)
    if "throughput" in config:
        frame = throughput_frame(config["throughput"])  # wall time where the calibration priced it, as the page shows
        builders["throughput-epoch"] = (lambda: throughput.epoch_figure(frame, throughput.shows_wall(frame)), line)
    return {name: (lambda build=build, words=words: titled(build(), words)) for name, (build, words) in builders.items()}


def _table(frame: pd.DataFrame, header: bool = True, classes: str = "") -> str:
    """The frame as HTML, scrolling sideways where the window is narrower than the table."""
    table = frame.to_html(index=False, border=0, escape=True, header=header, classes=classes or None)
    return f"<div class='wide'>{table}</div>"


def _code(span: str) -> str:
    """A command as code, each option (``--max-nodes 26386``) on one line: a line may break
    only before an option."""
    command, *options = html.escape(span).split(" --")
    flags = "".join(f" <span class='flag'>--{option}</span>" for option in options)  # the space outside the span
    return f"<code>{command}{flags}</code>"


def _note(text: str) -> str:
    """A note paragraph; a span in backticks is code, as Markdown shows it on the pages, and
    its options (``--max-nodes 26386``) never break inside.

    >>> _note("Add --check to time; calibrate with `python -m throughput calibrate --max-nodes 17109 --mode eager`.")
    "<p class='note'>Add --check to time; calibrate with <code>python -m throughput calibrate <span class='flag'>--max-nodes 17109</span> <span class='flag'>--mode eager</span></code>.</p>"
    >>> _note("a `lone backtick")
    "<p class='note'>a `lone backtick</p>"
    """
    parts = text.split("`")
    if len(parts) % 2 == 0:  # a backtick without its pair is shown as typed, as Markdown does
        parts[-2:] = ["`".join(parts[-2:])]
    shown = [_code(part) if index % 2 else html.escape(part) for index, part in enumerate(parts)]
    return f"<p class='note'>{''.join(shown)}</p>"


def _pairs(rows: list[tuple[str, Any]]) -> str:
    """A two-column table of (what, value), no header."""
    return _table(pd.DataFrame(rows), header=False, classes="facts")


def _dataset_section(config: dict[str, Any], figure: str) -> str:
    data = config["dataset"]
    options = ", ".join(f"{key}={value}" for key, value in data["options"].items()) or \
        "as stored (the dataset's own edges)"
    facts = _pairs([("dataset", data["name"]), ("split", data["split"]), ("graph construction", options),
                    ("source", data["source"]), ("provenance", data["provenance"])])
    stats = stats_table({data["name"]: config_histogram(config)}).reset_index()
    return (f"<div class='row'><div>{facts}</div><div><b>Statistics</b> (Table 1 of the tuple-packing paper)"
            f"{_table(stats)}</div></div>{figure}")


def _proof(plan: PackingPlan) -> str:
    """The LP proof in words, whether it would help, or that none was run."""
    result = plan.bounds.lp_result
    if result is not None:
        same = "" if plan.bounds.name_of_best == "lp" else f", no more than the {bound_words(plan.bounds)} already gave"
        return (f"LP bound proven: at least {result.bound:,} packs{same} (column generation; "
                f"{html.escape(result.stop_reason)}; the duals in the configuration are its certificate, "
                "checked again whenever the file is loaded).")
    if plan.method.unlimited is not None:
        return "No LP bound: it bounds plans that keep every limit, and this baseline leaves one out."
    if plan.gap == 0:
        return "The plan meets its lower bound: no plan within these limits needs fewer packs."
    if plan.method.algorithm == "none":
        return ("This baseline puts every graph in a pack of its own: its gap is the padding it leaves, which a "
                "tighter bound would not close.")
    return ("No LP bound was proven (the volume and large-items bounds are instant; run \"Prove a tighter "
            "lower bound\" on the Packing page or <code>pack --prove</code> for the LP bound).")


def _choice_section(config: dict[str, Any], plan: PackingPlan) -> str:
    """The limits, the method and the plan's numbers; the bound and the gap are the plan's
    (files of schema 1 and 2 stored the volume bound as theirs)."""
    metrics, limits = config["metrics"], plan.limits
    notes = metric_notes(plan)

    def shown(name: str) -> str:
        return f"{metrics[name]:.2%}" + (f" ({notes[name]})" if name in notes else "")

    rows = [
        ("max nodes per pack", f"{limits.max_nodes:,}"), ("max edges per pack", f"{limits.max_edges:,}"),
        ("max graphs per pack", f"{limits.max_graphs:,}"), ("method", plan.label),
        ("packs", f"{metrics['packs']:,}"),
        ("lower bound", f"{plan.lower_bound:,} ({bound_words(plan.bounds)})"), ("gap to the bound", f"{plan.gap:.2%}"),
        ("node efficiency", shown("node_efficiency")), ("edge efficiency", shown("edge_efficiency")),
        ("harmonic mean", shown("harmonic_mean")),
        ("graphs per pack (packing factor)", f"{metrics['packing_factor']:.2f}"),
        ("distinct pack strategies", f"{metrics['strategies']:,}"),
        ("tight limits (largest sums used)", f"{metrics['tight_limits'][0]:,} nodes, {metrics['tight_limits'][1]:,} edges"),
    ]
    rows += [(f"breaks the {name} limit", f"largest sum {value:,}") for name, value in plan.broken_limits().items()]
    section = config.get("recommendation")
    if isinstance(section, dict) and isinstance(section.get("label"), str) and \
            isinstance(section.get("packs_per_step"), int) and recommended_limits(config) is not None:
        rows.insert(0, ("chosen as", f"{section['label']}: {section['packs_per_step']:,} pack(s) a step"))
    slots = f" {html.escape(unused_graph_slots(plan))}" if unused_graph_slots(plan) else ""
    return _pairs(rows) + f"<p class='note'>{_proof(plan)}{slots}</p>"


def _sweep_words(sweep: pd.DataFrame, plan: PackingPlan) -> str:
    """Whether the heatmap frames the chosen limits (only a cell of the sweep with the
    plan's limits is framed) and whether that cell is the plan's: the same graph limit,
    method and packs (a sweep table does not record its dataset, but packs tell)."""
    limits = plan.limits
    cell = (sweep["max_nodes"] == limits.max_nodes) & (sweep["max_edges"] == limits.max_edges)
    graphs = set(sweep["max_graphs"]) if "max_graphs" in sweep else set()
    if not cell.any():
        return (f"The chosen limits ({limits.max_nodes:,} nodes, {limits.max_edges:,} edges) are not a cell of this "
                "sweep, so none is framed.")
    differences = []
    if graphs and graphs != {limits.max_graphs}:
        differences.append(f"{' or '.join(f'{g:,}' for g in sorted(graphs))} graphs per pack where the plan has "
                           f"{limits.max_graphs:,}")
    method = sweep_method(sweep)
    if method is None:
        differences.append("a method the sweep table does not record")
    elif method != plan.label:
        differences.append(f"{method} where the plan used {plan.label}")
    if differences:
        return ("The cell of the chosen limits is framed in red, but the sweep packed with "
                + " and ".join(differences) + ", so its cell may differ from the plan.")
    if not bool(sweep.loc[cell, "feasible"].iloc[0]):
        return ("The chosen limits are a cell of this sweep, but one no pack could fill there (a graph is larger): "
                "the sweep is of other graphs than this configuration, so none is framed.")
    packs = int(sweep.loc[cell, "packs"].iloc[0])
    if packs != plan.num_packs:
        return (f"The cell of the chosen limits is framed in red, but it has {packs:,} packs where the plan, packed "
                f"the same way, has {plan.num_packs:,}: the sweep is of other graphs than this configuration.")
    return "The chosen limits are framed in red."


def _batching_section(section: dict[str, Any], figure: str) -> str:
    frame = batching_frame(section)
    run = section["run"]
    shown = pd.DataFrame({
        "strategy": [batching.label(s) for s in frame["strategy"]],
        "batches": frame["batches"].map("{:,}".format),
        "real nodes": frame["node_efficiency"].map("{:.2%}".format),
        "real edges": frame["edge_efficiency"].map("{:.2%}".format),
        "real graphs": frame["graph_efficiency"].map("{:.2%}".format),
        "distinct shapes": frame["distinct_shapes"].map("{:,}".format),
        "largest padded shape": [f"{n:,} x {e:,} x {g:,}" for n, e, g in
                                 zip(frame["max_padded_nodes"], frame["max_padded_edges"], frame["max_padded_graphs"])],
        "settings": [describe_settings(s, section["strategies"][s]) for s in frame["strategy"]],
    })
    short = short_run_note(frame, batching.label)
    words = (f"Batch size {run['batch_size']:,}, {run_length_words(run)}, {run['devices']:,} device(s), seed "
             f"{run['seed']}; every strategy on the same shuffled epochs, every graph kept.")
    return (f"<p>{html.escape(words)}</p>"
            + _table(shown) + (_note(short) if short else "") + figure)


def tool_of(config: dict[str, Any]) -> dict[str, Any]:
    """The configuration's ``tool`` object (the exporting tool's name and version), which
    loading keeps as given; {} when it is not an object.

    >>> tool_of({"tool": {"version": "0.4.0"}}), tool_of({"tool": None}), tool_of({})
    ({'version': '0.4.0'}, {}, {})
    """
    tool = config.get("tool")
    return tool if isinstance(tool, dict) else {}


def _throughput_section(section: dict[str, Any], figure: str) -> str:
    frame = throughput_frame(section)
    calibration, run = section["calibration"], section["run"]
    fit = calibration.get("fit", {})
    held_out = fit.get("held_out", {})
    facts = _pairs([
        ("calibration", calibration.get("label", "?")),
        ("device", calibration.get("device", {}).get("name", "?")),
        ("cost model", fit.get("model", "?")),
        ("held-out error (median, 90th percentile)",
         f"{held_out.get('median', float('nan')):.1%}, {held_out.get('p90', float('nan')):.1%}"),
        ("run", f"{run_length_words(run)} on {run.get('devices', 1):,} device(s), batch size "
                f"{run.get('batch_size', '?')}"),
        ("speed-up against", throughput.label(section["baseline"])),
        ("check on the machine that exported it", section.get("check_note") or "not checked"),
    ])
    shown = pd.DataFrame({
        "strategy": [throughput.label(s) for s in frame["strategy"]],
        "steps per epoch": frame["steps_per_epoch"].map("{:,.1f}".format),
        "step (ms)": frame["step_ms"].map(three_digits),
        "steady epoch (s)": frame["steady_epoch_s"].map(three_digits),
        "whole run (s)": frame["run_s"].map(three_digits),
        "speed-up, steady": frame["speedup_steady"].map("{:.2f}x".format),
        "speed-up, run": frame["speedup_run"].map("{:.2f}x".format),
        "extrapolated": frame["extrapolated"].map({True: "yes", False: ""}),
    })
    if throughput.shows_wall(frame):
        shown = shown.assign(**{
            "wall, steady epoch (s)": frame["wall_steady_epoch_s"].map(three_digits),
            "wall, whole run (s)": frame["wall_run_s"].map(three_digits),
            "wall speed-up, run": frame["wall_speedup_run"].map("{:.2f}x".format),
            "bound by": frame["bound_by"]})
    notes = estimate_notes(frame, throughput.label)
    return facts + _table(shown) + "".join(map(_note, notes)) + figure


def _config_section(config: dict[str, Any], file_name: str) -> str:
    text = config_json(config)
    snippet = training_snippet(file_name, what=f"here {dataset_words(config['dataset'])}",
                               task=task_of(str(config["dataset"]["name"])))
    return (f"<p>The configuration this report shows, schema version {config['schema_version']} "
            f"(<code>packing.io.load_config</code> verifies it; "
            f"<code>PackedLoader.from_config(dataset, \"{html.escape(file_name)}\")</code> trains with it). "
            f"<a id='download-config' download='{html.escape(file_name)}' href='#'>Download {html.escape(file_name)}</a>"
            f"<span class='print-only'>Its JSON is in the HTML version of this report.</span>"
            f"</p><details><summary>Configuration JSON ({len(text):,} characters)</summary>"
            f"<pre id='config-json'>{html.escape(text)}</pre></details>"
            f"<h3>Train with it</h3><pre class='snippet'>{html.escape(snippet)}</pre>"
            "<script>document.getElementById('download-config').addEventListener('click', function (event) {"
            "  var text = document.getElementById('config-json').textContent;"
            "  this.href = URL.createObjectURL(new Blob([text], {type: 'application/json'})); });</script>")


def _figure_html(build: Callable[[], go.Figure], name: str) -> str:
    return (f"<div class='figure' id='figure-{name}'>"
            + build().to_html(full_html=False, include_plotlyjs=False, config={"displaylogo": False})
            + "</div>")


def build_report(config: dict[str, Any], plan: PackingPlan, sweep: pd.DataFrame | None = None,
                 file_name: str = "config.json") -> str:
    """The report (module docstring) of a configuration and its plan, as returned by
    :func:`packing.io.load_config` (or :func:`packing.export.export_config` and the plan
    exported), as one HTML document; ``sweep`` adds the heatmap with the chosen cell,
    ``file_name`` is the configuration's name in the text and its download.

    >>> from packing import PackLimits, SizeHistogram, pack
    >>> from packing import export_config
    >>> hist = SizeHistogram.from_sizes([3, 2, 3], [4, 2, 4])
    >>> plan = pack(hist, PackLimits(5, 6, 4))
    >>> page = build_report(export_config(plan, hist, {"dataset": "toy"}), plan)
    >>> page.startswith("<!DOCTYPE html>"), "id='section-choice'" in page, page.count("<script type=\\"text/javascript\\">/**")
    (True, True, 1)
    """
    figures = {name: _figure_html(build, name) for name, build in report_figures(config, plan, sweep).items()}
    line = subject(config["dataset"], plan)
    sections = [
        ("dataset", "Dataset", _dataset_section(config, figures["size-histogram"])),
        ("choice", "Chosen limits and method", _choice_section(config, plan)),
        ("packs", "Packs", figures["graphs-per-pack"] + figures["pack-fill"] + figures["pack-strategies"]),
    ]
    if sweep is not None:
        marked = " The diamond marks the recommended limits." if recommended_limits(config) is not None else ""
        sections.append(("sweep", "Limit sweep", f"<p>{html.escape(_sweep_words(sweep, plan))} The star marks the best "
                         f"harmonic mean.{marked}</p>" + figures["sweep-heatmap"]))
    if "batching" in config:
        sections.append(("batching", "Batching comparison",
                         _batching_section(config["batching"], figures["batching-padding"])))
    if "throughput" in config:
        sections.append(("throughput", "Throughput estimate",
                         _throughput_section(config["throughput"], figures["throughput-epoch"])))
    sections.append(("configuration", "Configuration", _config_section(config, file_name)))
    missing = [words for key, words in (("batching", "batching comparison (Batching page)"),
                                        ("throughput", "throughput estimate (Throughput page)")) if key not in config]
    nav = " ".join(f"<a href='#section-{key}'>{heading}</a>" for key, heading, _ in sections)
    body = "".join(f"<section id='section-{key}'><h2>{heading}</h2>{content}</section>"
                   for key, heading, content in sections)
    note = (f"<p class='note'>Not in this configuration: {', '.join(missing)}.</p>" if missing else "")
    tool = tool_of(config)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>Packing report: {html.escape(line)}</title><style>{_STYLE}</style>"
        f"<script type=\"text/javascript\">{get_plotlyjs()}</script></head><body>"
        f"<h1>Packing report</h1><p><b>{html.escape(line)}</b></p>"
        f"<p class='note'>Made by {html.escape(str(tool.get('name', '?')))} {html.escape(str(tool.get('version', '')))}"
        f" from a configuration created {html.escape(str(config.get('created', '?')))}.<span class='screen-only'> "
        f"Plots are interactive (hover, zoom) and work offline.</span></p>{note}<nav>{nav}</nav>{body}</body></html>"
    )
