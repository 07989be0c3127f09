"""Packing page: limits and method, result cards, plots, Table 2 comparison, strategies."""
from __future__ import annotations

from contextlib import nullcontext

import pandas as pd
import streamlit as st

from packing import ALGORITHMS, MAX_PACK_LIMIT, PackLimits, PackMethod, PackingPlan, lower_bounds
from packing.words import BOUND_LABELS, bound_words, unused_graph_slots
import figures
from pages import cache, recommended, state
from pages.header import page_header
from pages.widgets import (
    MAX_WEIGHT,
    PROVE_SECONDS,
    algorithm_name,
    md_text,
    mirrored,
    mirrored_choice,
    packing_shown,
    progress_shown,
    run_page,
    show_error,
    table_in_two,
    with_proof,
)

VIEWS = ["Plots", "All methods (Table 2)", "Pack strategies"]
LIMIT_LABELS = {"max_nodes": "Max nodes per pack", "max_edges": "Max edges per pack", "max_graphs": "Max graphs per pack"}
METHOD_MEMORY = "pk_method_memory"  # heuristics, 1D algorithm and weights last chosen
LIMIT_ERROR = "pk_limit_error"  # why the limits typed last were not taken
CHOICES = list(ALGORITHMS)
#: Pixels of a table's method column: "min as published (= max) / published" shows whole.
METHOD_WIDTH = 260


def _on_limit_change() -> None:
    values = [st.session_state[f"pk_{name}"] for name in LIMIT_LABELS]
    if any(value is None for value in values):
        return
    try:
        state.set_limits(PackLimits(*values), "your input on the Packing page")
    except ValueError as error:  # keep the last limits and say why
        st.session_state[LIMIT_ERROR] = str(error)


def _settings() -> dict:
    """The heuristic, 1D algorithm and weights to show: the chosen method's, else the last
    chosen (remembered while an algorithm that does not take them is chosen)."""
    method = state.method()
    remembered = st.session_state.setdefault(METHOD_MEMORY, {"heuristic": "product", "published": "product",
                                                              "one_dim": "lpfhp", "weights": (1.0, 1.0)})
    if method.heuristic is not None:
        remembered[_heuristic_key(method.algorithm)] = method.heuristic
    if method.one_dim is not None:
        remembered["one_dim"] = method.one_dim
    if method.weights is not None:
        remembered["weights"] = method.weights
    return remembered


def _heuristic_key(algorithm: str) -> str:
    """The published algorithm names its heuristics its own way, so it has its own widget."""
    return "published" if algorithm == "published" else "heuristic"


def _method_from_widgets() -> PackMethod:
    """The method the widgets describe, with the settings the engine says the algorithm takes."""
    shown = _settings()
    algorithm = st.session_state["pk_algorithm"]
    takes = PackMethod.settings_for(algorithm)
    chosen = {}
    if "one_dim" in takes:
        chosen["one_dim"] = st.session_state.get("pk_one_dim", shown["one_dim"])
    if "heuristic" in takes:
        key = _heuristic_key(algorithm)
        chosen["heuristic"] = st.session_state.get(f"pk_{key}", shown[key])
    if "weights" in takes and chosen["heuristic"] == "weighted":
        chosen["weights"] = (st.session_state.get("pk_w_nodes", shown["weights"][0]),
                             st.session_state.get("pk_w_edges", shown["weights"][1]))
    return PackMethod(algorithm, **chosen)


def _on_method_change() -> None:
    try:
        state.set_method(_method_from_widgets())
    except ValueError as error:  # weights both zero, say: keep the last method and say why
        st.session_state["pk_method_error"] = str(error)


