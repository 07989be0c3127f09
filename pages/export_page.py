"""Export page: the chosen configuration as JSON, strategies as CSV, figures as PNG and
HTML, and loading a configuration back."""
from __future__ import annotations

from typing import Callable

import pandas as pd
import streamlit as st

from data_loaders.registry import check_split, resolve_options, task_of
from packing import PackingPlan, SizeHistogram, config_histogram, export_config
from packing.batching import batching_section
from packing.io import SCHEMA_VERSION, WHOLE_TABLE, config_json
from packing.words import bound_words, metric_notes
from throughput import throughput_section
from throughput.estimate import wall_time
from figures.pdf import report_pdf
from figures.report import build_report, report_figures
from figures.snippet import cuda_training_snippet, training_snippet
from pages import cache, links, recommended, state
from pages.header import page_header
from pages.packing_row import packing_row
from pages.pricing import chosen_pricing, loader_workers
from pages.sweeps import grid, sweep_method
from pages.widgets import md_text, packing_shown, progress_shown, run_page, selection_of, share_shown, show_error, with_proof

LOAD_KEY = "ex_load_file"

def metric_words(plan: PackingPlan, metrics: dict) -> str:
    """The plan's three efficiencies in words (``metrics``: its summary), each with what
    the plan breaks (:func:`packing.words.metric_notes`), as the report says them."""
    notes = metric_notes(plan)
    return ", ".join(f"{name} {metrics[key]:.2%}" + (f" ({notes[key]})" if key in notes else "") for name, key in (
        ("node efficiency", "node_efficiency"), ("edge efficiency", "edge_efficiency"),
        ("harmonic mean", "harmonic_mean")))


def sweep_frame(selection: state.Selection, hist: SizeHistogram) -> pd.DataFrame | None:
    """The frame of the dataset's last sweep (run on the Limit sweep page, or asked for by the
    link this session opened: run here, with progress, when it is not cached), else None."""
    links.claim_sweep(selection)  # a link opened on this page: its sweep, as on the Limit sweep page
    last = st.session_state.get(state.SWEEP)
    if not last or last["for"] != selection.key:
        return None
    params = last["params"]
    nodes, edges = grid(params)
    with progress_shown("Packing the sweep's limit pairs for the report") as report:
        return cache.run_sweep(hist, nodes, edges, params["max_graphs"], sweep_method(params),
                               lambda done, total: report(f"{done:,} of {total:,} limit pairs", done / total))


def figure_downloads(builders: dict[str, Callable], stem: str, browser: str | None) -> None:
    """A PNG and an HTML download per figure; PNG only where a Chromium is installed
    (``browser``: its path, from ``cache.png_browser()``, or None)."""
    if browser is None:
        st.warning("PNG export needs a Chromium browser for kaleido, and none was found. Install it "
                   "(`apt-get install -y chromium`) or set BROWSER_PATH to a Chrome/Chromium binary; "
                   "the interactive HTML files below work without it.")
    for name, build in builders.items():
        label, png, html = st.columns([2, 1, 1])
        label.markdown(f"**{name.replace('-', ' ')}**")
        if browser is not None:
            png.download_button("PNG", data=lambda build=build: cache.figure_png(build()),
                                file_name=f"{stem}-{name}.png", mime="image/png", key=f"ex_png_{name}", on_click="ignore",
                                icon=":material/image:")
        html.download_button("HTML", data=lambda build=build: cache.figure_html(build()),
                             file_name=f"{stem}-{name}.html", mime="text/html", key=f"ex_html_{name}", on_click="ignore",
                             icon=":material/code:")


def _apply(config: dict, plan: PackingPlan) -> None:
    """Make a loaded configuration the current dataset, limits and method; when its split or
    options are not the dataset's here, say so on the page instead."""
    try:
        _apply_config(config, plan)
    except ValueError as error:
        st.session_state["ex_apply_error"] = f"The configuration could not be applied: {error}"
        return
    left = _apply_run(config)
    if left:
        st.session_state["ex_apply_note"] = f"Applied, except that {'; '.join(left)}."


def _apply_run(config: dict) -> list[str]:
    """Take the simulated run (batch size, length, seed, devices, bucket shapes) and the
    calibration that the configuration's throughput or batching section was made with; what
    could not be taken, in words."""
    section = next((config[name] for name in ("throughput", "batching") if name in config), None)
    if section is None:
        return []
    run, left, changes = section["run"], [], {}
    for key, (low, high) in state.RUN_BOUNDS.items():
        value = run.get(key)
        if value is None:
            continue
        if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
            changes[key] = value
        else:
            left.append(f"its run's {key} {value!r} is not a whole number from {low:,} to {high:,}")
    if "steps" in changes:  # a run of steps is one epoch long on these pages
        changes["epochs"] = 1
    elif "epochs" in changes:
        changes["steps"] = None
    state.set_run_settings(**changes)
    if "throughput" in config:
        calibration = config["throughput"]["calibration"]
        stem = str(calibration.get("source", "")).removesuffix(".json")
        if stem in cache.calibration_options().found:
            st.session_state[state.THROUGHPUT] = {**state.throughput_settings(), "calibration": stem}
        else:
            left.append(f"its calibration ({calibration.get('label', '?')}) is not one this dashboard ships; "
                        "upload it on the Throughput page")
    return left


