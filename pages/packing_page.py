"""Packing page: limits and method, result cards, plots, Table 2 comparison, strategies."""
from __future__ import annotations

from contextlib import nullcontext

import streamlit as st

from packing import BASELINES, BEST, ONE_DIM_ALGORITHMS, TUPLE_ALGORITHMS, PackLimits, PackMethod
from pages import cache, figures, state
from pages.widgets import (
    ALGORITHM_LABELS,
    HEURISTIC_LABELS,
    current_dataset,
    mirrored,
    mirrored_choice,
    run_page,
    show_error,
)

VIEWS = ["Plots", "All methods (Table 2)", "Pack strategies"]
LIMIT_LABELS = {"max_nodes": "Max nodes per pack", "max_edges": "Max edges per pack", "max_graphs": "Max graphs per pack"}
METHOD_MEMORY = "pk_method_memory"  # heuristic, 1D algorithm and weights last chosen
ONE_DIM_LABELS = {"lpfhp": "LPFHP (longest pack first)", "spfhp": "SPFHP (shortest pack first)",
                  "nnlshp": "NNLSHP (least-squares mixture)"}


def _on_limit_change() -> None:
    values = [st.session_state[f"pk_{name}"] for name in LIMIT_LABELS]
    if any(value is None for value in values):
        return
    state.set_limits(PackLimits(*values), "your input on the Packing page")


def _settings() -> dict:
    """The heuristic, 1D algorithm and weights to show: the chosen method's, else the last
    chosen (remembered while an algorithm that does not take them is chosen)."""
    method = state.method()
    remembered = st.session_state.setdefault(METHOD_MEMORY, {"heuristic": "product", "one_dim": "lpfhp",
                                                              "weights": (1.0, 1.0)})
    if method.heuristic is not None:
        remembered["heuristic"] = method.heuristic
    if method.one_dim is not None:
        remembered["one_dim"] = method.one_dim
    if method.weights is not None:
        remembered["weights"] = method.weights
    return remembered


def _method_from_widgets() -> PackMethod:
    """The method the widgets describe; settings that do not apply to the algorithm are left out."""
    shown = _settings()
    algorithm = st.session_state["pk_algorithm"]
    if algorithm in BASELINES:
        return PackMethod(algorithm, one_dim=st.session_state.get("pk_one_dim", shown["one_dim"])
                          if algorithm != "none" else None)
    if algorithm == BEST:
        return PackMethod(BEST)
    heuristic = st.session_state.get("pk_heuristic", shown["heuristic"])
    weights = (st.session_state.get("pk_w_nodes", shown["weights"][0]),
               st.session_state.get("pk_w_edges", shown["weights"][1])) if heuristic == "weighted" else None
    return PackMethod(algorithm, heuristic, weights=weights)


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
            st.number_input(label, min_value=1, step=1, on_change=_on_limit_change,
                            **mirrored(f"pk_{name}", getattr(chosen.limits, name)))
    defaults = state.data_defaults(hist)
    with columns[3]:
        st.write("")
        st.button("Reset to data defaults", on_click=state.reset_limits, args=(hist,),
                  help=f"{defaults.max_nodes:,} nodes and {defaults.max_edges:,} edges (the largest graph, at least "
                       f"1 each); {defaults.max_graphs:,} graphs per pack.")
    st.caption(f"Limits from {chosen.source}. The largest graph has {hist.max_nodes:,} nodes and the graph with the "
               f"most edges has {hist.max_edges:,}, so limits must be at least that.")
    algorithm = method.algorithm
    algorithms = [*TUPLE_ALGORITHMS, BEST, *BASELINES]
    columns = st.columns(3)
    with columns[0]:
        st.selectbox("Algorithm", algorithms, **mirrored_choice("pk_algorithm", algorithms, algorithm),
                     format_func=ALGORITHM_LABELS.get, on_change=_on_method_change)
    with columns[1]:
        if algorithm in TUPLE_ALGORITHMS:
            heuristics = list(HEURISTIC_LABELS)
            st.selectbox("Heuristic (orders graphs and packs)", heuristics,
                         **mirrored_choice("pk_heuristic", heuristics, shown["heuristic"]),
                         format_func=HEURISTIC_LABELS.get, on_change=_on_method_change)
        elif algorithm in ("node_only", "edge_only"):
            st.selectbox("1D algorithm of the baseline", ONE_DIM_ALGORITHMS,
                         **mirrored_choice("pk_one_dim", ONE_DIM_ALGORITHMS, shown["one_dim"]),
                         format_func=ONE_DIM_LABELS.get, on_change=_on_method_change)
        else:
            st.caption("Best of all tries every heuristic with every tuple algorithm." if algorithm == BEST
                       else "No packing: one graph per pack.")
    with columns[2]:
        if algorithm in TUPLE_ALGORITHMS and shown["heuristic"] == "weighted":
            left, right = st.columns(2)
            left.number_input("Node weight", min_value=0.0, step=0.5, on_change=_on_method_change,
                              **mirrored("pk_w_nodes", float(shown["weights"][0])))
            right.number_input("Edge weight", min_value=0.0, step=0.5, on_change=_on_method_change,
                               **mirrored("pk_w_edges", float(shown["weights"][1])))
    problem = st.session_state.pop("pk_method_error", None)
    if problem:
        st.error(f"**That method does not work.** {problem}", icon=":material/error:")


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
    row[1].metric("Lower bound", f"{plan.lower_bound:,}",
                  help="No plan within the limits can use fewer packs (volume bound: total nodes, edges and graphs "
                       "over the limits)." + (" The limit this baseline breaks is left out." if broken else ""))
    row[2].metric("Gap to lower bound", f"{plan.gap:.2%}", help="packs / lower bound - 1; 0 means optimal")
    shares = plan.closing_limit_shares()
    closing = max(shares, key=shares.get)
    row[3].metric("Packs closed by", closing,
                  help="Which limit each pack is closest to: graphs when its graph slots are full, else the fuller "
                       "of nodes and edges.")
    st.caption(
        "Limit that closes the packs: " + ", ".join(f"{name} {share:.1%}" for name, share in shares.items())
        + f". Tight limits actually used: {plan.tight_limits[0]:,} nodes, {plan.tight_limits[1]:,} edges. "
        f"Method: {plan.label}, {plan.num_strategies:,} distinct packs."
    )
    if plan.requested is not None:
        st.success(f"**{plan.label}**" + ("" if plan.improved else " (exact fill saved no packs here)"),
                   icon=":material/emoji_events:")


