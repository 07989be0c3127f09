"""Loader costs: the seconds a loader takes to give the training step its next batch, timed
on the real code paths at a grid of batch shapes and fitted as the step is
(:func:`throughput.fit.fit_cost_model`: seconds per batch from its nodes, edges and graphs,
with the held-out error of every form).

The kinds (:data:`LOADERS`), each timed with the torch threads the caller has set:

``pyg_first``
    PyG's ``DataLoader`` without workers, each graph read for the first time: PyG's
    ``InMemoryDataset`` separates the graph from its storage (``dataset[i]``), keeps a
    copy, and the batch is collated (``Batch.from_data_list``). A run's first epoch; every
    epoch when worker processes are started anew each epoch (PyG's default).
``pyg_cached``
    the same once every graph was read: ``dataset[i]`` copies the graph kept. The later
    epochs of a run without workers.
``packed``
    :class:`data_loaders.PackedLoader` built on the host: the step's graphs gathered from
    the dataset's storage and padded (no per-graph reads, so no first and later epochs).
``packed_device``
    :class:`data_loaders.PackedLoader` with ``device=``: built on the device (timed to the
    device's end, synchronised).
``handoff``
    the training process's wait for a batch that a worker process has ready (PyG's
    ``DataLoader`` with one worker, the batch prefetched), the trainer busy until then:
    receiving it through shared memory.

The shape of a timing is the batch's (nodes, edges, graphs): padded for the packed loader,
real for PyG's. The graphs are random, with ogbg-mol* attributes and widths
(:mod:`data_loaders.random_graphs`: ``x`` of 9 atom features, ``edge_index``, ``edge_attr``
of 3 bond features, ``y``); a dataset with more or wider attributes collates more slowly.
Every batch of a shape holds graphs of one size, and the grid (:func:`loader_shapes`) spans
graphs per batch and graph size independently.

On a shared machine: each grid row is timed for about ``budget`` seconds after two untimed
batches and kept as its median (with quartiles and the fastest), never from fewer than
:data:`LEAST` batches, nor fewer than :data:`HANDOFF_LEAST` hand-offs (a few milliseconds
each, whose spread is widest). :func:`calibrate_loaders` at the default grid and budget (5
kinds x 9 rows x 0.2 s, and three long epochs of first reads) takes 15-20 s on this
project's 2-core CPU (AMD EPYC, 1 torch thread, 29 November 2026). The hand-off's worker process is ended before
:func:`time_loader` returns, also when it fails.
"""
from __future__ import annotations

import statistics
import time
from typing import Any, Callable, Iterator

import numpy as np
import torch
from torch.utils.data import RandomSampler
from torch_geometric.loader import DataLoader

from data_loaders import PackedLoader, random_mol_dataset
from packing import BatchShape, PackLimits, SizeHistogram, pack

from .fit import fit_cost_model
from .loader_kinds import LOADERS, LoaderCost
from .records import ShapeTiming

#: graphs per batch and (nodes, edges) per graph of the default grid: small to large
#: molecule batches (9 shapes, enough to fit and hold out)
GRAPHS_PER_BATCH = (8, 32, 128)
GRAPH_SIZES = ((10, 20), (25, 54), (60, 130))
#: batches per epoch of each timed dataset
BATCHES = 6
#: fewest batches timed per shape
LEAST = 5
#: fewest and most hand-offs timed per shape: a hand-off is a few milliseconds whose
#: spread on a shared 2-core machine is wide, so more of them are timed
HANDOFF_LEAST, HANDOFF_BATCHES = 15, 400


def loader_shapes(graphs: tuple[int, ...] = GRAPHS_PER_BATCH,
                  sizes: tuple[tuple[int, int], ...] = GRAPH_SIZES) -> list[tuple[int, int, int]]:
    """The (graphs per batch, nodes per graph, edges per graph) grid the loaders are timed at.

    >>> loader_shapes((2, 4), ((3, 6),))
    [(2, 3, 6), (4, 3, 6)]
    """
    return [(count, nodes, edges) for count in graphs for nodes, edges in sizes]


def _timed(batches: Iterator[Any], budget: float, done: Callable[[Any], None] | None = None) -> list[float]:
    """Seconds of each ``next(batches)`` (with ``done(batch)``, e.g. a device
    synchronisation), after two untimed ones: at least :data:`LEAST`, until ``budget``
    seconds have passed."""
    for _ in range(2):
        next(batches)
    times: list[float] = []
    began = time.perf_counter()
    while len(times) < LEAST or time.perf_counter() - began < budget:
        start = time.perf_counter()
        batch = next(batches)
        if done is not None:
            done(batch)
        times.append(time.perf_counter() - start)
    return times


