"""Pad a batch of real graphs to one constant shape, with masks (the packed loader's collate).

The layout follows jraph's ``pad_with_graphs`` and PyG's ``transforms.Pad``; the code is
our own. After the ``k`` real graphs (``n`` nodes, ``e`` edges) come

* one **padding graph** that takes every missing node and edge: ``num_nodes - n >= 1``
  nodes and ``num_edges - e`` edges, each a self-loop on a padding node (spread round-robin
  over the padding nodes, so no single node collects every padding message); no edge joins
  a padding node to a real one, so message passing never mixes them;
* empty graphs (no nodes, no edges) up to ``num_graphs``.

Node-, edge- and graph-level attributes are padded with each attribute's padding value
(0 unless given). ``node_mask``, ``edge_mask`` and ``graph_mask`` are True on real rows;
``batch``, ``ptr`` and ``num_graphs`` cover every graph, padding included, so pooling with
``size=batch.num_graphs`` gives one row per graph slot. The slice tables are extended so
``batch.get_example(i)`` still returns real graph ``i`` unchanged.
"""
from __future__ import annotations

import torch
from torch_geometric.data import Batch

from packing import BatchShape

from .packed_layout import EDGE, EDGE_INDEX, GRAPH, NODE, GraphLayout
from .pyg_internals import graph_node_counts, separation_tables, set_graph_count, set_graph_node_counts


def finish_padded(batch: Batch, shape: BatchShape, ranges: dict[str, torch.Tensor], real: tuple[int, int, int],
                  node_counts: list[int] | None) -> None:
    """The last touches of a padded batch of ``real`` (nodes, edges, graphs): the masks of
    real rows (``ranges``: 0, 1, ... per level, at least the shape's), the graph count, and
    per-graph node counts for graphs that carry ``num_nodes`` (``node_counts`` of the real
    graphs; None when they do not).

    >>> batch = Batch()
    >>> ranges = {NODE: torch.arange(4), EDGE: torch.arange(2), GRAPH: torch.arange(3)}
    >>> finish_padded(batch, BatchShape(4, 2, 3), ranges, (2, 1, 1), [2])
    >>> batch.node_mask.tolist(), batch.graph_mask.tolist(), batch.num_graphs, batch._num_nodes
    ([True, True, False, False], [True, False, False], 3, [2, 2, 0])
    """
    nodes, edges, graphs = real
    if node_counts is not None:
        set_graph_node_counts(batch, [*node_counts, shape.num_nodes - nodes, *[0] * (shape.num_graphs - graphs - 1)])
        batch.num_nodes = shape.num_nodes
    batch.node_mask = ranges[NODE][:shape.num_nodes] < nodes
    batch.edge_mask = ranges[EDGE][:shape.num_edges] < edges
    batch.graph_mask = ranges[GRAPH][:shape.num_graphs] < graphs
    set_graph_count(batch, shape.num_graphs)


class PadToShape:
    """Collate function: a ``Batch`` of real graphs in, the padded ``Batch`` out.

    >>> from torch_geometric.data import Data
    >>> graph = Data(x=torch.ones(2, 3), edge_index=torch.tensor([[0, 1], [1, 0]]), y=torch.tensor([1.0]))
    >>> pad = PadToShape(BatchShape(5, 4, 3), GraphLayout.from_graph(graph))
    >>> batch = pad(Batch.from_data_list([graph]))
    >>> batch.x.shape, batch.edge_index.tolist(), batch.num_graphs
    (torch.Size([5, 3]), [[0, 1, 2, 3], [1, 0, 2, 3]], 3)
    >>> batch.node_mask.tolist(), batch.graph_mask.tolist(), batch.batch.tolist()
    ([True, True, False, False, False], [True, False, False], [0, 0, 1, 1, 1])
    """

    def __init__(self, shape: BatchShape, layout: GraphLayout) -> None:
        self.shape = shape
        self.layout = layout
        # Constants sliced per step (a view costs less than building a small tensor).
        rows = {NODE: shape.num_nodes, EDGE: shape.num_edges, GRAPH: shape.num_graphs}
        self._padding = {a.key: a.empty(rows[a.level]) for a in layout.attributes if a.key != EDGE_INDEX}
        self._ranges = {level: torch.arange(count) for level, count in rows.items()}
        # where each padding graph ends, per level, once the real rows are in place
        self._ends = {NODE: torch.full((shape.num_graphs,), shape.num_nodes),
                      EDGE: torch.full((shape.num_graphs,), shape.num_edges),
                      GRAPH: torch.arange(1, shape.num_graphs + 1)}
        self._no_shift = torch.zeros(shape.num_graphs, dtype=torch.long)

    def __call__(self, real: Batch) -> Batch:
        if not isinstance(real, Batch):
            raise TypeError(f"PadToShape pads a PyG Batch, got {type(real).__name__}.")
        graphs, nodes = real.num_graphs, int(real.ptr[-1])
        edges = int(real[EDGE_INDEX].size(1))
        self._check_fits(real, graphs, nodes, edges)
        shape, ranges = self.shape, self._ranges
        pad_nodes, pad_edges, pad_graphs = shape.num_nodes - nodes, shape.num_edges - edges, shape.num_graphs - graphs
        padded_rows = {NODE: pad_nodes, EDGE: pad_edges, GRAPH: pad_graphs}
        ends = {NODE: self._ends[NODE][:pad_graphs], EDGE: self._ends[EDGE][:pad_graphs],
                GRAPH: self._ends[GRAPH][graphs:]}
        slice_tables, increments = separation_tables(real)  # the batch's own: extended in place
        for attribute in self.layout.attributes:
            key, level = attribute.key, attribute.level
            if key == EDGE_INDEX:
                loops = nodes + ranges[EDGE][:pad_edges] % pad_nodes
                real[key] = torch.cat([real[key], loops.expand(2, -1)], dim=1)
                incs = self._ends[NODE][:pad_graphs].clone()
                incs[0] = nodes
            else:
                real[key] = torch.cat([real[key], self._padding[key][:padded_rows[level]]])
                incs = self._no_shift[:pad_graphs]
            increments[key] = torch.cat([increments[key], incs])
            slice_tables[key] = torch.cat([slice_tables[key], ends[level]])
        real.batch = torch.cat([real.batch, ranges[GRAPH][graphs:graphs + 1].expand(pad_nodes)])
        real.ptr = torch.cat([real.ptr, ends[NODE]])
        finish_padded(real, shape, ranges, (nodes, edges, graphs),
                      graph_node_counts(real) if self.layout.counts_nodes else None)
        return real

    def _check_fits(self, real: Batch, graphs: int, nodes: int, edges: int) -> None:
        """Refuse a step that does not fit (only possible when a transform changes graph
        sizes after the plan was made) and one whose attributes differ from the layout."""
        shape = self.shape
        if nodes >= shape.num_nodes or edges > shape.num_edges or graphs >= shape.num_graphs:
            raise ValueError(
                f"A step of {graphs} graphs with {nodes} nodes and {edges} edges does not fit the batch shape "
                f"({shape}; one node and one graph are kept for padding). The plan was made for other graph "
                "sizes: does the dataset's transform add nodes or edges? Make the plan from the sizes the "
                "loader sees.")
        keys = set(self.layout.keys)
        found = {key for key in real.keys() if key not in ("batch", "ptr", "num_nodes")}
        if found != keys:
            raise ValueError(f"A step's graphs carry {sorted(found)} but the dataset's layout is {sorted(keys)}; "
                             "every graph must carry the same attributes (or leave some out with exclude_keys).")
