"""The stream of graphs a data loader yields, epoch after epoch, and the two ways of cutting
it into batches: a fixed number of graphs per batch (static batching) and a greedy fill
under node, edge and graph caps (dynamic batching, PyG's ``DynamicBatchSampler``).

Graphs have ids ``0 .. n-1``. Epoch ``k`` visits them in one order: for a histogram, a
random permutation drawn from ``numpy.random.default_rng([seed, k])`` (the same for every
strategy, so two strategies see the same graphs in the same order and differ only in how
they batch them); for an explicit size sequence, the order given, every epoch. The epochs
follow each other as one stream with global positions ``k * n + i``.

Every batcher here cuts the stream into consecutive runs: batch ``b`` holds the graphs at
positions ``[start_b, start_b + graphs_b)``, so no graph is lost or seen twice within an
epoch. The work is vectorised: numpy does the per-graph arithmetic and Python only walks
from one batch start to the next.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from array import array
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd

from ..histogram import SizeHistogram
from ..limits import whole_number
from ..shape import BatchShape

#: Per-graph arrays are held in memory; beyond this many graphs, simulate a sample.
MAX_STREAM_GRAPHS = 20_000_000


def epoch_rng(seed: int, epoch: int) -> np.random.Generator:
    """The random generator of one epoch (its order, and for packing its pack order).

    >>> order = epoch_rng(seed=0, epoch=1).permutation(6).tolist()
    >>> order == epoch_rng(0, 1).permutation(6).tolist(), order == epoch_rng(0, 2).permutation(6).tolist()
    (True, False)
    """
    return np.random.default_rng([seed, epoch])


@dataclass(frozen=True, eq=False)
class GraphSizes:
    """Nodes and edges per graph id, and whether each epoch shuffles the graphs.

    >>> sizes = GraphSizes.of(SizeHistogram.from_counts([3, 5], [4, 8], [2, 1]))
    >>> sizes.nodes.tolist(), sizes.shuffled
    ([3, 3, 5], True)
    >>> GraphSizes.of(([5, 3], [8, 4])).order(epoch=1, seed=0).tolist()
    [0, 1]
    """

    nodes: np.ndarray
    edges: np.ndarray
    shuffled: bool
    histogram: SizeHistogram = field(repr=False)

    @classmethod
    def of(cls, hist_or_sizes: Any) -> "GraphSizes":
        """The graph sizes of a dataset.

        Args:
            hist_or_sizes: a ``SizeHistogram`` (every epoch a random permutation of its
                graphs) or an explicit per-graph sequence in loader order: a pair
                ``(nodes, edges)``, an array of shape (n, 2), or a frame with ``num_nodes``
                and ``num_edges`` columns.

        Returns:
            Per-graph nodes and edges, whether epochs shuffle, and the histogram.

        Raises:
            ValueError: sizes in no accepted form, sizes that are not whole non-negative
                numbers (or edges without nodes), or more than ``MAX_STREAM_GRAPHS`` graphs.
        """
        if isinstance(hist_or_sizes, SizeHistogram):
            hist = hist_or_sizes
            _check_stream_size(hist.num_graphs)
            return cls(np.repeat(hist.num_nodes, hist.counts), np.repeat(hist.num_edges, hist.counts), True, hist)
        nodes, edges = _sequence_columns(hist_or_sizes)
        hist = SizeHistogram.from_sizes(nodes, edges)  # validates: whole, non-negative, edges need nodes
        _check_stream_size(hist.num_graphs)
        return cls(np.asarray(nodes, dtype=np.int64), np.asarray(edges, dtype=np.int64), False, hist)

    @property
    def num_graphs(self) -> int:
        return int(self.nodes.size)

    def order(self, epoch: int, seed: int) -> np.ndarray:
        """Graph ids in the order epoch ``epoch`` visits them."""
        if not self.shuffled:
            return np.arange(self.num_graphs)
        return epoch_rng(seed, epoch).permutation(self.num_graphs)


def _check_stream_size(graphs: int) -> None:
    if graphs > MAX_STREAM_GRAPHS:
        raise ValueError(f"The batching simulator holds one entry per graph and accepts at most "
                         f"{MAX_STREAM_GRAPHS:,} graphs; this dataset has {graphs:,}. Simulate a random "
                         "subset of the graphs (the padding statistics of a large sample are the same).")


def _sequence_columns(sizes: Any) -> tuple[Any, Any]:
    """(nodes, edges) of an explicit size sequence in one of the accepted forms."""
    if isinstance(sizes, pd.DataFrame):
        missing = {"num_nodes", "num_edges"} - set(sizes.columns)
        if missing:
            raise ValueError(f"A size frame needs the columns num_nodes and num_edges; missing {sorted(missing)}.")
        return sizes["num_nodes"].to_numpy(), sizes["num_edges"].to_numpy()
    if isinstance(sizes, np.ndarray) and sizes.ndim == 2 and sizes.shape[1] == 2:
        return sizes[:, 0], sizes[:, 1]
    if isinstance(sizes, (tuple, list)) and len(sizes) == 2:
        return sizes[0], sizes[1]
    raise ValueError("Give a SizeHistogram, a pair (nodes, edges) of per-graph sequences, an array of shape "
                     f"(graphs, 2) or a frame with num_nodes and num_edges; got {type(sizes).__name__}.")


@dataclass(frozen=True)
class Block:
    """A stretch of the stream: the graphs from global position ``base`` to the end of one
    epoch, with running sums of nodes and edges (``cum_nodes[i]`` = nodes before ``i``)."""

    base: int
    cum_nodes: np.ndarray
    cum_edges: np.ndarray

    @property
    def length(self) -> int:
        return self.cum_nodes.size - 1


@dataclass
class Batches:
    """Batches cut from the stream so far: global start, graphs, real nodes and edges."""

    parts: list[tuple[np.ndarray, ...]] = field(default_factory=list)
    count: int = 0

    def add(self, block: Block, starts: np.ndarray, ends: np.ndarray) -> None:
        """Record the batches ``[starts, ends)`` (positions within ``block``)."""
        self.parts.append((block.base + starts, ends - starts, block.cum_nodes[ends] - block.cum_nodes[starts],
                           block.cum_edges[ends] - block.cum_edges[starts]))
        self.count += starts.size

    def arrays(self, wanted: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(start, graphs, nodes, edges) of the first ``wanted`` batches (all when None)."""
        if not self.parts:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty, empty
        columns = tuple(np.concatenate([part[column] for part in self.parts]) for column in range(4))
        return columns if wanted is None else tuple(column[:wanted] for column in columns)


