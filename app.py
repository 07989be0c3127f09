"""Graph packing dashboard: entry point, navigation and the Overview page.

Run with ``bash run.sh dashboard`` (``python dashboard.py``: ``streamlit run app.py`` without
Streamlit's legacy ``pages/`` detection). The dataset picker in the
sidebar is drawn here, on every page, so the chosen dataset follows the user around.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from pages import cache, links, state
from pages.widgets import USER_ERRORS, dataset_sidebar, selection_summary, show_error

# The icon ships with the app: a Material icon or an emoji is fetched from a font host the
# browser of an offline user cannot reach.
st.set_page_config(page_title="Graph packing", page_icon=str(Path(__file__).parent / "assets" / "favicon.png"),
                   layout="wide")

DATASETS = st.Page("pages/datasets_page.py", title="Datasets", icon=":material/bar_chart:", url_path="datasets")
PACKING = st.Page("pages/packing_page.py", title="Packing", icon=":material/inventory_2:", url_path="packing")
SWEEP = st.Page("pages/sweep_page.py", title="Limit sweep", icon=":material/grid_on:", url_path="sweep")
BATCHING = st.Page("pages/batching_page.py", title="Batching", icon=":material/stacked_bar_chart:", url_path="batching")
THROUGHPUT = st.Page("pages/throughput_page.py", title="Throughput", icon=":material/speed:", url_path="throughput")
EXPORT = st.Page("pages/export_page.py", title="Export", icon=":material/download:", url_path="export")


def overview() -> None:
    """What the tool does, the workflow, the datasets available now, links to each page."""
    st.title("Graph packing dashboard")
    st.markdown(
        "Accelerators want batches of a fixed shape, so batches of small graphs are padded to a "
        "fixed number of nodes, edges and graphs, and that padding is wasted compute. This dashboard "
        "reads how big the graphs of a dataset are and packs several graphs into each fixed-size pack "
        "(tuple packing on the 2D size histogram), so most of every batch is real data. It proves how "
        "close a plan is to the fewest packs possible, sweeps the pack limits on a harmonic-mean "
        "heatmap, compares packing with the static and dynamic batching used today, estimates time "
        "per epoch from a model timed on a named device, and exports the chosen configuration for "
        "your training code (with a packed PyG loader to read it). Collections too big for one "
        "process are counted on a Dask cluster."
    )
    st.subheader("Workflow")
    st.markdown(
        "1. **Datasets**: pick a dataset, split and graph construction in the sidebar (or upload "
        "your own sizes) and look at its (nodes, edges) histogram.\n"
        "2. **Packing**: set max nodes, max edges and max graphs per pack, choose a heuristic and "
        "algorithm, and read the efficiencies against the lower bound and the baselines.\n"
        "3. **Limit sweep**: try a grid of limits, read the harmonic-mean heatmap and click a cell to "
        "choose those limits.\n"
        "4. **Batching**: compare the batching you use today (static, dynamic, PyG's sampler, shape "
        "buckets) with packing: padding, batches per epoch and distinct shapes (compilations).\n"
        "5. **Throughput**: time per epoch and graphs per second of every strategy, priced by a "
        "calibration of a real PyG model on a named device (shipped, uploaded, or measured here).\n"
        "6. **Export**: download the configuration as JSON (with the plan), the strategies as CSV, "
        "the figures as PNG or interactive HTML and a one-file report (HTML or PDF) to present; copy "
        "the PyG training loop that reads the configuration."
    )
    columns = st.columns(6)
    for column, page, text in zip(
        columns, (DATASETS, PACKING, SWEEP, BATCHING, THROUGHPUT, EXPORT),
        ("Sizes, histogram, marginals, comparison, upload", "Limits, efficiencies, Table 2 comparison",
         "Harmonic-mean heatmap, smallest good limits", "Static, dynamic, buckets vs packing",
         "Time per epoch on a calibrated device", "Configuration, report, training code"),
    ):
        with column:
            st.page_link(page, label=f"**{page.title}**", icon=page.icon)
            st.caption(text)
    st.subheader("Datasets available now")
    try:
        specs = cache.dataset_specs()
    except USER_ERRORS as error:
        show_error(error, "Could not list the datasets")
        return
    rows = [
        {
            "Dataset": spec.name,
            "What": spec.title,
            "Available": "bundled, opens offline" if spec.bundled else "needs download",
            "Download": "not needed" if spec.bundled else (spec.download_size or "none"),
            "Splits": ", ".join(spec.splits),
            "Options (defaults)": ", ".join(f"{k}={v}" for k, v in spec.options.items()) or "none",
        }
        for spec in specs
    ]
    st.table(pd.DataFrame(rows), hide_index=True)  # a static table wraps long options instead of cutting them
    st.caption(
        "Bundled datasets ship as size profiles with the project and open without a network. "
        "The others download on first use; offline, their pages say so. Your own sizes (CSV or "
        "Parquet with num_nodes, num_edges[, count], or SMILES) can be uploaded on the Datasets page."
    )


HOME = st.Page(overview, title="Overview", icon=":material/home:", default=True)
navigation = st.navigation([HOME, DATASETS, PACKING, SWEEP, BATCHING, THROUGHPUT, EXPORT])
try:
    links.read_link()
    st.session_state[state.SELECTION] = dataset_sidebar()
except USER_ERRORS as error:  # the dataset registry itself failed: say so, keep the pages usable
    st.session_state[state.SELECTION] = None
    show_error(error, "Could not list the datasets")
links.show_problems()
navigation.run()
selection_summary()
links.write_link(st.session_state[state.SELECTION])
