"""Shared fixtures: real OGB training histograms read from ../shared/data."""
from __future__ import annotations

import pytest

from data_loaders.ogb_layout import read_raw_sizes, read_split_files, split_histograms
from data_loaders.paths import shared_data_root
from packing import SizeHistogram


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
