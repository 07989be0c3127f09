"""Cached wrappers around the data loaders and the packing engine.

Plans and comparison tables go through ``st.cache_data`` (a histogram is hashed by its
fingerprint); datasets, sweeps and simulated runs are kept in small process-wide stores, so
that loading a dataset, running a sweep or simulating a run can report progress while it
runs and is instant the second time.
"""
from __future__ import annotations

import threading
import warnings
from collections import OrderedDict
from typing import Any, Callable, Optional

import pandas as pd
import streamlit as st

import data_loaders
from figures.pdf import find_chromium
from packing import (PackingPlan, PackLimits, PackMethod, Recommendation, SizeHistogram, compare, lower_bounds,
                     pack, published_table, recommend, sweep)
from packing.batching import ShareDone, compare_batching
from throughput import (Calibration, CalibrationCheck, MachineCalibration, calibration_for_this_machine,
                        check_calibration, estimate, load_checked_config, step_cost)
from throughput.calibration import CalibrationFiles, calibrations_by_name

#: What the cached simulations take from the packing row (:mod:`pages.packing_row`): limits
#: (None: the dynamic target), method, packs per batch (the row's note, words only, stays out
#: of their cache keys).
PackingRequest = tuple[Optional[PackLimits], PackMethod, int]

_HASH = {SizeHistogram: SizeHistogram.fingerprint}
Progress = Callable[[str, float], None]

#: Seconds the LP bound may take when the user asks to prove a bound.
PROVE_SECONDS = 60


@st.cache_data(show_spinner=False, ttl=3600)
def dataset_specs() -> list:
    """Every dataset the loaders offer (``data_loaders.list_datasets``)."""
    return data_loaders.list_datasets()


def spec_for(name: str):
    """The spec of dataset ``name`` or None (for uploads)."""
    return next((spec for spec in dataset_specs() if spec.name == name), None)


@st.cache_data(show_spinner=False, ttl=60)
def opens_without_download(name: str) -> bool:
    """Whether dataset ``name`` opens here without a download: it ships a size profile, or
    its histogram is cached, or its files are on disk (checked again after a minute). A
    histogram loaded to tell goes into :func:`load_dataset`'s store, so choosing the dataset
    next does not load it again."""
    spec = spec_for(name)
    if spec is None or spec.bundled:
        return True
    key = (name, spec.splits[0], ())
    if _stores()["datasets"].get(key) is not None:
        return True
    try:
        _stores()["datasets"].put(key, data_loaders.load_histogram(name, spec.splits[0], allow_download=False))
    except (data_loaders.DatasetUnavailableError, ValueError):
        return False
    return True


class _Store:
    """A small least-recently-used store shared by every session of the server (thread-safe)."""

    def __init__(self, size: int) -> None:
        self._items: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()
        self._size = size

    def get(self, key: Any) -> Any:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: Any, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            while len(self._items) > self._size:
                self._items.popitem(last=False)


@st.cache_data(show_spinner="Running the published algorithm with each heuristic...", max_entries=16,
               hash_funcs=_HASH)
def published_rows(hist: SizeHistogram, limits: PackLimits, dataset: str) -> pd.DataFrame:
    """``packing.published_table``: the published algorithm in the paper's convention."""
    return published_table(hist, limits, dataset=dataset)


def _run_key(hist: SizeHistogram, run: dict, packing: PackingRequest) -> tuple:
    return hist.fingerprint(), tuple(sorted(run.items())), packing


def batching_table(hist: SizeHistogram, run: dict, packing: PackingRequest,
                   progress: ShareDone | None = None) -> pd.DataFrame:
    """``packing.batching.compare_batching`` with the ``run`` settings (``state.run_settings()``:
    batch size, epochs or steps, seed, devices, bucket shapes) and the packing row's
    ``packing`` (``PackingRow.request``), kept in a process-wide store so that a new run
    reports ``progress`` (the share simulated; a run of 2,000,000 steps takes seconds).
    The table is shared: read it, do not change it."""
    key = _run_key(hist, run, packing)
    found = _stores()["batching"].get(key)
    if found is None:
        limits, method, packs_per_batch = packing
        plan = None if limits is None else plan_for(hist, limits, method)
        found = compare_batching(hist, run["batch_size"], plan, run["steps"], run["seed"], epochs=run["epochs"],
                                 devices=run["devices"], num_shapes=run["num_shapes"],
                                 packs_per_batch=packs_per_batch, progress=progress)
        _stores()["batching"].put(key, found)
    return found