def controls(hist) -> None:
    """Limit inputs and method choice: they show the chosen configuration (chosen here or
    elsewhere: a sweep cell, a link, a loaded configuration) and write changes back."""
    chosen, method, shown = state.choice(), state.method(), _settings()
    columns = st.columns([1, 1, 1, 1])
    for column, (name, label) in zip(columns, LIMIT_LABELS.items()):
        with column:
            st.number_input(label, min_value=1, max_value=MAX_PACK_LIMIT, step=1, on_change=_on_limit_change,
                            **mirrored(f"pk_{name}", getattr(chosen.limits, name)))
    defaults = state.data_defaults(hist)
    with columns[3]:
        st.write("")
        if not chosen.is_recommended:
            st.button("Use the recommendation", on_click=recommended.choose, args=(hist, None, True),
                      help="The limits and method with the least padding at the run's batch size (set on the Batching "
                           "page), or the fastest on the Throughput page's calibration once you chose one; they then "
                           "follow the batch size and the calibration.")
        if chosen.limits != defaults:
            st.button("Reset to data defaults", on_click=state.reset_limits, args=(hist,),
                      help=f"{defaults.max_nodes:,} nodes and {defaults.max_edges:,} edges (the largest graph, at "
                           f"least 1 each); {defaults.max_graphs:,} graphs per pack.")
    st.caption(f"{md_text(chosen.origin)}. The largest graph has {hist.largest_nodes:,} nodes and the graph with the "
               f"most edges has {hist.largest_edges:,}, so limits must be at least that.")
    problem = st.session_state.pop(LIMIT_ERROR, None)
    if problem:
        st.error(f"**Those limits do not work; the last ones are kept.** {md_text(problem)}", icon=":material/error:")
    algorithm = method.algorithm
    takes = PackMethod.settings_for(algorithm)
    columns = st.columns([3, 2, 2])  # the algorithm names are the longest: room to read them whole
    with columns[0]:
        st.selectbox("Algorithm", CHOICES, **mirrored_choice("pk_algorithm", CHOICES, algorithm),
                     format_func=algorithm_name, on_change=_on_method_change)
    with columns[1]:
        if "heuristic" in takes:
            key = _heuristic_key(algorithm)
            words = PackMethod.choices(algorithm, "heuristic")
            published = key == "published"
            st.selectbox("Heuristic (as the paper names them)" if published else "Heuristic (orders the graphs)",
                         list(words), **mirrored_choice(f"pk_{key}", list(words), shown[key]),
                         format_func=words.get, on_change=_on_method_change,
                         help="The paper's Minimum row came from the public code's min, which computes the "
                              "maximum: 'min as published' reproduces it; 'min' is a real minimum." if published
                         else ALGORITHMS[algorithm].summary)
        elif "one_dim" in takes:
            words = PackMethod.choices(algorithm, "one_dim")
            st.selectbox("1D algorithm of the baseline", list(words),
                         **mirrored_choice("pk_one_dim", list(words), shown["one_dim"]),
                         format_func=words.get, on_change=_on_method_change)
        else:
            st.caption(ALGORITHMS[algorithm].summary)
    with columns[2]:
        if "weights" in takes and shown["heuristic"] == "weighted":
            left, right = st.columns(2)
            left.number_input("Node weight", min_value=0.0, max_value=MAX_WEIGHT, step=0.5, on_change=_on_method_change,
                              **mirrored("pk_w_nodes", float(shown["weights"][0])))
            right.number_input("Edge weight", min_value=0.0, max_value=MAX_WEIGHT, step=0.5, on_change=_on_method_change,
                               **mirrored("pk_w_edges", float(shown["weights"][1])))
    problem = st.session_state.pop("pk_method_error", None)
    if problem:
        st.error(f"**That method does not work.** {md_text(problem)}", icon=":material/error:")


