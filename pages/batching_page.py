"""Batching page: the batching users have today (static-constant, static-64, static-2^N,
dynamic, PyG's DynamicBatchSampler, shape buckets) next to packing with the chosen limits,
simulated exactly on the chosen dataset's graph sizes (``packing.batching``)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from packing import BatchShape, PackLimits
from packing.batching import DEFAULT_BUCKETS
from packing.words import describe_settings, short_run_note
import figures.batching as batching_figures
from pages import cache, state
from pages.header import page_header
from pages.packing_row import packing_row
from pages.run_controls import run_controls
from pages.widgets import mirrored, percent_column, run_page, share_shown, table_in_two

#: Table column -> (label, number format, help).
_NUMBERS = {
    "batches": ("Batches", "localized", None),
    "steps": ("Steps", "localized", None),
    "node_efficiency": ("Real nodes", "percent", "real nodes / padded nodes over the run"),
    "edge_efficiency": ("Real edges", "percent", "real edges / padded edges over the run"),
    "graph_efficiency": ("Real graphs", "percent", "real graphs / graph slots over the run"),
    "distinct_shapes": ("Distinct shapes", "localized", "padded (nodes, edges, graphs) shapes seen: compilations"),
    "max_padded_nodes": ("Largest nodes", "localized", "largest padded node count of a batch (memory)"),
    "max_padded_edges": ("Largest edges", "localized", "largest padded edge count of a batch (memory)"),
    "max_padded_graphs": ("Largest graphs", "localized", None),
    "batches_per_epoch": ("Batches per epoch", "%.1f", None),
    "mean_graphs_per_batch": ("Graphs per batch", "%.2f", None),
    "mixed_shape_steps": ("Steps with mixed shapes", "percent", "steps whose device batches differ in shape"),
    "step_node_efficiency": ("Real nodes, step-padded", "percent", "every device padded to the step's largest shape"),
    "step_edge_efficiency": ("Real edges, step-padded", "percent", "every device padded to the step's largest shape"),
    "step_distinct_shapes": ("Step shapes", "localized", "distinct shapes of the step-padded batches"),
}
#: Pixels of a count column: 128,000,000 batches (2,000,000 steps on 64 devices) and the label "Distinct
#: shapes" show whole. (A column sized to its first numbers kept that width when a longer run came, and cut
#: the leading digits.)
_COUNT_WIDTH = 110
COLUMNS = {
    "strategy": st.column_config.TextColumn("Strategy", pinned=True),  # stays in view while scrolling right
    **{column: percent_column(label, help=text) if number_format == "percent"
       else st.column_config.NumberColumn(label, format=number_format, help=text, width=_COUNT_WIDTH)
       for column, (label, number_format, text) in _NUMBERS.items()},
    "settings": st.column_config.TextColumn("Settings", width="large"),
}


#: The columns of the comparison shown first (the rest below, under "More columns").
MAIN_COLUMNS = ["strategy", "batches", "steps", "node_efficiency", "edge_efficiency", "graph_efficiency",
                "distinct_shapes", "max_padded_nodes", "max_padded_edges"]


def _save_shapes() -> None:
    state.set_run_settings(num_shapes=int(st.session_state["bt_shapes"]))


def controls() -> dict:
    """The run's controls (shared with the Throughput page) and the bucket shapes; the run
    settings."""
    run_controls()
    st.slider("Bucket shapes K", *state.RUN_BOUNDS["num_shapes"], on_change=_save_shapes,
              **mirrored("bt_shapes", state.run_settings()["num_shapes"]),
              help=f"Fixed shapes of the buckets strategy; {DEFAULT_BUCKETS} is torch.compile's recompile_limit.")
    return dict(state.run_settings())


def use_target_as_limits(limits: PackLimits) -> None:
    state.set_limits(limits, "the dynamic batching target on the Batching page")


def main() -> None:
    loaded = page_header(
        "Batching",
        "How the batching you use today pads, how many batches and how many shapes (compilations for JAX or "
        "torch.compile) it makes, next to packing with the chosen configuration (the one recommended for this batch "
        "size until you choose limits). Simulated exactly on "
        "the dataset's graph sizes, every strategy on the same shuffled epochs (as in Speckhard et al.); every "
        "graph is kept.")
    if loaded is None:
        return
    _, hist, _ = loaded
    settings = controls()
    row = packing_row(hist, settings)
    with share_shown("Simulating every batching strategy on this dataset") as progress:
        table = cache.batching_table(hist, settings, row.request, progress)
    summaries = table.attrs["summaries"]
    show_table(table)
    short = short_run_note(table, batching_figures.label)
    st.caption(row.note + (f" {short}" if short else ""))
    target = BatchShape(*table.attrs["settings"]["dynamic"]["target"])
    limits = target.pack_limits()
    if state.choice().limits != limits:
        st.button(f"Use the dynamic target as pack limits ({limits})", on_click=use_target_as_limits,
                  args=(limits,), key="bt_use_target",
                  help=f"Packs of these limits pad to the dynamic batches' shape ({target}), or to fewer graph slots "
                       "where no pack fills all of them: one node and one graph of it belong to the padding graph. The Packing and Export pages use these limits too.")
    padding, shapes, graphs, sizes, buckets = st.tabs(
        ["Padding", "Shapes over steps", "Graphs per batch", "Nodes and edges per batch", "Buckets vs packing"],
        key="bt_view", on_change="rerun")
    if padding.open:
        with padding:
            st.plotly_chart(batching_figures.padding_figure(table), key="bt_padding")
    if shapes.open:
        with shapes:
            st.plotly_chart(batching_figures.shapes_figure(summaries), key="bt_shapes_chart")
            st.caption("A new padded shape makes JAX's jit and torch.compile compile again; torch.compile falls "
                       "back to eager mode after recompile_limit (8) recompilations of one function.")
    if graphs.open:
        with graphs:
            st.plotly_chart(batching_figures.graphs_per_batch_figure(summaries), key="bt_graphs")
    if sizes.open:
        with sizes:
            st.plotly_chart(batching_figures.batch_sizes_figure(summaries), key="bt_sizes")
    if buckets.open:
        with buckets:
            packing = table.set_index("strategy").loc["packing"]
            curve = summaries["buckets"]["bucket_curve"]
            st.plotly_chart(batching_figures.bucket_curve_figure(curve, packing, settings["num_shapes"]),
                            key="bt_buckets")
            st.caption("Shape buckets: static batches padded to the cheapest of K shapes fitted to this run's "
                       "batches (exact on the batches simulated; shapes fitted on other data may not hold every "
                       "batch). The K shapes make padded nodes / real nodes + padded edges / real edges least: that "
                       "sum never grows with K, but the real share of nodes or of edges alone can dip where the "
                       "other gains more. Packing pads every batch to one shape.")
    with st.expander("How each strategy batches and pads"):
        st.markdown(STRATEGY_NOTES)


def show_table(table: pd.DataFrame) -> None:
    """The comparison, one row per strategy, and the multi-device sentence."""
    settings = table.attrs["settings"]
    shown = table.assign(strategy=[batching_figures.label(s) for s in table["strategy"]],
                         settings=[describe_settings(s, settings[s]) for s in table["strategy"]])
    same = (table["steps"] == table["batches"]).all()  # one device: a step is a batch, one column says it
    table_in_two(shown, MAIN_COLUMNS, "More columns: per epoch, per step, settings", column_config=COLUMNS,
                 column_order=[name for name in shown.columns if not (same and name == "steps")])
    run = table.attrs["run"]
    if run["devices"] > 1:
        mixed = table.set_index("strategy")["mixed_shape_steps"]
        st.caption(f"On {run['devices']} devices, the batches of one step differ in shape in {mixed['static_64']:.0%} "
                   f"of steps for static-64 and {mixed['static_pow2']:.0%} for static-2^N (Speckhard et al., appendix F, "
                   "saw 99 % and 90 % on AFLOW); 'step-padded' pads every device to the step's largest shape.")
    summaries = table.attrs["summaries"]
    over = summaries["pyg_dynamic"].get("over_budget_batches", 0)
    if over:
        st.warning(f"{over:,} PyG batches hold one graph larger than the budget (PyG keeps them, padded to their "
                   "own size).", icon=":material/warning:")
    dynamic = table.attrs["settings"]["dynamic"]
    if "estimated" in dynamic:
        st.info(f"Algorithm 1's estimate ({dynamic['estimated'][0]:,} nodes, {dynamic['estimated'][1]:,} edges) is "
                "smaller than the largest graph, so dynamic batching would stop there; the target shown was raised "
                "to hold it.", icon=":material/info:")


STRATEGY_NOTES = """
- **static-constant**: batch size - 1 graphs, padded to batch size x the largest graph's nodes and edges (Speckhard et al.,
  section 4 and appendix H; TF-GNN's tutorial). One shape, much padding.
