"""The packing row of the Batching, Throughput and Export pages: the chosen configuration
of the sidebar (limits and method, the recommendation until others are chosen), with the
run's packs per batch, or as many as carry about the batch size in graphs; the simulator's
default (packs that pad to the dynamic batching target's shape, one per batch) only when the chosen
limits do not hold every graph, and the note says so."""
from __future__ import annotations

from dataclasses import dataclass

from packing import BatchShape, PackLimits, PackMethod, SizeHistogram
from packing.batching import packs_matching_batch_size
from pages import cache, state
from pages.cache import PackingRequest


@dataclass(frozen=True)
class PackingRow:
    """How the packing row packs: ``limits`` and ``method`` (limits None: the dynamic
    target), ``packs_per_batch`` packs per batch, and ``note``, the same in words."""

    limits: PackLimits | None
    method: PackMethod
    packs_per_batch: int
    note: str

    @property
    def request(self) -> PackingRequest:
        return self.limits, self.method, self.packs_per_batch


def packing_row(hist: SizeHistogram, run: dict) -> PackingRow:
    """The packing row for the run settings ``run`` (``state.run_settings()``: batch size
    and packs per batch, None for about batch size graphs) on ``hist``."""
    chosen, method = state.choice(), state.method()
    try:
        chosen.limits.check_fits(hist)
    except ValueError as error:
        return PackingRow(None, method, 1, f"The chosen limits do not hold every graph ({error}) The packing row "
                                           "packs into the dynamic batching target instead, one pack per batch.")
    plan = cache.plan_for(hist, chosen.limits, method)
    packs = run["packs_per_batch"] or packs_matching_batch_size(plan, run["batch_size"])
    how = "set on this page" if run["packs_per_batch"] else f"chosen to carry about {run['batch_size']:,} graphs, " \
                                                           "the batch size"
    origin = f"the configuration {chosen.source}" if chosen.is_recommended else \
        f"the chosen configuration (from {chosen.source})"
    note = (f"Packing row: {origin}, limits {chosen.limits}, {method.label}; "
            f"{packs:,} pack{'s' if packs > 1 else ''} per batch ({how}), which carry "
            f"{packs * plan.packing_factor:,.1f} graphs on average, padded to {BatchShape.for_plan(plan, packs)} "
            f"({plan.graph_capacity:,} graph slots per pack, the most any pack holds, and one padding node and graph).")
    return PackingRow(chosen.limits, method, packs, note)
