"""The 2D size histogram of a graph dataset: (nodes, edges) -> number of graphs.

Packing works on this histogram, never on the graphs themselves, so everything the
engine needs from a dataset is one `SizeHistogram`.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property
from typing import Iterable

import numpy as np
import pandas as pd

from .sides import EDGES, NODES, SIDES

COLUMNS = ("num_nodes", "num_edges", "count")
MAX_TOTAL = 2**62  # graphs, nodes and edges summed over a histogram stay below this (exact int64)
_FLOAT_EXACT = 2**53  # larger floats do not hold every whole number exactly


def _as_int_array(values: Iterable, name: str) -> np.ndarray:
    """Convert ``values`` to a 1D int64 array, refusing fractions, NaN, bools, negatives and
    numbers that do not fit (or did not survive a float) exactly."""
    array = np.asarray(list(values) if not hasattr(values, "__len__") else values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}.")
    if array.size == 0:
        return array.astype(np.int64)
    if array.dtype == np.bool_:
        raise ValueError(f"{name} must hold whole numbers; found True/False values.")
    if array.dtype.kind == "u":
        if array.max() > np.iinfo(np.int64).max:
            raise ValueError(f"{name} holds {int(array.max())}, too large to count exactly (limit {MAX_TOTAL:,}).")
    elif array.dtype.kind == "O":
        array = _from_objects(array, name)
    elif array.dtype.kind != "i":
        array = _from_floats(array, name)
    array = array.astype(np.int64)
    if array.min() < 0:
        raise ValueError(f"{name} must not be negative; found {int(array.min())}.")
    return array


def _from_objects(array: np.ndarray, name: str) -> np.ndarray:
    """Python objects (e.g. ints too large for int64, strings) to int64, exactly or not at all.

    >>> _from_objects(np.array(["99999999999999999999999"], dtype=object), "count")  # a CSV reader's text
    Traceback (most recent call last):
    ...
    ValueError: count holds 99999999999999999999999, too large to count exactly (limit 4,611,686,018,427,387,904).
    """
    out = np.empty(array.size, dtype=np.int64)
    for index, value in enumerate(array.tolist()):
        if isinstance(value, str) and value.strip().removeprefix("-").isdecimal() and value.isascii():
            value = int(value)  # a whole number too long for int64, read as text
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{name} must hold whole numbers; found non-numeric values ({value!r}).")
        if isinstance(value, float):
            value = int(_from_floats(np.array([value]), name)[0])
        if not -MAX_TOTAL <= value < MAX_TOTAL:
            raise ValueError(f"{name} holds {value}, too large to count exactly (limit {MAX_TOTAL:,}).")
        out[index] = value
    return out


def _from_floats(array: np.ndarray, name: str) -> np.ndarray:
    try:
        as_float = array.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold whole numbers; found non-numeric values.") from None
    if not np.all(np.isfinite(as_float)):
        raise ValueError(f"{name} must hold whole numbers; found NaN or infinity.")
    fractional = as_float != np.round(as_float)
    if fractional.any():
        raise ValueError(f"{name} must hold whole numbers; found {float(as_float[fractional][0])!r}.")
    too_large = np.abs(as_float) >= _FLOAT_EXACT
    if too_large.any():
        raise ValueError(
            f"{name} holds {as_float[too_large][0]:.0f} as a floating-point number, which cannot hold every "
            f"whole number above 2^53 exactly; store the column as integers."
        )
    return as_float.astype(np.int64)


def exact_dot(values: np.ndarray, counts: np.ndarray) -> int:
    """sum(values * counts) as an exact Python integer (no int64 overflow).

    >>> exact_dot(np.array([2**62]), np.array([4]))
    18446744073709551616
    """
    if values.size and int(values.max()) * int(counts.sum()) < 2**63:
        return int(np.dot(values.astype(np.int64), counts.astype(np.int64)))
    return sum(int(v) * int(c) for v, c in zip(values.tolist(), counts.tolist()))


def _check_edges_have_nodes(nodes: np.ndarray, edges: np.ndarray) -> None:
    """An edge needs a node: refuse graphs with edges but no nodes."""
    bad = (nodes == 0) & (edges > 0)
    if bad.any():
        raise ValueError(
            f"{int(bad.sum())} graph(s) have edges but no nodes (e.g. 0 nodes, {int(edges[bad][0])} edges); "
            "check that the node and edge columns are not swapped or truncated."
        )


def _unique_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct keys and each key's position among them; a bincount when the keys
    span a small range (linear time), else a sort."""
    low, high = int(keys.min()), int(keys.max())
    if high - low > max(4 * keys.size, 1 << 20):
        unique, inverse = np.unique(keys, return_inverse=True)
        return unique, inverse.ravel()
    present = np.bincount(keys - low, minlength=high - low + 1) > 0
    position = np.cumsum(present) - 1
    return np.flatnonzero(present) + low, position[keys - low]