def throughput_table(hist: SizeHistogram, calibration: Calibration, run: dict, baseline: str,
                     packing: PackingRequest, progress: ShareDone | None = None) -> pd.DataFrame:
    """``throughput.estimate`` with the ``run`` settings (``state.run_settings()``), the
    ``baseline`` and the packing row's ``packing`` (``PackingRow.request``), kept and
    reporting ``progress`` as :func:`batching_table`."""
    key = (*_run_key(hist, run, packing), calibration.to_dict()["digest"], baseline)
    found = _stores()["throughput"].get(key)
    if found is None:
        limits, method, packs_per_batch = packing
        plan = None if limits is None else plan_for(hist, limits, method)
        found = estimate(hist, run["batch_size"], calibration, plan, baseline=baseline, devices=run["devices"],
                         epochs=run["epochs"], steps=run["steps"], seed=run["seed"], num_shapes=run["num_shapes"],
                         packs_per_batch=packs_per_batch, progress=progress)
        _stores()["throughput"].put(key, found)
    return found


@st.cache_resource(show_spinner=False)
def _stores() -> dict[str, _Store]:
    return {"datasets": _Store(32), "sweeps": _Store(24), "checks": _Store(16), "machine": _Store(1),
            "batching": _Store(16), "throughput": _Store(16), "plans": _Store(64)}


_MACHINE_LOCK = threading.Lock()  # timings of this machine (its calibration, checks) run one at a time


def machine_calibration_ready() -> bool:
    """Whether :func:`machine_calibration` has its answer (no waiting, no progress to show)."""
    return _stores()["machine"].get("this machine") is not None


def machine_calibration(progress: Callable[[int, int, tuple], None] | None = None) -> MachineCalibration:
    """``throughput.calibration_for_this_machine``, once per server process (the first
    session to ask waits for it, with ``progress``; later ones get it at once)."""
    with _MACHINE_LOCK:
        found = _stores()["machine"].get("this machine")
        if found is None:
            found = calibration_for_this_machine(progress)
            _stores()["machine"].put("this machine", found)
        return found


def calibration_check(calibration: Calibration) -> CalibrationCheck:
    """``throughput.check_calibration`` of a CPU calibration on this machine, once per server
    process and calibration (raises ``ValueError`` for one that cannot be checked here)."""
    key = calibration.to_dict()["digest"]
    with _MACHINE_LOCK:  # one timing at a time: two at once on a small machine would fail each other
        found = _stores()["checks"].get(key)
        if found is None:
            found = check_calibration(calibration)
            _stores()["checks"].put(key, found)
    return found


def load_dataset(
    name: str, split: str, options: tuple[tuple[str, Any], ...], progress: Progress | None = None,
) -> tuple[SizeHistogram, dict]:
    """``data_loaders.load_histogram`` with options given as sorted (name, value) pairs, kept in
    a small process-wide store. ``progress(stage, fraction)`` hears slow computations (kept out
    of ``st.cache_data``, whose replay cannot draw into a container made outside it).

    Raises ``data_loaders.DatasetUnavailableError`` or ``ValueError`` (not stored).
    """
    key = (name, split, options)
    found = _stores()["datasets"].get(key)
    if found is None:
        found = data_loaders.load_histogram(name, split, progress=progress, **dict(options))
        _stores()["datasets"].put(key, found)
    return found


@st.cache_data(show_spinner="Searching the pack limits and packs per step for this batch size...", max_entries=32,
               hash_funcs={**_HASH, Calibration: lambda calibration: calibration.to_dict()["digest"]})
def recommendation(hist: SizeHistogram, batch_size: int, calibration: Calibration | None,
                   workers: int | None = None) -> Recommendation:
    """``packing.recommend`` at ``batch_size``, priced on ``calibration`` when given: it
    minimises the steady epoch's wall time with the packed loader and ``workers`` loader
    workers where the calibration timed its loaders, else (or with ``workers`` None) its model
    time (:func:`throughput.step_cost`); the least padding without a calibration. Raises
    ``ValueError``, e.g. for fewer graphs than one batch."""
    return recommend(hist, batch_size, None if calibration is None else step_cost(calibration, workers))