def result_cards(plan) -> None:
    """The headline metrics of a plan; a plan that breaks a limit says so on its cards."""
    broken = plan.broken_limits()
    flag = {"max_nodes": "node", "max_edges": "edge"}
    breaks = " and ".join(f"the {flag[name]} limit" for name in broken)
    row = st.columns(4)
    for column, (label, name, value) in zip(row, (
        ("Node efficiency", "max_nodes", plan.node_efficiency), ("Edge efficiency", "max_edges", plan.edge_efficiency),
    )):
        if name in broken:
            column.metric(f"{label} (limit broken)", f"{value:.2%}",
                          delta=f"packs hold up to {broken[name]:,} > limit {getattr(plan.limits, name):,}",
                          delta_color="inverse", delta_arrow="off",
                          help="Measured against the largest sum that occurs, because this baseline ignores the limit.")
        else:
            column.metric(label, f"{value:.2%}")
    if broken:
        row[2].metric("Harmonic mean (not comparable)", f"{plan.harmonic_mean:.2%}", delta=f"breaks {breaks}",
                      delta_color="inverse", delta_arrow="off",
                      help="This plan breaks a limit, so it is not ranked against plans that keep every limit.")
    else:
        row[2].metric("Harmonic mean", f"{plan.harmonic_mean:.2%}")
    row[3].metric("Packing factor", f"{plan.packing_factor:.2f}", help="graphs per pack on average")
    row = st.columns(4)
    row[0].metric("Packs", f"{plan.num_packs:,}")
    row[1].metric("Lower bound", f"{plan.lower_bound:,}", delta=BOUND_LABELS[plan.bound_name].split(" (")[0],
                  delta_color="off", delta_arrow="off",  # the bound's name under it: short labels fit 1,024 px
                  help=f"No plan within the limits can use fewer packs. Proved by the {bound_words(plan.bounds)}."
                       + (" The limit this baseline breaks is left out." if broken else ""))
    row[2].metric("Gap to bound", f"{plan.gap:.2%}", delta="optimal" if plan.gap == 0 else None,
                  delta_arrow="off",
                  help="packs / lower bound - 1: the plan uses at most this much more than the best possible; "
                       "0 proves it optimal.")
    words = (f"Tight limits actually used: {plan.tight_limits[0]:,} nodes, {plan.tight_limits[1]:,} edges. "
             f"Method: {plan.label}, {plan.num_strategies:,} distinct packs.")
    if plan.method.algorithm != "none":  # one graph per pack: no limit closes a pack
        shares = plan.closing_limit_shares()
        closing = max(shares, key=shares.get)
        row[3].metric("Packs closed by", closing,
                      help="Which limit each pack is closest to: graphs when its graph slots are full, else the "
                           "fuller of nodes and edges.")
        words = ("Limit that closes the packs: " + ", ".join(f"{name} {share:.1%}" for name, share in shares.items())
                 + ". " + words)
    unused = unused_graph_slots(plan)
    if unused:
        words += " " + unused
    if plan.total_edges == 0:
        words += " The graphs have no edges, so the harmonic mean is the node efficiency."
    st.caption(words)
    if plan.requested is not None:
        st.success(f"**{plan.label}**" + ("" if plan.improved else " (exact fill saved no packs here)"),
                   icon=":material/emoji_events:")


def _prove(key: tuple) -> None:
    state.proved().add(key)


def prove_section(hist, plan) -> None:
    """Offer the LP bound where the gap is not yet closed, and say what it found."""
    key = (hist.fingerprint(), plan.limits)
    if not plan.method.keeps_limits:
        return
    result = plan.bounds.lp_result
    if result is not None:
        st.caption(f"LP bound: {plan.bounds.lp:,} packs after {result.iterations:,} rounds of column generation in "
                   f"{result.seconds:.1f} s ({result.stop_reason}; the bound holds even when stopped early).")
        shown = plan.bounds.name_of_best
        if shown != "lp":
            st.info(f"The LP bound is {plan.bounds.lp:,}, no tighter than the {BOUND_LABELS[shown]} "
                    f"{plan.bounds.best:,} already shown.", icon=":material/info:")
    elif plan.gap > 0 and key not in state.proved():
        st.button(f"Prove a tighter lower bound (LP relaxation, up to {PROVE_SECONDS} s)", on_click=_prove,
                  args=(key,), key="pk_prove",
                  help="Solves the LP relaxation of the pattern formulation by column generation (Gilmore-Gomory) "
                       "and keeps the bound it proves (Farley), to tell how far this plan can be from optimal.")


def main() -> None:
    loaded = page_header("Packing", lambda hist: f"{hist.num_tuples:,} distinct (nodes, edges) size tuples.")
    if loaded is None:
        return
    selection, hist, _ = loaded
    controls(hist)
    limits, method = state.choice().limits, state.method()
    searching = st.spinner("Trying every heuristic and algorithm...") if method.algorithm == "best" else nullcontext()
    work = st.container()  # progress of slow work shows in here, so the cards below keep their place meanwhile
    try:
        with work:
            if method.algorithm == "lp_rounding":  # the LP runs first, with progress; the plan then reuses it
                state.proved().add((hist.fingerprint(), limits))
                with progress_shown("Solving the LP relaxation") as progress:
                    lower_bounds(hist, limits, prove=True, time_budget=PROVE_SECONDS,
                                 progress=lambda fraction, message: progress(message, fraction))
            with searching:
                with packing_shown(f"Packing with {method.label}") as progress:
                    plan = with_proof(hist, cache.plan_for(hist, limits, method, progress))
    except ValueError as error:
        show_error(error, "These limits do not work")
        st.info("Use **Reset to data defaults** or pick limits on the Limit sweep page.")
        return
    state.plan_words()[(selection.key, limits, method)] = plan.label
    result_cards(plan)
    prove_section(hist, plan)
    # Tabs run only when open, so changing limits recomputes just what is on screen.
    plots, table, strategies = st.tabs(VIEWS, key="pk_view", on_change="rerun")
    if plots.open:
        with plots:
            left, right = st.columns(2)
            with left:
                st.plotly_chart(figures.graphs_per_pack_figure(plan), key="pk_graphs_per_pack")
            with right:
                st.plotly_chart(figures.pack_fill_figure(plan), key="pk_fill")
    if table.open:
        with table:
            comparison_table(hist, plan, selection.name)
    if strategies.open:
        with strategies:
            st.plotly_chart(figures.strategies_figure(plan), key="pk_strategies")
            with st.expander(f"All {plan.num_strategies:,} distinct packs"):
                fill = {name: st.column_config.ProgressColumn(name.replace("_", " "), min_value=0, max_value=1)
                        for name in ("node_fill", "edge_fill")}
                st.dataframe(plan.to_frame(), hide_index=True, width="stretch", column_config=fill)


