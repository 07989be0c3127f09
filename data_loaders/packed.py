"""Train with a packing plan: a PyG ``DataLoader`` whose batches are the plan's packs,
padded to one constant shape, with masks; for one process or many.

``PackedBatchSampler`` turns a plan (``packing.pack`` or an exported configuration) into
lists of dataset indices, one per step. A plan counts graphs per (nodes, edges) size tuple,
and graphs of one tuple are interchangeable for it, so each epoch deals the dataset's real
graphs of every tuple, shuffled, into the plan's packs, and shuffles the order of the packs
(seeded by ``seed`` and the epoch; ``set_epoch`` reshuffles). Every graph is in exactly one
pack per epoch.

With several processes (``torch.distributed``, or explicit ``rank`` and ``world_size``)
every rank builds the same epoch from the same seed and takes its share of the packs, so
no graph goes to two ranks and every rank runs the same number of steps of the same shape.
The packs rarely divide evenly; ``remainder="pad"`` (the default) gives the last steps
empty packs so every graph is still seen once per epoch (at most ``world_size *
packs_per_step - 1`` empty packs, a fraction of a percent of an epoch on molecule data);
``remainder="drop"`` leaves out the packs that do not fill a round (others every epoch).
Loaders that let ranks run different step counts hang at the first collective the longer
rank reaches alone; both choices here keep the counts equal.

``PackedLoader`` is PyG's ``DataLoader`` with that sampler. Its batches (see
``data_loaders.packed_collate``) always hold ``shape.num_nodes`` nodes, ``shape.num_edges``
edges and ``shape.num_graphs`` graphs, by default the plan's node and edge limits and the
most graphs any of its packs holds (``PackingPlan.graph_capacity``), plus one padding node
and one padding graph, with ``node_mask``, ``edge_mask`` and ``graph_mask``, so a model
compiled with ``torch.compile`` sees one shape for the whole run.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Iterator, Mapping, NoReturn, Sequence

import numpy as np
import torch
from torch_geometric.data import Data
from torch_geometric.loader import DataLoader

from packing import BatchShape, PackingPlan, SizeHistogram, whole_number
from packing.io import load_config

from .packed_collate import PadToShape
from .packed_device import DeviceBatches, gather_for_device, resolve_device
from .packed_gather import PackSource, concatenated_ranges
from .packed_layout import GraphLayout, sample_position
from .pyg_sizes import dataset_sizes, first_stray_edge, reads_as_stored, stray_edge

REMAINDERS = ("pad", "drop")
#: DataLoader arguments the packed loader sets itself.
_OWN_ARGUMENTS = ("batch_size", "sampler", "batch_sampler", "drop_last", "collate_fn")
_EMPTY = -1  # a padding pack in an epoch's pack order


def graph_sizes(dataset: Any) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and edges of every graph as the loader will see it: vectorised from ``slices``
    for an ``InMemoryDataset`` read as stored (:func:`~data_loaders.pyg_sizes.reads_as_stored`:
    no ``transform``, PyG's own ``get``; subset views included), one pass over the graphs for
    any other indexable dataset (a list of ``Data``, an on-disk PyG ``Dataset``, one whose
    ``transform`` may change the sizes, e.g. ``AddSelfLoops``, or whose ``get`` is its own).
    A graph whose ``edge_index`` leaves its nodes is refused on the way, naming it.

    >>> import torch
    >>> graph = Data(edge_index=torch.tensor([[0, 1], [1, 0]]), num_nodes=3)
    >>> [values.tolist() for values in graph_sizes([graph, graph])]
    [[3, 3], [2, 2]]
    >>> graph_sizes([graph, Data(edge_index=torch.tensor([[0], [-1]]), num_nodes=3)])
    Traceback (most recent call last):
    ...
    ValueError: Graph 1 of the dataset has edge_index entry -1, outside its 3 nodes (an entry must lie in 0 <= \
entry < 3): a batch would join that edge to another graph or to padding. Fix or drop the edge in graph 1 before packing.
    """
    if reads_as_stored(dataset):
        try:
            sizes = dataset_sizes(dataset)
        except ValueError as error:
            raise ValueError(f"Cannot pack this dataset: {error}") from None
        stray = first_stray_edge(dataset)
        if stray is not None:
            _refuse_stray_edge(*stray)
        return sizes
    if not (hasattr(dataset, "__len__") and hasattr(dataset, "__getitem__")):
        raise ValueError(f"The packed loader needs a PyG dataset or a list of Data, got {type(dataset).__name__}.")
    sizes = np.zeros((len(dataset), 2), dtype=np.int64)
    for position in range(len(dataset)):
        graph = dataset[position]
        if not isinstance(graph, Data):
            raise ValueError(f"Graph {position} of the dataset is a {type(graph).__name__}, not a PyG Data; the "
                             "packed loader needs a PyG dataset or a list of Data.")
        if "edge_index" not in graph:
            raise ValueError(f"Graph {position} of the dataset has no edge_index; the packed loader needs one "
                             "on every graph (torch.empty(2, 0, dtype=torch.long) for a graph without edges).")
        nodes, edges = graph.num_nodes, graph.num_edges
        sizes[position] = nodes, edges
        entry = stray_edge(graph.edge_index, nodes)
        if entry is not None:
            _refuse_stray_edge(position, entry, nodes)
    return sizes[:, 0], sizes[:, 1]


