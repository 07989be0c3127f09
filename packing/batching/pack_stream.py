"""Training on a packing plan: every epoch the plan's packs in a random order, ``k`` packs per
batch (the simulator pads each batch to :meth:`packing.BatchShape.for_plan`).

The plan fixes which size tuples share a pack; which graph of a size goes into which pack
is drawn afresh every epoch. The graphs of a pack are consecutive in the epoch's graph
order (:meth:`PackStream.order`), so a batch covers graph positions
``[start, start + graphs)`` like every other strategy.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .stream import GraphSizes, epoch_rng
from ..packs import pack_of, row_index
from ..plan import PackingPlan


@dataclass(frozen=True)
class PackRun:
    """Per batch: global position of its first graph, graphs, real nodes and edges."""

    start: np.ndarray
    graphs: np.ndarray
    nodes: np.ndarray
    edges: np.ndarray


@dataclass(frozen=True, eq=False)
class PackStream:
    """The packs of ``plan`` over the graphs of ``sizes`` (the plan must pack them exactly)."""

    sizes: GraphSizes
    plan: PackingPlan

    def __post_init__(self) -> None:
        self.plan.check(self.sizes.histogram)

    @property
    def packs_per_epoch(self) -> int:
        return self.plan.num_packs

    def _epoch_packs(self, epoch: int, seed: int) -> tuple[np.ndarray, np.random.Generator]:
        """Distinct-pack index of each pack in the epoch's order, and the epoch's generator
        (drawn from next for the graph assignment)."""
        rng = epoch_rng(seed, epoch)
        expanded = np.repeat(np.arange(self.plan.num_strategies), self.plan.pack_counts)
        return expanded[rng.permutation(expanded.size)], rng

    def run(self, packs_per_batch: int, wanted: int | None, epochs: int | None, seed: int,
            cross_epochs: bool) -> PackRun:
        """Batches of ``packs_per_batch`` consecutive packs in each epoch's pack order.

        Args:
            packs_per_batch: packs in one batch.
            wanted: batches to make; None: all of ``epochs`` epochs.
            epochs: whole epochs of packs when ``wanted`` is None.
            seed: seed of the epochs' pack orders.
            cross_epochs: whether a batch may take packs of two epochs; without it the
                last batch of each epoch may hold fewer packs (as the run's last batch may).

        Returns:
            Per batch: the stream position of its first graph, its graphs, real nodes and edges.
        """
        plan, n = self.plan, self.sizes.num_graphs
        per_epoch = self.packs_per_epoch
        if wanted is not None:
            epochs = _epochs_for(wanted, packs_per_batch, per_epoch, cross_epochs)
        columns: list[list[np.ndarray]] = [[], [], [], []]
        for epoch in range(epochs):
            order, _ = self._epoch_packs(epoch, seed)
            graphs = plan.pack_graphs[order]
            offsets = epoch * n + np.concatenate([[0], np.cumsum(graphs)[:-1]])
            for column, values in zip(columns, (offsets, graphs, plan.pack_nodes[order], plan.pack_edges[order])):
                column.append(values)
        start, graphs, nodes, edges = (np.concatenate(column) for column in columns)
        first = _batch_starts(start.size, packs_per_batch, per_epoch, cross_epochs)
        if wanted is not None and first.size > wanted:
            stop = first[wanted]
            first, start, graphs, nodes, edges = first[:wanted], start[:stop], graphs[:stop], nodes[:stop], edges[:stop]
        return PackRun(start[first], np.add.reduceat(graphs, first), np.add.reduceat(nodes, first),
                       np.add.reduceat(edges, first))

    def order(self, epoch: int, seed: int) -> np.ndarray:
        """Graph ids of epoch ``epoch`` in pack order: each slot of a pack gets a graph of its
        size, chosen at random among the graphs of that size."""
        packs, rng = self._epoch_packs(epoch, seed)
        slots = np.concatenate([self._pack_contents[index] for index in packs])
        # Graph ids of each size in a random order, then handed out slot by slot.
        shuffled = rng.permutation(self.sizes.num_graphs)
        by_size = shuffled[np.argsort(self._graph_tuple[shuffled], kind="stable")]
        slot_order = np.argsort(slots, kind="stable")
        order = np.empty(self.sizes.num_graphs, dtype=np.int64)
        order[slot_order] = by_size
        return order

    @cached_property
    def _pack_contents(self) -> list[np.ndarray]:
        """Per distinct pack, the histogram row (size tuple) of each of its slots."""
        rows = row_index(self.sizes.histogram)
        return [np.array(pack_of(items, rows)) for items, _ in self.plan.packs]

    @cached_property
    def _graph_tuple(self) -> np.ndarray:
        """Per graph id, its histogram row."""
        return self.sizes.histogram.rows_of(self.sizes.nodes, self.sizes.edges)


def _epochs_for(wanted: int, packs_per_batch: int, per_epoch: int, cross_epochs: bool) -> int:
    """Epochs of packs needed for ``wanted`` batches."""
    if cross_epochs:
        return -(-wanted * packs_per_batch // per_epoch)
    batches_per_epoch = -(-per_epoch // packs_per_batch)
    return -(-wanted // batches_per_epoch)


def _batch_starts(total: int, packs_per_batch: int, per_epoch: int, cross_epochs: bool) -> np.ndarray:
    """Index of the first pack of every batch in the concatenated pack stream."""
    if cross_epochs:
        return np.arange(0, total, packs_per_batch)
    within = np.arange(0, per_epoch, packs_per_batch)
    epochs = total // per_epoch
    return (per_epoch * np.arange(epochs)[:, None] + within[None, :]).ravel()
