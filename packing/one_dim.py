"""1D histogram packing of one size component, for the node-only and edge-only baselines.

Methods: Kosec et al., "Packing: Towards 2x NLP BERT Acceleration" (2021), supplement D-G:

* ``lpfhp`` - longest-pack-first histogram packing (best fit with count splitting),
* ``spfhp`` - shortest-pack-first histogram packing (worst fit with count splitting),
* ``nnlshp`` - non-negative least squares histogram packing: a mixture of pack strategies
  of bounded depth fitted to the length histogram, rounded down, the rest by LPFHP.

The other component is not limited; LPFHP and SPFHP are the 2D greedy engine with the
single-component heuristic and an unbounded second limit, which is exactly the 1D method.
"""
from __future__ import annotations

from collections import deque

import numpy as np
from scipy.optimize import nnls

from .greedy import BEST_FIT, WORST_FIT, greedy_pack
from .packs import Strategy, in_rows, pack_from_rows
from .heuristics import HEURISTICS, Heuristic
from .histogram import SizeHistogram
from .limits import MAX_PACK_LIMIT, PackLimits
from .sides import NODES

ONE_DIM_ALGORITHMS = ("lpfhp", "spfhp", "nnlshp")
NNLS_MAX_STRATEGIES = 4000
NNLS_MAX_SIZES = 512  # distinct sizes (rows of the least-squares problem) NNLSHP accepts


def _one_dim_limits(component: str, limits: PackLimits) -> tuple[PackLimits, Heuristic]:
    """The limits of a 1D run (the other component as large as a limit can be) and its key."""
    if component == NODES:
        return PackLimits(limits.max_nodes, MAX_PACK_LIMIT, limits.max_graphs), HEURISTICS["node"]
    return PackLimits(MAX_PACK_LIMIT, limits.max_edges, limits.max_graphs), HEURISTICS["edge"]


def pack_one_dim(
    hist: SizeHistogram, component: str, limits: PackLimits, algorithm: str = "lpfhp",
    depth: int = 3,
) -> list[Strategy]:
    """Pack ``hist`` limiting only ``component`` (``"nodes"`` or ``"edges"``) and graphs.

    >>> hist = SizeHistogram.from_sizes([4, 4, 2], [1, 9, 1])
    >>> sorted(c for _, c in pack_one_dim(hist, "nodes", PackLimits(6, 2, 4), "lpfhp"))
    [1, 1]
    """
    one_dim_limits, key = _one_dim_limits(component, limits)
    if algorithm == "lpfhp":
        return greedy_pack(hist.num_nodes, hist.num_edges, hist.counts, one_dim_limits, key, BEST_FIT)
    if algorithm == "spfhp":
        return greedy_pack(hist.num_nodes, hist.num_edges, hist.counts, one_dim_limits, key, WORST_FIT)
    if algorithm == "nnlshp":
        return _nnlshp(hist, component, one_dim_limits, key, depth)
    raise ValueError(f"Unknown 1D algorithm {algorithm!r}; choose one of {ONE_DIM_ALGORITHMS}.")


def _strategy_matrix(lengths: np.ndarray, capacity: int, depth: int) -> list[tuple[int, ...]]:
    """The fullest pack strategies: row-index multisets of up to ``depth`` lengths whose sum
    fits ``capacity``, at most ``NNLS_MAX_STRATEGIES`` of them, fullest first."""
    rows = np.arange(len(lengths))
    combos = rows[:, None]  # one strategy per row: sorted row indices
    totals = lengths.astype(np.int64).copy()
    kept_combos, kept_totals = [combos], [totals]
    for _ in range(depth - 1):
        # Extend every strategy by a row index >= its last one, keeping those that fit.
        last = combos[:, -1]
        extend = rows[None, :] >= last[:, None]
        grown = totals[:, None] + lengths[None, :]
        ok = extend & (grown <= capacity)
        parent, row = np.nonzero(ok)
        combos = np.concatenate([combos[parent], row[:, None]], axis=1)
        totals = grown[parent, row]
        if not len(totals):
            break
        if len(totals) > 4 * NNLS_MAX_STRATEGIES:  # keep the fullest partial strategies
            best = np.argsort(-totals, kind="stable")[: 4 * NNLS_MAX_STRATEGIES]
            combos, totals = combos[best], totals[best]
        kept_combos.append(combos)
        kept_totals.append(totals)
    order = []
    for depth_index, totals_k in enumerate(kept_totals):
        order.extend((-int(t), depth_index, position) for position, t in enumerate(totals_k.tolist()))
    order.sort()
    return [tuple(kept_combos[i][p].tolist()) for _, i, p in order[:NNLS_MAX_STRATEGIES]]


