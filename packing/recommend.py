"""The recommended configuration: pack limits and packs per step that train fastest at the
user's batch size, or, without a measured step cost, that waste the least padding.

A user fixes the batch size (graphs a step: a hyperparameter of training); what is free is
how those graphs become one padded shape: the pack limits, how many packs make a step, and
the graph slots (the most graphs a pack of the plan holds). The search:

1. **Screen.** Limit pairs are counted with best fit in one lockstep pass
   (:mod:`packing.best_fit_grid`): the sweep's default grid (:func:`packing.default_limits`)
   and, for every packs-per-step ``k`` of a ladder (powers of two up to the batch size, and
   the batch size), a grid around ``batch_size / k`` mean graphs (nodes and edges scaled
   independently, so the limits' edge/node ratio can follow the data's). Each pair's packs
   per step is the count that carries about ``batch_size`` graphs
   (:func:`packing.batching.packs_matching_batch_size`); pairs whose steps then carry more
   than ``BATCH_SIZE_TOLERANCE`` off the batch size are dropped.
2. **Pack.** The best ``FINALISTS`` pairs of every packs-per-step by the real share of the
   padded step (and, with a step cost, by their steady epoch with the most graph slots such
   a pack could need) are packed for real with :func:`packing.pack` (best fit, and balanced
   fill where packs hold many graphs: :mod:`packing.balanced`), so every candidate's numbers
   are its plan's, graph slots included.
3. **Choose.** With a ``step_cost`` (seconds of a step at padded shapes, vectorised; a
   calibration supplies one: :func:`throughput.step_cost`), the candidate with the shortest
   steady epoch (steps x step cost); without one, the candidate with the highest harmonic
   mean of the real node and edge shares of its padded steps.

Every candidate keeps every graph (each plan packs the whole histogram), and the chosen
plan's limits take its graph slots as the graph limit (packed again with it: the plan
named is the one :func:`packing.pack` gives for those limits).

>>> from packing import SizeHistogram
>>> hist = SizeHistogram.from_counts([3, 8, 12], [4, 14, 22], [400, 300, 100])
>>> chosen = recommend(hist, 16)
>>> chosen.limits.max_graphs == chosen.plan.graph_capacity, chosen.plan.num_graphs
(True, 800)
>>> bool(chosen.harmonic_mean == chosen.candidates["harmonic_mean"].max())
True
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd

from .api import pack
from .balanced import MANY_GRAPHS, applies as balanced_applies
from .batching import packs_matching_batch_size
from .batching.simulate import MAX_BATCH_SIZE, MAX_PACKS_PER_BATCH
from .best_fit_grid import count_best_fit_grid, exact_in_lockstep
from .heuristics import HEURISTICS
from .histogram import SizeHistogram, most_graphs_by_volume
from .limits import PackLimits, whole_number
from .method import BALANCED, BEST_FIT, PackMethod
from .metrics import harmonic_mean
from .plan import PackingPlan
from .shape import BatchShape
from .sweep import default_limits

#: A step may carry this share more or fewer graphs than the batch size on average.
BATCH_SIZE_TOLERANCE = 0.02
#: Scales of the limits around ``batch_size / k`` mean graphs, per side.
SCALES = (0.96, 0.98, 1.0, 1.02, 1.04, 1.07, 1.1, 1.15, 1.2)
#: Limit pairs of each rung of packs per step packed for real after the screen.
FINALISTS = 2
#: Scales of the limits around the mean pack that balanced fill packs under.
BALANCED_SCALES = (1.0, 1.01, 1.02, 1.04)
#: Graph limit of the capped best-fit candidates: this many times their mean graphs per pack.
GRAPH_SLACK = 1.25
CANDIDATE_COLUMNS = [
    "max_nodes", "max_edges", "max_graphs", "method", "packs", "lower_bound", "packs_per_step", "graphs_per_step",
    "steps_per_epoch", "padded_nodes", "padded_edges", "padded_graphs", "node_share", "edge_share", "graph_share",
    "harmonic_mean", "step_s", "steady_epoch_s",
]
StepSeconds = Callable[[np.ndarray, np.ndarray, np.ndarray], Any]


@dataclass(frozen=True)
class StepCost:
    """Seconds of one training step at padded shapes (``seconds(nodes, edges, graphs)``,
    vectorised over arrays), with where the numbers come from: ``device`` and ``mode`` (eager,
    compile, cudagraph) of the measurement, ``source`` in words, and ``one_off_s``, what each
    distinct padded shape costs once (a compilation or a capture; 0 in eager mode).

    >>> cost = StepCost(lambda n, e, g: 1e-3 + 1e-6 * np.asarray(n), "cpu", "eager", "a test")
    >>> float(cost(np.array([1000]), np.array([0]), np.array([1]))[0])
    0.002
    """

    seconds: StepSeconds
    device: str
    mode: str
    source: str
    one_off_s: float = 0.0

    def __call__(self, nodes: Any, edges: Any, graphs: Any) -> np.ndarray:
        return np.asarray(self.seconds(np.asarray(nodes), np.asarray(edges), np.asarray(graphs)), dtype=float)


@dataclass(frozen=True)
class Recommendation:
    """The configuration :func:`recommend` chose and why.

    ``limits`` and ``packs_per_step`` are what to train with (the graph limit is the plan's
    graph slots); ``plan`` packs the whole histogram within them; ``shape`` is the padded
    step (:meth:`packing.BatchShape.for_plan`). The real shares are of the padded steps
    over an epoch (steps = packs / packs per step). ``step_s`` and ``steady_epoch_s`` are
    the step cost's estimate (None without one), ``cost`` says what priced them.
    ``candidates`` holds every candidate packed, best first (``CANDIDATE_COLUMNS``);
    ``screened`` the limit pairs counted before packing.
    """

    batch_size: int
    limits: PackLimits
    packs_per_step: int
    plan: PackingPlan = field(repr=False)
    shape: BatchShape
    node_share: float
    edge_share: float
    graph_share: float
    harmonic_mean: float
    steps_per_epoch: float
    step_s: float | None
    steady_epoch_s: float | None
    cost: StepCost | None = field(repr=False)
    candidates: pd.DataFrame = field(repr=False)
    screened: int

    @property
    def graphs_per_step(self) -> float:
        """Graphs a step carries on average."""
        return self.packs_per_step * self.plan.packing_factor

    @property
    def runner_up(self) -> pd.Series | None:
        """The best candidate with other limits or packs per step than the chosen one."""
        chosen = (self.limits.max_nodes, self.limits.max_edges, self.packs_per_step)
        others = self.candidates[[(row.max_nodes, row.max_edges, row.packs_per_step) != chosen
                                  for row in self.candidates.itertuples()]]
        return None if others.empty else others.iloc[0]

    def to_dict(self) -> dict[str, Any]:
        """The recommendation as JSON-safe values: what to train with, its numbers, what
        priced it, and the runner-up.

        >>> hist = SizeHistogram.from_counts([3, 8], [4, 14], [400, 100])
        >>> sorted(recommend(hist, 8).to_dict())[:4]
        ['batch_size', 'candidates_packed', 'cost', 'edge_share']
        """
        runner = self.runner_up
        return {
            "batch_size": self.batch_size, "limits": self.limits.to_dict(), "method": self.plan.method.to_dict(),
            "packs_per_step": self.packs_per_step, "shape": list(self.shape), "packs": self.plan.num_packs,
            "lower_bound": self.plan.lower_bound, "graphs_per_step": self.graphs_per_step,
            "steps_per_epoch": self.steps_per_epoch, "node_share": self.node_share, "edge_share": self.edge_share,
            "graph_share": self.graph_share, "harmonic_mean": self.harmonic_mean, "step_s": self.step_s,
            "steady_epoch_s": self.steady_epoch_s,
            "cost": None if self.cost is None else {"device": self.cost.device, "mode": self.cost.mode,
                                                    "source": self.cost.source, "one_off_s": self.cost.one_off_s},
            "candidates_packed": len(self.candidates), "limit_pairs_screened": self.screened,
            "runner_up": None if runner is None else {key: _plain(value) for key, value in runner.items()},
        }


def _plain(value: Any) -> Any:
    """A numpy or pandas scalar as a Python value (NaN: None)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value.item() if hasattr(value, "item") else value


