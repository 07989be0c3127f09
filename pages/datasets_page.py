"""Datasets page: statistics, the 2D size histogram, marginals, comparison and upload."""
from __future__ import annotations

import streamlit as st

import data_loaders
import figures
from pages import cache, state
from pages.cluster_section import cluster_section
from pages.header import page_header
from pages.widgets import dataset_label, load_selection, md_text, progress_shown, provenance_caption, run_page, selection_of

UPLOAD_KEY = "upload_file"
UPLOAD_READ = "upload_read"  # the upload (file id and reading options) read last
#: The AFLOW reader's k option (range and default), which an uploaded AFLOW file takes too.
AFLOW_K = data_loaders.get_spec("aflow").option("k")
UPLOAD_TYPES = ["csv", "tsv", "parquet", "pq", "smi", "smiles", "txt", "json", "gz"]


def _read_upload(uploaded) -> None:
    """Read an uploaded file into a histogram (progress shown) and make it the current dataset."""
    hydrogens = bool(st.session_state.get("up_hydrogens", False))
    k = int(st.session_state.get("up_k", AFLOW_K.default))
    try:
        with progress_shown(f"Reading {uploaded.name}") as progress:
            hist, info = data_loaders.load_user_file(uploaded, filename=uploaded.name, hydrogens=hydrogens, k=k,
                                                     progress=progress)
    except Exception as error:  # untrusted input: every failure becomes an inline message
        st.session_state[state.UPLOAD_ERROR] = (uploaded.name, str(error) or type(error).__name__)
        return
    label = state.UPLOAD_PREFIX + uploaded.name
    state.uploads()[label] = (hist, info)
    st.session_state.pop(state.UPLOAD_ERROR, None)
    state.choose_dataset(label)
    st.rerun()  # the sidebar, drawn before this page, shows the new dataset


def upload_section() -> None:
    """File uploader for the user's own sizes; a new file (or new reading options) is read at
    once with progress shown, errors inline."""
    st.subheader("Your own data")
    uploaded = st.file_uploader(
        "Upload sizes: CSV, TSV or Parquet with num_nodes, num_edges (one row per graph) or "
        "num_nodes, num_edges, count (a histogram), a smiles or AFLOW compound column, a SMILES "
        "file (one molecule per line) or an AFLOW JSON export; .gz allowed",
        type=UPLOAD_TYPES, key=UPLOAD_KEY,
        help="Uploads take files up to 500 MB, as the drop zone says (server.maxUploadSize); the command lines "
             "read files of up to 512 MiB from disk.",
    )
    left, right = st.columns(2)
    hydrogens = left.checkbox("SMILES: count hydrogen atoms as nodes", key="up_hydrogens")
    k = right.number_input("AFLOW: neighbours per atom (k)", min_value=AFLOW_K.low, max_value=AFLOW_K.high,
                           value=AFLOW_K.default, step=1, key="up_k")
    st.caption("Saved PyG datasets (pickles) are never accepted from an upload: export their sizes to CSV "
               "first, e.g. np.diff(dataset.slices['x']) and np.diff(dataset.slices['edge_index']).")
    if uploaded is None:
        st.session_state.pop(state.UPLOAD_ERROR, None)
        st.session_state.pop(UPLOAD_READ, None)
        return
    request = (uploaded.file_id, hydrogens, int(k))
    if st.session_state.get(UPLOAD_READ) != request:
        st.session_state[UPLOAD_READ] = request
        _read_upload(uploaded)
    error = st.session_state.get(state.UPLOAD_ERROR)
    if error is not None:
        name, message = error
        st.error(f"**Could not read {md_text(name)}.** {md_text(message)}", icon=":material/error:")
        return
    found = state.uploads().get(state.UPLOAD_PREFIX + uploaded.name)
    if found is not None:
        info = found[1]
        st.success(f"Read {md_text(uploaded.name)}: {info.get('graphs', found[0].num_graphs):,} graphs. "
                   f"{md_text(info.get('provenance', ''))} It is now the current dataset (see the sidebar).")
        if info.get("invalid"):
            examples = md_text(", ".join(map(str, info.get("invalid_examples", []))))
            st.warning(f"{info['invalid']:,} SMILES could not be parsed and were skipped"
                       + (f", e.g. {examples}." if examples else "."))


