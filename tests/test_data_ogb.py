"""OGB data: Table 1 on real files, the raw fast path against ogb's own loader, offline."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from data_helpers import SHARED, make_ogb_folder, needs_shared
from data_loaders import DatasetUnavailableError, load_histogram
from data_loaders.ogb_layout import OGB_LAYOUTS
from data_loaders.ogb_online import build_graphprop, import_ogb
from data_loaders.pyg_sizes import dataset_sizes, loop_sizes
from data_loaders.torch_safe import pyg_safe_globals

REPO = Path(__file__).resolve().parents[1]

# Krell et al., tuple packing, Table 1 (training graphs)
TABLE_1 = {
    "ogbg-molhiv": dict(graphs=32901, largest_nodes=222, largest_edges=502, tuples=795, node=11.4, edge=10.8),
    "ogbg-molpcba": dict(graphs=350343, largest_nodes=313, largest_edges=636, tuples=576, node=8.21, edge=8.71),
}


@needs_shared
@pytest.mark.parametrize("name", sorted(TABLE_1))
def test_train_histograms_from_shared_files_match_table_1(name: str) -> None:
    hist, info = load_histogram(name, "train", use_bundled=False, use_cache=False)
    want = TABLE_1[name]
    assert info["source"] == "local files" and str(SHARED) in info["provenance"]
    assert (hist.num_graphs, hist.largest_nodes, hist.largest_edges, hist.num_tuples) == (
        want["graphs"], want["largest_nodes"], want["largest_edges"], want["tuples"])
    assert round(100 * hist.node_efficiency, 2 if want["node"] < 10 else 1) == want["node"]
    assert round(100 * hist.edge_efficiency, 2 if want["edge"] < 10 else 1) == want["edge"]
    assert load_histogram(name, "train")[0] == hist  # the bundled profile agrees


@needs_shared
def test_splits_partition_the_data_set() -> None:
    parts = [load_histogram("ogbg-molpcba", s)[0] for s in ("train", "valid", "test")]
    whole = load_histogram("ogbg-molpcba", "all")[0]
    assert sum(p.num_graphs for p in parts) == whole.num_graphs == 437929
    assert sum(p.total_edges for p in parts) == whole.total_edges


def test_layout_table_matches_ogb_master_csv() -> None:
    master = pd.read_csv(Path(import_ogb("ogb.graphproppred").__file__).with_name("master.csv"),
                         index_col=0, keep_default_na=False)
    for name, layout in OGB_LAYOUTS.items():
        if name not in master:
            continue
        meta = master[name]
        assert layout.edge_factor == (2 if meta["add_inverse_edge"] == "True" else 1), name
        assert layout.split_type == meta["split"], name
        assert layout.dir_name == "_".join(name.split("-"))


def test_small_ogb_folder_round_trips_through_fast_path_and_ogb_loader(isolated_roots) -> None:
    rng = np.random.default_rng(3)
    nodes = rng.integers(1, 12, 40)
    bonds = np.array([rng.integers(0, 2 * n) for n in nodes])
    splits = {"train": list(range(0, 30)), "valid": list(range(30, 35)), "test": list(range(35, 40))}
    folder = make_ogb_folder(isolated_roots["data"], "ogbg_molhiv", nodes, bonds, splits)

    fast, info = load_histogram("ogbg-molhiv", "train", use_bundled=False, use_cache=False)
    assert info["source"] == "local files" and str(folder) in info["provenance"]
    expected = (nodes[:30], 2 * bonds[:30])
    assert fast.num_graphs == 30 and fast.total_edges == int(expected[1].sum())

    # ogb's own loader processes the same folder (no download: the raw files are there)
    module = import_ogb("ogb.graphproppred")
    with pyg_safe_globals():
        dataset = module.PygGraphPropPredDataset("ogbg-molhiv", root=str(isolated_roots["data"]))
    train = dataset[dataset.get_idx_split()["train"]]
    assert [a.tolist() for a in dataset_sizes(train)] == [a.tolist() for a in loop_sizes(train)]
    assert [a.tolist() for a in dataset_sizes(train)] == [a.tolist() for a in expected]

    # without the raw size lists, the processed file (slices) gives the same histogram
    for name in ("num-node-list.csv.gz", "num-edge-list.csv.gz"):
        (folder / "raw" / name).unlink()
    from_processed, info = load_histogram("ogbg-molhiv", "train", use_bundled=False, use_cache=False)
    assert info["source"] == "local files" and from_processed == fast


def test_a_damaged_size_list_is_named_by_the_command_line(isolated_roots, capsys) -> None:
    from data_loaders.__main__ import main

    folder = make_ogb_folder(isolated_roots["data"], "ogbg_molhiv", np.arange(1, 41), np.arange(40),
                             {"train": list(range(30)), "valid": [30], "test": [31]})
    raw = folder / "raw" / "num-node-list.csv.gz"
    raw.write_bytes(raw.read_bytes()[:-12])  # a download cut short: the gzip stream ends early
    out = isolated_roots["cache"] / "h.csv"
    assert main(["histogram", "ogbg-molhiv", "--no-bundled", "--no-cache", "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"error: {raw} is damaged (") and f"remove the data set's folder {folder}" in error
    assert "Traceback" not in error and not out.exists()


def test_builder_reads_a_complete_folder_without_network(tmp_path: Path) -> None:
    nodes, bonds = np.array([3, 4, 5]), np.array([2, 3, 5])
    make_ogb_folder(tmp_path, "ogbg_molhiv", nodes, bonds, {"train": [0, 1], "valid": [2], "test": [2]})
    with pyg_safe_globals():
        got_nodes, got_edges, splits, folder = build_graphprop("ogbg-molhiv")(tmp_path)
    assert got_nodes.tolist() == [3, 4, 5] and got_edges.tolist() == [4, 6, 10]
    assert splits["train"].tolist() == [0, 1] and folder == tmp_path / "ogbg_molhiv"


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.parametrize("name", ["ogbg-ppa", "ogbg-code2", "pcqm4mv2", "qm9-pyg"])
def test_offline_download_fails_clearly_and_leaves_nothing(name: str, isolated_roots) -> None:
    data = isolated_roots["data"]
    for _ in range(2):  # the second call must fail the same way (no prompt)
        with pytest.raises(DatasetUnavailableError) as caught:
            load_histogram(name, "all")
        message = str(caught.value)
        assert name in message and "about" in message and "Connect to the internet" in message
        assert "no network" in message and "URLError" not in message  # what happened, not urllib's repr
        assert _tree(data) == []


@needs_shared
def test_offline_molhiv_without_any_local_copy(isolated_roots, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("GRAPH_PACKING_SHARED_DATA", str(tmp_path / "absent"))
    with pytest.raises(DatasetUnavailableError, match=r"ogbg-molhiv.*about 3 MB"):
        load_histogram("ogbg-molhiv", "train", use_bundled=False)
    assert _tree(isolated_roots["data"]) == []
    with pytest.raises(DatasetUnavailableError, match=r"downloads are switched off\. Allow them \(leave out "
                                                      r"--no-download.*or place the prepared folder at") as caught:
        load_histogram("ogbg-molhiv", "train", use_bundled=False, allow_download=False)
    assert "Connect to the internet" not in str(caught.value)


def test_empty_leftover_folder_from_plain_ogb_is_removed_not_prompted(isolated_roots) -> None:
    leftover = isolated_roots["data"] / "ogbg_ppa" / "raw"
    leftover.mkdir(parents=True)  # what a failed plain-ogb download leaves behind
    with pytest.raises(DatasetUnavailableError):
        load_histogram("ogbg-ppa", "train")
    assert _tree(isolated_roots["data"]) == []


def test_incomplete_folder_with_files_is_reported_not_deleted(isolated_roots) -> None:
    stray = isolated_roots["data"] / "ogbg_ppa" / "notes.txt"
    stray.parent.mkdir(parents=True)
    stray.write_text("mine")
    with pytest.raises(ValueError, match="neither OGB's raw size lists nor a processed file"):
        load_histogram("ogbg-ppa", "train")
    assert stray.read_text() == "mine"


def test_offline_cli_after_a_failed_attempt_with_closed_stdin(isolated_roots, tmp_path) -> None:
    with pytest.raises(DatasetUnavailableError):  # a first, failed attempt
        load_histogram("ogbg-code2", "train")
    env = {**os.environ, "GRAPH_PACKING_DATA": str(isolated_roots["data"]),
           "GRAPH_PACKING_CACHE": str(isolated_roots["cache"])}
    run = subprocess.run(
        [sys.executable, "-m", "data_loaders", "histogram", "ogbg-code2", "--out", str(tmp_path / "x.csv")],
        cwd=REPO, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert run.returncode == 3, run.stderr
    assert "ogbg-code2 is not on this machine" in run.stderr
    assert "Traceback" not in run.stderr and "(y/N)" not in run.stdout + run.stderr
    assert _tree(isolated_roots["data"]) == []


def test_import_ogb_starts_no_version_check_thread() -> None:
    code = ("import threading; from data_loaders.ogb_online import import_ogb; "
            "import_ogb('ogb.graphproppred'); import sys; "
            "print(threading.active_count(), 'outdated' in sys.modules and sys.modules['outdated'] is None)")
    run = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["1", "False"]
