"""The Datasets page's cluster section: the size histogram of sharded files, computed on Dask.

The user names shard files (a path or glob as the workers see them), optionally a SMILES
column and a scheduler address; submitting asks for a run, which the section does in place
with the Dask dashboard's link and a progress bar fed by the shard futures; the result then
becomes the current dataset, like an upload, and the page is drawn again.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

import data_loaders
from data_loaders.dask_cluster import default_workers

from . import state
from .widgets import entered_text, md_text

FORM = "cl_form"
INPUT = "cl_input"
COLUMN = "cl_column"
HYDROGENS = "cl_hydrogens"
SCHEDULER = "cl_scheduler"
WORKERS = "cl_workers"
OUTCOME = "cl_outcome"  # plain key: ("done", upload label) or ("error", input, message)
REQUESTED = "cl_requested"  # plain key: the form was submitted and the run is to do
MAX_WORKERS = 64


def dataset_name(pattern: str, column: str | None, hydrogens: bool) -> str:
    """The name the result is kept under among the session's uploads.

    >>> dataset_name("/data/*.csv", "smiles", True)
    'upload:/data/*.csv [smiles, with hydrogens]'
    """
    if column is None:
        return state.UPLOAD_PREFIX + pattern
    return state.UPLOAD_PREFIX + f"{pattern} [{column}{', with hydrogens' if hydrogens else ''}]"


def _on_submit() -> None:
    st.session_state[REQUESTED] = True


def _compute() -> None:
    """Compute the histogram of the named shards on Dask (progress shown here) and make it
    the current dataset."""
    pattern = entered_text(INPUT)
    if pattern is None:
        st.session_state[OUTCOME] = ("error", "", "Name the shard files: a path or a glob such as "
                                                  "/data/shards/*.parquet.")
        return
    column, scheduler = entered_text(COLUMN), entered_text(SCHEDULER)
    hydrogens = bool(st.session_state.get(HYDROGENS)) and column is not None
    box = st.empty()
    with box.container():
        st.markdown(f"**Computing the size histogram of {md_text(pattern)} on Dask.**")
        link = st.empty()
        bar = st.progress(0.0, text="Starting the local cluster" if scheduler is None else f"Connecting to {scheduler}")
    try:
        workers = None if scheduler else int(st.session_state.get(WORKERS, 1))
        with data_loaders.dask_client(scheduler, workers) as client:
            link.markdown(f"Dask dashboard: [{client.dashboard_link}]({client.dashboard_link})")
            bar.progress(0.0, text="Listing the shards")
            hist, info = data_loaders.sharded_histogram(
                pattern, column=column, hydrogens=hydrogens, client=client,
                progress=lambda done, total: bar.progress(done / total, text=f"{done:,} of {total:,} shards read"))
    except Exception as error:  # untrusted paths and addresses: every failure becomes an inline message
        st.session_state[OUTCOME] = ("error", pattern, str(error) or type(error).__name__)
        return
    finally:
        box.empty()
    info["local_cluster"] = scheduler is None
    label = dataset_name(pattern, column, hydrogens)
    state.uploads()[label] = (hist, info)
    st.session_state[OUTCOME] = ("done", label)
    state.choose_dataset(label)
    st.rerun()  # the sidebar, drawn before this page, shows the new dataset


def _shards(count: int) -> str:
    """``1 shard``, ``3 shards``."""
    return f"{count:,} shard{'' if count == 1 else 's'}"


def _report(hist, info: dict[str, Any]) -> None:
    """What was read: graphs, shards, the cluster, unparsable SMILES per shard."""
    shards = info["shards"]
    st.success(f"Read {_shards(len(shards))} on a {md_text(info['source'])}: {hist.num_graphs:,} graphs in "
               f"{info['seconds']:.1f} s. It is now the current dataset (see the sidebar).")
    if info.get("local_cluster"):
        st.caption("The local cluster was closed when the histogram was done (its dashboard with it).")
    else:
        st.markdown(f"Dask dashboard of the cluster: [{info['dashboard']}]({info['dashboard']})")
    if info["invalid"]:
        bad = [shard for shard in shards if shard["invalid"]]
        st.warning(f"{info['invalid']:,} SMILES in {len(bad):,} of {_shards(len(shards))} could not be parsed by "
                   "RDKit and are not counted; the table lists them per shard.")
    with st.expander(f"Report per shard ({len(shards):,})", expanded=bool(info["invalid"])):
        rows = [{**shard, "invalid_examples": "; ".join(shard["invalid_examples"])} for shard in shards]
        st.dataframe(rows, hide_index=True, width="stretch", column_config={
            "shard": "shard", "rows": "rows read", "graphs": "graphs counted",
            "invalid": "unparsable SMILES", "invalid_examples": "examples"})


def cluster_section() -> None:
    """Draw the cluster section: shard files, SMILES column, scheduler, workers; the result
    becomes the current dataset like an upload."""
    st.subheader("Large collections on a Dask cluster")
    st.caption("For collections too large for one upload: shard files (CSV, TSV or Parquet, .gz allowed) of "
               "num_nodes, num_edges[, count], or of SMILES in a named column, read one shard per Dask task; "
               "the partial histograms are merged exactly. Paths are read by the Dask workers, so give them as "
               "the workers see them.")
    with st.form(FORM, border=False):
        st.text_input("Shard files: a path or glob", key=INPUT, help="For example /data/shards/*.parquet")
        left, right = st.columns(2)
        left.text_input("SMILES column (empty: the shards hold sizes)", key=COLUMN,
                        help="The column's name, for example smiles")
        right.checkbox("SMILES: count hydrogen atoms as nodes", key=HYDROGENS)
        left.text_input("Dask scheduler address (empty: a local cluster on this machine)", key=SCHEDULER,
                        help="For example tcp://scheduler-host:8786")
        right.number_input("Workers of the local cluster", min_value=1, max_value=MAX_WORKERS,
                           value=min(default_workers(), MAX_WORKERS), step=1, key=WORKERS)
        st.form_submit_button("Compute the histogram on Dask", on_click=_on_submit)
    if st.session_state.pop(REQUESTED, False):
        _compute()
    outcome = st.session_state.get(OUTCOME)
    if outcome is None:
        return
    if outcome[0] == "error":
        _, pattern, message = outcome
        st.error(f"**Could not compute the histogram{' of ' + md_text(pattern) if pattern else ''}.** {md_text(message)}",
                 icon=":material/error:")
        return
    found = state.uploads().get(outcome[1])
    if found is not None:
        _report(*found)