def _ladder(batch_size: int) -> list[int]:
    """Packs per step to centre the screen on: powers of two below the batch size, and it."""
    return sorted({2 ** power for power in range(batch_size.bit_length()) if 2 ** power < batch_size} | {batch_size})


def _screen_cells(hist: SizeHistogram, batch_size: int) -> list[tuple[int, int]]:
    """The (max_nodes, max_edges) pairs to count: the sweep's default grid and, per rung of
    the ladder, ``SCALES`` around ``batch_size / k`` mean graphs; each holds the largest graph."""
    nodes, edges = default_limits(hist)
    pairs = {(n, e) for n in nodes for e in edges}
    mean_nodes, mean_edges = hist.total_nodes / hist.num_graphs, hist.total_edges / hist.num_graphs
    for packs in _ladder(batch_size):
        graphs = batch_size / packs
        node_side = {max(hist.largest_nodes, 1, math.ceil(graphs * mean_nodes * scale)) for scale in SCALES}
        edge_side = {max(hist.largest_edges, 1, math.ceil(graphs * mean_edges * scale)) for scale in SCALES}
        pairs |= {(n, e) for n in node_side for e in edge_side}
    return sorted(pairs)


def _step_numbers(hist: SizeHistogram, packs: np.ndarray, per_step: np.ndarray, nodes: np.ndarray,
                  edges: np.ndarray, graph_slots: np.ndarray) -> dict[str, np.ndarray]:
    """Per candidate: steps per epoch, the padded step shape and the real shares of it."""
    steps = packs / per_step
    padded_nodes, padded_edges = per_step * nodes + 1, per_step * edges
    padded_graphs = per_step * graph_slots + 1
    node_share = hist.total_nodes / (steps * padded_nodes)
    edge_share = hist.total_edges / (steps * padded_edges)
    mean = np.array([harmonic_mean(hist, a, b) for a, b in zip(node_share, edge_share)])
    return {"steps_per_epoch": steps, "padded_nodes": padded_nodes, "padded_edges": padded_edges,
            "padded_graphs": padded_graphs, "node_share": node_share, "edge_share": edge_share,
            "graph_share": hist.num_graphs / (steps * padded_graphs), "harmonic_mean": mean}


