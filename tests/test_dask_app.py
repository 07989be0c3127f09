"""The Datasets page's cluster section in AppTest, next to the real sidebar: shards computed
on a real Dask cluster become the current dataset like an upload; errors stay inline."""
import doctest
import time

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import data_loaders
from app_helpers import as_read, started_app
from data_loaders.dask_cluster import local_cluster
from data_loaders.smiles import smiles_sizes
from packing import SizeHistogram, sweep
from pages import cluster_section


def section_script() -> None:
    """The sidebar as app.py draws it, then the cluster section as the Datasets page draws it."""
    import streamlit as st

    from pages import state
    from pages.cluster_section import cluster_section
    from pages.widgets import dataset_sidebar

    st.session_state[state.SELECTION] = dataset_sidebar()
    cluster_section()


@pytest.fixture(scope="module")
def scheduler():
    """A LocalCluster of two worker processes in a child process (see tests/test_dask_cluster.py)."""
    with local_cluster(2) as address:
        yield address


@pytest.fixture()
def smiles_shards(tmp_path):
    parts = [["CCO", "c1ccccc1", "C1CC"], ["N#N", "CC(=O)O"], ["not-a-smiles", "CCN", "O"]]
    for index, part in enumerate(parts):
        pd.DataFrame({"smiles": part}).to_csv(tmp_path / f"m{index}.csv", index=False)
    nodes, edges, _ = smiles_sizes([text for part in parts for text in part])
    return str(tmp_path / "m*.csv"), SizeHistogram.from_sizes(nodes, edges)


def compute(at: AppTest, **fields) -> AppTest:
    for key, value in fields.items():
        widget = {"cl_input": at.text_input, "cl_column": at.text_input, "cl_scheduler": at.text_input,
                  "cl_workers": at.number_input, "cl_hydrogens": at.checkbox}[key](key=key)
        widget.set_value(value)
    at.button[0].click()
    return at.run(timeout=120)


def test_shards_on_a_running_scheduler_become_the_current_dataset(scheduler, smiles_shards):
    pattern, expected = smiles_shards
    at = AppTest.from_function(section_script, default_timeout=60).run()
    assert not at.exception
    compute(at, cl_input=pattern, cl_column=" smiles ", cl_scheduler=scheduler)
    assert not at.exception and not at.error
    label = f"upload:{pattern} [smiles]"
    hist, info = at.session_state["uploads"][label]
    assert hist == expected and info["invalid"] == 2
    assert at.session_state["selection"].name == label  # the sidebar now shows it
    assert at.selectbox(key="ds_name").value == label
    assert "6 graphs" in at.success[0].value and "current dataset" in at.success[0].value
    assert "2 SMILES in 2 of 3 shards could not be parsed" in at.warning[0].value
    table = at.dataframe[0].value
    assert table["invalid"].tolist() == [1, 0, 1] and table["invalid_examples"][2] == "row 1: 'not-a-smiles'"
    assert any(info["dashboard"] in block.value for block in at.markdown)


def test_a_local_cluster_by_default(smiles_shards):
    pattern, expected = smiles_shards
    at = AppTest.from_function(section_script, default_timeout=60).run()
    compute(at, cl_input=pattern, cl_column="smiles", cl_hydrogens=True, cl_workers=1)
    assert not at.exception and not at.error
    hist, info = at.session_state["uploads"][f"upload:{pattern} [smiles, with hydrogens]"]
    assert info["workers"] == 1 and hist.num_graphs == 6 and hist.largest_nodes == 12  # benzene with hydrogens
    assert "local cluster was closed" in at.caption[-1].value


@pytest.mark.parametrize("fields, message", [
    ({"cl_input": "  "}, "Name the shard files"),
    ({"cl_input": "/nowhere/*.parquet", "cl_scheduler": "tcp://127.0.0.1:9"}, "Could not reach a Dask scheduler"),
    ({"cl_input": "/nowhere/*.parquet", "cl_scheduler": "SCHEDULER"}, "No files match '/nowhere/*.parquet'"),
])
def test_errors_are_shown_inline_and_the_dataset_stays(fields, message, scheduler):
    fields = {key: scheduler if value == "SCHEDULER" else value for key, value in fields.items()}
    at = AppTest.from_function(section_script, default_timeout=60).run()
    before = at.session_state["selection"]
    start = time.perf_counter()
    compute(at, **fields)
    assert time.perf_counter() - start < 10
    assert not at.exception and message in as_read(at.error[0].value)
    assert at.session_state["selection"] == before


def test_dataset_name_examples():
    assert doctest.testmod(cluster_section).failed == 0


def _one_shard_report() -> None:
    from packing import SizeHistogram
    from pages.cluster_section import _report

    shard = {"shard": "m0.csv", "graphs": 2, "invalid": 1, "invalid_examples": ["row 1: 'x'"]}
    _report(SizeHistogram.from_sizes([2, 3], [2, 4]), {"shards": [shard], "source": "local Dask cluster",
                                                       "seconds": 0.5, "local_cluster": True, "invalid": 1})


def test_one_shard_is_one_shard():
    at = AppTest.from_function(_one_shard_report).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.success[0].value.startswith("Read 1 shard on a local Dask cluster: 2 graphs")
    assert at.warning[0].value.startswith("1 SMILES in 1 of 1 shard could not be parsed")


def test_the_sweep_page_packs_on_a_dask_cluster_with_the_numbers_of_this_machine(scheduler):
    """The Limit sweep page with a scheduler address: the cells are packed by the cluster's
    workers, the heatmap's numbers are those of a sweep on this machine; a scheduler that
    does not answer is an inline error."""
    at = started_app()
    at.switch_page("pages/sweep_page.py").run()
    grid = {"sw_n0": 29, "sw_n1": 89, "sw_ns": 20, "sw_e0": 56, "sw_e1": 176, "sw_es": 40}
    for key, value in grid.items():
        at.number_input(key=key).set_value(value)
    at.text_input(key="sw_scheduler").set_value(scheduler)
    at.button[0].click().run(timeout=180)
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    assert any(c.value == f"Swept on the Dask cluster at {scheduler}." for c in at.caption)
    hist, _ = data_loaders.load_histogram("qm9")
    local = sweep(hist, range(29, 90, 20), range(56, 177, 40), workers=1)
    shown = next(c for c in at.caption if c.value.startswith("Best cell (star)")).value
    best = local.loc[local["harmonic_mean"].idxmax()]
    assert f"{int(best['max_nodes']):,} nodes, {int(best['max_edges']):,} edges" in shown
    assert f"{int(best['packs']):,} packs" in shown and f"harmonic mean {best['harmonic_mean']:.2%}" in shown

    at.number_input(key="sw_ns").set_value(30)  # another grid, so that the sweep is not the cached one
    at.text_input(key="sw_scheduler").set_value("tcp://127.0.0.1:9")
    at.button[0].click().run(timeout=60)
    assert not at.exception
    assert any("The sweep cannot run" in e.value and "127.0.0.1:9" in as_read(e.value) for e in at.error)
