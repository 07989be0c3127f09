"""Batching strategies next to packing: what each one pads, how many batches it makes and
how many shapes a JIT compiler sees, simulated exactly on a dataset's graph sizes.

The strategies (Speckhard et al., "Training Speedups via Batching for Geometric Learning",
sections 3-4, Algorithms 1-5, appendices F and H; B is the batch size). A padded
batch has one padding graph that takes the missing nodes and edges, and empty graphs up to
the graph count (:mod:`packing.batching.padding`):

``static_constant``
    B - 1 graphs per batch, padded to the constant target of Speckhard et al. (section 4, appendix
    H, TF-GNN's tutorial): B x the largest graph's nodes, B x the largest graph's edges, B
    graphs. One shape for the whole run. (The published code also rounds this target up to
    a multiple of 64 and adds a node; we follow the paper's definition.)
``static_64``
    B - 1 graphs per batch (Algorithm 5); nodes padded to the next multiple of 64 above the
    real nodes (``64 * (v // 64 + 1)``: strictly up, which leaves a node for the padding
    graph; the published code rounds this way), edges to the smallest multiple of 64 that
    holds them (at least 64), B graphs. A new multiple means a new shape.
``static_pow2``
    as static_64 with powers of two: nodes to the smallest power of two above the real
    nodes, edges to the smallest power of two that holds them (at least 2).
``dynamic``
    the padding target T = (T_v, T_e, B) is estimated once from a uniform sample of graphs
    (Algorithm 1: ``sample_size`` graphs drawn with ``sample_seed``; the mean nodes and mean
    edges times B, each rounded strictly up to the next multiple of 64), or given as
    ``target=(T_v, T_e)``. Graphs are added in order while the batch keeps at most T_v - 1
    real nodes, T_e real edges and B - 1 real graphs (Algorithm 3 as jraph's
    ``dynamically_batch`` implements it, which the published code uses: one node and one
    graph slot stay free for the padding graph; the printed Algorithm 3 allows T_v nodes,
    leaving none); the graph that would break the target opens the next batch. Every batch
    is padded to T: one shape. A graph larger than the target is refused before the run
    (the published code stops there), naming the graph and a target that holds it.
``pyg_dynamic``
    PyG's ``DynamicBatchSampler`` (torch_geometric 2.8): a budget ``max_num`` of nodes
    (``mode="node"``) or edges (``mode="edge"``) given by the user, no estimation, no graph
    cap; graphs are added while the budget holds, a graph over the budget on its own forms
    a batch alone (PyG warns and keeps it; ``over_budget_batches`` counts these). The
    budgeted component is padded to the budget; the other component and the graph count
    are not padded (PyG does not pad them), so they vary from batch to batch. PyG's sampler
    starts every epoch afresh (``cross_epochs`` defaults to False here).
``buckets``
    static batches of B - 1 graphs, each padded to the cheapest of K fixed shapes
    (nodes, edges) that holds it, B graphs; the K shapes are chosen to minimise the total
    padding of this run's batches (:mod:`packing.batching.buckets`; ``num_shapes`` K from 1 to
    16, default 8: torch.compile's ``recompile_limit``), or given as ``shapes``. Asked for
    by torch.compile and JAX users (PyTorch issue 94640, MACE issue 1590, nequix issue 22).
``packing``
    the packs of a plan (``plan``, or ``limits`` and ``method`` to pack with), every epoch
    in a random order, ``packs_per_batch`` packs per batch (default 1), each batch padded
    to the shape the packed loader gives it: that many times the pack capacity (the plan's
    node and edge limits, a 1D baseline's ignored component its largest pack; graphs: the
    most any pack holds) plus one padding node and one padding graph
    (:meth:`packing.BatchShape.for_plan`). One shape. The batch size does not apply.

Every graph is kept: the published static code drops the graph that triggers each yield
(one graph per batch lost); we do not. A run covers ``epochs`` whole epochs or ``steps``
optimizer steps of ``devices`` data-parallel batches each. An epoch of a histogram is a
random permutation of its graphs (seeded: exact for shuffled training); an explicit
per-graph size sequence is used in its order every epoch. By default the epochs form one
stream and a batch may span two of them, as in the repeated, reshuffled data pipelines of
jraph and TF-GNN that Speckhard et al. used (``cross_epochs=False``: every epoch ends with its own
last batch, as a PyTorch ``DataLoader`` does).

>>> from packing import SizeHistogram
>>> hist = SizeHistogram.from_counts([3, 8], [4, 14], [20, 4])
>>> run = simulate(hist, "static_64", batch_size=4)
>>> run.summary["batches"], run.summary["distinct_shapes"], run.batches.columns[:4].tolist()
(8, 1, ['batch', 'step', 'device', 'epoch'])
>>> table = compare_batching(hist, batch_size=4)
>>> table["strategy"].tolist()
['static_constant', 'static_64', 'static_pow2', 'dynamic', 'pyg_dynamic', 'buckets', 'packing']
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable

import numpy as np
import pandas as pd

from ..api import pack
from ..histogram import SizeHistogram
from ..limits import PackLimits, whole_number
from ..method import PackMethod
from ..plan import PackingPlan
from ..shape import BatchShape
from .buckets import MAX_SHAPES, BucketFit, assign_shapes, fit_bucket_shapes, sort_by_cost
from .pack_stream import PackStream
from .padding import (
    constant_shape,
    multiple_above,
    multiple_at_least,
    static_64_shape,
    static_pow2_shape,
    target_from_sample,
)
from .report import STRATEGIES, comparison_table
from .stream import Batcher, FixedCount, GraphSizes, GreedyFill, ShareDone, SizeBudget, run_stream
from .summary import PaddedBatches, summarize

#: Graphs sampled for the dynamic padding target (the published code uses 1,000).
DEFAULT_SAMPLE_SIZE = 1000
#: Default number of bucket shapes: torch._dynamo.config.recompile_limit (8 in torch 2.13),
#: the recompilations of one function before torch.compile falls back to eager mode.
DEFAULT_BUCKETS = 8
MAX_BATCH_SIZE = 2**20
MAX_STEPS = 20_000_000
MAX_DEVICES = 4096
#: The most batches (steps x devices) and graphs drawn (graphs x epochs, or batches x batch
#: size) that one simulation holds in memory: every strategy's batches at once then take a few
#: GB. The run of Speckhard et al., 2,000,000 steps of 32 graphs, is within both.
MAX_BATCHES = 4_000_000
MAX_PACKS_PER_BATCH = 1 << 16
MAX_GRAPHS_DRAWN = 200_000_000
_OPTIONS = {
    "static_constant": (),
    "static_64": (),
    "static_pow2": (),
    "dynamic": ("target", "sample_size", "sample_seed", "raise_to_fit"),
    "pyg_dynamic": ("max_num", "mode"),
    "buckets": ("num_shapes", "shapes"),
    "packing": ("plan", "limits", "method", "packs_per_batch"),
}


@dataclass(frozen=True)
class RunSpec:
    """How long a run is and how it is laid out: ``steps`` optimizer steps of ``devices``
    batches each, or (``steps=None``) ``epochs`` whole epochs; the seed of the epoch orders."""

    batch_size: int
    steps: int | None
    epochs: int
    seed: int
    devices: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "batch_size", whole_number(self.batch_size, "batch_size", 2, MAX_BATCH_SIZE))
        if self.steps is not None:
            object.__setattr__(self, "steps", whole_number(self.steps, "steps", 1, MAX_STEPS))
        object.__setattr__(self, "epochs", whole_number(self.epochs, "epochs", 1, 100_000))
        object.__setattr__(self, "seed", whole_number(self.seed, "seed", 0, 2**63 - 1))
        object.__setattr__(self, "devices", whole_number(self.devices, "devices", 1, MAX_DEVICES))

    @property
    def wanted(self) -> int | None:
        """Batches wanted (None: as many as ``epochs`` epochs give)."""
        return None if self.steps is None else self.steps * self.devices

    @property
    def stream_epochs(self) -> int | None:
        return self.epochs if self.steps is None else None

    def check_work(self, num_graphs: int, graphs_per_batch: tuple[float, float] | None = None) -> None:
        """``ValueError`` naming what to lower when this run over ``num_graphs`` graphs would
        simulate more than ``MAX_BATCHES`` batches or draw more than ``MAX_GRAPHS_DRAWN``
        graphs (the work and memory grow with the products, not with each number alone).
        ``graphs_per_batch`` (fewest, most) covers strategies whose batches hold another
        number of graphs than the batch size (packs per batch of a plan); default: the batch size.

        >>> RunSpec(2, 20_000_000, 1, 0, 1).check_work(1000)
        Traceback (most recent call last):
        ...
        ValueError: This run simulates 20,000,000 batches (steps x devices); at most 4,000,000 fit in memory: lower the steps or the devices.
        >>> RunSpec(32, 100_000, 1, 0, 1).check_work(1000, (31, 4096 * 8.5))
        Traceback (most recent call last):
        ...
        ValueError: This run draws 3,481,600,000 graphs (steps x devices x graphs per batch); at most 200,000,000 fit in memory: lower the steps, the devices, the batch size or the packs per batch.
        """
        fewest, most = graphs_per_batch or (self.batch_size - 1, self.batch_size)
        if self.steps is not None:
            batches, graphs = self.steps * self.devices, math.ceil(self.steps * self.devices * max(most, self.batch_size))
            what, lower = "steps x devices", "the steps or the devices"
            drawn, fewer = "steps x devices x graphs per batch", \
                "the steps, the devices, the batch size or the packs per batch"
        else:
            batches, graphs = math.ceil(self.epochs * num_graphs / max(1.0, fewest)), self.epochs * num_graphs
            what, lower = "epochs x graphs / graphs per batch", "the epochs, or raise the batch size or packs per batch"
            drawn, fewer = "epochs x graphs", "the epochs"
        if batches > MAX_BATCHES:
            raise ValueError(f"This run simulates {batches:,} batches ({what}); at most {MAX_BATCHES:,} fit in memory: "
                             f"lower {lower}.")
        if graphs > MAX_GRAPHS_DRAWN:
            raise ValueError(f"This run draws {graphs:,} graphs ({drawn}); at most {MAX_GRAPHS_DRAWN:,} fit in memory: "
                             f"lower {fewer}.")

    def to_dict(self) -> dict[str, Any]:
        return {"batch_size": self.batch_size, "steps": self.steps, "epochs": None if self.steps else self.epochs,
                "seed": self.seed, "devices": self.devices}


@dataclass(frozen=True, eq=False)
class BatchingResult:
    """One simulated run: per-batch arrays, the settings that produced them, and
    :attr:`summary` / :attr:`batches`. Batch ``b`` holds the graphs at global stream
    positions ``[start[b], start[b] + graphs[b])``; position ``k * n + i`` is the ``i``-th
    graph of epoch ``k`` (:meth:`epoch_order`)."""

    strategy: str
    run: RunSpec
    settings: dict[str, Any]
    num_graphs: int
    start: np.ndarray
    padded: PaddedBatches
    order: Callable[[int], np.ndarray] = field(repr=False)
    notes: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def summary(self) -> dict[str, Any]:
        """Padding, batches, shapes and their first steps, graphs per batch, largest shape,
        multi-device numbers (:func:`packing.batching.summary.summarize`), plus the strategy,
        its settings and the run (JSON-safe)."""
        return {"strategy": self.strategy, "settings": self.settings, "run": self.run.to_dict(),
                **summarize(self.padded, self.run.devices, self.num_graphs), **self.notes}

    @property
    def batches(self) -> pd.DataFrame:
        """One row per batch: ``batch, step, device, epoch, start`` (position of its first
        graph in that epoch's order), ``graphs, nodes, edges`` (real) and
        ``padded_nodes, padded_edges, padded_graphs``."""
        index = np.arange(self.padded.count)
        p = self.padded
        return pd.DataFrame({
            "batch": index, "step": index // self.run.devices, "device": index % self.run.devices,
            "epoch": self.start // self.num_graphs, "start": self.start % self.num_graphs,
            "graphs": p.graphs, "nodes": p.nodes, "edges": p.edges,
            "padded_nodes": p.padded_nodes, "padded_edges": p.padded_edges, "padded_graphs": p.padded_graphs,
        })

    def epoch_order(self, epoch: int) -> np.ndarray:
        """Graph ids of epoch ``epoch`` in the order the run visits them."""
        return self.order(whole_number(epoch, "epoch", 0, 2**40))


@dataclass(frozen=True)
class _Cut:
    """A strategy that cuts the graph stream: its batcher and how it pads the batches."""

    key: tuple
    make: Callable[[int | None], Batcher]
    pad: Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray, dict]]
    settings: dict[str, Any]


def _fixed(size: int, cross_epochs: bool) -> tuple[tuple, Callable[[int | None], Batcher]]:
    return ("fixed", size, cross_epochs), lambda wanted: FixedCount(size, wanted=wanted, cross_epochs=cross_epochs)


def _greedy(target: BatchShape | SizeBudget, cross_epochs: bool) -> tuple[tuple, Callable]:
    return ("greedy", target, cross_epochs), lambda wanted: GreedyFill(target, wanted=wanted, cross_epochs=cross_epochs)


def _full(count: int, value: int) -> np.ndarray:
    return np.full(count, value, dtype=np.int64)


def _padded_to(shape: BatchShape, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """``count`` batches all padded to ``shape`` (no notes)."""
    return _full(count, shape.num_nodes), _full(count, shape.num_edges), _full(count, shape.num_graphs), {}


def _static(strategy: str, sizes: GraphSizes, run: RunSpec, cross: bool) -> _Cut:
    """static_constant, static_64, static_pow2: B - 1 graphs per batch, padded by their rule."""
    size = run.batch_size
    key, make = _fixed(size - 1, cross)
    settings: dict[str, Any] = {"graphs_per_batch": size - 1, "cross_epochs": cross}
    if strategy == "static_constant":
        shape = constant_shape(int(sizes.nodes.max()), int(sizes.edges.max()), size)
        settings["shape"] = list(shape)

        def pad(graphs, nodes, edges):
            return _padded_to(shape, nodes.size)
    else:
        rule = static_64_shape if strategy == "static_64" else static_pow2_shape
        settings["rounding"] = "multiple of 64" if strategy == "static_64" else "power of two"

        def pad(graphs, nodes, edges):
            padded_nodes, padded_edges = rule(nodes, edges)
            return padded_nodes, padded_edges, _full(nodes.size, size), {}
    return _Cut(key, make, pad, settings)


def sample_graphs(hist_or_sizes: Any, sample_size: int = DEFAULT_SAMPLE_SIZE, seed: int = 0) -> np.ndarray:
    """Ids of ``sample_size`` graphs drawn uniformly without replacement with
    ``numpy.random.default_rng(seed)`` (every graph when the dataset is smaller): the sample
    of Algorithm 1. Graph ids are positions in the size sequence, or for a histogram in its
    rows expanded in order. ``ValueError`` for a bad sample size or seed, or sizes in no
    accepted form.

    >>> sample_graphs(([3, 4, 5], [2, 3, 4]), sample_size=5).tolist()
    [0, 1, 2]
    """
    sizes = hist_or_sizes if isinstance(hist_or_sizes, GraphSizes) else GraphSizes.of(hist_or_sizes)
    count = whole_number(sample_size, "sample_size", 1, 2**40)
    if count >= sizes.num_graphs:
        return np.arange(sizes.num_graphs)
    return np.sort(np.random.default_rng(whole_number(seed, "sample_seed", 0, 2**63 - 1)).choice(
        sizes.num_graphs, size=count, replace=False))


def estimate_target(hist_or_sizes: Any, batch_size: int, sample_size: int = DEFAULT_SAMPLE_SIZE,
                    seed: int = 0) -> BatchShape:
    """Algorithm 1 of Speckhard et al.: the dynamic padding target from a uniform sample of
    graphs (:func:`sample_graphs`, :func:`packing.batching.padding.target_from_sample`).

    Args:
        hist_or_sizes: a ``SizeHistogram`` or a per-graph size sequence (:class:`GraphSizes`).
        batch_size: B, graphs per batch (2 to ``MAX_BATCH_SIZE``), of which B - 1 are real.
        sample_size: graphs drawn (all of them when the dataset is smaller).
        seed: seed of the sample.

    Returns:
        The padded shape: nodes and edges the sample's means times B, each rounded strictly
        up to the next multiple of 64; B graphs.

    Raises:
        ValueError: a bad batch size, sample size or seed, or sizes in no accepted form.

    >>> estimate_target(([18, 18], [306, 306]), batch_size=32)
    BatchShape(num_nodes=640, num_edges=9856, num_graphs=32)
    """
    sizes = hist_or_sizes if isinstance(hist_or_sizes, GraphSizes) else GraphSizes.of(hist_or_sizes)
    batch_size = whole_number(batch_size, "batch_size", 2, MAX_BATCH_SIZE)
    ids = sample_graphs(sizes, sample_size, seed)
    return target_from_sample(sizes.nodes[ids], sizes.edges[ids], batch_size)


def _target_pair(value: Any) -> tuple[int, int]:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ValueError(f"target must be a pair (nodes, edges), got {value!r}.")
    return whole_number(value[0], "target nodes", 2), whole_number(value[1], "target edges", 0)


def _resolve_target(sizes: GraphSizes, batch_size: int, options: dict[str, Any],
                    seed: int) -> tuple[BatchShape, dict[str, Any]]:
    """The dynamic target and where it came from (:func:`dynamic_target`)."""
    if "target" in options:
        if {"sample_size", "sample_seed", "raise_to_fit"} & set(options):
            raise ValueError("Give the dynamic target either as target=(nodes, edges) or estimate it with "
                             "sample_size/sample_seed/raise_to_fit, not both.")
        target = BatchShape(*_target_pair(options["target"]), batch_size)
        settings: dict[str, Any] = {"given": True}
    else:
        sample_size = options.get("sample_size", DEFAULT_SAMPLE_SIZE)
        sample_seed = options.get("sample_seed", seed)
        target = estimate_target(sizes, batch_size, sample_size, sample_seed)
        settings = {"sample_size": min(int(sample_size), sizes.num_graphs), "sample_seed": int(sample_seed)}
    fits_all = BatchShape(int(multiple_above(sizes.nodes.max())), int(multiple_at_least(sizes.edges.max())),
                          batch_size)
    room_nodes, room_edges, _ = target.real_room
    too_big = np.flatnonzero((sizes.nodes > room_nodes) | (sizes.edges > room_edges))
    if too_big.size and options.get("raise_to_fit", False) and "target" not in options:
        settings["estimated"] = [target.num_nodes, target.num_edges]
        target = BatchShape(max(target.num_nodes, fits_all.num_nodes), max(target.num_edges, fits_all.num_edges),
                            batch_size)
    elif too_big.size:
        graph = int(too_big[0])
        raise ValueError(
            f"Graph {graph:,} ({int(sizes.nodes[graph]):,} nodes, {int(sizes.edges[graph]):,} edges) does not fit the "
            f"dynamic padding target of {target.num_nodes:,} nodes and {target.num_edges:,} edges (a batch keeps one "
            f"node for the padding graph); {too_big.size:,} graph(s) are too big. A target of "
            f"({fits_all.num_nodes:,}, {fits_all.num_edges:,}) holds every graph: pass target=(nodes, edges), "
            "raise_to_fit=True, or estimate from a larger sample (sample_size).")
    return target, settings


def dynamic_target(sizes: GraphSizes, batch_size: int, options: dict[str, Any], seed: int) -> dict[str, Any]:
    """The resolved settings of the dynamic strategy: its ``target`` [nodes, edges, graphs]
    (a :class:`~packing.BatchShape` as a JSON list) and where it came from (given, or
    Algorithm 1 with its sample). With ``raise_to_fit=True`` an estimate too small for the
    largest graph is raised to the smallest multiples of 64 that hold it (``estimated``
    keeps the estimate): Speckhard et al. suggest finding the largest graph offline, the
    published code takes the largest sampled graph.

    Args:
        sizes: the graphs of the run.
        batch_size: B, the target's graph count.
        options: the dynamic strategy's options: ``target=(nodes, edges)``, or
            ``sample_size``, ``sample_seed`` and ``raise_to_fit``.
        seed: the run's seed, the sample's seed unless ``sample_seed`` is given.

    Raises:
        ValueError: a target given together with sample options, a malformed target, or
            (without ``raise_to_fit``) a target too small for some graph, naming the graph
            and a target that holds every graph.

    >>> dynamic_target(GraphSizes.of(([18, 18], [306, 306])), 32, {}, seed=0)
    {'target': [640, 9856, 32], 'sample_size': 2, 'sample_seed': 0}
    """
    target, settings = _resolve_target(sizes, batch_size, options, seed)
    return {"target": list(target), **settings}


def _dynamic(sizes: GraphSizes, run: RunSpec, cross: bool, options: dict[str, Any]) -> _Cut:
    target, settings = _resolve_target(sizes, run.batch_size, options, run.seed)
    key, make = _greedy(target, cross)

    def pad(graphs, nodes, edges):
        return _padded_to(target, nodes.size)
    return _Cut(key, make, pad, {"target": list(target), **settings, "cross_epochs": cross})


def _pyg_dynamic(cross: bool, options: dict[str, Any]) -> _Cut:
    if "max_num" not in options:
        raise ValueError("pyg_dynamic needs its budget: max_num=... nodes (mode='node') or edges (mode='edge'), "
                         "as PyG's DynamicBatchSampler(dataset, max_num, mode).")
    budget = SizeBudget(options["max_num"], options.get("mode", "node"))
    key, make = _greedy(budget, cross)

    def pad(graphs, nodes, edges):
        budgeted = nodes if budget.mode == "node" else edges
        padded = np.maximum(budgeted, budget.max_num)
        over = budgeted > budget.max_num
        notes = {"over_budget_batches": int(over.sum())}
        if budget.mode == "node":
            return padded, edges.copy(), graphs.copy(), notes
        return nodes.copy(), padded, graphs.copy(), notes
    return _Cut(key, make, pad, {"max_num": budget.max_num, "mode": budget.mode, "cross_epochs": cross})


def _buckets(run: RunSpec, cross: bool, options: dict[str, Any]) -> _Cut:
    size = run.batch_size
    key, make = _fixed(size - 1, cross)
    given = options.get("shapes")
    count = whole_number(options.get("num_shapes", DEFAULT_BUCKETS), "num_shapes", 1, MAX_SHAPES)
    if given is not None:
        if "num_shapes" in options:
            raise ValueError("Give either shapes=[(nodes, edges), ...] or num_shapes to fit them, not both.")
        if not isinstance(given, (list, tuple)) or not given:
            raise ValueError(f"shapes must be a non-empty list of (nodes, edges) pairs, got {given!r}.")
        given = [_target_pair(shape) for shape in given]
    settings: dict[str, Any] = {"graphs_per_batch": size - 1, "cross_epochs": cross}

    def pad(graphs, nodes, edges):
        weights = (1.0 / max(int(nodes.sum()), 1), 1.0 / max(int(edges.sum()), 1))
        notes: dict[str, Any] = {}
        if given is None:
            fit = fit_bucket_shapes(nodes, edges, MAX_SHAPES)
            shapes = fit.shapes[count - 1]
            notes["bucket_curve"] = _curve(fit, nodes, edges)
        else:
            shapes = sort_by_cost(given, weights)
        chosen = assign_shapes(nodes, edges, shapes)
        table = np.array(shapes, dtype=np.int64)
        notes["bucket_shapes"] = [list(shape) for shape in shapes]
        return table[chosen, 0], table[chosen, 1], _full(nodes.size, size), notes
    settings.update({"num_shapes": count, "fitted_to": "this run's batches"} if given is None
                    else {"shapes": [list(shape) for shape in given]})
    return _Cut(key, make, pad, settings)


def _curve(fit: BucketFit, nodes: np.ndarray, edges: np.ndarray) -> list[dict[str, float]]:
    """Efficiency for every K of a bucket fit."""
    real_nodes, real_edges = int(nodes.sum()), int(edges.sum())
    return [{"shapes": k + 1, "used_shapes": len(fit.shapes[k]),
             "node_efficiency": real_nodes / fit.padded_nodes[k] if fit.padded_nodes[k] else 1.0,
             "edge_efficiency": real_edges / fit.padded_edges[k] if fit.padded_edges[k] else 1.0}
            for k in range(len(fit.shapes))]


def _packing_plan(sizes: GraphSizes, options: dict[str, Any]) -> PackingPlan:
    plan = options.get("plan")
    if plan is not None:
        if not isinstance(plan, PackingPlan):
            raise ValueError(f"plan must be a PackingPlan (from packing.pack), got {type(plan).__name__}.")
        if {"limits", "method"} & set(options):
            raise ValueError("Give the packing either as plan=... or as limits=/method= to pack with, not both.")
        return plan
    limits = options.get("limits")
    if limits is None:
        raise ValueError("The packing strategy needs plan=PackingPlan or limits=PackLimits(...) (and optionally "
                         "method=PackMethod(...)).")
    if not isinstance(limits, PackLimits):
        raise ValueError(f"limits must be a PackLimits, got {type(limits).__name__}.")
    method = options.get("method")
    if method is not None and not isinstance(method, PackMethod):
        raise ValueError(f"method must be a PackMethod, got {type(method).__name__}.")
    return pack(sizes.histogram, limits, method)


def _simulate_packing(sizes: GraphSizes, run: RunSpec, cross: bool, options: dict[str, Any]) -> BatchingResult:
    plan = _packing_plan(sizes, options)
    packs = whole_number(options.get("packs_per_batch", 1), "packs_per_batch", 1, MAX_PACKS_PER_BATCH)
    stream = PackStream(sizes, plan)
    done = stream.run(packs, run.wanted, run.stream_epochs, run.seed, cross)
    shape = BatchShape.for_plan(plan, packs)
    count = done.start.size
    padded = PaddedBatches(done.nodes, done.edges, done.graphs, *(_full(count, size) for size in shape))
    settings = {"limits": plan.limits.to_dict(), "method": plan.method.to_dict(), "plan_label": plan.label,
                "packs_per_batch": packs,
                "plan_packs": plan.num_packs, "capacity": [plan.node_capacity, plan.edge_capacity,
                                                           plan.graph_capacity],
                "shape": list(shape), "broken_limits": plan.broken_limits(), "cross_epochs": cross}
    return BatchingResult("packing", run, settings, sizes.num_graphs, done.start, padded,
                          lambda epoch: stream.order(epoch, run.seed))


def _check_options(strategy: str, options: dict[str, Any]) -> None:
    if strategy not in STRATEGIES:
        raise ValueError(f"Unknown batching strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}.")
    unknown = set(options) - set(_OPTIONS[strategy])
    if unknown:
        allowed = ", ".join(_OPTIONS[strategy]) or "none"
        raise ValueError(f"{strategy} does not take {', '.join(sorted(unknown))} (its options: {allowed}).")


def _cut(strategy: str, sizes: GraphSizes, run: RunSpec, cross: bool, options: dict[str, Any]) -> _Cut:
    if strategy == "dynamic":
        return _dynamic(sizes, run, cross, options)
    if strategy == "pyg_dynamic":
        return _pyg_dynamic(cross, options)
    if strategy == "buckets":
        return _buckets(run, cross, options)
    return _static(strategy, sizes, run, cross)


def _graphs_per_batch(run: RunSpec, requests: dict[str, dict[str, Any]]) -> tuple[float, float]:
    """The fewest and most graphs a batch of the requested strategies holds on average:
    batch size (less the padding slot), and a plan's packs per batch x its packing factor."""
    sizes = [run.batch_size - 1, run.batch_size]
    plan = requests.get("packing", {}).get("plan")
    if plan is not None:
        sizes.append(requests["packing"].get("packs_per_batch", 1) * plan.packing_factor)
    return min(sizes), max(sizes)


def run_strategies(hist_or_sizes: Any, run: RunSpec, requests: dict[str, dict[str, Any]],
                   cross_epochs: bool | None = None, progress: ShareDone | None = None) -> dict[str, BatchingResult]:
    """Simulate several strategies on one stream of graphs (the same epochs, in the same
    order, for all), each with its options; strategies that cut the stream alike (the
    static ones and buckets) share one cut.

    Args:
        hist_or_sizes: a ``SizeHistogram`` (every epoch a seeded permutation of its graphs),
            a per-graph size sequence in loader order, or :class:`GraphSizes`.
        run: the run's length and layout (batch size, steps or epochs, seed, devices).
        requests: strategy name (``STRATEGIES``) to its options (:func:`simulate`).
        cross_epochs: whether a batch may span two epochs; None: each strategy's default
            (True, but False for ``pyg_dynamic``, as PyG's sampler).
        progress: told the share of the stream simulated, epoch by epoch.

    Returns:
        One :class:`BatchingResult` per requested strategy, in the order of ``requests``.

    Raises:
        ValueError: an unknown strategy or option, bad options, sizes in no accepted form,
            or a run too large to hold in memory (naming what to lower).

    >>> results = run_strategies(([5, 3, 4], [8, 4, 6]), RunSpec(3, None, 1, 0, 1), {"static_64": {}, "dynamic": {}})
    >>> {name: result.summary["batches"] for name, result in results.items()}
    {'static_64': 2, 'dynamic': 2}
    """
    sizes = hist_or_sizes if isinstance(hist_or_sizes, GraphSizes) else GraphSizes.of(hist_or_sizes)
    run.check_work(sizes.num_graphs, _graphs_per_batch(run, requests))
    results: dict[str, BatchingResult] = {}
    cuts: dict[str, _Cut] = {}
    for strategy, options in requests.items():
        _check_options(strategy, options)
        cross = (strategy != "pyg_dynamic") if cross_epochs is None else bool(cross_epochs)
        if strategy == "packing":
            results[strategy] = _simulate_packing(sizes, run, cross, options)
        else:
            cuts[strategy] = _cut(strategy, sizes, run, cross, options)
    batchers = {cut.key: cut.make(run.wanted) for cut in cuts.values()}
    if batchers:
        run_stream(sizes, run.seed, list(batchers.values()), run.stream_epochs, progress)
    cut_batches = {key: batcher.batches.arrays(run.wanted) for key, batcher in batchers.items()}
    for strategy, cut in cuts.items():
        start, graphs, nodes, edges = cut_batches[cut.key]
        padded_nodes, padded_edges, padded_graphs, notes = cut.pad(graphs, nodes, edges)
        padded = PaddedBatches(nodes, edges, graphs, padded_nodes, padded_edges, padded_graphs)
        results[strategy] = BatchingResult(strategy, run, cut.settings, sizes.num_graphs, start, padded,
                                           lambda epoch: sizes.order(epoch, run.seed), notes)
    return {strategy: results[strategy] for strategy in requests}


def simulate(hist_or_sizes: Any, strategy: str, batch_size: int, steps: int | None = None, epochs: int = 1,
             seed: int = 0, *, devices: int = 1, cross_epochs: bool | None = None, **options: Any) -> BatchingResult:
    """Simulate one batching strategy (see the module docstring) on a histogram or a
    per-graph size sequence.

    Args:
        hist_or_sizes: a ``SizeHistogram`` or a per-graph size sequence (:class:`GraphSizes`).
        strategy: one of ``STRATEGIES``.
        batch_size: B, graphs per batch of the batching strategies (packing ignores it).
        steps: optimizer steps of ``devices`` batches each; None: ``epochs`` whole epochs.
        epochs: whole epochs to simulate when ``steps`` is None.
        seed: seed of the epoch orders (and of the dynamic sample unless ``sample_seed``).
        devices: data-parallel devices, one batch each per step.
        cross_epochs: whether a batch may span two epochs (None: the strategy's default).
        **options: the strategy's options: ``dynamic``: ``target``, ``sample_size``,
            ``sample_seed``, ``raise_to_fit`` (:func:`dynamic_target`); ``pyg_dynamic``:
            ``max_num``, ``mode``; ``buckets``: ``num_shapes`` or ``shapes``; ``packing``:
            ``plan`` or ``limits`` (+ ``method``), ``packs_per_batch``.

    Returns:
        The run: per-batch arrays, :attr:`BatchingResult.batches` and
        :attr:`BatchingResult.summary`.

    Raises:
        ValueError: an unknown strategy, an option it does not take, a bad value (named),
            or a run too large to hold in memory.

    >>> run = simulate(([5, 3, 4, 6, 2], [8, 4, 6, 10, 2]), "dynamic", batch_size=3, target=(10, 64))
    >>> run.batches[["graphs", "nodes", "padded_nodes"]].values.tolist()
    [[2, 8, 10], [1, 4, 10], [2, 8, 10]]
    """
    run = RunSpec(batch_size, steps, epochs, seed, devices)
    return run_strategies(hist_or_sizes, run, {strategy: options}, cross_epochs)[strategy]


def packs_matching_batch_size(plan: PackingPlan, batch_size: int) -> int:
    """Packs per batch that carry about ``batch_size`` graphs on average (at least one), so
    that packing takes about as many steps per epoch as batches of ``batch_size`` graphs.

    Args:
        plan: the packing plan (its packing factor: graphs per pack on average).
        batch_size: graphs per batch to match.

    Returns:
        ``round(batch_size / plan.packing_factor)``, at least 1.

    Raises:
        ValueError: a bad batch size, or more than ``MAX_PACKS_PER_BATCH`` packs needed.

    >>> from packing import SizeHistogram, pack
    >>> plan = pack(SizeHistogram.from_counts([3, 8], [4, 14], [20, 4]), max_nodes=16, max_edges=28, max_graphs=8)
    >>> plan.packing_factor, packs_matching_batch_size(plan, batch_size=32)
    (4.0, 8)
    """
    whole_number(batch_size, "batch_size", 2, MAX_BATCH_SIZE)
    packs = max(1, round(batch_size / plan.packing_factor))
    if packs > MAX_PACKS_PER_BATCH:
        raise ValueError(f"A batch of {batch_size:,} graphs takes {packs:,} packs of limits {plan.limits} (about "
                         f"{plan.packing_factor:.1f} graphs each); at most {MAX_PACKS_PER_BATCH:,} packs fit in a batch: "
                         "lower the batch size or raise the pack limits.")
    return packs


def default_requests(hist: SizeHistogram, batch_size: int, plan: PackingPlan | None, seed: int,
                     num_shapes: int = DEFAULT_BUCKETS, packs_per_batch: int | None = None,
                     ) -> dict[str, dict[str, Any]]:
    """The options :func:`compare_batching` gives each strategy: dynamic estimates its target
    from 1,000 graphs (``sample_seed`` = ``seed``), raised to hold the largest graph when the
    sample misses it; pyg_dynamic gets that node target as its node budget; buckets fit
    ``num_shapes`` shapes; packing uses ``plan`` with ``packs_per_batch`` packs per batch
    (None: :func:`packs_matching_batch_size`, about ``batch_size`` graphs), or without a plan packs with best fit (product) into the real room of the dynamic target
    (T_v - 1 nodes, T_e edges, B - 1 graphs), so that its batches, one pack each, pad to
    the padded shape of dynamic batching (to fewer graph slots where no pack holds B - 1
    graphs).

    Args:
        hist: the dataset's size histogram.
        batch_size: B.
        plan: the packing row's plan, or None for packs of the dynamic target.
        seed: seed of the dynamic target's sample.
        num_shapes: bucket shapes to fit (1 to ``MAX_SHAPES``).
        packs_per_batch: packs of ``plan`` per batch; None: as many as carry about
            ``batch_size`` graphs (the command line's and the Batching page's 'match').

    Returns:
        Strategy name to its options, in ``STRATEGIES`` order (for :func:`run_strategies`).

    Raises:
        ValueError: ``packs_per_batch`` other than 1 without a plan, or a bad batch size.

    >>> from packing import SizeHistogram
    >>> requests = default_requests(SizeHistogram.from_counts([3, 8], [4, 14], [20, 4]), 4, None, seed=0)
    >>> requests["pyg_dynamic"], requests["packing"]["limits"]
    ({'max_num': 64, 'mode': 'node'}, PackLimits(max_nodes=63, max_edges=64, max_graphs=3))
    """
    if plan is None and packs_per_batch not in (None, 1):
        raise ValueError("packs_per_batch needs a plan: without one the packing row packs into the dynamic "
                         "batching target, whose packs already hold about batch_size graphs.")
    dynamic = {"sample_size": DEFAULT_SAMPLE_SIZE, "sample_seed": seed, "raise_to_fit": True}
    target, _ = _resolve_target(GraphSizes.of(hist), batch_size, dynamic, seed)
    return {
        "static_constant": {}, "static_64": {}, "static_pow2": {},
        "dynamic": dynamic,
        "pyg_dynamic": {"max_num": target.num_nodes, "mode": "node"},
        "buckets": {"num_shapes": num_shapes},
        "packing": ({"plan": plan, "packs_per_batch": packs_matching_batch_size(plan, batch_size)
                     if packs_per_batch is None else packs_per_batch} if plan is not None
                    else {"limits": target.pack_limits()}),
    }


def compare_batching(hist: SizeHistogram, batch_size: int, plan: PackingPlan | None = None, steps: int | None = None,
                     seed: int = 0, *, epochs: int = 1, devices: int = 1, num_shapes: int = DEFAULT_BUCKETS,
                     packs_per_batch: int | None = None, progress: ShareDone | None = None) -> pd.DataFrame:
    """One row per strategy (``STRATEGIES`` order) on the same stream of graphs, with the
    options of :func:`default_requests` (``packs_per_batch`` packs of ``plan`` per batch;
    by default as many as carry about ``batch_size`` graphs): batches, steps, node / edge / graph efficiency,
    distinct padded shapes, the largest padded shape, batches per epoch, graphs per batch,
    and for ``devices > 1`` the multi-device columns. ``table.attrs`` holds the run
    (``"run"``), each strategy's settings (``"settings"``, values) and full summary
    (``"summaries"``); :func:`batching_section` turns the table into the export's
    ``batching`` section.

    Args:
        hist: the dataset's size histogram.
        batch_size: B, graphs per batch of the batching strategies.
        plan: the packing row's plan (None: packs of the dynamic target, one per batch).
        steps: optimizer steps to simulate; None: ``epochs`` whole epochs.
        seed: seed of the epoch orders and of the dynamic target's sample.
        epochs: whole epochs when ``steps`` is None.
        devices: data-parallel devices, one batch each per step.
        num_shapes: bucket shapes to fit.
        packs_per_batch: packs of ``plan`` per batch; None: as many as carry about
            ``batch_size`` graphs (:func:`packs_matching_batch_size`).
        progress: told the share of the run simulated, epoch by epoch (a run of
            2,000,000 steps takes seconds).

    Returns:
        The comparison table (one row per strategy, ``attrs`` as above).

    Raises:
        ValueError: ``hist`` is not a ``SizeHistogram``, a bad setting (named), or a run
            too large to hold in memory.

    >>> from packing import SizeHistogram
    >>> table = compare_batching(SizeHistogram.from_counts([3, 8], [4, 14], [20, 4]), batch_size=4)
    >>> row = table.set_index("strategy").loc["static_constant"]
    >>> int(row["max_padded_nodes"]), int(row["distinct_shapes"])
    (32, 1)
    """
    if not isinstance(hist, SizeHistogram):
        raise ValueError(f"compare_batching needs a SizeHistogram, got {type(hist).__name__}.")
    run = RunSpec(batch_size, steps, epochs, seed, devices)
    requests = default_requests(hist, run.batch_size, plan, run.seed, num_shapes, packs_per_batch)
    results = run_strategies(hist, run, requests, progress=progress)
    return comparison_table({name: result.summary for name, result in results.items()}, run.to_dict())