def _refuse_stray_edge(position: int, entry: int, num_nodes: int) -> NoReturn:
    """``ValueError`` for graph ``position``, whose ``edge_index`` holds ``entry``, not a node."""
    raise ValueError(
        f"Graph {position} of the dataset has edge_index entry {entry}, outside its {num_nodes} nodes (an entry "
        f"must lie in 0 <= entry < {num_nodes}): a batch would join that edge to another graph or to padding. Fix "
        f"or drop the edge in graph {position} before packing.")


def check_plan_matches(plan: PackingPlan, hist: SizeHistogram) -> None:
    """``ValueError`` naming the first size tuple (smallest nodes, then edges) whose graph
    count differs between the plan and the dataset, or the first pack over a limit.

    >>> from packing import PackLimits, pack
    >>> plan = pack(SizeHistogram.from_sizes([3, 2, 2], [4, 2, 2]), PackLimits(5, 6, 4))
    >>> check_plan_matches(plan, SizeHistogram.from_sizes([2, 3, 2], [2, 4, 2]))  # the same sizes: silent
    >>> check_plan_matches(plan, SizeHistogram.from_sizes([3, 2], [4, 2]))
    Traceback (most recent call last):
    ...
    ValueError: The plan was not made for this dataset: size (2 nodes, 2 edges) has 2 graphs in the plan but 1 in \
the dataset (1 size differs; the plan packs 3 graphs, the dataset has 2). Make the plan from this dataset's sizes: \
pack(SizeHistogram.from_sizes(*data_loaders.graph_sizes(dataset)), ...).
    """
    if not isinstance(plan, PackingPlan):
        raise ValueError(f"plan must be a PackingPlan (from packing.pack, or use PackedLoader.from_config for "
                         f"an exported configuration); got {type(plan).__name__}.")
    planned = plan.histogram
    in_plan = dict(zip(zip(planned.num_nodes.tolist(), planned.num_edges.tolist()), planned.counts.tolist()))
    in_data = dict(zip(zip(hist.num_nodes.tolist(), hist.num_edges.tolist()), hist.counts.tolist()))
    differing = sorted(size for size in in_plan.keys() | in_data.keys() if in_plan.get(size) != in_data.get(size))
    if differing:
        nodes, edges = differing[0]
        raise ValueError(
            f"The plan was not made for this dataset: size ({nodes} nodes, {edges} edges) has "
            f"{in_plan.get((nodes, edges), 0):,} graphs in the plan but {in_data.get((nodes, edges), 0):,} in the "
            f"dataset ({len(differing):,} {'size differs' if len(differing) == 1 else 'sizes differ'}; the plan "
            f"packs {planned.num_graphs:,} graphs, the dataset has {hist.num_graphs:,}). Make the plan from this dataset's sizes: "
            "pack(SizeHistogram.from_sizes(*data_loaders.graph_sizes(dataset)), ...).")
    if plan.method.unlimited is None:
        plan.limits.check_fits(hist)
    try:
        plan.check(hist)
    except ValueError as error:
        raise ValueError(f"The plan breaks its limits: {error}") from None