def _dataset(count: int, nodes: int, edges: int, batches: int, seed: int) -> Any:
    """``batches`` batches' worth of random molecules of one size."""
    return random_mol_dataset(SizeHistogram.from_counts([nodes], [edges], [count * batches]), seed=seed)


def _endless(loader: Any) -> Iterator[Any]:
    while True:
        yield from loader


def _summary(shape: BatchShape, times: list[float]) -> ShapeTiming:
    p25, p75 = np.quantile(times, [0.25, 0.75]).tolist()
    return ShapeTiming(shape, statistics.median(times), p25, p75, min(times), len(times))


def time_loader(loader: str, count: int, nodes: int, edges: int, *, device: str = "cpu", budget: float = 0.2,
                seed: int = 0) -> ShapeTiming:
    """The seconds per batch of ``loader`` (one of :data:`LOADERS`) on batches of ``count``
    graphs of ``nodes`` nodes and ``edges`` edges each, timed for about ``budget`` seconds.

    >>> timing = time_loader("packed", 4, 5, 8, budget=0.01)
    >>> tuple(timing.shape), timing.repeats >= 5
    ((21, 32, 5), True)
    """
    if loader not in LOADERS:
        raise ValueError(f"loader must be one of {', '.join(LOADERS)}, got {loader!r}.")
    shape = BatchShape(count * nodes, count * edges, count)
    if loader == "pyg_first":
        return _summary(shape, _first_reads(count, nodes, edges, budget, seed))
    dataset = _dataset(count, nodes, edges, BATCHES, seed)
    if loader == "pyg_cached":
        plain = DataLoader(dataset, batch_size=count, shuffle=True)
        for _ in plain:  # every graph read once: PyG keeps them
            pass
        return _summary(shape, _timed(_endless(plain), budget))
    if loader == "handoff":
        return _summary(shape, _handoff_times(dataset, count, nodes, edges, budget))
    hist = SizeHistogram.from_counts([nodes], [edges], [count * BATCHES])
    on_device = loader == "packed_device"
    made = PackedLoader(dataset, pack(hist, PackLimits(count * nodes, count * edges, count)),
                        device=device if on_device else None)
    synchronize = (lambda batch: torch.cuda.synchronize(device)) if on_device and device.startswith("cuda") else None
    return _summary(made.shape, _timed(_endless(made), budget, synchronize))


def _first_reads(count: int, nodes: int, edges: int, budget: float, seed: int) -> list[float]:
    """Seconds per batch of graphs read for the first time: each round is a fresh dataset
    (PyG keeps nothing of it yet) read through once."""
    times: list[float] = []
    began = time.perf_counter()
    while len(times) < LEAST or time.perf_counter() - began < budget:
        batches = iter(DataLoader(_dataset(count, nodes, edges, BATCHES, seed + len(times)), batch_size=count,
                                  shuffle=True))
        next(batches)  # the epoch's start
        for _ in range(BATCHES - 1):
            start = time.perf_counter()
            next(batches)
            times.append(time.perf_counter() - start)
    return times