def _apply_config(config: dict, plan: PackingPlan) -> None:
    """Apply a configuration :func:`pages.cache.checked_config` verified (its dataset's name, split and
    options are text, text and an object); a dataset this dashboard does not offer, or a
    size table's (``python -m packing pack --dataset NAME`` without ``--split``), becomes an
    upload of the stored histogram. ``ValueError`` when the split or an option is not the
    dataset's."""
    state.check_method(plan.requested_method)  # before anything is applied
    dataset = config["dataset"]
    name = dataset["name"]
    spec = None if name.startswith(state.UPLOAD_PREFIX) else cache.spec_for(name)
    if spec is None or dataset["split"] == WHOLE_TABLE:  # `pack --out` on a size table: its graphs, no split
        name = name if name.startswith(state.UPLOAD_PREFIX) else state.UPLOAD_PREFIX + name
        state.uploads()[name] = (config_histogram(config), {
            "dataset": name, "split": "all", "options": {}, "source": "configuration file",
            "provenance": dataset["provenance"], "graphs": dataset["graphs"], "seconds": 0.0})
        owner = state.upload_selection(name).key
    else:
        chosen = state.DatasetSettings(check_split(spec, dataset["split"]), resolve_options(spec, dataset["options"]))
        state.set_settings(name, chosen)
        owner = selection_of(spec, chosen).key
    state.choose_dataset(name)
    state.set_limits(plan.limits, "a loaded configuration", owner)
    state.set_method(plan.requested_method)


def load_section(current: PackingPlan | None) -> None:
    """Upload a configuration JSON, verify it and offer to apply it."""
    st.subheader("Load a configuration")
    uploaded = st.file_uploader("Configuration JSON exported by this tool", type=["json"], key=LOAD_KEY)
    if uploaded is None:
        return
    try:
        config, plan = cache.checked_config(uploaded.getvalue())
    except ValueError as error:
        show_error(error, f"Could not load {uploaded.name}")
        return
    metrics = config["metrics"]
    same = current is not None and plan == current
    st.success(
        f"Loaded {md_text(uploaded.name)}: {md_text(config['dataset']['name'])} ({md_text(config['dataset']['split'])}), limits "
        f"{plan.limits}, {plan.num_packs:,} packs, {metric_words(plan, metrics)}. "
        "The plan packs its histogram exactly and its metrics check out."
    )
    st.markdown("Same plan as the current configuration: **" + ("yes" if same else "no") + "**")
    problem = st.session_state.pop("ex_apply_error", None)
    if problem:
        st.error(md_text(problem), icon=":material/error:")
    note = st.session_state.pop("ex_apply_note", None)
    if note:
        st.info(md_text(note), icon=":material/info:")
    if not same:
        st.button("Apply this configuration", on_click=_apply, args=(config, plan), key="ex_apply")