def _graph_slot_bound(hist: SizeHistogram, nodes: np.ndarray, edges: np.ndarray, max_graphs: np.ndarray) -> np.ndarray:
    """The most graph slots a pack of these limits can need: the graph limit, or the most of
    the dataset's graphs that fit the nodes and the edges, whichever is less."""
    fit = np.minimum(most_graphs_by_volume(hist.num_nodes, hist.counts, nodes),
                     most_graphs_by_volume(hist.num_edges, hist.counts, edges))
    return np.maximum(1, np.minimum(max_graphs, fit))


def _priced_counts(hist: SizeHistogram, frame: pd.DataFrame, batch_size: int, cost: StepCost | None) -> dict:
    """For limit pairs with their pack counts (``max_nodes``, ``max_edges``, ``max_graphs``,
    ``packs``): packs per step carrying about ``batch_size`` graphs, the padded step with the
    graph slots' bound, its real shares and, with ``cost``, its step and steady epoch."""
    packs = frame["packs"].to_numpy(dtype=np.int64)
    nodes, edges = frame["max_nodes"].to_numpy(dtype=np.int64), frame["max_edges"].to_numpy(dtype=np.int64)
    slots = _graph_slot_bound(hist, nodes, edges, frame["max_graphs"].to_numpy(dtype=np.int64))
    per_step = np.maximum(1, np.rint(batch_size * packs / hist.num_graphs)).astype(np.int64)
    numbers = {"packs_per_step": per_step, "graphs_per_step": per_step * hist.num_graphs / packs,
               **_step_numbers(hist, packs, per_step, nodes, edges, slots)}
    if cost is not None:
        numbers["step_s"] = cost(numbers["padded_nodes"], numbers["padded_edges"], numbers["padded_graphs"])
        numbers["steady_epoch_s"] = numbers["steps_per_epoch"] * numbers["step_s"]
    numbers["near_batch_size"] = abs(numbers["graphs_per_step"] / batch_size - 1) <= BATCH_SIZE_TOLERANCE
    return numbers