- **static-64 / static-2^N**: batch size - 1 graphs; nodes rounded up to the next multiple of 64 / power of two
  above the real nodes (one node is left for the padding graph), edges to the next multiple / power that holds
  them. Every new multiple is a new shape.
- **dynamic (jraph)**: a target of mean nodes and edges x batch size, rounded up to multiples of 64 (Algorithm 1,
  1,000-graph sample); graphs are added while at most target - 1 nodes, target edges and batch size - 1 graphs
  (Algorithm 3 as jraph implements it); every batch is padded to the target.
- **PyG DynamicBatchSampler**: a node budget (here the dynamic target), no graph cap, no estimation; the budget is
  padded, edges and graphs are not, so almost every batch has its own shape. Every epoch starts afresh, as in PyG.
- **shape buckets**: static batches padded to the cheapest of K shapes, chosen on these batches to make padded
  nodes / real nodes + padded edges / real edges least.
- **packing**: the plan of the chosen limits and method, packs in a random order each epoch, as many packs per
  batch as carry about batch size graphs (so about as many steps per epoch as the others), each batch padded to
  that many packs' node and edge limits and graph slots (as many per pack as the fullest pack holds). Before
  limits are chosen: packs of the dynamic target's shape, one per batch.

The static strategies keep every graph (the published code drops one graph per batch). Efficiencies are real over
padded totals of the whole run.
"""

run_page(main)