def _refuse_random_sizes(dataset: Any, sizes: tuple[np.ndarray, np.ndarray]) -> None:
    """``ValueError`` when a dataset's ``transform`` gives other sizes on a second read (a
    random augmentation that drops or adds nodes or edges): no fixed plan can pack it, which
    says more than that the plan does not match."""
    transform = getattr(dataset, "transform", None)
    if transform is None:
        return
    again = graph_sizes(dataset)
    changed = int(((again[0] != sizes[0]) | (again[1] != sizes[1])).sum())
    if changed:
        raise ValueError(
            f"The dataset's transform ({type(transform).__name__}) gave {changed:,} graphs other sizes when they were "
            "read again: a plan packs fixed sizes, so no plan can pack graphs whose sizes change at random. Make the "
            "transform deterministic, or apply the augmentation to each padded batch instead by masking (e.g. set "
            "edge_mask to False for the edges it drops), which keeps the shape.")


def resolve_ranks(rank: int | None, world_size: int | None) -> tuple[int, int]:
    """This process's rank and the number of processes: as given, else from an initialised
    ``torch.distributed`` process group, else a single process.

    >>> resolve_ranks(None, None), resolve_ranks(2, 3)
    ((0, 1), (2, 3))
    """
    if rank is None and world_size is None:
        distributed = torch.distributed
        if distributed.is_available() and distributed.is_initialized():
            return distributed.get_rank(), distributed.get_world_size()
        return 0, 1
    if rank is None or world_size is None:
        raise ValueError("Give both rank and world_size, or neither (then torch.distributed decides).")
    world_size = whole_number(world_size, "world_size")
    rank = whole_number(rank, "rank", low=0)
    if rank >= world_size:
        raise ValueError(f"rank must be below world_size ({world_size}), got {rank}.")
    return rank, world_size


