"""Limit sweep page: pack over a grid of (max nodes, max edges), read the harmonic-mean
heatmap, find the smallest good limits and click a cell to choose it."""
from __future__ import annotations

import streamlit as st

from packing import MAX_PACK_LIMIT, TUPLE_ALGORITHMS, PackLimits, PackMethod, price_sweep, smallest_limits
import figures
from throughput import step_cost
from pages import cache, links, recommended, state
from pages.header import page_header
from pages.pricing import priced_workers
from pages.sweeps import RANGE_FIELDS, SETTINGS, check_grid, default_params, grid, sweep_method
from pages.widgets import (
    MAX_WEIGHT,
    algorithm_name,
    entered_text,
    md_text,
    mirrored,
    mirrored_choice,
    run_page,
    show_error,
)

CHART_KEY = "sw_chart"
SCHEDULER = "sw_scheduler"  # a Dask scheduler's address for the next sweep; empty: this machine
FORM = "sw_form_settings"   # {"for": selection key, "params": settings last submitted}
SUBMITTED = "sw_submitted"  # the form was just submitted


def _keep_settings(owner: str) -> None:
    """Keep the settings shown (the heuristic just chosen, the rest as last submitted)."""
    st.session_state[FORM] = {"for": owner, "params": {name: st.session_state[f"sw_{name}"] for name in SETTINGS}}


def _on_submit(owner: str) -> None:
    """Keep the submitted settings (shown again, even when they do not work) and ask to run."""
    _keep_settings(owner)
    st.session_state[SUBMITTED] = True


def form(params: dict, owner: str) -> None:
    """The sweep settings form, showing ``params`` (the settings last submitted for this
    dataset, else its defaults); submitting stores them and asks for a run. The heuristic is
    chosen outside the form, so that the weight boxes are enabled for the weighted sum alone."""
    words = PackMethod.choices(params["algorithm"], "heuristic")
    heuristics = list(words)
    st.columns(3)[0].selectbox("Heuristic", heuristics, format_func=words.get, on_change=_keep_settings,
                               args=(owner,), **mirrored_choice("sw_heuristic", heuristics, params["heuristic"]))
    with st.form("sweep_form"):
        labels = {"n0": "Max nodes from", "n1": "to", "ns": "step", "e0": "Max edges from", "e1": "to", "es": "step"}
        for column, name in zip(st.columns(6), RANGE_FIELDS):
            with column:
                st.number_input(labels[name], min_value=1, max_value=MAX_PACK_LIMIT, step=1, **mirrored(f"sw_{name}", int(params[name])))
        columns = st.columns(3)
        with columns[0]:
            st.number_input("Max graphs per pack", min_value=1, max_value=MAX_PACK_LIMIT, step=1, **mirrored("sw_max_graphs", params["max_graphs"]))
        weight_help = "Used by the weighted heuristic only: node weight x nodes + edge weight x edges."
        unweighted = params["heuristic"] != "weighted"
        columns[1].number_input("Node weight", min_value=0.0, max_value=MAX_WEIGHT, step=0.5, help=weight_help,
                                disabled=unweighted, **mirrored("sw_w_nodes", float(params["w_nodes"])))
        columns[2].number_input("Edge weight", min_value=0.0, max_value=MAX_WEIGHT, step=0.5, help=weight_help,
                                disabled=unweighted, **mirrored("sw_w_edges", float(params["w_edges"])))
        columns = st.columns([3, 1], vertical_alignment="bottom")  # the algorithm's name whole
        with columns[0]:
            st.selectbox("Algorithm", TUPLE_ALGORITHMS, format_func=algorithm_name,
                         **mirrored_choice("sw_algorithm", TUPLE_ALGORITHMS, params["algorithm"]))
        with columns[1]:
            st.form_submit_button("Run sweep", type="primary", width="stretch", on_click=_on_submit, args=(owner,))
        st.text_input("Dask scheduler address (empty: this machine's processes)", key=SCHEDULER,
                      help="For example tcp://scheduler-host:8786: the limit pairs are packed by the cluster's "
                           "workers, in chunks; the numbers are the same as on this machine.")


