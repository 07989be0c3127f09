"""What a batching run costs: padding, batches, graphs per batch, distinct padded shapes
(each one a compilation for JAX or torch.compile) and when each first appears, the largest
shape (memory), and for D data-parallel devices how often the D batches of one step differ
in shape and what padding every device to the step's largest shape costs.

Input: per-batch arrays of real and padded nodes, edges and graphs, in batch order; batch
``b`` runs at step ``b // devices`` on device ``b % devices``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

#: The recompilation curve keeps every first appearance up to this many shapes, else this
#: many points spaced evenly on a log scale of steps (exact counts at those steps).
CURVE_POINTS = 200


@dataclass(frozen=True)
class PaddedBatches:
    """Real and padded sizes of each batch, in the order a training loop sees them."""

    nodes: np.ndarray
    edges: np.ndarray
    graphs: np.ndarray
    padded_nodes: np.ndarray
    padded_edges: np.ndarray
    padded_graphs: np.ndarray

    @property
    def count(self) -> int:
        return int(self.nodes.size)


def ratio(real: np.ndarray, padded: np.ndarray) -> float:
    """Real over padded, summed exactly (1.0 when nothing is padded).

    >>> ratio(np.array([3, 5]), np.array([4, 12]))
    0.5
    """
    total = int(np.sum(padded, dtype=np.int64))
    return int(np.sum(real, dtype=np.int64)) / total if total else 1.0


def first_appearances(nodes: np.ndarray, edges: np.ndarray, graphs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For the shapes (nodes, edges, graphs) of a run: the index of the batch where each
    distinct shape first appears (increasing) and each batch's shape number (shapes numbered
    in order of first appearance).

    >>> first, code = first_appearances(np.array([64, 64, 128, 64]), np.array([8, 8, 8, 8]), np.array([4, 4, 4, 4]))
    >>> first.tolist(), code.tolist()
    ([0, 2], [0, 0, 1, 0])
    """
    columns = [column for column in (nodes, edges, graphs) if column.size and column.min() != column.max()]
    key = np.zeros(nodes.size, dtype=np.int64)
    span = 1
    for column in columns:  # one integer per shape: mixed radix over the columns that vary
        low, width = int(column.min()), int(column.max()) - int(column.min()) + 1
        if span * width >= 2**62:  # cannot combine exactly: number the rows instead
            rows = np.stack([nodes, edges, graphs], axis=1)
            key = np.unique(rows, axis=0, return_inverse=True)[1].ravel()
            break
        key = key * width + (column - low)
        span *= width
    code = pd.factorize(key)[0].astype(np.int64) if columns else key  # numbered in order of appearance
    seen = np.maximum.accumulate(code) if code.size else code
    first = np.flatnonzero(np.concatenate([[True], seen[1:] > seen[:-1]])) if code.size else code
    return first, code


def value_counts(values: np.ndarray) -> dict[str, list[int]]:
    """Distinct values and how often each occurs, JSON-safe.

    >>> value_counts(np.array([3, 1, 3]))
    {'values': [1, 3], 'counts': [1, 2]}
    """
    low, high = int(values.min()), int(values.max())
    if high - low <= 4 * values.size + 1024:  # a count per value in the range: linear time
        counts = np.bincount(values - low)
        present = np.flatnonzero(counts)
        return {"values": (present + low).tolist(), "counts": counts[present].tolist()}
    unique, counts = np.unique(values, return_counts=True)
    return {"values": unique.tolist(), "counts": counts.tolist()}


def shape_curve(first_steps: np.ndarray, steps: int) -> dict[str, list[int]]:
    """Distinct shapes seen by each step: every first appearance when there are at most
    ``CURVE_POINTS``, else the counts at ``CURVE_POINTS`` log-spaced steps (and the last).

    >>> shape_curve(np.array([0, 3, 10]), steps=20)
    {'step': [0, 3, 10], 'distinct_shapes': [1, 2, 3]}
    >>> curve = shape_curve(np.arange(1000), steps=1000)  # a new shape every step: log-spaced counts
    >>> len(curve["step"]), curve["step"][-1], curve["distinct_shapes"][-1]
    (130, 999, 1000)
    """
    if first_steps.size <= CURVE_POINTS:
        return {"step": first_steps.tolist(), "distinct_shapes": list(range(1, first_steps.size + 1))}
    marks = np.unique(np.geomspace(1, max(steps, 1), CURVE_POINTS).astype(np.int64) - 1)
    seen = np.searchsorted(first_steps, marks, side="right")
    return {"step": marks.tolist(), "distinct_shapes": seen.tolist()}