def _screen(hist: SizeHistogram, batch_size: int, cost: StepCost | None) -> tuple[pd.DataFrame, int]:
    """Every screened pair with its best-fit count, packs per step, real shares and (with
    ``cost``) its steady epoch with the graph slots' bound, those within
    ``BATCH_SIZE_TOLERANCE``; and how many pairs were counted."""
    pairs = _screen_cells(hist, batch_size)
    max_graphs = hist.graphs_that_fit(max(n for n, _ in pairs), max(e for _, e in pairs))
    cells = [PackLimits(n, e, max_graphs) for n, e in pairs]
    if exact_in_lockstep(hist.num_graphs, cells):
        packs = count_best_fit_grid(hist.num_nodes, hist.num_edges, hist.counts, cells, HEURISTICS["product"])
    else:
        packs = np.array([pack(hist, limits).num_packs for limits in cells])
    frame = pd.DataFrame({"max_nodes": [n for n, _ in pairs], "max_edges": [e for _, e in pairs],
                          "max_graphs": max_graphs, "packs": np.asarray(packs, dtype=np.int64)})
    frame = frame.assign(**_priced_counts(hist, frame, batch_size, cost))
    frame = frame[frame["packs_per_step"] <= MAX_PACKS_PER_BATCH]
    off = abs(frame["graphs_per_step"] / batch_size - 1)
    return frame[off <= max(BATCH_SIZE_TOLERANCE, off.min())], len(cells)


def _finalists(screened: pd.DataFrame) -> list[PackLimits]:
    """The limits to pack for real: of each rung of packs per step (powers of two, to the
    nearest) the best ``FINALISTS`` pairs by harmonic mean (then fewer padded nodes) and,
    when priced, by steady epoch."""
    orders = [(["harmonic_mean", "padded_nodes"], [False, True])]
    if "steady_epoch_s" in screened:
        orders.append((["steady_epoch_s"], [True]))
    chosen: dict[tuple[int, int, int], None] = {}
    for columns, ascending in orders:
        ranked = screened.sort_values(columns, ascending=ascending, kind="stable")
        rungs = np.rint(np.log2(ranked["packs_per_step"].to_numpy()))
        for _, group in ranked.groupby(rungs, sort=True):
            chosen.update(dict.fromkeys((int(row.max_nodes), int(row.max_edges), int(row.max_graphs))
                                        for row in group.head(FINALISTS).itertuples()))
    return [PackLimits(*limits) for limits in chosen]


def _balanced_limits(hist: SizeHistogram, batch_size: int, max_graphs: int) -> list[PackLimits]:
    """Limits for balanced fill: ``BALANCED_SCALES`` times ``batch_size`` mean graphs, one
    pack a step, when such packs hold at least ``MANY_GRAPHS`` graphs (dealt packs fill
    evenly, so limits near the mean pack fill best, and they fill better the more graphs a
    pack holds)."""
    mean_nodes, mean_edges = hist.total_nodes / hist.num_graphs, hist.total_edges / hist.num_graphs
    if batch_size < MANY_GRAPHS:
        return []
    chosen = [PackLimits(max(hist.largest_nodes, 1, math.ceil(batch_size * mean_nodes * scale)),
                         max(hist.largest_edges, 1, math.ceil(batch_size * mean_edges * scale)), max_graphs)
              for scale in BALANCED_SCALES]
    return [limits for limits in chosen if balanced_applies(hist, limits)]


def _candidate_plans(hist: SizeHistogram, finalists: list[PackLimits], balanced: list[PackLimits],
                     cap_graphs: bool) -> list[PackingPlan]:
    """Best fit under each finalist (and, with ``cap_graphs``, again with about
    ``GRAPH_SLACK`` x its mean graphs per pack as the graph limit, fewer graph slots for a
    step cost that charges them), balanced fill under each of ``balanced``."""
    plans = []
    for limits in finalists:
        plan = pack(hist, limits, PackMethod(BEST_FIT))
        plans.append(plan)
        capped = math.ceil(GRAPH_SLACK * plan.packing_factor)
        if cap_graphs and capped < plan.graph_capacity:
            plans.append(pack(hist, PackLimits(limits.max_nodes, limits.max_edges, capped), PackMethod(BEST_FIT)))
    plans.extend(pack(hist, limits, PackMethod(BALANCED)) for limits in balanced)
    return plans