def run(hist, params: dict):
    """Run (or fetch) the sweep of ``params``, with a progress bar while it runs."""
    nodes, edges = grid(params)
    key = cache.sweep_key(hist, nodes, edges, params["max_graphs"], sweep_method(params))
    frame = cache.cached_sweep(key)
    if frame is not None:
        return frame
    scheduler = entered_text(SCHEDULER)
    where = "" if scheduler is None else f" on the Dask cluster at {scheduler}"
    bar = st.progress(0.0, text=f"Packing {len(nodes) * len(edges):,} limit pairs{where}...")

    def progress(done: int, total: int) -> None:
        bar.progress(done / total, text=f"Packed {done:,} of {total:,} limit pairs{where}")

    frame = cache.run_sweep(hist, nodes, edges, params["max_graphs"], sweep_method(params), progress, scheduler)
    bar.empty()
    if scheduler is not None:
        st.caption(f"Swept{where}.")
    return frame


#: The sweep's method, offered after a cell was chosen while another method is chosen.
METHOD_QUESTION = "sw_method_question"


def _on_cell_click() -> None:
    """Choose the clicked cell's limits for Packing and Export (the method is asked about)."""
    event = st.session_state.get(CHART_KEY)
    sweep = st.session_state.get(state.SWEEP)
    if not event or not sweep:
        return
    trace = st.session_state.get("sw_trace")
    points = [p for p in event["selection"]["points"] if p.get("curve_number") == trace]
    frame = st.session_state.get("sw_frame")
    try:
        max_nodes, max_edges = figures.clicked_limits(frame, points[0]["x"], points[0]["y"])
    except (IndexError, KeyError, TypeError, ValueError):
        return  # a click outside the grid cells selects nothing
    params = sweep["params"]
    _use_limits(PackLimits(max_nodes, max_edges, params["max_graphs"]), params, "the sweep heatmap (clicked cell)")


def _use_limits(limits: PackLimits, params: dict, source: str) -> None:
    """Choose ``limits``; the chosen method stays, and where the sweep packed with another,
    the page asks which to keep (:data:`METHOD_QUESTION`)."""
    state.set_limits(limits, source)
    swept = sweep_method(params)
    if state.method() == swept:
        st.session_state.pop(METHOD_QUESTION, None)
    else:
        st.session_state[METHOD_QUESTION] = swept


def _take_sweep_method() -> None:
    state.set_method(st.session_state.pop(METHOD_QUESTION))


def _keep_method() -> None:
    st.session_state.pop(METHOD_QUESTION, None)


def method_question(method: PackMethod) -> None:
    """Ask whether the chosen limits keep the chosen ``method`` or take the sweep's."""
    swept = st.session_state.get(METHOD_QUESTION)
    if swept is None or swept == method:
        return
    st.warning(f"The heatmap's cells are packed with {swept.label}; these limits are packed with the method you "
               f"chose, {method.label}, so their numbers may differ from the cell's. Which method?",
               icon=":material/help:")
    keep, take = st.columns(2)
    keep.button(f"Keep {method.label}", key="sw_keep_method", on_click=_keep_method, width="stretch")
    take.button(f"Use the sweep's: {swept.label}", key="sw_take_method", on_click=_take_sweep_method,
                width="stretch")


PRICED = "Estimated steady epoch (s)"


def priced(frame, hist) -> tuple:
    """The sweep and what priced it: with the time metric chosen and a calibration chosen on
    the Throughput page, every cell priced at the run's batch size (the steady epoch's wall
    time with the packed loader and the page's loader workers where the calibration timed its
    loaders, else model time: :func:`pages.pricing.priced_workers`); else the harmonic mean."""
    metric = st.radio("Colour the cells by", ["Harmonic mean", PRICED], horizontal=True, key="sw_metric",
                      help="The estimated steady epoch prices every cell on the Throughput page's calibration at the "
                           "run's batch size (set on the Batching page): wall time with the packed loader and the "
                           "page's loader workers, or model time where the page shows model time only or the "
                           "calibration timed no loaders.")
    if metric != PRICED:
        return frame, None
    calibration = recommended.chosen_calibration(recommended.calibration_id())
    if calibration is None:
        st.info("Choose a calibration on the Throughput page to price the cells with a device's step times; the "
                "harmonic mean is shown until then.", icon=":material/info:")
        return frame, None
    batch_size = state.run_batch_size()
    return (price_sweep(frame, hist, batch_size, step_cost(calibration, priced_workers())),
            f"batch size {batch_size:,} on {md_text(calibration.device_name)} ({calibration.mode})")