def summarize(batches: PaddedBatches, devices: int, dataset_graphs: int) -> dict[str, Any]:
    """The summary of a run as a JSON-safe dict (see the module docstring): counts, epochs,
    batches per epoch, node / edge / graph efficiency (real over padded totals), distinct
    shapes with ``shape_first_steps`` (the recompilation curve) and ``shapes`` (the first
    ``CURVE_POINTS`` shapes: size, first step, batches using it), the largest padded shape,
    graphs per batch, the distributions of real and padded nodes and edges per batch, and for
    ``devices > 1`` the multi-device numbers.

    Args:
        batches: real and padded sizes of every batch, in run order.
        devices: data-parallel devices; batch ``b`` runs at step ``b // devices``.
        dataset_graphs: graphs in one epoch of the dataset (for epochs and batches per epoch).

    Raises:
        ValueError: the run produced no batches.

    >>> run = PaddedBatches(*(np.array(v) for v in ([10, 12], [20, 30], [3, 3], [64, 64], [64, 64], [4, 4])))
    >>> s = summarize(run, devices=1, dataset_graphs=6)
    >>> s["batches"], round(s["node_efficiency"], 4), s["distinct_shapes"], s["batches_per_epoch"]
    (2, 0.1719, 1, 2.0)
    """
    count = batches.count
    if count == 0:
        raise ValueError("The run produced no batches.")
    first, code = first_appearances(batches.padded_nodes, batches.padded_edges, batches.padded_graphs)
    first_steps = first // devices
    steps = -(-count // devices)
    graphs = int(batches.graphs.sum())
    per_batch = np.bincount(batches.graphs)
    used = np.bincount(code)
    summary: dict[str, Any] = {
        "batches": count,
        "steps": steps,
        "devices": devices,
        "graphs": graphs,
        "epochs": graphs / dataset_graphs,
        "batches_per_epoch": count * dataset_graphs / graphs if graphs else float("inf"),
        "node_efficiency": ratio(batches.nodes, batches.padded_nodes),
        "edge_efficiency": ratio(batches.edges, batches.padded_edges),
        "graph_efficiency": ratio(batches.graphs, batches.padded_graphs),
        "distinct_shapes": int(first.size),
        "shape_first_steps": shape_curve(first_steps, steps),
        "shapes": [
            {"nodes": int(batches.padded_nodes[i]), "edges": int(batches.padded_edges[i]),
             "graphs": int(batches.padded_graphs[i]), "first_step": int(i // devices), "batches": int(used[k])}
            for k, i in enumerate(first[:CURVE_POINTS])
        ],
        "max_padded_nodes": int(batches.padded_nodes.max()),
        "max_padded_edges": int(batches.padded_edges.max()),
        "max_padded_graphs": int(batches.padded_graphs.max()),
        "mean_graphs_per_batch": graphs / count,
        "graphs_per_batch": {int(k): int(v) for k, v in enumerate(per_batch) if v},
        "real_nodes": value_counts(batches.nodes),
        "padded_nodes": value_counts(batches.padded_nodes),
        "real_edges": value_counts(batches.edges),
        "padded_edges": value_counts(batches.padded_edges),
    }
    if devices > 1:
        summary.update(_multi_device(batches, devices))
    return summary


def _multi_device(batches: PaddedBatches, devices: int) -> dict[str, Any]:
    """Steps whose D batches differ in shape, and every device padded to the step's largest
    shape. A last step with fewer than D batches gives the missing devices an empty batch
    of that step's shape (every rank must run the step)."""
    steps = -(-batches.count // devices)
    missing = steps * devices - batches.count

    def grid(values: np.ndarray) -> np.ndarray:
        """(steps, devices); missing batches of the last step take its first batch's shape."""
        fill = np.full(missing, values[(steps - 1) * devices], dtype=np.int64)
        return np.concatenate([values, fill]).reshape(steps, devices)

    shapes = [grid(v) for v in (batches.padded_nodes, batches.padded_edges, batches.padded_graphs)]
    mixed = np.zeros(steps, dtype=bool)
    for column in shapes:
        mixed |= (column != column[:, :1]).any(axis=1)
    largest = [column.max(axis=1) for column in shapes]
    distinct = first_appearances(*largest)[0].size
    return {
        "mixed_shape_steps": float(mixed.mean()),
        "step_node_efficiency": ratio(batches.nodes, devices * largest[0]),
        "step_edge_efficiency": ratio(batches.edges, devices * largest[1]),
        "step_graph_efficiency": ratio(batches.graphs, devices * largest[2]),
        "step_distinct_shapes": int(distinct),
    }