def histogram_section(hist, title: str) -> None:
    """The heatmap with its colour and tail controls, then the two marginals."""
    left, right = st.columns([1, 2])
    with left:
        log_color = st.toggle("Log colour scale", value=True, key="ds_log_color")
    with right:
        min_count = st.number_input(
            "Tail cut-off: hide size tuples with fewer graphs than", min_value=1,
            max_value=max(int(hist.counts.max()), 1), value=1, step=1, key="ds_min_count",
        )
    fig, grid = figures.histogram_figure(hist, log_color=log_color, min_count=int(min_count), title=title)
    st.plotly_chart(fig, key="ds_heatmap")
    if grid.hidden_graphs:
        st.caption(
            f"The cut-off hides {grid.hidden_tuples:,} rare size tuples holding {grid.hidden_graphs:,} "
            f"graphs ({grid.hidden_share:.2%} of the dataset); statistics and packing still use all graphs."
        )
    else:
        st.caption("All size tuples are shown.")
    if grid.node_width > grid.node_step or grid.edge_width > grid.edge_step:
        nodes, edges = grid.node_width // grid.node_step, grid.edge_width // grid.edge_step
        steps = f" (edge counts come in steps of {grid.edge_step}, so a cell spans {grid.edge_width} edges)" \
            if grid.edge_step > 1 and edges > 1 else ""
        st.caption(f"Sizes are binned for display: a cell holds {nodes} node count{'s' if nodes > 1 else ''} and "
                   f"{edges} edge count{'s' if edges > 1 else ''}{steps}, as the axis titles say.")
    left, right = st.columns(2)
    with left:
        st.plotly_chart(figures.marginal_figure(hist, "nodes"), key="ds_nodes")
    with right:
        st.plotly_chart(figures.marginal_figure(hist, "edges"), key="ds_edges")


def compare_section(selection: state.Selection, hist) -> None:
    """Statistics, marginals and heatmaps of two or more datasets side by side."""
    st.subheader("Compare datasets")
    specs = [s for s in cache.dataset_specs() if s.name != selection.name]
    loadable = [s.name for s in specs if cache.opens_without_download(s.name)]
    names = loadable + [name for name in state.uploads() if name != selection.name]
    chosen = st.multiselect(
        "Compare with (each with the split and options last chosen for it, else its defaults)", names,
        key="ds_compare", format_func=dataset_label,
        help="Datasets that open without a download: those that ship with the tool, and those downloaded before. "
             "Open another from the sidebar once (it downloads) to compare it here.",
    )
    if not chosen:
        st.caption("Pick one or more datasets to see them next to the current one.")
        return
    hists = {selection.label: hist}
    for name in chosen:
        spec = cache.spec_for(name)
        other = state.upload_selection(name) if spec is None else \
            selection_of(spec, state.settings(name, state.default_settings(spec)))
        loaded = load_selection(other)
        if loaded is not None:
            hists[other.label] = loaded[0]
    if len(hists) < 2:
        return
    st.dataframe(figures.stats_table(hists), width="stretch")
    left, right = st.columns(2)
    with left:
        st.plotly_chart(figures.marginal_comparison_figure(hists, "nodes"), key="cmp_nodes")
    with right:
        st.plotly_chart(figures.marginal_comparison_figure(hists, "edges"), key="cmp_edges")
    shared = st.toggle("Same axes and colour scale", value=True, key="ds_compare_shared",
                       help="On: every panel spans the largest graphs of all, so sizes compare at a glance. Off: "
                            "each panel zooms to its own graphs.")
    panels = figures.comparison_figures(hists, shared=shared)
    for index, column in enumerate(st.columns(min(len(hists), 3))):
        with column:
            for name in list(hists)[index::3]:
                st.plotly_chart(panels[name], key=f"cmp_heat_{name}")


def main() -> None:
    loaded = page_header("Datasets")
    if loaded is None:
        upload_section()
        cluster_section()
        return
    selection, hist, info = loaded
    spec = cache.spec_for(selection.name)
    st.markdown(f"**{spec.title if spec else md_text(selection.label)}**. {spec.source if spec else ''}")
    provenance_caption(info)
    st.subheader("Statistics")
    st.dataframe(figures.stats_table({selection.label: hist}), width="stretch")
    st.caption("Efficiencies are for padding every graph to the largest one (no packing), as in Table 1 of Krell "
               "et al.; edges are directed, as in PyG's edge_index (an undirected edge counts twice).")
    st.subheader("Graph sizes")
    histogram_section(hist, f"Graphs per (nodes, edges): {selection.label}")
    compare_section(selection, hist)
    upload_section()
    cluster_section()


run_page(main)
