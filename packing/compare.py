"""Every heuristic x algorithm, the published algorithm, the best of all and the three
baselines for one set of limits (the layout of Table 2 of Krell et al., "Tuple Packing",
2022, with the published rows next to ours)."""
from __future__ import annotations

import pandas as pd

from .api import as_limits, best_plan, count_tuple_packs, pack
from .bounds import Bounds, lower_bounds
from .histogram import SizeHistogram
from .limits import PackLimits
from .plan import PackingPlan
from .method import BASELINES, NONE, PackMethod, candidate_methods, published_methods, tuple_methods
from .metrics import BOUND_COLUMN, METRIC_NAMES, metrics_from_packs
from .published import PAPER_MIN, PAPER_TABLE2, PAPER_TRAIN_GRAPHS

COMPARE_COLUMNS = ["method", "heuristic", "algorithm", "keeps_limits", *METRIC_NAMES[:3], BOUND_COLUMN,
                   *METRIC_NAMES[3:]]


def _row(label: str, method: PackMethod, metrics: dict) -> dict:
    return {"method": label, "heuristic": method.heuristic or method.one_dim or "",
            "algorithm": method.algorithm, "keeps_limits": method.keeps_limits,
            **{name: metrics[name] for name in (*METRIC_NAMES, BOUND_COLUMN)}}


def row_label(method: PackMethod) -> str:
    """The ``method`` column of a tuple-packing row: ``sum / best_fit``, ``max / published``,
    ``min as published (= max) / published`` for the paper's Minimum row.

    >>> row_label(PackMethod("published", "paper_min"))
    'min as published (= max) / published'
    """
    heuristic = "min as published (= max)" if method.heuristic == PAPER_MIN else method.heuristic
    return f"{heuristic} / {method.algorithm}"


def compare(hist: SizeHistogram, limits: PackLimits | None = None, one_dim: str = "lpfhp",
            bounds: Bounds | None = None, chosen: PackingPlan | None = None) -> pd.DataFrame:
    """One row per heuristic x tuple algorithm, then the published algorithm with each of
    its heuristics (``algorithm == "published"``, the paper's rows first), the best of all
    (named after its winner), then the baselines none, node-only and edge-only (1D
    algorithm ``one_dim``); last, ``chosen`` (a plan of these graphs and limits) as
    ``chosen: <its label>`` when no row above is its method (a weighted heuristic, exact
    fill, balanced fill, LP rounding).

    ``keeps_limits`` is False for node-only and edge-only: they ignore one limit, so their
    numbers are not comparable with the rows that keep every limit. Efficiencies are
    measured against ``limits`` (default: the largest graph, 256 graphs per pack); for
    the paper's convention (against the largest sums used) see
    :func:`packing.published_table`. ``lower_bound`` is the best of ``bounds`` (default: the
    volume and large-items bounds; pass ``lower_bounds(hist, limits, prove=True)`` to measure
    against the LP bound too), ``bound`` names it.

    Returns:
        One row per method with the columns ``COMPARE_COLUMNS``.

    Raises:
        ValueError: for limits a graph does not fit, or ``bounds`` or ``chosen`` of other
            graphs or limits.

    >>> table = compare(SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2]), PackLimits(5, 6, 4))
    >>> table.loc[table["method"] == "none", "packs"].item(), table["method"].iloc[25]
    (4, 'best of all: best fit, product heuristic')
    """
    limits = as_limits(hist, limits)
    if bounds is None:
        bounds = lower_bounds(hist, limits)
    elif (bounds.fingerprint, bounds.limits, bounds.unlimited) != (hist.fingerprint(), limits, None):
        raise ValueError("bounds must be lower_bounds(hist, limits) of this histogram and these limits.")
    if chosen is not None and (chosen.limits != limits or chosen.histogram.fingerprint() != hist.fingerprint()):
        raise ValueError("chosen must be a plan of these graphs and limits.")
    rows, counted = [], {}
    for method in tuple_methods() + published_methods():
        counted[method] = count_tuple_packs(hist, limits, method)
        rows.append(_row(row_label(method), method, metrics_from_packs(hist, limits, counted[method], bounds)))
    winner = min(candidate_methods(), key=counted.__getitem__)  # ties: the first, as best_plan
    best = best_plan(hist, limits, winner=winner, bounds=bounds)
    rows.append(_row(best.label, best.requested_method, best.summary()))
    listed = [*counted, best.requested_method]
    for baseline in BASELINES:
        method = PackMethod(baseline, one_dim=one_dim if baseline != NONE else None)
        listed.append(method)
        rows.append(_row(baseline, method, _measured(pack(hist, limits, method), bounds).summary()))
    if chosen is not None and chosen.requested_method not in listed:
        rows.append(_row(f"chosen: {chosen.label}", chosen.requested_method, _measured(chosen, bounds).summary()))
    return pd.DataFrame(rows, columns=COMPARE_COLUMNS)


def _measured(plan: PackingPlan, bounds: Bounds) -> PackingPlan:
    """``plan`` against ``bounds`` where it keeps every limit (a 1D baseline keeps its own)."""
    return plan.with_bounds(bounds) if plan.method.unlimited is None else plan


def published_table(hist: SizeHistogram, limits: PackLimits | None = None, dataset: str | None = None) -> pd.DataFrame:
    """The published algorithm with each heuristic, in the paper's convention: node and
    edge efficiency in percent against the *tight* limits (``tight_nodes``,
    ``tight_edges``: the largest sums its packs use; the paper prints one decimal), next
    to the packs and the efficiencies (fractions) against ``limits``. When ``dataset`` is
    one the paper reports (``ogbg-molhiv``, ``ogbg-molpcba``), ``hist`` is its training
    split (the one the paper packed: ``PAPER_TRAIN_GRAPHS``) and ``limits`` are its
    data-default limits with 256 graphs, ``paper_node_pct`` / ``paper_edge_pct`` hold the
    numbers printed in the paper (else None).

    >>> table = published_table(SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2]), PackLimits(5, 6, 4))
    >>> row = table.iloc[0]
    >>> row["heuristic"], int(row["packs"]), float(row["tight_node_pct"])
    ('product', 2, 100.0)
    """
    limits = as_limits(hist, limits)
    paper_split = hist.num_graphs == PAPER_TRAIN_GRAPHS.get(dataset or "")
    paper = PAPER_TABLE2[dataset] if paper_split and limits == PackLimits.for_histogram(hist) else {}
    rows = []
    for method in published_methods():
        plan = pack(hist, limits, method)
        paper_node, paper_edge = paper.get(method.heuristic, (None, None))
        rows.append({
            "method": row_label(method), "heuristic": method.heuristic, "label": method.label,
            "packs": plan.num_packs, "tight_nodes": plan.tight_limits[0], "tight_edges": plan.tight_limits[1],
            "tight_node_pct": 100 * plan.tight_node_efficiency, "tight_edge_pct": 100 * plan.tight_edge_efficiency,
            "node_efficiency": plan.node_efficiency, "edge_efficiency": plan.edge_efficiency,
            "paper_node_pct": paper_node, "paper_edge_pct": paper_edge,
        })
    return pd.DataFrame(rows)
