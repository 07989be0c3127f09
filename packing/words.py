"""The engine's values in words, for everything above the engine that shows them (the
pages, the figures and the report, the command lines): number formats, labels and the
notes a plan's numbers need. The engine itself returns values; its sentences live here.

>>> from packing import PackLimits, PackMethod, PackingPlan
>>> plan = PackingPlan([(((3, 4, 2),), 1)], PackLimits(7, 100, 256), PackMethod())
>>> three_digits(0.56), describe_pack(plan.packs[0][0]), metric_notes(plan)
('0.560', '2 x (3, 4)', {})
"""
from __future__ import annotations

import math

from .bounds import BOUND_LABELS
from .plan import PackingPlan, describe_pack

__all__ = ["BOUND_LABELS", "describe_pack", "metric_notes", "size_limit_words", "three_digits", "unused_graph_slots"]


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