def _nnlshp(hist, component, limits, key, depth) -> list[Strategy]:
    values = hist.num_nodes if component == NODES else hist.num_edges
    capacity = limits.max_nodes if component == NODES else limits.max_edges
    depth = max(1, min(depth, limits.max_graphs))
    lengths, row_of_bin = np.unique(values, return_inverse=True)
    if len(lengths) > NNLS_MAX_SIZES:
        raise ValueError(
            f"NNLSHP fits every distinct {component[:-1]} count; this dataset has {len(lengths):,} "
            f"(at most {NNLS_MAX_SIZES} are supported). Use lpfhp or spfhp for it."
        )
    demand = np.bincount(row_of_bin, weights=hist.counts).astype(np.int64)
    strategies = _strategy_matrix(lengths, capacity, depth)
    matrix = np.zeros((len(lengths), len(strategies)))
    for column, combo in enumerate(strategies):
        for row in combo:
            matrix[row, column] += 1
    mixture, _ = nnls(matrix, demand.astype(float), maxiter=20 * matrix.shape[1])
    # Round down and never take more graphs of a length than exist.
    available = demand.copy()
    chosen: list[tuple[tuple[int, ...], int]] = []
    for column in np.argsort(-mixture, kind="stable"):
        count = int(np.floor(mixture[column] + 1e-9))
        if count <= 0:
            break
        combo = strategies[column]
        rows, multiplicity = np.unique(combo, return_counts=True)
        count = min(count, int((available[rows] // multiplicity).min()))
        if count:
            available[rows] -= multiplicity * count
            chosen.append((combo, count))
    strategies_out = _realise(hist, row_of_bin, chosen)
    leftover = _leftover_counts(hist, strategies_out)
    if leftover.sum():
        rows = np.flatnonzero(leftover)
        strategies_out += in_rows(greedy_pack(hist.num_nodes[rows], hist.num_edges[rows], leftover[rows], limits, key,
                                              BEST_FIT), rows)
    return strategies_out


def _realise(hist, row_of_bin, chosen) -> list[Strategy]:
    """Turn length strategies into bin strategies, splitting counts across bins."""
    queues: dict[int, deque] = {}
    for bin_index, row in enumerate(row_of_bin.tolist()):
        queues.setdefault(row, deque()).append([bin_index, int(hist.counts[bin_index])])
    out: list[Strategy] = []
    for combo, count in chosen:
        pending = [((), count)]
        for row in combo:
            queue = queues[row]
            next_pending = []
            for prefix, need in pending:
                while need:
                    entry = queue[0]
                    take = min(need, entry[1])
                    next_pending.append((prefix + (entry[0],), take))
                    entry[1] -= take
                    need -= take
                    if entry[1] == 0:
                        queue.popleft()
            pending = next_pending
        out.extend((pack_from_rows(items), n) for items, n in pending)
    return out


def _leftover_counts(hist: SizeHistogram, strategies: list[Strategy]) -> np.ndarray:
    used = np.zeros(hist.num_tuples, dtype=np.int64)
    for items, count in strategies:
        for row, copies in items:
            used[row] += copies * count
    return hist.counts - used