def results(frame, params: dict, hist, selection: state.Selection) -> None:
    """Heatmap (clickable), best cell, finder and download of a finished sweep of ``hist``
    (the dataset ``selection``)."""
    feasible = frame[frame["feasible"].astype(bool)]
    if feasible.empty:
        st.warning("No limit pair in these ranges fits the largest graph; start the ranges at or above "
                   "the largest graph's nodes and edges.")
        return
    floor = st.slider("Shade cells with a harmonic mean below (%)", 0, 99, 50, key="sw_floor") / 100
    chosen = state.choice()
    selected = (chosen.limits.max_nodes, chosen.limits.max_edges) if chosen else None
    frame, priced_by = priced(frame, hist)
    try:
        recommendation = recommended.current(hist)
    except ValueError:  # fewer graphs than one batch: nothing to mark
        recommendation = None
    mark = None if recommendation is None else (recommendation.limits.max_nodes, recommendation.limits.max_edges)
    fig = figures.sweep_figure(frame, floor=floor, selected=selected, priced_by=priced_by, recommended=mark)
    st.session_state["sw_trace"] = next(i for i, t in enumerate(fig.data) if t.name == figures.SWEEP_TRACE)
    st.session_state["sw_frame"] = frame  # the grid the click's position is on
    st.plotly_chart(fig, key=CHART_KEY, on_select=_on_cell_click, selection_mode="points")
    best = feasible.loc[feasible["harmonic_mean"].idxmax()]
    infeasible = len(frame) - len(feasible)
    edgeless = hist.largest_edges == 0  # judged by the nodes alone (packing.metrics.harmonic_mean)
    edge_words = "no edges to judge" if edgeless else f"edge {best['edge_efficiency']:.2%}"
    st.caption(
        f"Best cell (star): {int(best['max_nodes']):,} nodes, {int(best['max_edges']):,} edges, harmonic mean "
        f"{best['harmonic_mean']:.2%} (node {best['node_efficiency']:.2%}, {edge_words}), "
        f"{int(best['packs']):,} packs. Grey cells are below {floor:.0%}"
        + (f"; {infeasible} empty cells are below the largest graph." if infeasible else ".")
        + f" Click a cell to choose its limits with this sweep's method, {sweep_method(params).label} (red frame)."
    )
    if priced_by is not None:
        near = frame[frame["near_batch_size"].fillna(False).astype(bool)]
    if priced_by is not None and not near.empty:
        fastest = near.loc[near["steady_epoch_s"].idxmin()]
        st.caption(
            f"Fastest cell (star): {int(fastest['max_nodes']):,} nodes, {int(fastest['max_edges']):,} edges, "
            f"{int(fastest['packs_per_step']):,} pack(s) a step of {fastest['graphs_per_step']:.1f} graphs, at most "
            f"{fastest['steady_epoch_s']:.3g} s a steady epoch ({priced_by}). Each cell is priced at its padded step: "
            "its packs per step (about the batch size in graphs, from its pack count) times its limits, and as many "
            "graph slots as a pack of its limits could need (its graph limit, or the most graphs that fit): a sweep "
            "counts packs, not their graphs, so a cell's time is an upper bound where its packs hold fewer. Grey: "
            "steps that would carry 2 % more or fewer graphs than the batch size (another batch size).")
    elif priced_by is not None:
        st.info("No cell of these ranges gives steps of the batch size (within 2 %); widen the ranges.",
                icon=":material/info:")
    if recommendation is not None:
        where = "diamond" if figures.grid_position(mark, *figures.sweep_axes(frame)) is not None else \
            "outside these ranges"
        estimate = "" if recommendation.steady_epoch_s is None else \
            f", {recommendation.steady_epoch_s:.3g} s a steady epoch"
        words = recommended.label(recommendation)
        st.caption(f"{words[0].upper()}{words[1:]} ({where}): {recommendation.limits}, "
                   f"{recommendation.plan.method.label}, {recommendation.packs_per_step:,} pack(s) a step, harmonic mean "
                   f"{recommendation.harmonic_mean:.2%} of the padded steps{estimate} (exact: its plan is packed).")
    largest = frame.loc[(frame["max_nodes"] * frame["max_edges"]).idxmax()]  # the largest cell
    n, e = int(largest["max_nodes"]), int(largest["max_edges"])
    most = hist.graphs_that_fit(n, e)
    if params["max_graphs"] < most:  # it may bind in the larger cells: the largest one tells
        free = cache.plan_for(hist, PackLimits(n, e, most), sweep_method(params)).num_packs
        if free != int(largest["packs"]):
            st.info(f"Max graphs {params['max_graphs']:,} binds in the larger cells: at {n:,} nodes and {e:,} edges "
                    f"it packs {int(largest['packs']):,} packs, {free:,} with Max graphs {most:,} (where only nodes "
                    "and edges decide).", icon=":material/info:")
    if chosen and chosen.source.startswith("the sweep"):
        limits, method = chosen.limits, state.method()
        asked = st.session_state.get(METHOD_QUESTION) not in (None, method)
        other = "" if asked or method == sweep_method(params) else \
            f" The heatmap above is of {sweep_method(params).label}; choosing a cell asks which method to keep."
        st.success(f"Chosen: max nodes {limits.max_nodes:,}, max edges {limits.max_edges:,}, "
                   f"max graphs {limits.max_graphs:,} ({method.label}).{other}")
        method_question(method)
        st.page_link("pages/packing_page.py", label="See this configuration on the Packing page",
                     icon=":material/arrow_forward:")
    st.subheader("Smallest limits that reach a target")
    judged = "node efficiency" if edgeless else "both efficiencies"
    target = st.number_input(f"{judged.capitalize()} at least (%)", min_value=1.0, max_value=100.0, value=95.0,
                             step=0.5, key="sw_target")
    row = smallest_limits(frame, target / 100)
    if row is None:
        st.warning(f"No cell reaches {target:g}% for {judged}; widen the ranges or lower the target.")
    else:
        n, e = int(row["max_nodes"]), int(row["max_edges"])
        edges = "edges not judged: the graphs have none" if edgeless else \
            f"edge efficiency {row['edge_efficiency']:.2%}"
        st.markdown(f"**{n:,} nodes x {e:,} edges** (smallest product of the two): node efficiency "
                    f"{row['node_efficiency']:.2%}, {edges}, {int(row['packs']):,} packs, gap {row['gap']:.2%}.")
        st.button("Use these limits", key="sw_use_found", on_click=_use_limits,
                  args=(PackLimits(n, e, params["max_graphs"]), params,
                        f"the sweep finder ({judged} >= {target:g}%)"))
    name = f"{selection.file_stem}-sweep-{params['n0']}-{params['n1']}n-{params['e0']}-{params['e1']}e.csv"
    st.download_button("Download the sweep as CSV", frame.to_csv(index=False), file_name=name,
                       mime="text/csv", key="sw_csv", on_click="ignore")


