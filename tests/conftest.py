"""Shared fixtures: every test gets its own empty data and cache folders; real OGB
training histograms read from ../shared/data."""
from __future__ import annotations

from pathlib import Path

import pytest

from data_loaders.ogb_layout import read_raw_sizes, read_split_files, split_histograms
from data_loaders.paths import shared_data_root
from packing import SizeHistogram


@pytest.fixture(autouse=True)
def isolated_roots(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Point the download folder and the histogram cache at fresh temporary folders."""
    roots = {"data": tmp_path_factory.mktemp("datasets"), "cache": tmp_path_factory.mktemp("histograms")}
    monkeypatch.setenv("GRAPH_PACKING_DATA", str(roots["data"]))
    monkeypatch.setenv("GRAPH_PACKING_CACHE", str(roots["cache"]))
    return roots


def ogb_train_histogram(folder: str) -> SizeHistogram:
    """The scaffold training split, edges doubled to directed edges (OGB convention)."""
    root = shared_data_root() / folder
    if not root.exists():
        pytest.skip(f"real data folder {root} is absent")
    nodes, edges = read_raw_sizes(root, edge_factor=2)
    return split_histograms(nodes, edges, read_split_files(root, "scaffold"))["train"]


@pytest.fixture(scope="session")
def molhiv() -> SizeHistogram:
    return ogb_train_histogram("ogbg_molhiv")


@pytest.fixture(scope="session")
def molpcba() -> SizeHistogram:
    return ogb_train_histogram("ogbg_molpcba")
