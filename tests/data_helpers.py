"""Helpers for the data_loaders tests: the shared real data and small OGB folders."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from data_loaders.paths import shared_data_root

SHARED = shared_data_root()
needs_shared = pytest.mark.skipif(
    not (SHARED / "ogbg_molhiv").is_dir(),
    reason=f"shared real data not found at {SHARED} (set GRAPH_PACKING_SHARED_DATA)",
)


def write_gz_column(path: Path, values: np.ndarray) -> None:
    """Write a headerless one-or-more-column gzipped CSV as OGB does."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(np.asarray(values)).to_csv(path, header=False, index=False, compression="gzip")


def make_ogb_folder(root: Path, dir_name: str, nodes: np.ndarray, bonds: np.ndarray,
                    splits: dict[str, list[int]], seed: int = 0) -> Path:
    """A complete small OGB graph property folder (raw files, splits, release note)."""
    rng = np.random.default_rng(seed)
    folder = root / dir_name
    edges = [np.stack([rng.integers(0, n, b), rng.integers(0, n, b)], axis=1) for n, b in zip(nodes, bonds)]
    write_gz_column(folder / "raw" / "num-node-list.csv.gz", nodes)
    write_gz_column(folder / "raw" / "num-edge-list.csv.gz", bonds)
    write_gz_column(folder / "raw" / "edge.csv.gz", np.concatenate(edges))
    write_gz_column(folder / "raw" / "node-feat.csv.gz", rng.integers(0, 5, (int(nodes.sum()), 9)))
    write_gz_column(folder / "raw" / "edge-feat.csv.gz", rng.integers(0, 3, (int(bonds.sum()), 3)))
    write_gz_column(folder / "raw" / "graph-label.csv.gz", rng.integers(0, 2, (nodes.size, 1)))
    for split, index in splits.items():
        write_gz_column(folder / "split" / "scaffold" / f"{split}.csv.gz", np.array(index))
    (folder / "RELEASE_v1.txt").write_text("v1\n")
    return folder
