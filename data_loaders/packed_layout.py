"""Which attributes a padded batch carries, at which level, and how each is padded.

PyG concatenates node-level attributes along the nodes, edge-level ones along the edges and
graph-level ones along the graphs (PyG documentation, "Advanced Mini-Batching"). Padding a batch to
a fixed shape needs to know each attribute's level; it is read once, from one graph of the
dataset, with PyG's own rules (``Data.is_node_attr`` / ``Data.is_edge_attr``; an attribute
with one row is graph-level). The graph is chosen so the rules are not ambiguous where the
data allows it (more than one node, not one edge, node and edge counts unlike). For an
``InMemoryDataset`` the levels are then checked against every graph's rows in ``slices``,
which also settles what one graph cannot (:meth:`GraphLayout.resolve_levels`), and a list of
graphs is settled the same way from its graphs' rows (:meth:`GraphLayout.settled_by`). Where no
graph tells the levels apart (say, every graph has one node), PyG's rule decides: a one-row
attribute counts as node-level, as PyG counts it.
"""
from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import torch
from torch_geometric.data import Batch, Data

from .pyg_internals import empty_data_batch, set_graph_count, set_graph_node_counts, set_separation_tables

NODE, EDGE, GRAPH = "node", "edge", "graph"
EDGE_INDEX = "edge_index"
NUM_NODES = "num_nodes"
#: Attributes the padded batch adds itself.
MASK_KEYS = ("node_mask", "edge_mask", "graph_mask")
RESERVED_KEYS = ("batch", "ptr", *MASK_KEYS)
_EMPTY_BATCH = empty_data_batch()


def new_batch() -> Batch:
    """An empty PyG ``Batch`` of ``Data`` (a copy of one made once: PyG's constructor works
    out the class anew on every call, about 0.1-0.2 ms).

    >>> new_batch()
    DataBatch()
    """
    return copy.copy(_EMPTY_BATCH)


@dataclass(frozen=True)
class Attribute:
    """One tensor attribute: its level, the shape of one row, dtype and padding value."""

    key: str
    level: str
    row_shape: tuple[int, ...]
    dtype: torch.dtype
    pad_value: float | int | bool = 0

    def empty(self, rows: int = 0) -> torch.Tensor:
        """``rows`` rows of padding (``edge_index`` is padded separately)."""
        return torch.full((rows, *self.row_shape), self.pad_value, dtype=self.dtype)