def main() -> None:
    loaded = page_header("Limit sweep",
                         lambda hist: f"Largest graph: {hist.largest_nodes:,} nodes, {hist.largest_edges:,} edges.")
    if loaded is None:
        return
    selection, hist, _ = loaded
    links.claim_sweep(selection)  # a link opened on this page shows its sweep at once
    last = st.session_state.get(state.SWEEP)
    shown = st.session_state.get(FORM)
    if shown and shown["for"] == selection.key:
        params = shown["params"]
    elif last and last["for"] == selection.key:
        params = last["params"]
    else:
        params = default_params(hist, state.choice().limits.max_graphs, state.method())
    form(params, selection.key)
    if st.session_state.pop(SUBMITTED, False):
        submitted = params
        problem = check_grid(submitted)
        if problem:
            st.error(f"**The sweep cannot run.** {md_text(problem)}", icon=":material/error:")
            return
        try:
            run(hist, submitted)
        except ValueError as error:
            show_error(error, "The sweep cannot run")
            return
        st.session_state[state.SWEEP] = {"for": selection.key, "params": submitted}
        last, params = st.session_state[state.SWEEP], submitted
    if not last or last["for"] != selection.key:
        st.info("Set the ranges (defaults: from the largest graph up to four times it) and press **Run sweep**.")
        return
    frame = run(hist, params)
    results(frame, params, hist, selection)


run_page(main)
