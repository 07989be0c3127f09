"""OGB's on-disk layout and the fast path that reads sizes straight from its raw files.

An OGB graph property folder (``ogbg_molhiv/``) holds ``raw/num-node-list.csv.gz`` and
``raw/num-edge-list.csv.gz`` (one row per graph) and ``split/<type>/{train,valid,test}.csv.gz``
(graph indices). The raw edge list counts what OGB stores; ogb's loader adds the inverse of
every edge when ``add_inverse_edge`` is set in its ``master.csv``, so the loaded graphs
(PyG ``edge_index``) have:

- ogbg-molhiv, ogbg-molpcba, ogbg-ppa: 2 x the raw count (undirected bonds / associations);
- ogbg-code2: exactly the raw count (``add_inverse_edge`` is False: directed AST edges,
  parent to child, so a tree of n nodes has n - 1 edges).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from packing import SizeHistogram


@dataclass(frozen=True)
class OgbLayout:
    """Where a data set lives on disk and how to read its sizes."""

    dir_name: str
    edge_factor: int
    split_type: str


OGB_LAYOUTS: dict[str, OgbLayout] = {
    "ogbg-molhiv": OgbLayout("ogbg_molhiv", 2, "scaffold"),
    "ogbg-molpcba": OgbLayout("ogbg_molpcba", 2, "scaffold"),
    "ogbg-code2": OgbLayout("ogbg_code2", 1, "project"),
    "ogbg-ppa": OgbLayout("ogbg_ppa", 2, "species"),
    "pcqm4mv2": OgbLayout("pcqm4m-v2", 2, ""),
}

RAW_NODES = Path("raw") / "num-node-list.csv.gz"
RAW_EDGES = Path("raw") / "num-edge-list.csv.gz"


def _read_column(path: Path) -> np.ndarray:
    """One integer per line of a headerless (gzipped) CSV; a ``ValueError`` names a file
    that cannot be read as one (truncated, not gzip, not whole numbers).

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / RAW_NODES
    >>> path.parent.mkdir()
    >>> _ = path.write_bytes(b"not gzip")
    >>> _read_column(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: .../raw/num-node-list.csv.gz is damaged (Not a gzipped file (b'no')): replace it, or remove the data set's folder /tmp/... to download it again.
    """
    try:
        frame = pd.read_csv(path, header=None, dtype=np.int64)
    except (OSError, EOFError, ValueError) as error:  # gzip, truncation, parsing (pandas' errors are ValueErrors)
        folder = next((parent.parent for parent in path.parents if parent.name in ("raw", "split")), path.parent)
        raise ValueError(f"{path} is damaged ({error}): replace it, or remove the data set's folder "
                         f"{folder} to download it again.") from None
    if frame.shape[1] != 1:
        raise ValueError(f"{path} should have one column, found {frame.shape[1]}.")
    return frame[0].to_numpy()


def has_raw_sizes(folder: Path) -> bool:
    """Whether ``folder`` holds OGB's raw node and edge count lists.

    >>> has_raw_sizes(Path("/nonexistent"))
    False
    """
    return (folder / RAW_NODES).is_file() and (folder / RAW_EDGES).is_file()


def read_raw_sizes(folder: Path, edge_factor: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-graph nodes and loaded (directed) edges from the raw count lists of ``folder``.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp()); (folder / "raw").mkdir()
    >>> pd.Series([3, 5]).to_csv(folder / RAW_NODES, header=False, index=False)
    >>> pd.Series([2, 4]).to_csv(folder / RAW_EDGES, header=False, index=False)
    >>> [a.tolist() for a in read_raw_sizes(folder, 2)]
    [[3, 5], [4, 8]]
    """
    nodes = _read_column(folder / RAW_NODES)
    edges = _read_column(folder / RAW_EDGES) * edge_factor
    if nodes.size != edges.size:
        raise ValueError(
            f"{folder}: {nodes.size} node counts but {edges.size} edge counts; the folder is damaged."
        )
    return nodes, edges


def read_split_files(folder: Path, split_type: str) -> dict[str, np.ndarray]:
    """Graph indices of the train/valid/test split files under ``folder/split/split_type``.

    >>> read_split_files(Path("/nonexistent"), "scaffold")
    {}
    """
    split_dir = folder / "split" / split_type
    splits = {}
    for split in ("train", "valid", "test"):
        path = split_dir / f"{split}.csv.gz"
        if path.is_file():
            splits[split] = _read_column(path)
    return splits


def split_histograms(
    nodes: np.ndarray, edges: np.ndarray, splits: dict[str, np.ndarray]
) -> dict[str, SizeHistogram]:
    """Histogram of every split plus ``"all"`` (every graph of the data set).

    >>> hists = split_histograms(np.array([1, 2, 3]), np.array([0, 2, 4]), {"train": np.array([0, 2])})
    >>> hists["train"].num_graphs, hists["all"].num_graphs
    (2, 3)
    """
    result = {"all": SizeHistogram.from_sizes(nodes, edges)}
    for split, index in splits.items():
        index = np.asarray(index, dtype=np.int64)
        if index.size and (index.min() < 0 or index.max() >= nodes.size):
            raise ValueError(f"Split {split!r} refers to graphs outside 0..{nodes.size - 1}.")
        result[split] = SizeHistogram.from_sizes(nodes[index], edges[index])
    return result


def raw_split_histograms(folder: Path, layout: OgbLayout) -> dict[str, SizeHistogram]:
    """Every split's histogram (and ``"all"``) from the raw size lists and split files of
    ``folder``, laid out as ``layout`` says.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp()); (folder / "raw").mkdir()
    >>> pd.Series([3, 5]).to_csv(folder / RAW_NODES, header=False, index=False)
    >>> pd.Series([2, 4]).to_csv(folder / RAW_EDGES, header=False, index=False)
    >>> raw_split_histograms(folder, OgbLayout("toy", 2, "scaffold"))["all"].num_graphs
    2
    """
    nodes, edges = read_raw_sizes(folder, layout.edge_factor)
    return split_histograms(nodes, edges, read_split_files(folder, layout.split_type))