@dataclass(frozen=True)
class GraphLayout:
    """The attributes of every graph of a dataset, by name.

    ``counts_nodes`` says the graphs carry ``num_nodes`` (needed when no node-level tensor
    tells the node count).

    >>> graph = Data(x=torch.ones(3, 2), edge_index=torch.tensor([[0, 1], [1, 2]]), y=torch.tensor([1.0]))
    >>> layout = GraphLayout.from_graph(graph)
    >>> [(a.key, a.level, a.row_shape) for a in layout.attributes]
    [('edge_index', 'edge', (2,)), ('x', 'node', (2,)), ('y', 'graph', ())]
    """

    attributes: tuple[Attribute, ...]
    counts_nodes: bool = False

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(attribute.key for attribute in self.attributes)

    @classmethod
    def from_graph(
        cls, graph: Any, pad_values: Mapping[str, float | int | bool] | float | int = 0,
        exclude_keys: Sequence[str] = (),
    ) -> "GraphLayout":
        """Read the layout from one graph; ``ValueError`` for anything that cannot be padded
        (no ``edge_index``, attributes that are not tensors, other index attributes, ...),
        naming the attribute and what to do."""
        if not isinstance(graph, Data):
            raise ValueError(f"The packed loader needs PyG Data graphs, but the dataset holds {type(graph).__name__}.")
        keys = sorted(key for key in graph.keys() if key not in exclude_keys)
        if EDGE_INDEX not in keys:
            raise ValueError(f"The dataset's graphs have no edge_index (attributes: {', '.join(keys) or 'none'}); "
                             "the packed loader pads edges and needs it, even if empty (torch.empty(2, 0)).")
        clash = sorted(set(keys) & set(RESERVED_KEYS))
        if clash:
            raise ValueError(f"The dataset's graphs have attribute(s) {', '.join(clash)}, which the padded batch "
                             "sets itself; rename them or pass exclude_keys.")
        attributes = [_attribute(graph, key, _pad_value(pad_values, key))
                      for key in keys if key != NUM_NODES]
        if isinstance(pad_values, Mapping):
            unknown = sorted(set(pad_values) - {a.key for a in attributes if a.key != EDGE_INDEX})
            if unknown:
                raise ValueError(f"pad_values names {', '.join(unknown)}, which the graphs do not carry as "
                                 f"paddable attributes (they carry {', '.join(keys)}; edge_index is always "
                                 "padded with self-loops).")
        return cls(tuple(attributes), counts_nodes=NUM_NODES in keys)

    def resolve_levels(self, rows: Mapping[str, np.ndarray], nodes: np.ndarray, edges: np.ndarray) -> "GraphLayout":
        """The layout checked against every graph of a dataset: ``rows[key]`` holds how many
        rows of each attribute every graph has, ``nodes`` and ``edges`` the graphs' sizes.

        A level one graph could not tell apart (one row in a graph of one node or one edge)
        is settled by the whole dataset (:meth:`settle_levels`); an attribute no level fits in
        every graph is refused, naming the first graph where it does not fit.

        >>> layout = GraphLayout((Attribute("gid", EDGE, (), torch.long),))
        >>> layout.resolve_levels({"gid": np.array([1, 1])}, np.array([2, 3]), np.array([1, 4])).attributes[0].level
        'graph'
        """
        expected = _expected_rows(nodes, edges)
        for attribute in self.attributes:
            counts = rows[attribute.key]
            if not _fitting_levels(counts, expected, attribute.level):
                graph = int(np.flatnonzero(counts != expected[attribute.level])[0])
                raise ValueError(
                    f"Attribute {attribute.key!r} has {int(counts[graph])} rows in stored graph {graph}, which has "
                    f"{int(nodes[graph])} nodes and {int(edges[graph])} edges: it is not node-, edge- or "
                    f"graph-level in every graph, so it cannot be padded. Leave it out with "
                    f"exclude_keys=[{attribute.key!r}].")
        return self.settle_levels(rows, nodes, edges)

    def settle_levels(self, rows: Mapping[str, np.ndarray], nodes: np.ndarray, edges: np.ndarray) -> "GraphLayout":
        """Each attribute at the first level whose rows every graph has (its own, then node,
        edge, graph), as PyG's rule read on one graph cannot tell a one-row attribute of a
        graph of one edge apart; an attribute no level fits keeps its level.

        >>> layout = GraphLayout((Attribute("y", EDGE, (), torch.float),))
        >>> layout.settle_levels({"y": np.array([1, 1])}, np.array([1, 2]), np.array([0, 1])).attributes[0].level
        'graph'
        """
        expected = _expected_rows(nodes, edges)
        settled = []
        for attribute in self.attributes:
            fitting = _fitting_levels(rows[attribute.key], expected, attribute.level)
            settled.append(dataclasses.replace(attribute, level=fitting[0]) if fitting else attribute)
        return GraphLayout(tuple(settled), self.counts_nodes)

    def settled_by(self, graphs: Sequence[Data]) -> "GraphLayout":
        """The layout with its levels settled by every graph of an in-memory list, as
        :meth:`resolve_levels` settles them from a stored dataset's ``slices``: the same graphs
        get the same levels whether listed or stored (a missing attribute is left to
        :meth:`check_graph` to name)."""
        rows = {a.key: np.array([_stored_rows(graph, a.key) for graph in graphs], dtype=np.int64)
                for a in self.attributes}
        nodes = np.array([graph.num_nodes for graph in graphs], dtype=np.int64)
        return self.settle_levels(rows, nodes, rows[EDGE_INDEX])

    def check_graph(self, graph: Data, position: int) -> None:
        """``ValueError`` when an attribute of ``graph`` (graph ``position`` of the dataset) is
        missing or does not have the rows its level asks for (nodes, edges, or one row per
        graph), as :meth:`resolve_levels` refuses for stored datasets; a batch would otherwise
        carry more or fewer rows than it has nodes, edges or graphs.

        >>> layout = GraphLayout((Attribute("y", GRAPH, (), torch.float),))
        >>> layout.check_graph(Data(y=torch.zeros(4), num_nodes=2, edge_index=torch.zeros(2, 0, dtype=torch.long)), 7)
        Traceback (most recent call last):
        ...
        ValueError: Attribute 'y' has 4 rows in graph 7 (2 nodes, 0 edges), but the dataset's graphs carry it as graph-level (1 row per graph): every graph must agree for it to be padded. Fix the data or leave it out with exclude_keys=['y'].
        """
        expected = {NODE: graph.num_nodes, EDGE: graph.num_edges, GRAPH: 1}
        for attribute in self.attributes:
            if attribute.key not in graph:
                raise ValueError(
                    f"Graph {position} has no attribute {attribute.key!r}, which the dataset's graphs carry: every "
                    f"graph needs it to be batched. Add it to graph {position} or leave it out with "
                    f"exclude_keys=[{attribute.key!r}].")
            value = graph[attribute.key]
            if attribute.key == EDGE_INDEX or not isinstance(value, torch.Tensor):
                continue
            shape = tuple(value.shape)
            stacked = attribute.level == GRAPH and shape == attribute.row_shape  # PyG adds the graph dimension
            if stacked or (shape[1:] == attribute.row_shape and shape[:1] == (expected[attribute.level],)):
                continue
            words = {NODE: "node-level (1 row per node)", EDGE: "edge-level (1 row per edge)",
                     GRAPH: "graph-level (1 row per graph)"}[attribute.level]
            raise ValueError(
                f"Attribute {attribute.key!r} has {shape[0] if shape else 0} rows in graph {position} "
                f"({graph.num_nodes} nodes, {graph.num_edges} edges), but the dataset's graphs carry it as {words}: "
                f"every graph must agree for it to be padded. Fix the data or leave it out with "
                f"exclude_keys=[{attribute.key!r}].")

    def empty_batch(self) -> Batch:
        """A batch of zero graphs with every attribute (zero rows), for empty steps."""
        batch = new_batch()
        for attribute in self.attributes:
            batch[attribute.key] = (torch.empty((2, 0), dtype=attribute.dtype) if attribute.key == EDGE_INDEX
                                    else attribute.empty())
        batch.batch = torch.empty(0, dtype=torch.long)
        batch.ptr = torch.zeros(1, dtype=torch.long)
        if self.counts_nodes:
            set_graph_node_counts(batch, [])
            batch.num_nodes = 0
        set_graph_count(batch, 0)
        set_separation_tables(batch, {a.key: torch.zeros(1, dtype=torch.long) for a in self.attributes},
                              {a.key: torch.zeros(0, dtype=torch.long) for a in self.attributes})
        return batch


