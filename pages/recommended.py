"""The dashboard's default configuration: the recommendation (:func:`packing.recommend`) for
the run's batch size, priced on the Throughput page's calibration once the user chose one:
the shortest steady epoch in wall time with the packed loader and the page's loader workers
(model time where the calibration timed no loaders or the page shows model time only).

A dataset opened for the first time gets it (or the limits a link asked for); while its
limits are the recommendation they follow the run: a new batch size or calibration gives a
new recommendation. Limits chosen by hand (the Packing page, a sweep cell, the dynamic
target) stay until the user asks for the recommendation again.
"""
from __future__ import annotations

import streamlit as st

from packing import DEFAULT_MAX_GRAPHS, PackLimits, Recommendation, SizeHistogram
from throughput import Calibration

from . import cache, state
from .pricing import priced_workers


def calibration_id() -> str | None:
    """The id of the calibration the user chose on the Throughput page (None: none chosen)."""
    return st.session_state.get(state.THROUGHPUT, state.THROUGHPUT_DEFAULTS)["calibration"]


def chosen_calibration(key: str | None) -> Calibration | None:
    """The calibration of id ``key`` (:func:`calibration_id`), when it can be had without
    timing anything: this machine's once it was checked or measured, a file's, or one of
    this session's; None otherwise."""
    if key is None:
        return None
    if key == state.THIS_MACHINE:
        return cache.machine_calibration().calibration if cache.machine_calibration_ready() else None
    if key.startswith(state.SESSION):
        return st.session_state.get(state.SESSION_CALIBRATIONS, {}).get(key)
    return cache.calibration_options().found.get(key)


def wanted() -> tuple[int, str | None, int | None]:
    """What a recommendation is for now: the run's batch size, the usable calibration's id and
    the loader workers it prices wall time with (None: model time, or no calibration)."""
    key = calibration_id()
    if chosen_calibration(key) is None:
        return state.run_batch_size(), None, None
    return state.run_batch_size(), key, priced_workers()


def label(chosen: Recommendation) -> str:
    """Where the recommended limits come from, in words.

    >>> from packing.recommend import recommend
    >>> label(recommend(SizeHistogram.from_counts([3, 8], [4, 14], [400, 100]), 8))
    'recommended for batch size 8 (no calibration chosen: the least padding)'
    """
    if chosen.cost is None:
        return f"recommended for batch size {chosen.batch_size:,} (no calibration chosen: the least padding)"
    return f"recommended for batch size {chosen.batch_size:,} on {chosen.cost.device} ({chosen.cost.mode})"


def current(hist: SizeHistogram) -> Recommendation:
    """The recommendation for ``hist`` and the run as it is now (cached)."""
    batch_size, key, workers = wanted()
    return cache.recommendation(hist, batch_size, chosen_calibration(key), workers)


def choose(hist: SizeHistogram, owner: str | None = None, force_method: bool = False) -> None:
    """Make the recommendation the choice of the dataset ``owner`` (default: the current
    one), and its method the chosen method unless the user chose one (``force_method``: the
    user asked for the whole recommendation). Where none can be made (fewer graphs than one
    batch), the data defaults, saying why."""
    try:
        chosen = current(hist)
    except ValueError as error:
        state.set_limits(state.data_defaults(hist), f"{state.DATA_DEFAULTS}; no recommendation: {error}", owner)
        return
    if force_method or not state.method_by_hand():
        state.set_method(chosen.plan.method, by_hand=False)
    state.set_choice(state.Choice(chosen.limits, label(chosen), wanted(), chosen.plan.method), owner)


def ensure_limits(selection: state.Selection, hist: SizeHistogram) -> state.Choice:
    """The limits chosen for ``selection``: the first time, those a link asked for, else the
    recommendation; a recommendation made for another batch size or calibration is made
    again."""
    found = state.choices().get(selection.key)
    if found is None:
        requested = state.requested_limits()
        if requested and requested != state.RECOMMENDED:
            limits = PackLimits.for_histogram(hist, **{"max_graphs": DEFAULT_MAX_GRAPHS, **requested})
            state.set_limits(limits, "the link you opened", selection.key)
        else:
            choose(hist, selection.key)
    elif found.is_recommended and found.recommended_for != wanted():
        choose(hist, selection.key)
    return state.choices()[selection.key]
