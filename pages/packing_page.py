"""Packing page: limits and method, result cards, plots, Table 2 comparison, strategies."""
from __future__ import annotations

from contextlib import nullcontext

import streamlit as st

from packing import ALGORITHMS, BASELINES, BEST, HEURISTICS, ONE_DIM_ALGORITHMS
from pages import cache, figures, state
from pages.widgets import ALGORITHM_LABELS, current_dataset, run_page, show_error

VIEWS = ["Plots", "All methods (Table 2)", "Pack strategies"]
LIMIT_LABELS = {"max_nodes": "Max nodes per pack", "max_edges": "Max edges per pack", "max_graphs": "Max graphs per pack"}


def _on_limit_change() -> None:
    values = {name: st.session_state[f"pk_{name}"] for name in LIMIT_LABELS}
    if any(value is None for value in values.values()):
        return
    state.set_limits(**values, source="your input on the Packing page")


def _on_method_change() -> None:
    state.set_method(**{name: st.session_state[f"pk_{name}"] for name in ("heuristic", "algorithm", "one_dim")})


def controls(hist) -> None:
    """Limit inputs and method choice; they write the chosen configuration to session state."""
    chosen, method = state.limits(), state.method()
    # Written on every run, before the widgets exist, so that the browser shows limits and a
    # method chosen elsewhere (a sweep cell, a loaded configuration) rather than stale defaults.
    for name in LIMIT_LABELS:
        st.session_state[f"pk_{name}"] = chosen[name]
    for name in ("heuristic", "algorithm", "one_dim"):
        st.session_state[f"pk_{name}"] = method[name]
    columns = st.columns([1, 1, 1, 1])
    for column, (name, label) in zip(columns, LIMIT_LABELS.items()):
        with column:
            st.number_input(label, min_value=1, step=1, key=f"pk_{name}", on_change=_on_limit_change)
    defaults = state.data_defaults(hist)
    with columns[3]:
        st.write("")
        st.button("Reset to data defaults", on_click=state.reset_limits, args=(hist,),
                  help=f"{defaults[0]:,} nodes and {defaults[1]:,} edges (the largest graph, at least 1 each); "
                       f"{defaults[2]:,} graphs per pack.")
    st.caption(f"Limits from {chosen['source']}. The largest graph has {hist.max_nodes:,} nodes and "
               f"{hist.max_edges:,} edges, so limits must be at least that.")
    columns = st.columns(3)
    algorithm = st.session_state["pk_algorithm"]
    with columns[0]:
        st.selectbox("Algorithm", [*ALGORITHMS, BEST, *BASELINES], key="pk_algorithm",
                     format_func=ALGORITHM_LABELS.get, on_change=_on_method_change)
    with columns[1]:
        st.selectbox("Heuristic (orders graphs and packs)", list(HEURISTICS), key="pk_heuristic",
                     on_change=_on_method_change, disabled=algorithm not in ALGORITHMS)
    with columns[2]:
        st.selectbox("1D algorithm for the node/edge-only baselines", ONE_DIM_ALGORITHMS, key="pk_one_dim",
                     on_change=_on_method_change, disabled=algorithm not in ("node_only", "edge_only"))


def result_cards(plan) -> None:
    """The headline metrics of a plan."""
    row = st.columns(4)
    row[0].metric("Node efficiency", f"{plan.node_efficiency:.2%}")
    row[1].metric("Edge efficiency", f"{plan.edge_efficiency:.2%}")
    row[2].metric("Harmonic mean", f"{plan.harmonic_mean:.2%}")
    row[3].metric("Packing factor", f"{plan.packing_factor:.2f}", help="graphs per pack on average")
    row = st.columns(4)
    row[0].metric("Packs", f"{plan.num_packs:,}")
    row[1].metric("Lower bound", f"{plan.lower_bound:,}")
    row[2].metric("Gap to lower bound", f"{plan.gap:.2%}", help="packs / lower bound - 1; 0 means optimal")
    shares = plan.closing_limit_shares()
    closing = max(shares, key=shares.get)
    row[3].metric("Packs closed by", closing,
                  help="Which limit each pack is closest to: graphs when its graph slots are full, else "
                       "the fuller of nodes and edges.")
    st.caption(
        "Limit that closes the packs: " + ", ".join(f"{name} {share:.1%}" for name, share in shares.items())
        + f". Tight limits actually used: {plan.tight_limits[0]:,} nodes, {plan.tight_limits[1]:,} edges. "
        f"Method: {plan.heuristic} / {plan.algorithm}, {plan.num_strategies:,} distinct packs."
    )
    if plan.unlimited:
        st.info(f"This baseline ignores the {plan.unlimited} limit; its {plan.unlimited[:-1]} efficiency is "
                f"measured against the largest sum that occurs, as in Table 2 of Krell et al.")


def main() -> None:
    st.title("Packing")
    loaded = current_dataset()
    if loaded is None:
        return
    selection, hist, _ = loaded
    st.caption(f"Dataset: {selection.label}: {hist.num_graphs:,} graphs, {hist.num_tuples:,} size tuples.")
    controls(hist)
    chosen, method = state.limits(), state.method()
    limits = (chosen["max_nodes"], chosen["max_edges"], chosen["max_graphs"])
    searching = st.spinner("Trying every heuristic and algorithm...") if method["algorithm"] == BEST else nullcontext()
    try:
        with searching:
            plan = cache.plan_for(hist, *limits, method["heuristic"], method["algorithm"], method["one_dim"])
    except ValueError as error:
        show_error(error, "These limits do not work")
        st.info("Use **Reset to data defaults** or pick limits on the Limit sweep page.")
        return
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
            comparison_table(hist, limits, method["one_dim"])
    if strategies.open:
        with strategies:
            st.plotly_chart(figures.strategies_figure(plan), key="pk_strategies")
            with st.expander(f"All {plan.num_strategies:,} distinct packs"):
                fill = {name: st.column_config.ProgressColumn(name.replace("_", " "), min_value=0, max_value=1)
                        for name in ("node_fill", "edge_fill")}
                st.dataframe(plan.to_frame(), hide_index=True, width="stretch", column_config=fill)


def comparison_table(hist, limits: tuple[int, int, int], one_dim: str) -> None:
    """Every heuristic x algorithm and the three baselines (Table 2 layout), the best tuple packing highlighted."""
    table = cache.compare_table(hist, *limits, one_dim)
    st.dataframe(figures.highlight_best(table), hide_index=True, width="stretch")
    st.caption("Layout of Table 2 of Krell et al.; the best value per column among the tuple-packing rows is "
               "highlighted. The baselines (none, node-only, edge-only) are never highlighted: node-only and "
               "edge-only ignore one limit, so their packs break it. Efficiencies are against the limits above "
               "(baselines: against the largest sum for the ignored component).")

run_page(main)
