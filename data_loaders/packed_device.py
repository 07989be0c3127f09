"""The packed loader's batches built on a device (``PackedLoader(..., device=...)``).

The host-built loader gathers and pads every step on the CPU; on a GPU that work becomes
most of a captured training step. Here the dataset's concatenated storage (every tensor
attribute, plus each graph's row counts and offsets) is copied to the device once, and each
step is built there with torch index operations: the step's graphs gathered with
``index_select``, edge indices shifted by ``repeat_interleave`` of the node offsets, padding
appended and masks compared, with no Python loop over graphs. The host's only work is the
epoch's index arrays, dealt once per epoch by the sampler (``epoch_steps``), and a few
integers per step (the step's node, edge and graph counts, known from the sizes, so the
device is never asked for a number and never waited on).

The batches equal the host-built loader's, tensor for tensor (values, dtypes, the slice and
increment tables that ``get_example`` reads); ``tests/test_packed_device.py`` checks this
on random datasets and the real ones. The copy is taken when the loader is made: changes to
the dataset after that are not seen.
"""
from __future__ import annotations

from typing import Any, Iterable, Iterator

import numpy as np
import psutil
import torch
from torch_geometric.data import Batch, InMemoryDataset

from packing import BatchShape

from .packed_collate import finish_padded
from .packed_gather import StorageGather
from .packed_layout import EDGE, EDGE_INDEX, GRAPH, NODE, GraphLayout, new_batch
from .pyg_sizes import reads_as_stored
from .pyg_internals import collated_storage, set_separation_tables

GIB = 2**30


def resolve_device(device: str | torch.device) -> torch.device:
    """``device`` as a ``torch.device`` that this machine has.

    >>> resolve_device("cpu")
    device(type='cpu')
    >>> resolve_device("tpu")
    Traceback (most recent call last):
    ...
    ValueError: device must be None, "cpu", "cuda", "cuda:<index>" or a torch.device; got 'tpu'.
    """
    try:
        resolved = torch.device(device)
    except (RuntimeError, TypeError):
        raise ValueError(f'device must be None, "cpu", "cuda", "cuda:<index>" or a torch.device; got {device!r}.') \
            from None
    if resolved.type not in ("cpu", "cuda"):
        raise ValueError(f'device must be None, "cpu", "cuda", "cuda:<index>" or a torch.device; got {device!r}.')
    if resolved.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(f"device={device!r}, but torch sees no CUDA device here (torch {torch.__version__}); "
                             "use device='cpu' or device=None.")
        index = 0 if resolved.index is None else resolved.index
        if index >= torch.cuda.device_count():
            raise ValueError(f"device={device!r}, but this machine has {torch.cuda.device_count()} CUDA device(s).")
        resolved = torch.device("cuda", index)
    return resolved


def tensor_bytes(tensors: Iterable[torch.Tensor]) -> int:
    """Bytes the ``tensors`` hold.

    >>> tensor_bytes([torch.zeros(4, 2), torch.zeros(3, dtype=torch.int64)])
    56
    """
    return sum(tensor.numel() * tensor.element_size() for tensor in tensors)


def default_budget(device: torch.device) -> int:
    """Half of the device's free memory, in bytes: the default ``memory_budget``.

    >>> default_budget(torch.device("cpu")) > 0
    True
    """
    free = torch.cuda.mem_get_info(device)[0] if device.type == "cuda" else psutil.virtual_memory().available
    return int(free) // 2


def collated(graphs: list[Any] | tuple[Any, ...]) -> InMemoryDataset:
    """A list of graphs as one in-memory dataset (PyG's ``collate``), so it can be gathered
    from storage like any ``InMemoryDataset``.

    >>> from torch_geometric.data import Data
    >>> dataset = collated([Data(x=torch.ones(n, 2)) for n in (2, 3)])
    >>> len(dataset), dataset[1].x.shape[0]
    (2, 3)
    """
    return _Collated(graphs)


class _Collated(InMemoryDataset):
    def __init__(self, graphs: list[Any] | tuple[Any, ...]) -> None:
        super().__init__()
        self.data, self.slices = self.collate(list(graphs))