def _sum_per_group(group: np.ndarray, weights: np.ndarray, groups: int) -> np.ndarray:
    """Exact int64 sums of ``weights`` per group index; refuses sums that would not fit."""
    if int(weights.max()) * weights.size >= 2**63 and sum(weights.tolist()) >= MAX_TOTAL:
        raise ValueError(f"count sums to {sum(weights.tolist())} graphs, too many to count exactly "
                         f"(limit {MAX_TOTAL:,}).")
    if int(weights.max()) * weights.size < _FLOAT_EXACT:  # float sums are exact below 2^53
        return np.bincount(group, weights=weights, minlength=groups).astype(np.int64)
    order = np.argsort(group, kind="stable")
    starts = np.searchsorted(group[order], np.arange(groups))
    return np.add.reduceat(weights[order].astype(np.int64), starts)


def _count_pairs(nodes: np.ndarray, edges: np.ndarray, weights: np.ndarray | None) -> tuple[np.ndarray, ...]:
    """Distinct (nodes, edges) pairs, sorted, with their summed weights (1 per graph when None).

    Pairs are counted through one integer key, nodes * (max edges + 1) + edges (about ten
    times faster than a row-wise unique on millions of graphs).
    """
    span = int(edges.max()) + 1
    if int(nodes.max()) < 2**62 // span:
        unique, group = _unique_keys(nodes * span + edges)
        pair_nodes, pair_edges = unique // span, unique % span
    else:  # keys would overflow: unique rows instead
        pairs, group = np.unique(np.stack([nodes, edges], axis=1), axis=0, return_inverse=True)
        pair_nodes, pair_edges, group = pairs[:, 0].copy(), pairs[:, 1].copy(), group.ravel()
    if weights is None:
        summed = np.bincount(group, minlength=pair_nodes.size)
    else:
        summed = _sum_per_group(group, weights, pair_nodes.size)
    return pair_nodes.astype(np.int64), pair_edges.astype(np.int64), summed.astype(np.int64)


def most_graphs_by_volume(sizes: np.ndarray, counts: np.ndarray, limits: np.ndarray) -> np.ndarray:
    """For each limit, the most graphs whose sizes fit into it together: the smallest first.

    >>> most_graphs_by_volume(np.array([3, 1]), np.array([2, 2]), np.array([1, 5, 100])).tolist()
    [1, 3, 4]
    """
    order = np.argsort(sizes, kind="stable")
    size, count = sizes[order].astype(np.int64), counts[order].astype(np.int64)
    volume = np.concatenate([[0], np.cumsum(size * count)])
    graphs = np.concatenate([[0], np.cumsum(count)])
    whole = np.searchsorted(volume, limits, side="right") - 1  # bins that fit entirely
    most = graphs[whole].copy()
    partial = whole < size.size
    if partial.any():
        at = whole[partial]
        step = np.maximum(size[at], 1)  # a size of 0 never stops a prefix, so it is never partial
        most[partial] += (limits[partial] - volume[at]) // step
    return most


def most_graphs_per_pack(nodes, edges, counts, max_nodes: int, max_edges: int) -> int:
    """An upper bound on the graphs any pack can hold: the most of the smallest graphs that
    fit by nodes, and by edges. When the graph limit is above it, it can never bind.

    >>> most_graphs_per_pack(np.array([3, 1]), np.array([2, 2]), np.array([2, 2]), 5, 100)
    3
    """
    return int(min(most_graphs_by_volume(nodes, counts, np.array([max_nodes]))[0],
                   most_graphs_by_volume(edges, counts, np.array([max_edges]))[0]))