def _published_columns() -> dict:
    """The published table's columns: the method whole, counts with separators, our
    percentages to two decimals, the paper's (text: blank where it printed none) to the right."""
    labels = figures.PUBLISHED_LABELS
    formats = {"packs": "localized", "tight_nodes": "localized", "tight_edges": "localized",
               "tight_node_pct": "%.2f", "tight_edge_pct": "%.2f"}
    return {"method": st.column_config.TextColumn(labels["method"], width=METHOD_WIDTH, pinned=True),
            **{name: st.column_config.NumberColumn(labels[name], format=number_format)
               for name, number_format in formats.items()},
            **{name: st.column_config.TextColumn(labels[name], alignment="right")
               for name in ("paper_node_pct", "paper_edge_pct")}}


def comparison_table(hist, plan: PackingPlan, dataset: str) -> None:
    """Every heuristic x algorithm, the published algorithm, best of all, the three
    baselines (Table 2 layout) and the chosen ``plan`` where it is none of them, the best
    plan that keeps the limits highlighted, every row shown; then the published algorithm
    in the paper's own convention."""
    limits, one_dim = plan.limits, plan.requested_method.one_dim or "lpfhp"
    table = cache.compare_table(hist, limits, one_dim, (hist.fingerprint(), limits) in state.proved(), plan)
    # "method" holds heuristic and algorithm; the efficiencies come before the bound's columns,
    # so that they stay in view on a laptop's screen (the method column stays while scrolling)
    first = ["method", "keeps_limits", "packs", "node_efficiency", "edge_efficiency", "harmonic_mean"]
    shown = first + [name for name in table.columns if name not in (*first, "heuristic", "algorithm")]
    table_in_two(figures.highlight_best(table), first, "More columns: lower bound, gap, graphs per pack, bound",
                 height="content", column_order=shown, column_config={
                     **figures.COMPARE_LABELS, "method": st.column_config.TextColumn(
                         figures.COMPARE_LABELS["method"], width=METHOD_WIDTH, pinned=True)})
    st.caption("Layout of Table 2 of Krell et al.; the best value per column among the plans that keep every limit "
               "is highlighted. Node-only and edge-only ignore one limit, so their packs break it (keeps limits: "
               "no) and they are never highlighted. Efficiencies are against the limits above (node-only and "
               "edge-only: against the largest sum for the ignored component); the bound column names the lower "
               "bound each gap is measured against."
               + (" The last row is the chosen method, which no row above is." if
                  table["method"].iloc[-1].startswith("chosen: ") else ""))
    st.markdown("**The published algorithm in the paper's convention** (efficiency against the tight limits, the "
                "largest sums its packs use)")
    published = cache.published_rows(hist, limits, dataset)
    paper = ["paper_node_pct", "paper_edge_pct"]  # printed to one decimal; blank where the paper printed none
    shown = published.assign(**{name: [f"{value:.1f}" if pd.notna(value) else "" for value in published[name]]
                                for name in paper})
    st.dataframe(shown, hide_index=True, width="stretch", height="content",
                 column_order=["method", "packs", "tight_nodes", "tight_edges", "tight_node_pct", "tight_edge_pct",
                               *paper], column_config=_published_columns())
    if published["paper_node_pct"].notna().any():
        st.caption("Next to the numbers printed in Table 2 of Krell et al. (2022) for this dataset at these limits.")
    else:
        st.caption("The paper printed Table 2 for the training splits of ogbg-molhiv and ogbg-molpcba at their "
                   "data-default limits only.")


run_page(main)