class PackedBatchSampler(torch.utils.data.Sampler):
    """Lists of dataset indices, one per step (``packs_per_step`` packs of ``plan``), for
    this rank; see the module docstring for how graphs are dealt and shared between ranks.
    With ``remainder="pad"`` a padding step may be an empty list, which
    :class:`PackedLoader` turns into a batch of padding but PyG's own ``DataLoader`` cannot
    collate: use it with ``PackedLoader``, or with ``remainder="drop"`` elsewhere.

    Args:
        dataset: the graphs: an ``InMemoryDataset`` or a view of one (sizes read from its
            ``slices``), or any sequence of PyG ``Data``.
        plan: a plan that packs exactly the dataset's graphs (checked before the first step).
        shuffle: deal the graphs of every size tuple and order the packs at random.
        seed: the seed of the shuffle, combined with the epoch (:meth:`set_epoch`).
        rank: this process's rank; with ``world_size``, or neither (then
            ``torch.distributed`` decides, else one process).
        world_size: the number of processes sharing the packs.
        packs_per_step: packs in one step's list.
        remainder: ``"pad"`` gives the last steps empty packs so every graph is seen once per
            epoch; ``"drop"`` leaves out the packs that do not fill a round.

    Raises:
        ValueError: the plan does not pack exactly the dataset's graphs or breaks its limits,
            an argument is out of range, or ``remainder="drop"`` leaves no step.

    >>> from packing import pack
    >>> from data_loaders.random_graphs import random_mol_dataset
    >>> dataset = random_mol_dataset(SizeHistogram.from_sizes([3, 5, 2, 4], [4, 8, 2, 6]))
    >>> plan = pack(SizeHistogram.from_sizes(*dataset_sizes(dataset)), max_nodes=7, max_edges=10)
    >>> sampler = PackedBatchSampler(dataset, plan, seed=1)
    >>> len(sampler), sorted(i for step in sampler for i in step)
    (2, [0, 1, 2, 3])
    """

    def __init__(
        self, dataset: Any, plan: PackingPlan, shuffle: bool = True, seed: int = 0,
        rank: int | None = None, world_size: int | None = None, *, packs_per_step: int = 1,
        remainder: str = "pad",
    ) -> None:
        if not isinstance(shuffle, bool):
            raise ValueError(f"shuffle must be True or False, got {shuffle!r}.")
        if remainder not in REMAINDERS:
            raise ValueError(f"remainder must be one of {', '.join(REMAINDERS)}, got {remainder!r}.")
        self.plan = plan
        self.shuffle = shuffle
        self.seed = whole_number(seed, "seed", low=0)
        self.rank, self.world_size = resolve_ranks(rank, world_size)
        self.packs_per_step = whole_number(packs_per_step, "packs_per_step")
        self.remainder = remainder
        self.epoch = 0
        self.num_nodes, self.num_edges = graph_sizes(dataset)
        try:
            hist = SizeHistogram.from_sizes(self.num_nodes, self.num_edges)
        except ValueError as error:
            raise ValueError(f"Cannot pack this dataset: {error}") from None
        try:
            check_plan_matches(plan, hist)
        except ValueError:
            _refuse_random_sizes(dataset, (self.num_nodes, self.num_edges))
            raise
        self._index_slots(hist)
        per_round = self.world_size * self.packs_per_step
        rounds = math.ceil(plan.num_packs / per_round) if remainder == "pad" else plan.num_packs // per_round
        if rounds == 0:
            raise ValueError(f"remainder='drop' leaves no step: the plan has {plan.num_packs:,} packs, fewer than "
                             f"world_size x packs_per_step = {per_round:,}; use remainder='pad'.")
        self._rounds = rounds

    def _index_slots(self, hist: SizeHistogram) -> None:
        """Fixed for the plan: each graph's size tuple, and the size tuple of every graph
        slot of the plan's packs (packs in plan order) with the pack boundaries."""
        self._graph_tuple = hist.rows_of(self.num_nodes, self.num_edges)
        self._graphs_by_tuple = np.argsort(self._graph_tuple, kind="stable")
        chunks = [np.tile(np.array(rows), count) for rows, count in self.plan.graph_rows(hist)]
        self._slots_by_tuple = np.argsort(np.concatenate(chunks), kind="stable")
        graphs_per_pack = np.repeat(self.plan.pack_graphs, self.plan.pack_counts)
        self._pack_starts = np.concatenate([[0], np.cumsum(graphs_per_pack)])

    def set_epoch(self, epoch: int) -> None:
        """Deal the graphs and order the packs anew for ``epoch`` (call it on every rank)."""
        self.epoch = whole_number(epoch, "epoch", low=0)

    def epoch_packs(self) -> list[np.ndarray]:
        """Every pack of this epoch in order, as arrays of dataset indices (all ranks)."""
        slot_graphs, order = self._epoch()
        return [slot_graphs[self._pack_starts[p]:self._pack_starts[p + 1]] for p in order]

    def _epoch(self) -> tuple[np.ndarray, np.ndarray]:
        """The dataset index in every slot of the plan's packs, and the order of the packs."""
        rng = np.random.default_rng([self.seed, self.epoch])
        graphs = self._graphs_by_tuple
        if self.shuffle:
            shuffled = rng.permutation(graphs.size)
            graphs = shuffled[np.argsort(self._graph_tuple[shuffled], kind="stable")]
        slot_graphs = np.empty_like(graphs)
        slot_graphs[self._slots_by_tuple] = graphs
        num_packs = self.plan.num_packs
        order = rng.permutation(num_packs) if self.shuffle else np.arange(num_packs)
        return slot_graphs, order

    def __len__(self) -> int:
        """Steps per epoch on this rank (the same on every rank)."""
        return self._rounds

    def epoch_steps(self) -> tuple[np.ndarray, np.ndarray]:
        """This rank's steps of the epoch at once: the dataset indices of every step, one
        after the other, and where each step starts in them (``len(self) + 1`` offsets).

        >>> from packing import pack
        >>> from data_loaders.random_graphs import random_mol_dataset
        >>> dataset = random_mol_dataset(SizeHistogram.from_sizes([3, 5, 2, 4], [4, 8, 2, 6]))
        >>> plan = pack(SizeHistogram.from_sizes(*dataset_sizes(dataset)), max_nodes=7, max_edges=10)
        >>> indices, starts = PackedBatchSampler(dataset, plan, shuffle=False).epoch_steps()
        >>> indices.size, starts.tolist()
        (4, [0, 2, 4])
        """
        slot_graphs, order = self._epoch()
        total = self._rounds * self.world_size * self.packs_per_step
        order = np.concatenate([order, np.full(max(total - order.size, 0), _EMPTY)])[:total]
        mine = order.reshape(self._rounds, self.world_size, self.packs_per_step)[:, self.rank].ravel()
        real = mine != _EMPTY
        lengths = np.zeros(mine.size, dtype=np.int64)
        lengths[real] = np.diff(self._pack_starts)[mine[real]]
        starts = np.where(real, self._pack_starts[np.where(real, mine, 0)], 0)
        indices = slot_graphs[concatenated_ranges(starts, lengths)]
        step_starts = np.concatenate([[0], np.cumsum(lengths.reshape(self._rounds, self.packs_per_step).sum(axis=1))])
        return indices, step_starts

    def __iter__(self) -> Iterator[list[int]]:
        indices, starts = self.epoch_steps()
        for step in range(self._rounds):
            yield indices[starts[step]:starts[step + 1]].tolist()