def _price(hist: SizeHistogram, plans: list[PackingPlan], batch_size: int,
           cost: StepCost | None) -> pd.DataFrame:
    """One row per plan (``CANDIDATE_COLUMNS``), best first."""
    per_step = np.array([packs_matching_batch_size(plan, batch_size) for plan in plans], dtype=np.int64)
    packs = np.array([plan.num_packs for plan in plans], dtype=np.int64)
    frame = pd.DataFrame({
        "max_nodes": [plan.limits.max_nodes for plan in plans], "max_edges": [plan.limits.max_edges for plan in plans],
        "max_graphs": [plan.graph_capacity for plan in plans], "method": [plan.method.algorithm for plan in plans],
        "packs": packs, "lower_bound": [plan.lower_bound for plan in plans], "packs_per_step": per_step,
        "graphs_per_step": per_step * hist.num_graphs / packs, "plan": range(len(plans))})
    frame = frame.assign(**_step_numbers(hist, packs, per_step, frame["max_nodes"].to_numpy(),
                                         frame["max_edges"].to_numpy(), frame["max_graphs"].to_numpy()))
    off = abs(frame["graphs_per_step"] / batch_size - 1)
    frame = frame[off <= max(BATCH_SIZE_TOLERANCE, off.min())]  # the closest ones when none is near enough
    if cost is None:
        frame["step_s"] = frame["steady_epoch_s"] = np.nan
        order = ["harmonic_mean", "padded_nodes", "padded_edges"]
        ascending = [False, True, True]
    else:
        frame["step_s"] = cost(frame["padded_nodes"].to_numpy(), frame["padded_edges"].to_numpy(),
                               frame["padded_graphs"].to_numpy())
        frame["steady_epoch_s"] = frame["steps_per_epoch"] * frame["step_s"]
        order, ascending = ["steady_epoch_s", "harmonic_mean"], [True, False]
    return frame.sort_values(order, ascending=ascending, kind="stable").reset_index(drop=True)


def _with_graph_slots(hist: SizeHistogram, plans: list[PackingPlan], batch_size: int,
                      cost: StepCost | None) -> tuple[list[PackingPlan], pd.DataFrame]:
    """The plans, best first in the candidates' order, once the best one's graph limit is
    its graph slots: while it is not, the best is packed again with its graph slots as the
    graph limit and that plan joins the candidates (first, so it wins a tie). Best fit
    breaks ties by the graphs a pack holds only where the graph limit can bind, so the plan
    packed again may differ (a few rounds at most)."""
    plans = list(plans)
    candidates = _price(hist, plans, batch_size, cost)
    for _ in range(3):
        best = plans[int(candidates.iloc[0]["plan"])]
        if best.limits.max_graphs == best.graph_capacity:
            break
        limits = PackLimits(best.limits.max_nodes, best.limits.max_edges, best.graph_capacity)
        plans = [pack(hist, limits, best.method), *plans]
        candidates = _price(hist, plans, batch_size, cost)
    return plans, candidates


