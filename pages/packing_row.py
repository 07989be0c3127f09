"""The packing row of the Batching, Throughput and Export pages: the limits chosen on the
other pages, with as many packs per batch as carry about the batch size in graphs; the
simulator's default (packs of the dynamic batching target's shape, one per batch) before
limits are chosen or when the chosen ones do not hold every graph."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from packing import PackLimits, PackMethod, SizeHistogram
from packing.batching import packs_matching_batch_size
from pages import cache, state


#: What the cached simulations take from a row: limits (None: the dynamic target), method,
#: packs per batch (the note, words only, stays out of their cache keys).
PackingRequest = tuple[Optional[PackLimits], PackMethod, int]


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


def packing_row(hist: SizeHistogram, batch_size: int) -> PackingRow:
    """The packing row for batches of ``batch_size`` graphs on ``hist``."""
    chosen, method = state.choice(), state.method()
    if chosen.source == state.DATA_DEFAULTS:
        return PackingRow(None, method, 1, "No pack limits chosen yet (Packing or Limit sweep page): the packing "
                                           "row packs into the dynamic batching target, one pack per batch.")
    try:
        chosen.limits.check_fits(hist)
    except ValueError as error:
        return PackingRow(None, method, 1, f"The chosen limits do not hold every graph ({error}) The packing row "
                                           "packs into the dynamic batching target, one pack per batch.")
    plan = cache.plan_for(hist, chosen.limits, method)
    packs = packs_matching_batch_size(plan, batch_size)
    return PackingRow(chosen.limits, method, packs, (
        f"Packing row: {packs:,} pack{'s' if packs > 1 else ''} per batch (about {packs * plan.packing_factor:.0f} "
        f"graphs, like batches of {batch_size:,}) of limits {chosen.limits} from {chosen.source}; {method.label}."))