def _busy(seconds: float, work: torch.Tensor) -> None:
    """Keep the training process's torch threads busy for ``seconds`` (matrix products), as
    a training step keeps them between two batches."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        work @ work


def _handoff_times(dataset: Any, count: int, nodes: int, edges: int, budget: float) -> list[float]:
    """Seconds the training process waits for a batch a worker has ready: before each batch
    it works (:func:`_busy`) long enough for the worker to have made it (three collates of
    such a batch, at least a millisecond), so only the hand-off is timed, with the trainer
    busy as in training (on this project's 2-core CPU, 29 Nov: 4.3-4.7 ms for packed
    ogbg-molhiv batches of about 128 graphs against 3.2-3.3 ms with the trainer asleep). One
    worker serves the whole measurement (batches drawn with replacement,
    :data:`HANDOFF_LEAST` to :data:`HANDOFF_BATCHES` of them); its first batch, which waits
    for the worker to start, is not timed, and the worker is ended before this returns,
    also on an error."""
    pause = max(3 * statistics.median(_first_reads(count, nodes, edges, 0.0, 0)), 1e-3)
    work = torch.rand(64, 64)
    sampler = RandomSampler(dataset, replacement=True, num_samples=count * HANDOFF_BATCHES)
    batches = iter(DataLoader(dataset, batch_size=count, sampler=sampler, num_workers=1))
    try:
        next(batches)
        waits: list[float] = []
        began = time.perf_counter()
        while (len(waits) < HANDOFF_LEAST or time.perf_counter() - began < budget) and \
                len(waits) < HANDOFF_BATCHES - 1:
            _busy(pause, work)
            start = time.perf_counter()
            next(batches)
            waits.append(time.perf_counter() - start)
        return waits
    finally:
        del batches  # unbound here, also while a traceback holds this frame: the worker is shut down


#: graphs of one long first-read epoch (:func:`first_read_factor`): a training set's size
LONG_EPOCH_GRAPHS = 25_600


def first_read_factor(seed: int = 0, graphs: int = LONG_EPOCH_GRAPHS, rounds: int = 3) -> float:
    """How much slower PyG's first reads are per batch, on average, in one long epoch
    (``graphs`` graphs) than the median of the short epochs ``pyg_first`` is
    timed on, at 128 graphs of 25 nodes and 54 edges: PyG keeps every graph it reads, and
    Python's garbage collector scans the graphs kept, more of them as the epoch goes on
    (ogbg-molhiv's training split, 29 Nov: 10.6 ms a batch with the collector on, 7.3 with
    it off, as on a 768-graph dataset). The median of ``rounds`` long epochs, each on its
    own dataset (one epoch's factor spread over 1.41-1.65 in four rounds on this project's
    2-core CPU; a ratio of two timings, it takes any value on a busy machine). At least 1.

    >>> first_read_factor(graphs=2560, rounds=1) >= 1.0
    True
    """
    count, nodes, edges = 128, 25, 54
    short = statistics.median(_first_reads(count, nodes, edges, 0.2, seed))
    per_batch = []
    for round_ in range(rounds):
        dataset = random_mol_dataset(SizeHistogram.from_counts([nodes], [edges], [graphs]), seed=seed + 1 + round_)
        loader = DataLoader(dataset, batch_size=count, shuffle=True)
        start = time.perf_counter()
        batches = sum(1 for _ in loader)
        per_batch.append((time.perf_counter() - start) / batches)
    return max(1.0, statistics.median(per_batch) / short)


#: :func:`first_read_factor_once`'s measurements in this process, by (seed, graphs, torch threads).
_FACTORS: dict[tuple[int, int, int], float] = {}


def first_read_factor_once(seed: int = 0, graphs: int = LONG_EPOCH_GRAPHS) -> float:
    """:func:`first_read_factor`, measured once per process, seed, epoch length and torch
    thread count: a ratio of two timings of the same PyG code, which the machine's load
    mostly cancels, so a server that calibrates again (this machine's calibration, then
    another model from the Throughput page) pays its long epochs (about 7 s on this
    project's 2-core CPU) once.

    >>> first_read_factor_once(graphs=1280) == first_read_factor_once(graphs=1280) >= 1.0
    True
    """
    key = (seed, graphs, torch.get_num_threads())
    if key not in _FACTORS:
        _FACTORS[key] = first_read_factor(seed, graphs)
    return _FACTORS[key]


def calibrate_loaders(device: str = "cpu", shapes: list[tuple[int, int, int]] | None = None, *,
                      budget: float = 0.2, seed: int = 0, long_epoch_graphs: int = LONG_EPOCH_GRAPHS,
                      progress: Callable[[int, int, str], None] | None = None) -> dict[str, LoaderCost]:
    """Time every loader kind (:data:`LOADERS`; ``packed_device`` on ``device``) at each of
    ``shapes`` ((graphs per batch, nodes per graph, edges per graph); None:
    :func:`loader_shapes`) for about ``budget`` seconds each, and fit each kind's cost
    (``pyg_first`` with :func:`first_read_factor_once` of ``long_epoch_graphs``);
    ``progress(done, total, kind)`` as each timing starts and once at the end.

    >>> costs = calibrate_loaders(shapes=loader_shapes((2, 6), ((3, 4), (7, 12), (12, 30))), budget=0.005,
    ...                           long_epoch_graphs=1280)
    >>> sorted(costs), costs["packed"].fit.form in costs["packed"].fit.forms
    (['handoff', 'packed', 'packed_device', 'pyg_cached', 'pyg_first'], True)
    """
    grid = loader_shapes() if shapes is None else list(shapes)
    costs = {}
    total = len(grid) * len(LOADERS)
    for kind_index, kind in enumerate(LOADERS):
        timings = []
        for shape_index, (count, nodes, edges) in enumerate(grid):
            if progress is not None:
                progress(kind_index * len(grid) + shape_index, total, kind)
            timings.append(time_loader(kind, count, nodes, edges, device=device, budget=budget, seed=seed))
        fit = fit_cost_model([t.shape for t in timings], [t.median for t in timings])
        factor = first_read_factor_once(seed, long_epoch_graphs) if kind == "pyg_first" else 1.0
        costs[kind] = LoaderCost(kind, tuple(timings), fit, factor)
    if progress is not None:
        progress(total, total, LOADERS[-1])
    return costs