def price_sweep(frame: pd.DataFrame, hist: SizeHistogram, batch_size: int, step_cost: StepCost | StepSeconds,
                ) -> pd.DataFrame:
    """A :func:`packing.sweep` table priced at ``batch_size`` on ``step_cost``, every cell at
    once (one call of the cost model): ``packs_per_step`` (from each cell's pack count, about
    ``batch_size`` graphs a step, as the Batching page packs it), ``graphs_per_step``,
    ``steps_per_epoch``, the padded step and the real shares of it, ``step_s`` and
    ``steady_epoch_s``, and ``near_batch_size``: whether its steps carry the batch size within
    ``BATCH_SIZE_TOLERANCE`` (:func:`recommend` chooses among those only). A sweep counts
    packs, not their graphs, so ``padded_graphs`` takes
    the most graph slots a pack of the cell can need (its graph limit, or the most of the
    dataset's graphs that fit its nodes and edges, whichever is less): the estimate is an
    upper bound where the plan holds fewer (``graph_slots_bound`` is True). Infeasible cells
    get empty values.

    >>> from packing import SizeHistogram, sweep
    >>> hist = SizeHistogram.from_counts([3, 5], [4, 8], [60, 40])
    >>> frame = sweep(hist, [10, 20], [16, 32], workers=1)
    >>> priced = price_sweep(frame, hist, 8, lambda n, e, g: 1e-3 + 1e-6 * n)
    >>> priced[["max_nodes", "max_edges", "packs_per_step"]].values.tolist()  # about 8 graphs a step
    [[10, 16, 3], [10, 32, 3], [20, 16, 3], [20, 32, 2]]
    """
    cost = _as_cost(step_cost)
    batch_size = whole_number(batch_size, "batch_size", 2, MAX_BATCH_SIZE)
    frame = frame.copy()
    cells = frame[frame["feasible"].astype(bool)]
    numbers = {**_priced_counts(hist, cells, batch_size, cost), "graph_slots_bound": np.ones(len(cells), dtype=bool)}
    for name, values in numbers.items():
        frame[name] = pd.Series(values, index=cells.index)
    return frame


def _as_cost(step_cost: StepCost | StepSeconds | None) -> StepCost | None:
    if step_cost is None or isinstance(step_cost, StepCost):
        return step_cost
    if not callable(step_cost):
        raise ValueError(f"step_cost must be a function of (nodes, edges, graphs) arrays giving seconds, or a "
                         f"StepCost (throughput.step_cost(calibration) makes one); got {type(step_cost).__name__}.")
    return StepCost(step_cost, "unnamed", "unnamed", "a step cost function")


def recommend(hist: SizeHistogram, batch_size: int,
              step_cost: StepCost | StepSeconds | None = None) -> Recommendation:
    """The pack limits and packs per step for ``batch_size`` graphs a step (module docstring).

    Args:
        hist: the dataset's size histogram.
        batch_size: graphs per step the user trains with (2 or more, at most the dataset).
        step_cost: seconds of a step at padded shapes, ``step_cost(nodes, edges, graphs)``
            on arrays (a :class:`StepCost`, e.g. ``throughput.step_cost(calibration)``, or a
            plain function); None: choose by the real share of the padded steps.

    Returns:
        The :class:`Recommendation`, with every candidate packed.

    Raises:
        ValueError: a batch size that is not a whole number of at least 2, a dataset with
            fewer graphs than one batch, or a step cost that is not a function.

    >>> hist = SizeHistogram.from_counts([3, 8, 12], [4, 14, 22], [400, 300, 100])
    >>> fast = recommend(hist, 16, lambda nodes, edges, graphs: 1e-3 + 2e-6 * nodes)
    >>> bool(fast.steady_epoch_s == fast.candidates["steady_epoch_s"].min())
    True
    """
    if not isinstance(hist, SizeHistogram):
        raise ValueError(f"recommend needs a SizeHistogram, got {type(hist).__name__}.")
    cost = _as_cost(step_cost)
    batch_size = whole_number(batch_size, "batch_size", 2, MAX_BATCH_SIZE)
    if hist.num_graphs < batch_size:
        raise ValueError(f"The dataset holds {hist.num_graphs:,} graphs, fewer than one batch of {batch_size:,}; "
                         "lower the batch size.")
    screened, counted = _screen(hist, batch_size, cost)
    balanced = _balanced_limits(hist, batch_size, int(screened["max_graphs"].max()))
    plans = _candidate_plans(hist, _finalists(screened), balanced, cap_graphs=cost is not None)
    plans, candidates = _with_graph_slots(hist, plans, batch_size, cost)
    best = candidates.iloc[0]
    plan = plans[int(best["plan"])]
    per_step = int(best["packs_per_step"])
    return Recommendation(
        batch_size, plan.limits, per_step, plan, BatchShape.for_plan(plan, per_step), float(best["node_share"]),
        float(best["edge_share"]), float(best["graph_share"]), float(best["harmonic_mean"]),
        float(best["steps_per_epoch"]), None if cost is None else float(best["step_s"]),
        None if cost is None else float(best["steady_epoch_s"]), cost,
        candidates[CANDIDATE_COLUMNS], counted)