class PackedLoader(DataLoader):
    """PyG's ``DataLoader`` over the packs of ``plan``: every batch has one shape, masks for
    real nodes, edges and graphs (``node_mask``, ``edge_mask``, ``graph_mask``) and a
    constant ``num_graphs``.

    Args:
        dataset: the graphs (see :class:`PackedBatchSampler`); every graph carries the same
            tensor attributes, of any width and dtype.
        plan: a plan that packs exactly the dataset's graphs.
        shuffle: deal the graphs and order the packs at random each epoch.
        seed: the seed of the shuffle, combined with the epoch (:meth:`set_epoch`).
        rank: this process's rank (see :class:`PackedBatchSampler`).
        world_size: the number of processes sharing the packs.
        packs_per_step: packs in one batch.
        remainder: ``"pad"`` or ``"drop"`` (see :class:`PackedBatchSampler`).
        shape: the padded shape of every batch (``loader.shape``); by default
            ``BatchShape.for_plan(plan, packs_per_step)``: the node and edge limits and the
            most graphs a pack holds, times ``packs_per_step``, plus one padding node and
            one padding graph. A larger one (a BatchShape or a plain (nodes, edges, graphs)
            tuple) must hold that; give the loaders of two plans (training and validation)
            ``BatchShape.covering(...)`` of their shapes to compile one shape for both.
        pad_values: the padding value of every attribute: one number, or a dict per
            attribute (0 for those not named).
        exclude_keys: attributes left out of the batches.
        device: None (batches built on the host, in the loader's workers if any), or where
            to keep the dataset and build every batch (``"cpu"``, ``"cuda"``,
            ``"cuda:1"``, a ``torch.device``): the dataset's storage is copied there once
            and each step is gathered and padded there by torch index operations
            (:mod:`data_loaders.packed_device`); the batches equal the host-built ones
            and are on that device. Needs an ``InMemoryDataset`` read as stored or a list
            of graphs, and no worker processes.
        memory_budget: bytes the device copy may take (None: half the device's free
            memory); a larger storage is refused with both numbers.
        **kwargs: other arguments of ``DataLoader`` (``num_workers``, ``pin_memory``, ...).

    Raises:
        ValueError: as :class:`PackedBatchSampler`; also for a ``shape`` too small for the
            plan, attributes that cannot be padded (named, with what to do), or a ``DataLoader``
            argument the loader sets itself (``batch_size``, ``collate_fn``, ...), or a
            ``device`` the dataset cannot be copied to (named, with what to do).

    >>> from packing import pack
    >>> from data_loaders.random_graphs import random_mol_dataset
    >>> dataset = random_mol_dataset(SizeHistogram.from_sizes([3, 5, 2, 4], [4, 8, 2, 6]))
    >>> plan = pack(SizeHistogram.from_sizes(*dataset_sizes(dataset)), max_nodes=7, max_edges=10)
    >>> loader = PackedLoader(dataset, plan)
    >>> [(b.x.shape[0], b.edge_index.shape[1], b.num_graphs, int(b.graph_mask.sum())) for b in loader]
    [(8, 10, 3, 2), (8, 10, 3, 2)]
    """

    def __init__(
        self, dataset: Any, plan: PackingPlan, shuffle: bool = True, seed: int = 0,
        rank: int | None = None, world_size: int | None = None, *, packs_per_step: int = 1,
        remainder: str = "pad", shape: BatchShape | tuple[int, int, int] | None = None,
        pad_values: Mapping[str, float | int | bool] | float | int = 0,
        exclude_keys: Sequence[str] | None = None, device: str | torch.device | None = None,
        memory_budget: int | None = None, **kwargs: Any,
    ) -> None:
        if "follow_batch" in kwargs:
            raise ValueError("The packed loader does not support follow_batch: its batches give the graph of every "
                             "node (batch) and the padding masks, not per-attribute batch vectors.")
        own = sorted(set(kwargs) & set(_OWN_ARGUMENTS))
        if own:
            raise ValueError(f"The packed loader sets {', '.join(own)} itself from the plan; leave "
                             f"{'it' if len(own) == 1 else 'them'} out.")
        sampler = PackedBatchSampler(dataset, plan, shuffle, seed, rank, world_size,
                                     packs_per_step=packs_per_step, remainder=remainder)
        needed = BatchShape.for_plan(plan, packs_per_step)
        if shape is not None and (not isinstance(shape, (tuple, list)) or len(shape) != 3):  # a BatchShape is a tuple
            raise ValueError(f"shape must be a BatchShape or (num_nodes, num_edges, num_graphs), got {shape!r}.")
        self.shape = needed if shape is None else BatchShape(*shape).check_holds(needed)
        exclude = list(exclude_keys or ())
        sample = dataset[sample_position(sampler.num_nodes, sampler.num_edges)]
        source = PackSource(dataset, GraphLayout.from_graph(sample, pad_values, exclude), exclude)
        self.layout = source.layout
        self.plan = plan
        self.device = None if device is None else resolve_device(device)
        self.resident = None if self.device is None else self._resident(source, memory_budget, kwargs)
        super().__init__(source, batch_sampler=sampler, **kwargs)
        self.collate_fn = PadToShape(self.shape, self.layout)

    def _resident(self, source: PackSource, memory_budget: int | None, kwargs: dict[str, Any]) -> DeviceBatches:
        """The batches built on ``self.device`` (see the ``device`` argument)."""
        if kwargs.get("num_workers"):
            raise ValueError(f"With device={str(self.device)!r} every batch is built on the device in the training "
                             "process: leave out num_workers (worker processes would each copy the dataset).")
        if kwargs.get("pin_memory"):
            raise ValueError(f"With device={str(self.device)!r} the batches are made on the device: pin_memory has "
                             "nothing to pin; leave it out.")
        budget = None if memory_budget is None else whole_number(memory_budget, "memory_budget")
        gather = source.storage or gather_for_device(source.dataset, self.layout)
        return DeviceBatches(gather, self.layout, self.shape, self.device, budget)

    def __iter__(self) -> Iterator[Any]:
        if self.resident is None:
            return super().__iter__()
        return self.resident.epoch(*self.batch_sampler.epoch_steps())

    @classmethod
    def from_config(cls, dataset: Any, config: str | Path | bytes | dict[str, Any], **kwargs: Any) -> "PackedLoader":
        """The loader for the plan of an exported configuration (``packing.export``; the
        dashboard's Export page, ``python -m packing pack --out`` or ``recommend --out``),
        verified on load. A recommended configuration's packs per step (its
        ``recommendation`` section) are the loader's unless ``packs_per_step`` is given.

        Args:
            dataset: the graphs the configuration was made for.
            config: a path, JSON text or bytes, or the loaded dict.
            **kwargs: the other arguments of :class:`PackedLoader`.

        Raises:
            ValueError: the configuration fails verification (the message says why), or as
                :class:`PackedLoader`.
        """
        try:
            loaded, plan = load_config(config)
        except ValueError as error:
            raise ValueError(f"The configuration failed verification: {error}") from None
        recommended = loaded.get("recommendation")
        if isinstance(recommended, dict) and "packs_per_step" in recommended and "packs_per_step" not in kwargs:
            kwargs["packs_per_step"] = whole_number(recommended["packs_per_step"], "recommendation.packs_per_step")
        return cls(dataset, plan, **kwargs)

    def set_epoch(self, epoch: int) -> None:
        """Reshuffle for ``epoch`` (call it on every rank before iterating)."""
        self.batch_sampler.set_epoch(epoch)
