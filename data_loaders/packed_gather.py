"""Fetch one step's graphs at once, as the PyG ``Batch`` that ``Batch.from_data_list`` gives.

Materialising every graph (``dataset[i]``) and collating them costs about 0.1-0.2 ms per
graph, more than a small GNN's training step on its batch. An ``InMemoryDataset`` keeps
all graphs concatenated with ``slices`` (where each graph starts), so the graphs of a step
can be gathered with one ``index_select`` per attribute instead: node rows of the chosen
graphs, their edge columns shifted to the new node offsets, their graph rows. The result
equals ``Batch.from_data_list([dataset[i] for i in indices])``, including the slice and
increment tables that ``Batch.get_example`` uses (``tests/test_packed_loader.py`` checks
this). Datasets with a ``transform``, a custom ``Data`` class or a plain list of graphs take
the general path through ``Batch.from_data_list``.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import torch
from torch_geometric.data import Batch, InMemoryDataset

from .packed_layout import EDGE, EDGE_INDEX, GRAPH, NODE, GraphLayout, new_batch
from .pyg_internals import collated_storage, set_graph_count, set_graph_node_counts, set_separation_tables
from .pyg_sizes import reads_as_stored, sizes_from_collated, storage_positions


def concatenated_ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``[starts[0], ..., starts[0] + counts[0] - 1, starts[1], ...]`` without a loop.

    >>> concatenated_ranges(np.array([5, 0, 9]), np.array([2, 0, 3])).tolist()
    [5, 6, 9, 10, 11]
    """
    offsets = np.cumsum(counts) - counts
    return np.repeat(starts - offsets, counts) + np.arange(int(counts.sum()), dtype=np.int64)


def _with_zero(counts: np.ndarray) -> torch.Tensor:
    """Cumulative sums with a leading zero, as PyG's slice tables hold them."""
    return torch.from_numpy(np.concatenate([[0], np.cumsum(counts)]).astype(np.int64))


class StorageGather:
    """Gathers graphs straight from an ``InMemoryDataset``'s concatenated storage.

    Built through :meth:`for_dataset`, which says whether the fast path applies. ``layout``
    is checked against every graph's rows at once (:meth:`GraphLayout.resolve_levels`).
    """

    def __init__(self, dataset: InMemoryDataset, layout: GraphLayout) -> None:
        storage, slices = collated_storage(dataset)
        self.positions = storage_positions(dataset)
        nodes, edges = sizes_from_collated(storage, slices)
        self.rows = {NODE: nodes, EDGE: edges, GRAPH: np.ones_like(nodes)}
        # every attribute of a level starts where the level's rows start (resolve_levels checks it)
        self.starts = {level: np.cumsum(rows) - rows for level, rows in self.rows.items()}
        rows = {a.key: np.diff(np.asarray(slices[a.key], dtype=np.int64)) for a in layout.attributes}
        self.layout = layout.resolve_levels(rows, nodes, edges)
        self.dataset = dataset  # its values are read at each step: a dataset normalised after this is seen

    @classmethod
    def for_dataset(cls, dataset: Any, layout: GraphLayout) -> "StorageGather | None":
        """The gatherer for ``dataset``, or None when the general path must be taken (not read
        as stored, :func:`~data_loaders.pyg_sizes.reads_as_stored`: a ``transform`` or a ``get``
        of its own that may change graphs, a ``Data`` subclass that may batch differently; or
        attributes that are not plain tensors)."""
        if not reads_as_stored(dataset):
            return None
        storage, slices = collated_storage(dataset)
        if not isinstance(slices, dict):
            return None
        if not all(a.key in slices and isinstance(storage[a.key], torch.Tensor) for a in layout.attributes):
            return None
        return cls(dataset, layout)

    def gather(self, indices: Sequence[int]) -> Batch:
        """The graphs at ``indices`` (positions in the dataset) as one PyG ``Batch``."""
        positions = self.positions[np.asarray(indices, dtype=np.int64)]
        rows = {level: counts[positions] for level, counts in self.rows.items()}
        take = {level: torch.from_numpy(concatenated_ranges(self.starts[level][positions], counts))
                for level, counts in rows.items()}
        node_offsets = np.cumsum(rows[NODE]) - rows[NODE]
        graphs = positions.size
        slices = {level: _with_zero(counts) for level, counts in rows.items()}
        no_shift = torch.zeros(graphs, dtype=torch.long)
        storage, _ = collated_storage(self.dataset)
        batch = new_batch()
        slice_tables, increments = {}, {}
        for attribute in self.layout.attributes:
            key, level = attribute.key, attribute.level
            if key == EDGE_INDEX:
                shift = torch.from_numpy(np.repeat(node_offsets, rows[EDGE]))
                batch[key] = storage[key].index_select(1, take[level]) + shift
                increments[key] = torch.from_numpy(node_offsets)
            else:
                batch[key] = storage[key].index_select(0, take[level])
                increments[key] = no_shift
            slice_tables[key] = slices[level]
        set_separation_tables(batch, slice_tables, increments)
        batch.batch = torch.from_numpy(np.repeat(np.arange(graphs, dtype=np.int64), rows[NODE]))
        batch.ptr = slices[NODE]
        if self.layout.counts_nodes:
            set_graph_node_counts(batch, rows[NODE].tolist())
            batch.num_nodes = int(rows[NODE].sum())
        set_graph_count(batch, graphs)
        return batch


class PackSource(torch.utils.data.Dataset):
    """What the packed loader's ``DataLoader`` reads from: ``__getitems__`` returns the
    graphs of one step (a list of dataset indices, possibly empty) as one PyG ``Batch``.

    ``dataset`` is the user's dataset, unchanged; ``source[i]`` is ``dataset[i]``.
    """

    def __init__(self, dataset: Any, layout: GraphLayout, exclude_keys: Sequence[str] = ()) -> None:
        self.dataset = dataset
        self.exclude_keys = list(exclude_keys)
        self.storage = StorageGather.for_dataset(dataset, layout)
        self.layout = layout if self.storage is None else self.storage.layout
        if isinstance(dataset, (list, tuple)):  # in memory already: settle and check every graph now, as stored
            self.layout = self.layout.settled_by(dataset)
            for position, graph in enumerate(dataset):
                self.layout.check_graph(graph, position)

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, index: int) -> Any:
        return self.dataset[index]

    def __getitems__(self, indices: Sequence[int]) -> Batch:
        if len(indices) == 0:
            return self.layout.empty_batch()
        if self.storage is not None:
            return self.storage.gather(indices)
        graphs = [self.dataset[index] for index in indices]
        for index, graph in zip(indices, graphs):  # an on-disk dataset is checked as its graphs are read
            self.layout.check_graph(graph, index)
        return Batch.from_data_list(graphs, exclude_keys=self.exclude_keys)
