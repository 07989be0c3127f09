"""The packing row of the Batching and Throughput pages: the limits chosen on the other
pages when every graph fits them, else the simulator's default (packs of the dynamic
batching target's shape)."""
from __future__ import annotations

from packing import PackLimits, SizeHistogram
from pages import state


def packing_limits(hist: SizeHistogram) -> tuple[PackLimits | None, str]:
    """The limits of the packing row: the chosen ones when every graph fits them, else None
    (the default: the dynamic target) with the reason."""
    chosen = state.choice()
    try:
        chosen.limits.check_fits(hist)
    except ValueError as error:
        return None, f"The chosen limits do not hold every graph ({error}) The packing row uses the dynamic target."
    return chosen.limits, f"Packing row: limits {chosen.limits} from {chosen.source}; {state.method().label}."
