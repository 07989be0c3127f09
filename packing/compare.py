"""Every heuristic x algorithm and the three baselines for one set of limits (Table 2 layout)."""
from __future__ import annotations

import pandas as pd

from .api import ALGORITHMS, BASELINES, pack, resolve_limits
from .greedy import count_packs
from .heuristics import HEURISTICS, resolve_heuristic
from .histogram import SizeHistogram
from .metrics import metrics_from_packs

COMPARE_COLUMNS = [
    "method", "heuristic", "algorithm", "packs", "lower_bound", "gap",
    "node_efficiency", "edge_efficiency", "harmonic_mean", "packing_factor",
]


def compare(
    hist: SizeHistogram,
    max_nodes: int | None = None,
    max_edges: int | None = None,
    max_graphs: int | None = 256,
    one_dim: str = "lpfhp",
) -> pd.DataFrame:
    """One row per heuristic x algorithm, then the baselines none, node-only, edge-only.

    Krell et al., "Tuple Packing" (2022), Table 2, measured against the chosen limits.

    >>> table = compare(SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2]), 5, 6, 4)
    >>> table.loc[table["method"] == "none", "packs"].item()
    4
    """
    limits = resolve_limits(hist, max_nodes, max_edges, max_graphs)
    rows = []
    for heuristic in HEURISTICS:
        for algorithm in ALGORITHMS:
            packs = count_packs(hist.num_nodes, hist.num_edges, hist.counts, limits,
                                resolve_heuristic(heuristic), algorithm)
            rows.append({"method": f"{heuristic} / {algorithm}", "heuristic": heuristic,
                         "algorithm": algorithm, **metrics_from_packs(hist, limits, packs)})
    for baseline in BASELINES:
        summary = pack(hist, *limits, algorithm=baseline, one_dim=one_dim).summary()
        rows.append({"method": baseline, **{k: summary[k] for k in COMPARE_COLUMNS[1:]}})
    return pd.DataFrame(rows, columns=COMPARE_COLUMNS)
