"""Shared fixtures: real OGB training histograms built from ../shared/data."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from packing import SizeHistogram

SHARED_DATA = Path(
    os.environ.get("GRAPH_PACKING_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")
)


def ogb_train_histogram(folder: str) -> SizeHistogram:
    """Sizes of the scaffold training split, edges doubled to directed edges (OGB convention)."""
    root = SHARED_DATA / folder
    if not root.exists():
        pytest.skip(f"real data folder {root} is absent")
    nodes = pd.read_csv(root / "raw" / "num-node-list.csv.gz", header=None)[0].to_numpy()
    bonds = pd.read_csv(root / "raw" / "num-edge-list.csv.gz", header=None)[0].to_numpy()
    train = pd.read_csv(root / "split" / "scaffold" / "train.csv.gz", header=None)[0].to_numpy()
    return SizeHistogram.from_sizes(nodes[train], 2 * bonds[train])


@pytest.fixture(scope="session")
def molhiv() -> SizeHistogram:
    return ogb_train_histogram("ogbg_molhiv")


@pytest.fixture(scope="session")
def molpcba() -> SizeHistogram:
    return ogb_train_histogram("ogbg_molpcba")


@pytest.fixture()
def rng() -> np.random.Generator:
    return np.random.default_rng(7)
