"""The 2D size histogram of a graph dataset: (nodes, edges) -> number of graphs.

Packing works on this histogram, never on the graphs themselves, so everything the
engine needs from a dataset is one `SizeHistogram`.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd

COLUMNS = ("num_nodes", "num_edges", "count")


def _as_int_array(values: Iterable, name: str) -> np.ndarray:
    """Convert ``values`` to a 1D int64 array, refusing fractions, NaN and negatives."""
    array = np.asarray(list(values) if not hasattr(values, "__len__") else values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}.")
    if array.size and not np.issubdtype(array.dtype, np.integer):
        try:
            as_float = array.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must hold whole numbers; found non-numeric values.") from None
        if not np.all(np.isfinite(as_float)):
            raise ValueError(f"{name} must hold whole numbers; found NaN or infinity.")
        if not np.all(as_float == np.round(as_float)):
            bad = as_float[as_float != np.round(as_float)][0]
            raise ValueError(f"{name} must hold whole numbers; found {bad!r}.")
        array = as_float
    array = array.astype(np.int64)
    if array.size and array.min() < 0:
        raise ValueError(f"{name} must not be negative; found {int(array.min())}.")
    return array


def _check_edges_have_nodes(nodes: np.ndarray, edges: np.ndarray) -> None:
    """An edge needs a node: refuse graphs with edges but no nodes."""
    bad = (nodes == 0) & (edges > 0)
    if bad.any():
        raise ValueError(
            f"{int(bad.sum())} graph(s) have edges but no nodes (e.g. 0 nodes, {int(edges[bad][0])} edges); "
            "check that the node and edge columns are not swapped or truncated."
        )


@dataclass(frozen=True, eq=False)
class SizeHistogram:
    """Counts of graphs per distinct (num_nodes, num_edges) size tuple.

    Edges are directed edges as in PyG's ``edge_index`` (an undirected bond counts twice).
    Rows are unique and sorted by (num_nodes, num_edges); counts are positive.

    >>> hist = SizeHistogram.from_sizes([3, 3, 5], [4, 4, 8])
    >>> hist.num_graphs, hist.num_tuples, hist.max_nodes
    (3, 2, 5)
    """

    num_nodes: np.ndarray
    num_edges: np.ndarray
    counts: np.ndarray

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_sizes(cls, num_nodes: Iterable[int], num_edges: Iterable[int]) -> "SizeHistogram":
        """Build the histogram from per-graph sizes (one entry per graph).

        >>> SizeHistogram.from_sizes([2, 2], [2, 2]).counts.tolist()
        [2]
        """
        nodes = _as_int_array(num_nodes, "num_nodes")
        edges = _as_int_array(num_edges, "num_edges")
        if nodes.shape != edges.shape:
            raise ValueError(
                f"num_nodes and num_edges must have the same length ({nodes.size} != {edges.size})."
            )
        if nodes.size == 0:
            raise ValueError("No graphs: a size histogram needs at least one graph.")
        _check_edges_have_nodes(nodes, edges)
        pairs, counts = np.unique(np.stack([nodes, edges], axis=1), axis=0, return_counts=True)
        return cls(pairs[:, 0].copy(), pairs[:, 1].copy(), counts.astype(np.int64))

    @classmethod
    def from_counts(
        cls, num_nodes: Iterable[int], num_edges: Iterable[int], counts: Iterable[int]
    ) -> "SizeHistogram":
        """Build the histogram from (nodes, edges, count) rows; repeated tuples are summed.

        >>> SizeHistogram.from_counts([3, 3], [4, 4], [1, 2]).counts.tolist()
        [3]
        """
        nodes = _as_int_array(num_nodes, "num_nodes")
        edges = _as_int_array(num_edges, "num_edges")
        weights = _as_int_array(counts, "count")
        if not (nodes.shape == edges.shape == weights.shape):
            raise ValueError("num_nodes, num_edges and count must have the same length.")
        if nodes.size == 0:
            raise ValueError("No rows: a size histogram needs at least one graph.")
        if weights.min() <= 0:
            raise ValueError(f"count must be positive; found {int(weights.min())}.")
        _check_edges_have_nodes(nodes, edges)
        pairs, inverse = np.unique(np.stack([nodes, edges], axis=1), axis=0, return_inverse=True)
        summed = np.bincount(inverse.ravel(), weights=weights, minlength=len(pairs))
        return cls(pairs[:, 0].copy(), pairs[:, 1].copy(), summed.astype(np.int64))

    @classmethod
    def from_dict(cls, mapping: dict[tuple[int, int], int]) -> "SizeHistogram":
        """Build the histogram from a ``{(nodes, edges): count}`` mapping.

        >>> SizeHistogram.from_dict({(3, 4): 2}).num_graphs
        2
        """
        keys = list(mapping)
        return cls.from_counts([k[0] for k in keys], [k[1] for k in keys], [mapping[k] for k in keys])

    # ----------------------------------------------------------------- statistics
    @property
    def num_graphs(self) -> int:
        return int(self.counts.sum())

    @property
    def num_tuples(self) -> int:
        """Number of distinct (nodes, edges) tuples ("node-edge length count")."""
        return int(self.counts.size)

    @property
    def max_nodes(self) -> int:
        return int(self.num_nodes.max())

    @property
    def max_edges(self) -> int:
        return int(self.num_edges.max())

    @property
    def total_nodes(self) -> int:
        return int(np.dot(self.num_nodes, self.counts))

    @property
    def total_edges(self) -> int:
        return int(np.dot(self.num_edges, self.counts))

    @property
    def node_efficiency(self) -> float:
        """Share of real nodes when every graph is padded to the largest graph (mean / max)."""
        return self.total_nodes / (self.num_graphs * self.max_nodes) if self.max_nodes else 1.0

    @property
    def edge_efficiency(self) -> float:
        """Share of real edges when every graph is padded to the largest graph (mean / max)."""
        return self.total_edges / (self.num_graphs * self.max_edges) if self.max_edges else 1.0

    def stats(self) -> dict[str, float | int]:
        """The statistics of Table 1 of Krell et al. (tuple packing paper), as a dict.

        >>> SizeHistogram.from_sizes([2, 4], [2, 6]).stats()["node_efficiency"]
        0.75
        """
        node_eff, edge_eff = self.node_efficiency, self.edge_efficiency
        return {
            "graphs": self.num_graphs,
            "max_nodes": self.max_nodes,
            "max_edges": self.max_edges,
            "distinct_tuples": self.num_tuples,
            "node_efficiency": node_eff,
            "edge_efficiency": edge_eff,
            "node_speedup": 1.0 / node_eff if node_eff else float("inf"),
            "edge_speedup": 1.0 / edge_eff if edge_eff else float("inf"),
            "mean_nodes": self.total_nodes / self.num_graphs,
            "mean_edges": self.total_edges / self.num_graphs,
        }

    def marginal(self, component: str) -> tuple[np.ndarray, np.ndarray]:
        """Values and graph counts of one component (``"nodes"`` or ``"edges"``).

        >>> SizeHistogram.from_sizes([2, 2, 3], [1, 2, 2]).marginal("nodes")[1].tolist()
        [2, 1]
        """
        if component not in ("nodes", "edges"):
            raise ValueError(f"component must be 'nodes' or 'edges', not {component!r}.")
        values = self.num_nodes if component == "nodes" else self.num_edges
        unique, inverse = np.unique(values, return_inverse=True)
        return unique, np.bincount(inverse, weights=self.counts).astype(np.int64)

    # ----------------------------------------------------------------- I/O
    def to_frame(self) -> pd.DataFrame:
        """The histogram as a frame with columns ``num_nodes, num_edges, count``."""
        return pd.DataFrame(
            {"num_nodes": self.num_nodes, "num_edges": self.num_edges, "count": self.counts}
        )

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> "SizeHistogram":
        """Read a histogram frame (``num_nodes, num_edges, count``) or per-graph sizes
        (``num_nodes, num_edges``: one row per graph)."""
        missing = {"num_nodes", "num_edges"} - set(frame.columns)
        if missing:
            raise ValueError(
                f"Missing column(s) {sorted(missing)}; expected num_nodes,num_edges[,count] "
                f"but found {list(frame.columns)}."
            )
        if len(frame) == 0:
            raise ValueError("The table has no rows: a size histogram needs at least one graph.")
        if "count" in frame.columns:
            return cls.from_counts(frame["num_nodes"], frame["num_edges"], frame["count"])
        return cls.from_sizes(frame["num_nodes"], frame["num_edges"])

    def save(self, path: str | Path) -> Path:
        """Write CSV or Parquet, chosen by the file suffix (``.csv`` / ``.parquet``)."""
        path = Path(path)
        frame = self.to_frame()
        if path.suffix == ".parquet":
            frame.to_parquet(path, index=False)
        elif path.suffix == ".csv":
            frame.to_csv(path, index=False)
        else:
            raise ValueError(f"Unknown histogram file type {path.suffix!r}; use .csv or .parquet.")
        return path

    @classmethod
    def load(cls, path: str | Path) -> "SizeHistogram":
        """Read a histogram written by :meth:`save` (CSV or Parquet, by suffix).

        >>> import tempfile, os
        >>> hist = SizeHistogram.from_sizes([3, 5], [4, 8])
        >>> path = hist.save(os.path.join(tempfile.mkdtemp(), "h.csv"))
        >>> SizeHistogram.load(path) == hist
        True
        """
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"No histogram file at {path}.")
        if path.suffix == ".parquet":
            frame = pd.read_parquet(path)
        elif path.suffix == ".csv":
            frame = pd.read_csv(path)
        else:
            raise ValueError(f"Unknown histogram file type {path.suffix!r}; use .csv or .parquet.")
        return cls.from_frame(frame)

    # ----------------------------------------------------------------- comparison
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SizeHistogram):
            return NotImplemented
        return (
            np.array_equal(self.num_nodes, other.num_nodes)
            and np.array_equal(self.num_edges, other.num_edges)
            and np.array_equal(self.counts, other.counts)
        )

    def fingerprint(self) -> str:
        """SHA-256 (hex) of the sizes and counts: equal histograms, equal fingerprints, in
        every process (cache keys and upload identities use it).

        >>> SizeHistogram.from_sizes([3, 5], [4, 8]).fingerprint() == SizeHistogram.from_sizes([5, 3], [8, 4]).fingerprint()
        True
        """
        digest = hashlib.sha256()
        for values in (self.num_nodes, self.num_edges, self.counts):
            digest.update(values.astype("<i8").tobytes())
        return digest.hexdigest()

    def __hash__(self) -> int:
        return int(self.fingerprint()[:16], 16)

    def __repr__(self) -> str:
        return (
            f"SizeHistogram(graphs={self.num_graphs}, tuples={self.num_tuples}, "
            f"max_nodes={self.max_nodes}, max_edges={self.max_edges})"
        )
