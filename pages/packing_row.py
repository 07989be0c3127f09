"""The packing row of the Batching, Throughput and Export pages: the chosen configuration
of the sidebar (limits and method, the data defaults until others are chosen), with the
run's packs per step, or as many as carry about the batch size in graphs; the simulator's
default (packs that pad to the dynamic batching target's shape, one per batch) only when the chosen
limits do not hold every graph, and the note says so."""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from packing import BatchShape, PackingPlan, PackLimits, PackMethod, SizeHistogram
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
    fitting_limits: PackLimits | None = None  # the same limits with the graph limit the packs need, when far lower

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
                                           "packs into the dynamic batching target instead, one pack per step.")
    plan = cache.plan_for(hist, chosen.limits, method)
    packs = run["packs_per_batch"] or packs_matching_batch_size(plan, run["batch_size"])
    how = "set on this page" if run["packs_per_batch"] else f"chosen to carry about {run['batch_size']:,} graphs, " \
                                                           "the batch size"
    note = (f"Packing row: the chosen configuration, limits {chosen.limits} from {chosen.source}, {method.label}; "
            f"{packs:,} pack{'s' if packs > 1 else ''} per step ({how}), which carry "
            f"{packs * plan.packing_factor:,.1f} graphs on average, padded to {BatchShape.for_plan(plan, packs)} "
            "(one padding node and graph included).")
    fitting = PackLimits(chosen.limits.max_nodes, chosen.limits.max_edges, plan.graphs_that_fit)
    if chosen.limits.max_graphs < 2 * fitting.max_graphs or cache.plan_for(hist, fitting, method).packs != plan.packs:
        return PackingRow(chosen.limits, method, packs, note)  # nothing to gain, or other packs (exact fill, LP)
    return PackingRow(chosen.limits, method, packs, note + _graph_slots_hint(plan, packs), fitting)


def _graph_slots_hint(plan: PackingPlan, packs: int) -> str:
    """The sentence for a graph limit that pads many more graph slots than any pack can
    fill (e.g. the paper's 256 graphs with packs the size of one large molecule), once the
    lower limit was seen to pack the same packs."""
    fit, limit = plan.graphs_that_fit, plan.limits.max_graphs
    return (f" Every pack is padded to {limit:,} graph slots, but no pack within {plan.limits.max_nodes:,} nodes "
            f"and {plan.limits.max_edges:,} edges holds more than {fit:,} graphs of this dataset: Max graphs {fit:,} "
            f"packs the same packs into {packs * fit + 1:,} graph slots per step instead of {packs * limit + 1:,}.")


def offer_fitting_limits(row: PackingRow, key: str) -> None:
    """A button that lowers the graph limit to what the packs can hold, when the note
    suggests it (the same packs, fewer padded graph slots; every page uses the new limits)."""
    if row.fitting_limits is None:
        return
    st.button(f"Use Max graphs {row.fitting_limits.max_graphs:,} (the same packs, fewer padded graph slots)",
              on_click=state.set_limits, key=key,
              args=(row.fitting_limits, f"{state.choice().source}, Max graphs lowered to what a pack can hold"),
              help="No pack within these node and edge limits can hold more graphs, so no pack changes; batches "
                   "pad fewer graph slots. The Packing and Export pages use these limits too.")
