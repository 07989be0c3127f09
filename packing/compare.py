"""Every heuristic x algorithm, the best of all and the three baselines for one set of
limits (the layout of Table 2 of Krell et al., "Tuple Packing", 2022)."""
from __future__ import annotations

import pandas as pd

from .api import as_limits, best_plan, pack
from .greedy import count_packs
from .histogram import SizeHistogram
from .limits import PackLimits
from .method import BASELINES, PackMethod, tuple_methods
from .metrics import METRIC_NAMES, metrics_from_packs

COMPARE_COLUMNS = ["method", "heuristic", "algorithm", "keeps_limits", *METRIC_NAMES]


def _row(label: str, method: PackMethod, metrics: dict) -> dict:
    return {"method": label, "heuristic": method.heuristic or method.one_dim or "",
            "algorithm": method.algorithm, "keeps_limits": method.keeps_limits,
            **{name: metrics[name] for name in METRIC_NAMES}}


def compare(hist: SizeHistogram, limits: PackLimits | None = None, one_dim: str = "lpfhp") -> pd.DataFrame:
    """One row per heuristic x tuple algorithm, the best of all (named after its winner),
    then the baselines none, node-only and edge-only (1D algorithm ``one_dim``).

    ``keeps_limits`` is False for node-only and edge-only: they ignore one limit, so their
    numbers are not comparable with the rows that keep every limit. Efficiencies are
    measured against ``limits`` (default: the largest graph, 256 graphs per pack).

    >>> table = compare(SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2]), PackLimits(5, 6, 4))
    >>> table.loc[table["method"] == "none", "packs"].item(), table["method"].iloc[18]
    (4, 'best of all: best fit, product heuristic')
    """
    limits = as_limits(hist, limits)
    rows = []
    for method in tuple_methods():
        packs = count_packs(hist.num_nodes, hist.num_edges, hist.counts, limits, method.heuristic_key(), method.algorithm)
        rows.append(_row(f"{method.heuristic} / {method.algorithm}", method, metrics_from_packs(hist, limits, packs)))
    best = best_plan(hist, limits)
    rows.append(_row(best.label, best.requested_method, best.summary()))
    for baseline in BASELINES:
        method = PackMethod(baseline, one_dim=one_dim if baseline != "none" else None)
        rows.append(_row(baseline, method, pack(hist, limits, method).summary()))
    return pd.DataFrame(rows, columns=COMPARE_COLUMNS)