@dataclass(frozen=True, eq=False)
class SizeHistogram:
    """Counts of graphs per distinct (num_nodes, num_edges) size tuple.

    Edges are directed edges as in PyG's ``edge_index`` (an undirected bond counts twice).
    Rows are unique and sorted by (num_nodes, num_edges); counts are positive.

    >>> hist = SizeHistogram.from_sizes([3, 3, 5], [4, 4, 8])
    >>> hist.num_graphs, hist.num_tuples, hist.largest_nodes
    (3, 2, 5)
    """

    num_nodes: np.ndarray
    num_edges: np.ndarray
    counts: np.ndarray

    def __post_init__(self) -> None:
        for name, total in (("graphs", self.num_graphs), ("nodes", self.total_nodes), ("edges", self.total_edges)):
            if total >= MAX_TOTAL:
                raise ValueError(f"The histogram holds {total:,} {name} in all, more than can be counted exactly "
                                 f"(limit {MAX_TOTAL:,}); check the count column.")

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_sizes(cls, num_nodes: Iterable[int], num_edges: Iterable[int]) -> "SizeHistogram":
        """Build the histogram from per-graph sizes (one entry per graph).

        Args:
            num_nodes: nodes of each graph.
            num_edges: directed edges of each graph (PyG's ``edge_index`` length).

        Raises:
            ValueError: for lists of different lengths, an empty dataset, or sizes that are
                not whole numbers >= 0.

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
        return cls(*_count_pairs(nodes, edges, None))

    @classmethod
    def from_counts(
        cls, num_nodes: Iterable[int], num_edges: Iterable[int], counts: Iterable[int]
    ) -> "SizeHistogram":
        """Build the histogram from (nodes, edges, count) rows; repeated tuples are summed.

        Raises:
            ValueError: for columns of different lengths, counts below 1, no graphs at all,
                or values that are not whole numbers.

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
        return cls(*_count_pairs(nodes, edges, weights))

    @classmethod
    def from_dict(cls, mapping: dict[tuple[int, int], int]) -> "SizeHistogram":
        """Build the histogram from a ``{(nodes, edges): count}`` mapping.

        >>> SizeHistogram.from_dict({(3, 4): 2}).num_graphs
        2
        """
        keys = list(mapping)
        return cls.from_counts([k[0] for k in keys], [k[1] for k in keys], [mapping[k] for k in keys])

    @classmethod
    def merge(cls, histograms: Iterable["SizeHistogram"]) -> "SizeHistogram":
        """One histogram of all graphs of ``histograms``: counts of equal size tuples are
        added exactly (how partial histograms of the shards of a collection combine; the
        order does not matter).

        >>> a, b = SizeHistogram.from_sizes([3, 5], [4, 8]), SizeHistogram.from_sizes([3], [4])
        >>> SizeHistogram.merge([a, b]).to_frame().values.tolist()
        [[3, 4, 2], [5, 8, 1]]
        """
        parts = list(histograms)
        if not parts:
            raise ValueError("Nothing to merge: give at least one histogram.")
        strangers = [type(part).__name__ for part in parts if not isinstance(part, SizeHistogram)]
        if strangers:
            raise ValueError(f"Only size histograms can be merged; got {strangers[0]}.")
        if len(parts) == 1:
            return parts[0]
        return cls.from_counts(*(np.concatenate([getattr(part, name) for part in parts])
                                 for name in ("num_nodes", "num_edges", "counts")))

    # ----------------------------------------------------------------- statistics
    @cached_property
    def num_graphs(self) -> int:
        return exact_dot(self.counts, np.ones_like(self.counts))

    @property
    def num_tuples(self) -> int:
        """Number of distinct (nodes, edges) tuples ("node-edge length count")."""
        return int(self.counts.size)

    @property
    def largest_nodes(self) -> int:
        """Nodes of the largest graph (not a pack limit: see ``PackLimits.max_nodes``)."""
        return int(self.num_nodes.max())

    @property
    def largest_edges(self) -> int:
        """Edges of the graph with the most edges (not a pack limit: see ``PackLimits.max_edges``)."""
        return int(self.num_edges.max())

    @cached_property
    def total_nodes(self) -> int:
        """Nodes of all graphs (exact)."""
        return exact_dot(self.num_nodes, self.counts)

    @cached_property
    def total_edges(self) -> int:
        """Directed edges of all graphs (exact)."""
        return exact_dot(self.num_edges, self.counts)

    @property
    def node_efficiency(self) -> float:
        """Share of real nodes when every graph is padded to the largest graph (mean / max)."""
        return self.total_nodes / (self.num_graphs * self.largest_nodes) if self.largest_nodes else 1.0

    @property
    def edge_efficiency(self) -> float:
        """Share of real edges when every graph is padded to the largest graph (mean / max)."""
        return self.total_edges / (self.num_graphs * self.largest_edges) if self.largest_edges else 1.0

    def stats(self) -> dict[str, float | int]:
        """The statistics of Table 1 of Krell et al. (tuple packing paper), as a dict.

        >>> SizeHistogram.from_sizes([2, 4], [2, 6]).stats()["node_efficiency"]
        0.75
        """
        node_eff, edge_eff = self.node_efficiency, self.edge_efficiency
        return {
            "graphs": self.num_graphs,
            "largest_nodes": self.largest_nodes,
            "largest_edges": self.largest_edges,
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
        if component not in SIDES:
            raise ValueError(f"component must be {NODES!r} or {EDGES!r}, not {component!r}.")
        values = self.num_nodes if component == NODES else self.num_edges
        unique, inverse = np.unique(values, return_inverse=True)
        return unique, np.bincount(inverse, weights=self.counts).astype(np.int64)

    def rows_of(self, num_nodes: np.ndarray, num_edges: np.ndarray) -> np.ndarray:
        """The row of each graph's (nodes, edges) tuple in this histogram; a ``ValueError``
        names a size the histogram does not hold.

        Sizes are matched through their ranks among the histogram's node and edge values,
        so the keys never overflow, in linear time after a sort of the few distinct values
        (a row-wise ``np.unique`` took seconds on ten million graphs).

        >>> SizeHistogram.from_sizes([2, 3, 3], [1, 4, 2]).rows_of(np.array([3, 2, 3]), np.array([2, 1, 4])).tolist()
        [1, 0, 2]
        """
        node_values, edge_values = np.unique(self.num_nodes), np.unique(self.num_edges)
        num_nodes, num_edges = np.asarray(num_nodes, dtype=np.int64), np.asarray(num_edges, dtype=np.int64)

        def ranks(nodes: np.ndarray, edges: np.ndarray) -> np.ndarray:
            node_rank = np.searchsorted(node_values, nodes).clip(max=node_values.size - 1)
            edge_rank = np.searchsorted(edge_values, edges).clip(max=edge_values.size - 1)
            return node_rank * edge_values.size + edge_rank

        keys = ranks(self.num_nodes, self.num_edges)  # sorted: the rows are in (nodes, edges) order
        rows = np.searchsorted(keys, ranks(num_nodes, num_edges)).clip(max=self.num_tuples - 1)
        missing = np.flatnonzero((self.num_nodes[rows] != num_nodes) | (self.num_edges[rows] != num_edges))
        if missing.size:
            first = missing[0]
            raise ValueError(f"{missing.size:,} graph(s) have sizes the histogram does not hold, e.g. graph {first:,} "
                             f"with {num_nodes[first]:,} nodes and {num_edges[first]:,} edges.")
        return rows

    # ----------------------------------------------------------------- I/O
    def graphs_that_fit(self, max_nodes: int, max_edges: int) -> int:
        """The most of these graphs that one pack of ``max_nodes`` nodes and ``max_edges``
        edges can hold (the smallest first, on each side): a graph limit at or above it
        never binds.

        >>> SizeHistogram.from_counts([3, 1], [2, 2], [2, 2]).graphs_that_fit(5, 100)
        3
        """
        return most_graphs_per_pack(self.num_nodes, self.num_edges, self.counts, max_nodes, max_edges)

    def to_frame(self) -> pd.DataFrame:
        """The histogram as a frame with columns ``num_nodes, num_edges, count``."""
        return pd.DataFrame(
            {"num_nodes": self.num_nodes, "num_edges": self.num_edges, "count": self.counts}
        )

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
            f"largest_nodes={self.largest_nodes}, largest_edges={self.largest_edges})"
        )