@dataclass(kw_only=True)
class Batcher(ABC):
    """Cuts batches from the blocks it is fed, until it has ``wanted`` of them (None: as
    many as the stream gives); ``pending`` is the first graph not batched. A batch may
    run on from one epoch into the next when ``cross_epochs``; otherwise, and in the last
    epoch, the last batch holds what is left. Each kind says where its batches end."""

    wanted: int | None
    cross_epochs: bool
    pending: int = 0
    done: bool = False
    batches: Batches = field(default_factory=Batches)

    def feed(self, block: Block, last_epoch: bool) -> None:
        first = self.pending - block.base
        ends = self.batch_ends(block, first, final=last_epoch or not self.cross_epochs)
        if ends.size:
            self.batches.add(block, np.concatenate([[first], ends[:-1]]), ends)
            self.pending = block.base + int(ends[-1])
        self.done = self.wanted is not None and self.batches.count >= self.wanted

    @abstractmethod
    def batch_ends(self, block: Block, first: int, final: bool) -> np.ndarray:
        """Ends (positions in ``block``) of the batches cut from ``first`` on, each starting
        where the one before ended; unless ``final``, a batch that reaches the block's end
        is left for the next block."""


@dataclass
class FixedCount(Batcher):
    """Static batching: ``size`` consecutive graphs per batch."""

    size: int

    def batch_ends(self, block: Block, first: int, final: bool) -> np.ndarray:
        remaining = block.length - first
        count = -(-remaining // self.size) if final else remaining // self.size
        return np.minimum(first + self.size * np.arange(1, count + 1, dtype=np.int64), block.length)


@dataclass(frozen=True)
class SizeBudget:
    """The budget of PyG's ``DynamicBatchSampler``: at most ``max_num`` nodes (``mode="node"``)
    or edges (``mode="edge"``) per batch, nothing else capped.

    Not a :class:`~packing.BatchShape`: nothing is padded to it on the other sides (the
    other component and the graph count vary from batch to batch), and a graph over the
    budget still forms a batch of its own, so no shape holds every batch. Not a
    :class:`~packing.PackLimits` either: those cap all three sizes and a pack never breaks
    them.

    >>> SizeBudget(640, "node")
    SizeBudget(max_num=640, mode='node')
    >>> SizeBudget(640, "graph")
    Traceback (most recent call last):
    ...
    ValueError: mode must be 'node' or 'edge' (PyG's DynamicBatchSampler), got 'graph'.
    """

    max_num: int
    mode: str = "node"

    def __post_init__(self) -> None:
        object.__setattr__(self, "max_num", whole_number(self.max_num, "max_num", 1))
        if self.mode not in ("node", "edge"):
            raise ValueError(f"mode must be 'node' or 'edge' (PyG's DynamicBatchSampler), got {self.mode!r}.")


@dataclass
class GreedyFill(Batcher):
    """Dynamic batching: graphs are added in stream order while the batch stays within
    ``target``; the graph that would break it opens the next batch. Two forms: a
    :class:`~packing.BatchShape` (jraph's ``dynamically_batch``: the batch keeps the shape's
    :attr:`~packing.BatchShape.real_room` of nodes, edges and graphs, so one node and one
    graph are left for the padding graph), or a :class:`SizeBudget` of nodes or of edges
    and no graph cap (PyG's ``DynamicBatchSampler``; a graph over the budget on its own
    forms a batch alone)."""

    target: BatchShape | SizeBudget

    def batch_ends(self, block: Block, first: int, final: bool) -> np.ndarray:
        if isinstance(self.target, SizeBudget):
            sums = block.cum_nodes if self.target.mode == "node" else block.cum_edges
            return _fill_to_budget(memoryview(sums), self.target.max_num, first, block.length, final)
        return _fill_to_target(block, first, final, *self.target.real_room)


# The walks below take one Python step per batch over memoryviews of the running sums
# (about 0.5 us per batch; a numpy pass would have to look at every graph, not every
# batch). A batch ends where the next graph would break a cap; unless ``final``, a batch
# that reaches the end of the block is left for the next block (it may grow there). They
# return the batch ends; each batch starts where the previous one ended.

def _fill_to_budget(sums: memoryview, budget: int, first: int, length: int, final: bool) -> np.ndarray:
    """Greedy batches under one budget and no graph cap (PyG). The search for a batch's end
    starts at the mean batch length and moves a few graphs, as batch lengths vary little."""
    total = sums[length] - sums[first]
    typical = max(1, budget * (length - first) // total) if total else length
    ends = array("q")
    add = ends.append
    position = first
    while position < length - typical:  # the first guess lies inside the block: no clamping
        top = sums[position] + budget
        end = position + typical
        if sums[end] > top:
            end -= 1
            while sums[end] > top:
                end -= 1
            if end == position:  # too big on its own: alone
                end += 1
        else:
            while end < length and sums[end + 1] <= top:
                end += 1
            if end == length:
                break  # the last batches, with the end of the block, below
        add(end)
        position = end
    while position < length:
        top = sums[position] + budget
        end = position + 1
        while end < length and sums[end + 1] <= top:
            end += 1
        if end == length and not final:
            break
        add(end)
        position = end
    return np.frombuffer(ends, dtype=np.int64) if ends else np.zeros(0, dtype=np.int64)


def _fill_to_target(block: Block, first: int, final: bool, node_cap: int, edge_cap: int, graph_cap: int) -> np.ndarray:
    """Greedy batches under a node cap, an edge cap and a graph cap (dynamic batching; every
    graph fits the caps on its own): most batches stop at the graph cap, so the search for a
    batch's end starts there and moves down while a cap is broken."""
    node_sums, edge_sums, length = memoryview(block.cum_nodes), memoryview(block.cum_edges), block.length
    ends = array("q")
    add = ends.append
    position = first
    while position < length - graph_cap:  # a full batch would end inside the block
        node_top = node_sums[position] + node_cap
        edge_top = edge_sums[position] + edge_cap
        end = position + graph_cap
        if node_sums[end] > node_top or edge_sums[end] > edge_top:
            end = _back_off(node_sums, edge_sums, node_top, edge_top, position, end)
        add(end)
        position = end
    while position < length:
        node_top = node_sums[position] + node_cap
        edge_top = edge_sums[position] + edge_cap
        end = min(position + graph_cap, length)
        if node_sums[end] > node_top or edge_sums[end] > edge_top:
            end = _back_off(node_sums, edge_sums, node_top, edge_top, position, end)
        if end == length and not final:
            break
        add(end)
        position = end
    return np.frombuffer(ends, dtype=np.int64) if ends else np.zeros(0, dtype=np.int64)


def _back_off(node_sums: memoryview, edge_sums: memoryview, node_top: int, edge_top: int, position: int,
              end: int) -> int:
    """The end below ``end`` where the batch from ``position`` keeps both caps."""
    end -= 1
    while node_sums[end] > node_top or edge_sums[end] > edge_top:
        end -= 1
    if end == position:
        raise ValueError(f"The graph at stream position {position:,} is larger than the target on its own.")
    return end


#: Called with the share of a simulation done, from 0 to 1, as it goes.
ShareDone = Callable[[float], None]


def run_stream(sizes: GraphSizes, seed: int, batchers: list[Batcher], epochs: int | None,
               progress: ShareDone | None = None) -> int:
    """Feed the stream to every batcher until all are done or ``epochs`` epochs have passed.

    Each block is the unbatched tail of the previous epoch followed by one whole epoch, so
    a batch can span two epochs (for batchers with ``cross_epochs``).

    Args:
        sizes: the graphs and their epoch orders.
        seed: seed of the epoch orders.
        batchers: the batchers to feed; each keeps its own batches.
        epochs: whole epochs to stream; None: until each batcher has its wanted count.
        progress: told the share streamed after each epoch (of the epochs, or of the
            batches the slowest batcher wants).

    Returns:
        The number of epochs streamed.

    Raises:
        ValueError: a batch grew over many epochs without closing (caps that no batch
            reaches).

    >>> fixed = FixedCount(2, wanted=None, cross_epochs=True)
    >>> run_stream(GraphSizes.of(([5, 3, 4], [8, 4, 6])), 0, [fixed], epochs=2)
    2
    >>> fixed.batches.arrays(None)[1].tolist()
    [2, 2, 2]
    """
    n = sizes.num_graphs
    tail_nodes = tail_edges = np.zeros(0, dtype=np.int64)
    base = 0
    epoch = 0
    while True:
        order = sizes.order(epoch, seed)
        nodes, edges = (np.empty(tail_nodes.size + n, dtype=np.int64) for _ in range(2))
        for out, tail, values in ((nodes, tail_nodes, sizes.nodes), (edges, tail_edges, sizes.edges)):
            out[:tail.size] = tail
            np.take(values, order, out=out[tail.size:], mode="clip")  # order is a permutation: always in range
        block = Block(base, _running_sum(nodes), _running_sum(edges))
        last = epochs is not None and epoch == epochs - 1
        active = [batcher for batcher in batchers if not batcher.done]
        for batcher in active:
            batcher.feed(block, last)
        epoch += 1
        if progress is not None:
            progress(epoch / epochs if epochs is not None else
                     min(min(1.0, batcher.batches.count / batcher.wanted) for batcher in batchers if batcher.wanted))
        active = [batcher for batcher in active if not batcher.done]
        if last or not active:
            return epoch
        keep = min(batcher.pending for batcher in active) - base
        tail_nodes, tail_edges, base = nodes[keep:], edges[keep:], base + keep
        if epoch * n - base > 64 * n + 1_000_000:
            raise ValueError("A batch grew over many epochs without closing; check the caps of the strategy.")


def _running_sum(values: np.ndarray) -> np.ndarray:
    out = np.empty(values.size + 1, dtype=np.int64)
    out[0] = 0
    np.cumsum(values, out=out[1:])
    return out