def _expected_rows(nodes: np.ndarray, edges: np.ndarray) -> dict[str, np.ndarray]:
    """The rows every graph has at each level."""
    return {NODE: nodes, EDGE: edges, GRAPH: np.ones_like(nodes)}


def _fitting_levels(counts: np.ndarray, expected: Mapping[str, np.ndarray], first: str) -> list[str]:
    """The levels (``first``, then node, edge, graph) whose rows match ``counts`` in every graph."""
    return [level for level in (first, NODE, EDGE, GRAPH) if np.array_equal(counts, expected[level])]


def _stored_rows(graph: Data, key: str) -> int:
    """The rows ``InMemoryDataset.collate`` stores for ``graph[key]`` (one for a value PyG
    stacks rather than concatenates); -1 when the graph has no such tensor.

    >>> graph = Data(x=torch.ones(3, 2), y=torch.tensor(1.0), edge_index=torch.zeros(2, 4, dtype=torch.long))
    >>> [_stored_rows(graph, key) for key in ("x", "y", "edge_index", "z")]
    [3, 1, 4, -1]
    """
    value = getattr(graph, key, None)
    if not isinstance(value, torch.Tensor):
        return -1
    if value.dim() == 0:
        return 1
    cat_dim = graph.__cat_dim__(key, value)
    return 1 if cat_dim is None else int(value.size(cat_dim))