def gather_for_device(dataset: Any, layout: GraphLayout) -> StorageGather:
    """The storage tables of ``dataset``: an ``InMemoryDataset`` read as stored, or a list of
    graphs (collated once); ``ValueError`` for a dataset whose graphs are made as they are
    read (a transform, a ``get`` of its own)."""
    gather = None if isinstance(dataset, (list, tuple)) else StorageGather.for_dataset(dataset, layout)
    if gather is None and (isinstance(dataset, (list, tuple)) or reads_as_stored(dataset)):
        graphs = list(dataset)
        # PyG keeps no slices for storage of one graph: store it twice, read the first
        gather = StorageGather.for_dataset(collated(graphs * 2 if len(graphs) == 1 else graphs), layout)
    if gather is None:
        what = "has a transform" if getattr(dataset, "transform", None) is not None else \
            f"is a {type(dataset).__name__} whose graphs are made as they are read"
        raise ValueError(
            f"device= copies the dataset's storage to the device once, but this dataset {what}. Read its graphs "
            "once and pass the list, PackedLoader(list(dataset), plan, device=...) (a random transform is then "
            "fixed), or leave device=None to build batches on the host.")
    return gather


class DeviceBatches:
    """The padded batches of one plan's steps, built on ``device`` from a copy of the
    dataset's storage (module docstring).

    Args:
        gather: the dataset's storage tables (:func:`gather_for_device`).
        layout: the batch's attributes (the host loader's layout).
        shape: the padded shape of every batch.
        device: where the storage and the batches live.
        memory_budget: bytes the copy may take (None: :func:`default_budget`).

    Raises:
        ValueError: the storage is larger than the budget (both named).
    """

    def __init__(self, gather: StorageGather, layout: GraphLayout, shape: BatchShape, device: torch.device,
                 memory_budget: int | None = None) -> None:
        stored, _ = collated_storage(gather.dataset)
        storage = {a.key: stored[a.key] for a in layout.attributes}
        needed = tensor_bytes(storage.values()) + \
            8 * (gather.positions.size + 2 * 3 * gather.rows[NODE].size + 4 * sum(shape))
        budget = default_budget(device) if memory_budget is None else memory_budget
        if needed > budget:
            raise ValueError(
                f"The dataset's storage takes {needed / GIB:.3g} GiB on {device}, past the memory budget of "
                f"{budget / GIB:.3g} GiB ({'given' if memory_budget is not None else 'half the free memory'}). Give "
                "a larger memory_budget (bytes) if the device has room, or device=None to build batches on the host.")
        self.device, self.shape, self.layout, self.gather = device, shape, layout, gather
        self.storage = {key: tensor.to(device, copy=True) for key, tensor in storage.items()}
        long = {"dtype": torch.long, "device": device}
        self.rows = {level: torch.as_tensor(rows, **long) for level, rows in gather.rows.items()}
        self.starts = {level: torch.as_tensor(starts, **long) for level, starts in gather.starts.items()}
        sizes = {NODE: shape.num_nodes, EDGE: shape.num_edges, GRAPH: shape.num_graphs}
        self.ranges = {level: torch.arange(count, **long) for level, count in sizes.items()}
        self.padding = {a.key: a.empty(sizes[a.level]).to(device) for a in layout.attributes if a.key != EDGE_INDEX}
        self.ends = {NODE: torch.full((shape.num_graphs,), shape.num_nodes, **long),
                     EDGE: torch.full((shape.num_graphs,), shape.num_edges, **long),
                     GRAPH: torch.arange(1, shape.num_graphs + 1, **long)}
        self.zero = torch.zeros(1, **long)
        self.no_shift = torch.zeros(shape.num_graphs, **long)

    @property
    def storage_bytes(self) -> int:
        """Bytes of the dataset's tensors on the device."""
        return tensor_bytes(self.storage.values())

    def epoch(self, indices: np.ndarray, step_starts: np.ndarray) -> Iterator[Batch]:
        """The batches of one epoch's steps (``PackedBatchSampler.epoch_steps``)."""
        positions = self.gather.positions[indices]
        counts = {level: rows[positions] for level, rows in self.gather.rows.items()}
        ends = {level: np.concatenate([[0], np.cumsum(c)])[step_starts] for level, c in counts.items()}
        totals = {level: np.diff(e) for level, e in ends.items()}
        # the per-step node counts on the device, for the edge increments' first padding entry
        step_nodes = torch.as_tensor(totals[NODE], dtype=torch.long).to(self.device)
        on_device = torch.as_tensor(positions, dtype=torch.long).to(self.device)
        for step in range(step_starts.size - 1):
            first, last = int(step_starts[step]), int(step_starts[step + 1])
            node_counts = counts[NODE][first:last] if self.layout.counts_nodes else None
            yield self._batch(on_device[first:last], int(totals[NODE][step]), int(totals[EDGE][step]),
                              step_nodes[step:step + 1], node_counts)

    def _batch(self, positions: torch.Tensor, nodes: int, edges: int, nodes_on_device: torch.Tensor,
               node_counts: np.ndarray | None) -> Batch:
        """One padded step: the graphs at storage ``positions`` with ``nodes`` nodes and
        ``edges`` edges, as the host loader's gather and :class:`PadToShape` make it."""
        shape, ranges, ends = self.shape, self.ranges, self.ends
        graphs = positions.numel()
        totals = {NODE: nodes, EDGE: edges, GRAPH: graphs}
        pad_rows = {NODE: shape.num_nodes - nodes, EDGE: shape.num_edges - edges, GRAPH: shape.num_graphs - graphs}
        pad_graphs = pad_rows[GRAPH]
        rows = {NODE: self.rows[NODE][positions], EDGE: self.rows[EDGE][positions]}
        take = {level: self._rows_of(level, self.starts[level][positions], rows[level], totals[level])
                for level in (NODE, EDGE)}
        take[GRAPH] = positions
        node_offsets = rows[NODE].cumsum(0) - rows[NODE]
        real_slices = {level: torch.cat([self.zero, rows[level].cumsum(0)]) for level in (NODE, EDGE)}
        real_slices[GRAPH] = ranges[GRAPH][:graphs + 1]  # one row per graph; a graph slot is kept for padding
        padding_ends = {NODE: ends[NODE][:pad_graphs], EDGE: ends[EDGE][:pad_graphs], GRAPH: ends[GRAPH][graphs:]}
        batch = new_batch()
        slice_tables, increments = {}, {}
        for attribute in self.layout.attributes:
            key, level = attribute.key, attribute.level
            if key == EDGE_INDEX:
                shift = torch.repeat_interleave(node_offsets, rows[EDGE], output_size=edges)
                loops = nodes + ranges[EDGE][:pad_rows[EDGE]] % pad_rows[NODE]
                batch[key] = torch.cat([self.storage[key].index_select(1, take[EDGE]) + shift, loops.expand(2, -1)],
                                       dim=1)
                increments[key] = torch.cat([node_offsets, nodes_on_device, ends[NODE][:pad_graphs - 1]])
            else:
                batch[key] = torch.cat([self.storage[key].index_select(0, take[level]),
                                        self.padding[key][:pad_rows[level]]])
                increments[key] = self.no_shift
            slice_tables[key] = torch.cat([real_slices[level], padding_ends[level]])
        set_separation_tables(batch, slice_tables, increments)
        graph_of_node = torch.repeat_interleave(ranges[GRAPH][:graphs], rows[NODE], output_size=nodes)
        batch.batch = torch.cat([graph_of_node, ranges[GRAPH][graphs:graphs + 1].expand(pad_rows[NODE])])
        batch.ptr = torch.cat([real_slices[NODE], padding_ends[NODE]])
        finish_padded(batch, shape, ranges, (nodes, edges, graphs), None if node_counts is None else node_counts.tolist())
        return batch

    def _rows_of(self, level: str, starts: torch.Tensor, counts: torch.Tensor, total: int) -> torch.Tensor:
        """The ``level`` rows ``starts[i], ..., starts[i] + counts[i] - 1`` of every graph, in
        order (``total`` of them, at most the shape's)."""
        offsets = counts.cumsum(0) - counts
        return torch.repeat_interleave(starts - offsets, counts, output_size=total) + self.ranges[level][:total]