def main() -> None:
    st.title("Packing")
    loaded = current_dataset()
    if loaded is None:
        return
    selection, hist, _ = loaded
    st.caption(f"Dataset: {selection.label}: {hist.num_graphs:,} graphs, {hist.num_tuples:,} distinct "
               "(nodes, edges) size tuples.")
    controls(hist)
    limits, method = state.choice().limits, state.method()
    searching = st.spinner("Trying every heuristic and algorithm...") if method.algorithm == BEST else nullcontext()
    try:
        with searching:
            plan = cache.plan_for(hist, limits, method)
    except ValueError as error:
        show_error(error, "These limits do not work")
        st.info("Use **Reset to data defaults** or pick limits on the Limit sweep page.")
        return
    state.plan_words()[(selection.key, limits, method)] = plan.label
    result_cards(plan)
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
            comparison_table(hist, limits, method.one_dim or "lpfhp")
    if strategies.open:
        with strategies:
            st.plotly_chart(figures.strategies_figure(plan), key="pk_strategies")
            with st.expander(f"All {plan.num_strategies:,} distinct packs"):
                fill = {name: st.column_config.ProgressColumn(name.replace("_", " "), min_value=0, max_value=1)
                        for name in ("node_fill", "edge_fill")}
                st.dataframe(plan.to_frame(), hide_index=True, width="stretch", column_config=fill)


def comparison_table(hist, limits: PackLimits, one_dim: str) -> None:
    """Every heuristic x algorithm, best of all and the three baselines (Table 2 layout),
    the best plan that keeps the limits highlighted, every row shown."""
    table = cache.compare_table(hist, limits, one_dim)
    shown = [name for name in table.columns if name not in ("heuristic", "algorithm")]  # both are in "method"
    st.dataframe(figures.highlight_best(table), hide_index=True, width="stretch", height="content",
                 column_config=figures.COMPARE_LABELS, column_order=shown)
    st.caption("Layout of Table 2 of Krell et al.; the best value per column among the plans that keep every limit "
               "is highlighted. Node-only and edge-only ignore one limit, so their packs break it (keeps limits: "
               "no) and they are never highlighted. Efficiencies are against the limits above (node-only and "
               "edge-only: against the largest sum for the ignored component).")


run_page(main)