def _pad_value(pad_values: Mapping[str, Any] | float | int, key: str) -> Any:
    return pad_values.get(key, 0) if isinstance(pad_values, Mapping) else pad_values


def _checked_pad(value: Any, dtype: torch.dtype, key: str) -> float | int | bool:
    """``value`` as a Python number that ``dtype`` holds exactly (integer and bool dtypes
    would silently truncate 0.5 to 0)."""
    if not isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating)):
        raise ValueError(f"The padding value for {key!r} must be a number, got {value!r}.")
    value = value.item() if isinstance(value, np.generic) else value
    if not dtype.is_floating_point and not dtype.is_complex:
        try:
            stored = torch.full((), value, dtype=dtype).item()
        except RuntimeError:
            stored = None
        if stored is None or float(stored) != float(value):
            raise ValueError(f"The padding value {value!r} for {key!r} does not fit its dtype {dtype}.")
    return value


def _attribute(graph: Data, key: str, pad_value: Any) -> Attribute:
    """The level and row shape of ``graph[key]`` by PyG's batching rules."""
    value = graph[key]
    if not isinstance(value, torch.Tensor) or value.is_sparse or getattr(value, "is_nested", False):
        raise ValueError(f"Attribute {key!r} is a {type(value).__name__}, not a dense tensor; the packed loader "
                         f"pads tensors only. Leave it out with exclude_keys=[{key!r}].")
    if key == EDGE_INDEX:
        if value.dim() != 2 or value.size(0) != 2 or value.dtype != torch.long:
            raise ValueError(f"edge_index must be a [2, num_edges] long tensor, got shape {list(value.shape)} "
                             f"and dtype {value.dtype}.")
        return Attribute(key, EDGE, (2,), value.dtype)
    if "index" in key or key == "face" or "batch" in key:
        raise ValueError(f"Attribute {key!r} is shifted by PyG when graphs are batched (its name contains "
                         "'index', 'batch' or is 'face'); the packed loader shifts edge_index only. Leave it out "
                         f"with exclude_keys=[{key!r}].")
    pad_value = _checked_pad(pad_value, value.dtype, key)
    cat_dim = graph.__cat_dim__(key, value)
    if cat_dim is None or value.dim() == 0:
        return Attribute(key, GRAPH, tuple(value.shape), value.dtype, pad_value)
    if cat_dim != 0:
        raise ValueError(f"Attribute {key!r} is concatenated along dimension {cat_dim}; the packed loader pads "
                         f"attributes concatenated along dimension 0. Leave it out with exclude_keys=[{key!r}].")
    row_shape = tuple(value.shape[1:])
    if graph.is_node_attr(key):
        return Attribute(key, NODE, row_shape, value.dtype, pad_value)
    if graph.is_edge_attr(key):
        return Attribute(key, EDGE, row_shape, value.dtype, pad_value)
    if value.size(0) == 1:
        return Attribute(key, GRAPH, row_shape, value.dtype, pad_value)
    raise ValueError(f"Attribute {key!r} has {value.size(0)} rows in a graph of {graph.num_nodes} nodes and "
                     f"{graph.num_edges} edges: it is neither node-, edge- nor graph-level, so it cannot be "
                     f"padded. Leave it out with exclude_keys=[{key!r}].")


def sample_position(nodes: np.ndarray, edges: np.ndarray) -> int:
    """The graph whose attributes' levels PyG's rules tell apart best: more than one node,
    not exactly one edge, and unlike node and edge counts if there is such a graph; then
    with fewer of these; else the first.

    >>> sample_position(np.array([1, 2, 3, 4]), np.array([0, 1, 3, 6]))
    3
    """
    for candidates in ((nodes > 1) & (edges != 1) & (nodes != edges), (nodes > 1) & (edges != 1), nodes > 1):
        found = np.flatnonzero(candidates)
        if found.size:
            return int(found[0])
    return 0
