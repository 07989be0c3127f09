"""The engine's values in words, for everything above the engine that shows them (the
pages, the figures and the report, the command lines): number formats, labels, the
notes a plan's numbers need, its best bound, a run's length and a batching strategy's
settings. The engine itself returns values; its sentences live here.

>>> from packing import PackLimits, PackMethod, PackingPlan
>>> plan = PackingPlan([(((3, 4, 2),), 1)], PackLimits(7, 100, 256), PackMethod())
>>> three_digits(0.56), describe_pack(plan.packs[0][0]), metric_notes(plan)
('0.560', '2 x (3, 4)', {})
"""
from __future__ import annotations

import math
from typing import Any, Callable

import pandas as pd

from .bounds import Bounds
from .method import PackMethod
from .limits import PackLimits
from .plan import PackingPlan, describe_pack
from .shape import BatchShape
from .sides import EDGES, NODES

__all__ = ["BOUND_LABELS", "bound_words", "describe_pack", "describe_settings", "metric_notes", "run_length_words",
           "short_run_note", "size_limit_words", "three_digits", "unused_graph_slots"]

#: Each bound (``Bounds.name_of_best``) in words.
BOUND_LABELS: dict[str, str] = {
    "volume": "volume bound",
    "large_items": "large-items bound",
    "lp": "LP bound (column generation)",
}
#: The argument behind a large-items bound (``Bounds.large_items_by``) in words.
_LARGE_ITEMS_WORDS = {
    NODES: "Martello-Toth L2 on nodes: graphs too large to share a pack",
    EDGES: "Martello-Toth L2 on edges: graphs too large to share a pack",
    "incompatible": "graphs with over half the node or edge limit, at most one of each kind per pack",
}


def three_digits(value: float) -> str:
    """A time or speed-up to three significant digits, trailing zeros kept, so a column
    reads alike (thousands grouped from 1,000).

    >>> [three_digits(value) for value in (1234.5, 117.4, 17, 0.56, 0.0, 9.996)]
    ['1,230', '117', '17.0', '0.560', '0.00', '10.0']
    """
    value = float(f"{value:.3g}")  # rounded first: 9.996 is 10.0, not 10.00
    if value == 0 or abs(value) >= 100:
        return f"{value:,.0f}" if value else "0.00"
    return f"{value:.{max(0, 2 - math.floor(math.log10(abs(value))))}f}"


def size_limit_words(max_bytes: int) -> str:
    """The size limit in words: whole MB where it is, else bytes.

    >>> size_limit_words(512 * 2**20), size_limit_words(100_000)
    ('512 MB', '100,000 bytes')
    """
    return f"{max_bytes // 2**20} MB" if max_bytes >= 2**20 and max_bytes % 2**20 == 0 else f"{max_bytes:,} bytes"


def metric_notes(plan: PackingPlan) -> dict[str, str]:
    """What to say after each metric of a plan that breaks a limit (a 1D baseline), by
    summary key: an efficiency on a broken side is measured against the largest sum, and
    the harmonic mean is not comparable with plans that keep every limit; {} when none is
    broken.

    >>> from packing import PackLimits, PackMethod
    >>> metric_notes(PackingPlan([(((3, 9, 1),), 1)], PackLimits(5, 4), PackMethod("node_only")))
    {'edge_efficiency': 'limit broken: measured against the largest sum', 'harmonic_mean': 'not comparable: this plan breaks a limit'}
    """
    broken = plan.broken_limits()
    notes = {f"{side}_efficiency": "limit broken: measured against the largest sum"
             for side, limit in (("node", "max_nodes"), ("edge", "max_edges")) if limit in broken}
    return {**notes, "harmonic_mean": "not comparable: this plan breaks a limit"} if broken else {}


def unused_graph_slots(plan: PackingPlan) -> str:
    """A sentence for a graph limit above what any pack can hold (it never binds; the
    packed loader pads each pack to ``plan.graph_capacity`` graph slots, not to the limit);
    "" when the limit can bind.

    >>> from packing import PackLimits, PackMethod
    >>> unused_graph_slots(PackingPlan([(((3, 4, 2),), 1)], PackLimits(7, 100, 256), PackMethod()))[:57]
    'No pack within these node and edge limits can hold more t'
    """
    fit, limit = plan.graphs_that_fit, plan.limits.max_graphs
    if limit <= fit:
        return ""
    return (f"No pack within these node and edge limits can hold more than {fit:,} graphs of this dataset, so "
            f"Max graphs {limit:,} never binds here; the packed loader pads each pack to the "
            f"{plan.graph_capacity:,} graph slots its fullest pack uses, not to {limit:,}.")


def bound_words(bounds: Bounds) -> str:
    """The best of ``bounds`` in words: its name, the argument behind a large-items bound,
    and whether an LP bound stopped at its time budget.

    >>> from packing import PackLimits, SizeHistogram, lower_bounds
    >>> bound_words(lower_bounds(SizeHistogram.from_sizes([2, 2], [1, 1]), PackLimits(4, 4, 4)))
    'volume bound'
    >>> bound_words(lower_bounds(SizeHistogram.from_counts([15, 3], [20, 2], [7, 20]), PackLimits(29, 100, 256)))
    'large-items bound (Martello-Toth L2 on nodes: graphs too large to share a pack)'
    """
    name = bounds.name_of_best
    if name == "large_items":
        return f"{BOUND_LABELS[name]} ({_LARGE_ITEMS_WORDS[bounds.large_items_by]})"
    if name == "lp" and bounds.lp_result is not None and bounds.lp_result.stopped == "time budget":
        return f"{BOUND_LABELS[name]}, stopped at its time budget (Farley bound)"
    return BOUND_LABELS[name]