def plan_for(hist: SizeHistogram, limits: PackLimits, method: PackMethod,
             progress: Callable[[float, str], None] | None = None) -> PackingPlan:
    """``packing.pack`` for one set of limits and one method (raises ``ValueError``), kept in
    a process-wide store so that a new packing reports ``progress(fraction, message)`` (best
    of all on 100,000 distinct sizes takes seconds). The plan is shared: do not change it."""
    key = (hist.fingerprint(), limits, method)
    found = _stores()["plans"].get(key)
    if found is None:
        found = pack(hist, limits, method, progress=progress)
        _stores()["plans"].put(key, found)
    return found


@st.cache_data(show_spinner="Packing with every heuristic and algorithm...", max_entries=32,
               hash_funcs={**_HASH, PackingPlan: lambda plan: (plan.requested_method, plan.limits)})
def compare_table(hist: SizeHistogram, limits: PackLimits, one_dim: str, proved: bool,
                  chosen: PackingPlan) -> pd.DataFrame:
    """``packing.compare``: every heuristic x algorithm, best of all, the baselines (Table 2 layout)
    and the ``chosen`` plan where it is none of them; ``proved``: this session proved the LP
    bound of these limits (cached by the engine), so every row is measured against it as the
    cards are."""
    bounds = lower_bounds(hist, limits, prove=True, time_budget=PROVE_SECONDS) if proved else None
    return compare(hist, limits, one_dim=one_dim, bounds=bounds, chosen=chosen)


def sweep_key(hist: SizeHistogram, node_limits, edge_limits, max_graphs: int, method: PackMethod) -> tuple:
    """The cache key of one sweep."""
    return (hist.fingerprint(), tuple(node_limits), tuple(edge_limits), int(max_graphs), method)


def cached_sweep(key: tuple) -> pd.DataFrame | None:
    """A finished sweep from the store, or None."""
    return _stores()["sweeps"].get(key)


def run_sweep(
    hist: SizeHistogram, node_limits: list[int], edge_limits: list[int], max_graphs: int, method: PackMethod,
    progress: Callable[[int, int], None] | None = None, scheduler: str | None = None,
) -> pd.DataFrame:
    """``packing.sweep`` through the store: cached sweeps return at once, new ones report
    ``progress(done, total)``; with a ``scheduler`` address the cells are packed by that
    Dask cluster's workers (the same numbers). Raises ``ValueError`` for invalid input or a
    scheduler that does not answer."""
    key = sweep_key(hist, node_limits, edge_limits, max_graphs, method)
    frame = cached_sweep(key)
    if frame is None:
        if scheduler is None:
            frame = sweep(hist, node_limits, edge_limits, max_graphs=max_graphs, method=method, progress=progress)
        else:
            with data_loaders.dask_client(scheduler) as client:
                frame = data_loaders.cluster_sweep(hist, node_limits, edge_limits, max_graphs, method, client=client,
                                                   progress=progress)
        _stores()["sweeps"].put(key, frame)
    return frame


def png_browser() -> str | None:
    """Path of the Chromium that kaleido uses for PNG export (and the report's PDF), or None
    when there is none."""
    return find_chromium()


_KALEIDO_LOCK = threading.Lock()
_KALEIDO_STARTED = False


def figure_png(fig) -> bytes:
    """Render a plotly figure to PNG with kaleido, keeping one browser open for speed."""
    global _KALEIDO_STARTED
    import kaleido

    with _KALEIDO_LOCK:
        if not _KALEIDO_STARTED:
            kaleido.start_sync_server(silence_warnings=True)
            _KALEIDO_STARTED = True
        with warnings.catch_warnings():  # plotly notes that kaleido's server ignores its options
            warnings.simplefilter("ignore", UserWarning)
            return fig.to_image(format="png", width=1100, height=fig.layout.height or 500, scale=1)


def figure_html(fig) -> str:
    """A standalone interactive HTML file of a figure (plotly.js embedded: works offline)."""
    return fig.to_html(include_plotlyjs=True, full_html=True)


@st.cache_data(show_spinner="Verifying the configuration...", max_entries=8)
def checked_config(data: bytes) -> tuple[dict[str, Any], PackingPlan]:
    """``throughput.load_checked_config`` of an uploaded file, once per content: the Export
    page reruns on every click while the file sits in its uploader, and the check re-proves
    the stored LP bound (about a second on ogbg-molpcba). Raises its ``ValueError`` (not stored)."""
    return load_checked_config(data)


@st.cache_data(show_spinner=False)
def calibration_options() -> CalibrationFiles:
    """The calibrations the user can choose from files (:func:`throughput.calibration.calibrations_by_name`)."""
    return calibrations_by_name()