def main() -> None:
    loaded = page_header("Export")
    if loaded is None:
        load_section(None)
        return
    selection, hist, info = loaded
    chosen, method = state.choice(), state.method()
    limits = chosen.limits
    try:
        with packing_shown(f"Packing with {method.label}") as progress:
            plan = with_proof(hist, cache.plan_for(hist, limits, method, progress))
    except ValueError as error:
        show_error(error, "These limits do not work")
        st.info("Fix the limits on the Packing page or choose a cell on the Limit sweep page.")
        load_section(None)
        return
    state.plan_words()[(selection.key, limits, method)] = plan.label
    # the run and the calibration of the session's settings, whichever page a link opened: the same file
    batching, priced = state.run_settings(), chosen_pricing()
    row = packing_row(hist, batching)
    sections, left_out = {}, None
    try:
        with share_shown("Simulating every batching strategy on this dataset") as progress:
            sections["batching"] = batching_section(cache.batching_table(hist, batching, row.request, progress))
        with share_shown("Pricing every strategy with the calibration") as progress:
            table = wall_time(cache.throughput_table(hist, priced["calibration"], batching, priced["baseline"],
                                                     row.request, progress), loader_workers())
        sections["throughput"] = throughput_section(table, priced["check"], priced["check_words"])
    except ValueError as error:  # a run this dataset cannot fill (fewer graphs than a step): the rest still exports
        left_out = f"The batching comparison and the throughput estimate are not in the file: {error}"
    if chosen.is_recommended and method == chosen.method:  # which it was, and its packs per step for the loader
        sections["recommendation"] = {**recommended.current(hist).to_dict(), "label": chosen.source}
    config = export_config(plan, hist, {**info, "dataset": selection.name, "split": selection.split,
                                        "options": selection.options}, sections)
    stem = f"{selection.file_stem}-{limits.max_nodes}n-{limits.max_edges}e-{limits.max_graphs}g"
    st.markdown(
        f"**Max nodes {limits.max_nodes:,}, max edges {limits.max_edges:,}, max graphs "
        f"{limits.max_graphs:,}**; {plan.label}. {metric_words(plan, plan.summary()).capitalize()}, "
        f"{plan.num_packs:,} packs "
        f"({bound_words(plan.bounds)}: {plan.lower_bound:,}, "
        f"gap {plan.gap:.2%})."
    )
    steps = (f" The file carries the recommendation: {config['recommendation']['packs_per_step']:,} pack(s) a step, "
             "which the packed loader takes." if "recommendation" in config else "")
    st.caption(f"{md_text(chosen.origin)}.{steps} " + (md_text(left_out) if left_out else
               f"The file includes the batching comparison of the Batching page (batch size "
               f"{batching['batch_size']:,}) and the throughput estimates of the Throughput page "
               f"({md_text(priced['calibration'].label)}), for the run and calibration chosen there."))
    if priced["foreign"]:
        st.warning(f"The file's throughput estimates are those of {md_text(priced['calibration'].device_name)}, not "
                   f"of this machine. {md_text(priced['check_words'])}", icon=":material/warning:")
    browser = cache.png_browser()
    left, middle, right, last = st.columns([1.4, 1.2, 1.1, 1.1])  # one row: configuration, strategies, report
    left.download_button("Download configuration (JSON)", config_json(config), file_name=f"{stem}.json",
                         mime="application/json", type="primary", key="ex_json", on_click="ignore", icon=":material/download:")
    middle.download_button("Download strategies (CSV)", lambda: plan.to_frame().to_csv(index=False),
                           file_name=f"{stem}-strategies.csv", mime="text/csv", key="ex_csv", on_click="ignore",
                           icon=":material/table:")
    frame = sweep_frame(selection, hist)
    report = lambda: build_report(config, plan, frame, file_name=f"{stem}.json")  # noqa: E731 - built on click
    right.download_button("Download report (HTML)", report,
                          file_name=f"{stem}-report.html", mime="text/html", key="ex_report", on_click="ignore",
                          icon=":material/description:",
                          help="One self-contained HTML file (works offline) to show colleagues: the dataset, its "
                               "statistics and histogram, these limits and method with efficiency, gap and bound, "
                               "the packs, the sweep heatmap, the batching comparison and throughput estimate when "
                               "run, and the configuration itself. Command line: `python -m figures report "
                               "config.json --out report.html`.")
    if browser is not None:
        last.download_button("Download report (PDF)", lambda: report_pdf(report()),
                              file_name=f"{stem}-report.pdf", mime="application/pdf", key="ex_report_pdf",
                              on_click="ignore", icon=":material/picture_as_pdf:",
                              help="The same report printed by Chromium (A4 landscape, a few seconds).")
    with st.expander("Configuration JSON"):
        st.caption(f"Schema version {SCHEMA_VERSION}, documented in packing/export.py. Load it in Python with "
                   "`from packing.io import load_config; config, plan = load_config('file.json')`.")
        shown = {**config, "histogram": f"{hist.num_tuples} size tuples (in the file)",
                 "plan": {**config["plan"], "packs": f"{plan.num_strategies} strategies (in the file)"}}
        for section in ("batching", "throughput"):
            if section in config:
                shown[section] = {**config[section], "table": f"{len(config[section]['table'])} strategies "
                                                            "(in the file)"}
        st.json(shown)
    st.subheader("Figures")
    st.caption("Titled with the dataset, split, method and limits.")
    figure_downloads(report_figures(config, plan, frame), stem, browser)
    st.subheader("Train with it")
    st.caption(f"Save the configuration as {stem}.json next to your script; the loader verifies it and checks "
               "that it packs exactly your dataset's graphs.")
    cuda = st.toggle("CUDA: captured step", key="ex_snippet_cuda",
                     help="The loop for a GPU: the loader keeps the dataset on the GPU and builds every batch there "
                          "(`device=device`), and the whole training step is captured once as a CUDA graph and "
                          "replayed for every batch (`data_loaders.CapturedStep`, Adam with `capturable=True`): "
                          "every batch has one shape, so one capture serves the run. On an H100 a step of about 128 "
                          "molhiv graphs took 1.9 ms captured against 9 ms eager (BENCHMARKS.md).")
    snippet = cuda_training_snippet if cuda else training_snippet
    st.code(snippet(f"{stem}.json", what=f"here {selection.label}", task=task_of(selection.name)),
            language="python", wrap_lines=True)
    load_section(plan)


run_page(main)