def run_length_words(run: dict[str, Any]) -> str:
    """How long a run is (a ``RunSpec.to_dict()``), in words.

    >>> run_length_words({"epochs": 10, "steps": None}), run_length_words({"epochs": None, "steps": 5000})
    ('10 epochs', '5,000 steps')
    """
    if run.get("steps"):
        return f"{run['steps']:,} step{'s' if run['steps'] != 1 else ''}"
    epochs = run.get("epochs") or 1
    return f"{epochs:,} epoch{'s' if epochs != 1 else ''}"


def short_run_note(table: pd.DataFrame, label: Callable[[str], str] = str) -> str:
    """For a run of fewer steps than an epoch of some strategies (a ``compare_batching``
    or ``throughput.estimate`` table, its run in ``attrs``): that their batches per epoch,
    and what is priced per epoch, come from the batches run, not from a whole epoch; ""
    when every strategy ran at least one epoch (``label`` names a strategy).

    >>> table = pd.DataFrame({"strategy": ["packing", "dynamic"], "steps_per_epoch": [941.0, 3.0]})
    >>> table.attrs["run"] = {"steps": 10, "epochs": None, "devices": 1}
    >>> short_run_note(table)
    'This run of 10 steps is shorter than one epoch of packing: its per-epoch numbers are extrapolated from the batches it ran, not counted over an epoch; run at least one epoch for exact ones.'
    """
    run = table.attrs.get("run", {})
    if not run.get("steps"):
        return ""  # runs given in epochs cover whole epochs
    per_epoch = table["steps_per_epoch"] if "steps_per_epoch" in table else \
        table["batches_per_epoch"] / run.get("devices", 1)
    short = table.loc[per_epoch > run["steps"], "strategy"].map(label).tolist()
    if not short:
        return ""
    which = "every strategy" if len(short) == len(table) > 1 else f"{len(short)} strategies" if len(short) > 3 \
        else " and ".join(short)
    return (f"This run of {run_length_words(run)} is shorter than one epoch of {which}: "
            f"{'its' if len(short) == 1 else 'their'} per-epoch numbers are extrapolated from the batches it ran, not "
            "counted over an epoch; run at least one epoch for exact ones.")


def describe_settings(strategy: str, settings: dict[str, Any]) -> str:
    """A batching strategy's settings (``table.attrs["settings"][strategy]`` of a
    ``compare_batching`` table, ``strategies`` of the export's ``batching`` section) in words.

    >>> describe_settings("dynamic", {"target": [640, 10112, 32], "sample_size": 1000, "sample_seed": 0})
    'target 640 nodes, 10,112 edges, 32 graphs (Algorithm 1: 1,000-graph sample, seed 0)'
    >>> describe_settings("packing", {"limits": {"max_nodes": 260, "max_edges": 560, "max_graphs": 64},
    ...                               "method": {"algorithm": "published", "heuristic": "node"}, "packs_per_batch": 3})
    '3 packs per batch, limits 260 nodes, 560 edges, 64 graphs, published algorithm (Krell et al. 2022), node heuristic'

    The packing row names its plan as the plan does (``plan_label``: "best of all: ..."
    for a plan best of all chose), else by its method.
    """
    if strategy == "static_constant":
        return f"{settings['graphs_per_batch']:,} graphs per batch, padded to {BatchShape(*settings['shape'])}"
    if strategy in ("static_64", "static_pow2"):
        return f"{settings['graphs_per_batch']:,} graphs per batch, totals rounded up to a {settings['rounding']}"
    if strategy == "dynamic":
        where = ("given" if settings.get("given") else
                 f"Algorithm 1: {settings['sample_size']:,}-graph sample, seed {settings['sample_seed']}")
        if "estimated" in settings:
            where += (f"; the estimate {settings['estimated'][0]:,} nodes, {settings['estimated'][1]:,} edges was "
                      "raised to hold the largest graph")
        return f"target {BatchShape(*settings['target'])} ({where})"
    if strategy == "pyg_dynamic":
        return f"budget {settings['max_num']:,} {settings['mode']}s, no graph cap, other sizes unpadded"
    if strategy == "buckets":
        if "shapes" in settings:
            return f"{len(settings['shapes'])} given shapes, {settings['graphs_per_batch']:,} graphs per batch"
        return (f"{settings['num_shapes']} shapes fitted to this run's batches, {settings['graphs_per_batch']:,} "
                "graphs per batch")
    packs, limits = settings["packs_per_batch"], settings["limits"]
    limits = PackLimits(limits["max_nodes"], limits["max_edges"], limits["max_graphs"])
    broken = f" (breaks {', '.join(settings['broken_limits'])})" if settings.get("broken_limits") else ""
    return (f"{packs:,} pack{'s' if packs > 1 else ''} per batch, limits {limits}, "
            f"{settings.get('plan_label') or PackMethod.from_dict(settings['method']).label}{broken}")
