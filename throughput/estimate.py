"""Time per step and per epoch of every batching strategy, priced by a calibration.

The batches come from the batching simulator (:mod:`packing.batching`: every strategy on
the same seeded stream of the dataset's graphs, with the options of
``compare_batching``), plus PyG's own ``DataLoader`` (``pyg_dataloader``: batch_size
graphs per batch, shuffled each epoch, nothing padded, so every batch has its own shape;
with D devices each rank takes every D-th graph as ``DistributedSampler`` does). Each
batch costs the calibration's step time at its padded shape. With D devices a step
waits for its slowest batch: step time = the largest of its D batch times.

In compile mode (``torch.compile(dynamic=False)``) every distinct shape a device meets
is compiled when it first appears: a device's first compilation at the calibration's cold
cost (a fresh process's first, measured in fresh processes), later ones at its warm cost,
until torch's ``recompile_limit``; batches of later new shapes run eagerly and are priced
by the eager fit. Compilations are one-off costs, so a run is priced three ways:

``steady_epoch_s``
    an epoch once every shape is compiled: the step times alone;
``first_epoch_s``
    the steady epoch plus the compilations of the first epoch's steps (a run shorter than
    an epoch meets only some of them, so its first epoch is priced from a whole epoch);
``run_s``
    the whole run (``epochs`` epochs or ``steps`` steps), every compilation counted once.

In cudagraph mode (the step captured as a CUDA graph, :class:`data_loaders.CapturedStep`)
every distinct shape a device meets is captured when it first appears, each capture at the
calibration's measured capture cost (``capture_seconds``, ``captures``), with no limit: a
strategy with many shapes pays a capture for each, in the first epoch and the run as
compilations are. PyG's DataLoader cannot be captured: it pads nothing, so its batches'
shapes change from batch to batch and a captured step replays one shape. Its row is priced
eager (the eager fit) and its ``eager_step_share`` is 1.

``speedup_steady`` compares the steady epoch with the baseline's and ``speedup_run`` the
run's mean epoch (``epoch_seconds``: every compilation counted once, spread over the
epochs run), so both compare the same graphs trained: a run of ``steps`` steps trains
other numbers of graphs in every row, and its ``run_s`` differ for that reason too. Where
the two speed-ups differ, the difference is one-off cost (``one_off_share``: compilations and
captures / run). The ``epoch_*`` columns are the run's mean epoch (``run_s / epochs``).

Error bands are multiplicative, so they never reach zero: a step time t lies in
``[t / (1 + b), t * (1 + b)]`` with b the calibration's held-out error (its 90th
percentile; the eager fit's for steps that run eagerly in compile or cudagraph mode), each
capture between the fastest and the slowest capture the calibration measured, and each
compilation anywhere between the fastest and the slowest compilation the calibration
measured, of either kind (from the warm ones' first quartile to the slowest fresh
process's): a compilation costs more or less with what the process compiled before. On an
H100 (22 November 2026) compilations of a training run took 5.6-7.3 s against a warm
median of 3.7 s and a cold 8.6 s; a band of their own kind missed every one of them. Shapes beyond the largest timed
shape are extrapolated: the ``extrapolated`` column says so.

Wall time (:func:`wall_time`) adds the loader: each batch costs the calibration's loader
timings (``Calibration.loaders``, :mod:`throughput.loader_cost`) of the kind that builds it
(:func:`loader_kinds`). PyG's DataLoader and the simulated PyG-style strategies collate
with PyG, priced at the batch's real graphs (nodes, edges, graphs): a padded strategy's
padding transform (the padding graph added after the collate) is not timed and not priced.
The packing row is the packed loader, priced at its padded shape (``packed``, or
``packed_device`` with ``device_batches``). With D devices a step waits for its slowest
device's batch, as for the model. ``workers=0``: every step waits for its batch, so a step
is loader + model; the run's first epoch reads each graph for the first time
(``pyg_first``), later epochs copy the graphs PyG kept (``pyg_cached``). ``workers=N``:
PyG's worker processes are started anew each epoch (its default), so every epoch reads
each graph the first time; N workers build batches while the model trains, and an epoch
takes the slower of the model and the loader's time / N, plus each batch's hand-off from a
worker (``handoff``). N is capped at the calibrated machine's free cores
(:func:`parallel_workers`: its cores less the training process's torch threads on a CPU,
less one next to a GPU; ``table.attrs["wall"]["parallel_workers"]``): more workers than
free cores build no more at once (measured in ``benchmarks/bench_throughput.py``). Starting
the workers is not timed. Batches built on the device
(``device_batches``) are built in the training process (``PackedLoader(device=...)``
refuses workers): the packing row is then loader + model whatever ``workers``. A
calibration without loader timings (an older file) prices model time only: its wall
columns are NaN and ``table.attrs["wall"]["priced"]`` is False.

>>> from packing import SizeHistogram
>>> from throughput import load_calibration, shipped_calibrations
>>> hist = SizeHistogram.from_counts([10, 20], [20, 44], [300, 100])
>>> table = estimate(hist, 32, load_calibration(shipped_calibrations()[0]))
>>> table["strategy"].tolist()[-2:], bool((table["epoch_seconds"] > 0).all())
(['packing', 'pyg_dataloader'], True)
"""
from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
import pandas as pd

from packing import PackingPlan, SizeHistogram, whole_number
from packing.batching import (STRATEGIES, GraphSizes, RunSpec, ShareDone, default_requests, first_appearances,
                              run_strategies)

from .calibration import Calibration, require_calibration
from .loader_kinds import LoaderCost

PYG_DATALOADER = "pyg_dataloader"
#: Rows of an estimate: the simulator's strategies, then PyG's DataLoader.
ROWS = STRATEGIES + (PYG_DATALOADER,)
#: The model-time columns: the step alone, loading not included.
MODEL_COLUMNS = ("strategy", "steps_per_epoch", "step_ms", "first_epoch_s", "steady_epoch_s", "steady_low", "steady_high",
           "run_s", "run_low", "run_high", "epoch_seconds", "epoch_low", "epoch_high", "compile_seconds",
           "compile_seconds_per_epoch", "compilations", "capture_seconds", "captures", "eager_step_share", "graphs_per_second", "speedup",
           "speedup_steady", "speedup_run", "one_off_share", "wait_share", "max_padded_nodes", "max_padded_edges",
           "max_padded_graphs", "extrapolated")
#: Per row, what its wall time is made of (:func:`price_loading`): the epochs of graphs the
#: run trains, seconds of loading per epoch in the run's first epoch and in later ones, of
#: handing batches from a worker over per epoch, and the loaders' relative error band.
LOADER_PARTS = ("epochs_run", "loader_first_epoch_s", "loader_later_epoch_s", "handoff_epoch_s", "loader_band")
#: The wall-time columns (:func:`wall_time`); NaN (``bound_by`` None) without loader timings.
WALL_COLUMNS = ("loader_epoch_s", "wall_steady_epoch_s", "wall_steady_low", "wall_steady_high", "wall_run_s",
                "wall_run_low", "wall_run_high", "wall_epoch_s", "wall_speedup_steady", "wall_speedup_run",
                "bound_by", "loader_share")
COLUMNS = MODEL_COLUMNS + LOADER_PARTS + WALL_COLUMNS
#: What a table priced by a calibration without loader timings says of itself.
MODEL_TIME_ONLY = ("This calibration has no loader timings (an older file): times are model time only (forward, "
                   "backward, optimizer step); loading and collating batches is not included.")
#: A shape more than this factor past the largest timed one is marked extrapolated.
EXTRAPOLATION_SLACK = 1.1


def pyg_dataloader_batches(hist: SizeHistogram, batch_size: int, run: RunSpec) -> pd.DataFrame:
    """The batches of PyG's ``DataLoader(dataset, batch_size, shuffle=True)`` (with
    ``DistributedSampler`` semantics for several devices): ``step, device, graphs,
    padded_nodes, padded_edges, padded_graphs`` (padded = real: nothing is padded).
    Every epoch is a fresh permutation (``numpy.random.default_rng([seed, epoch])``);
    ``run.steps`` cuts the run, else ``run.epochs`` whole epochs; ``attrs["epochs_run"]``
    counts the epochs run (an epoch is one pass of the sampler, repeats included).

    Args:
        hist: the dataset's size histogram.
        batch_size: graphs per batch and device.
        run: the run's length, seed and devices (its batch size is not used).

    Returns:
        One row per batch, as above.

    >>> run = RunSpec(2, None, 1, 0, 1)
    >>> pyg_dataloader_batches(SizeHistogram.from_counts([3], [4], [5]), 2, run)["graphs"].tolist()
    [2, 2, 1]
    """
    sizes = GraphSizes.of(hist)
    nodes, edges = sizes.nodes, sizes.edges
    devices = run.devices
    per_rank = math.ceil(nodes.size / devices)
    steps_per_epoch = math.ceil(per_rank / batch_size)
    epochs = run.epochs if run.steps is None else math.ceil(run.steps / steps_per_epoch)
    frames = []
    for epoch in range(epochs):
        order = sizes.order(epoch, run.seed)
        order = np.resize(order, per_rank * devices)  # DistributedSampler repeats the first graphs to even out
        ranks = order.reshape(per_rank, devices).T  # rank r takes graphs r, r + D, ...
        starts = np.arange(0, per_rank, batch_size)
        for device in range(devices):
            ids = ranks[device]
            count = np.diff(np.append(starts, per_rank))
            real_nodes, real_edges = np.add.reduceat(nodes[ids], starts), np.add.reduceat(edges[ids], starts)
            frames.append(pd.DataFrame({
                "step": np.arange(starts.size) + epoch * steps_per_epoch, "device": device, "epoch": epoch,
                "graphs": count, "nodes": real_nodes, "edges": real_edges,
                "padded_nodes": real_nodes, "padded_edges": real_edges, "padded_graphs": count}))
    batches = pd.concat(frames, ignore_index=True).sort_values(["step", "device"], ignore_index=True)
    if run.steps is not None:
        batches = batches[batches["step"] < run.steps]
    batches.attrs["epochs_run"] = (int(batches["step"].max()) + 1) / steps_per_epoch
    return batches


def _one_off_costs(batches: pd.DataFrame, calibration: Calibration, capturable: bool = True,
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Per batch: the seconds (median, low, high) of the compilation or capture it triggers
    and whether it runs compiled or captured (not eagerly); and the number of compilations
    or captures (module docstring). ``capturable``: whether a captured step can replay the
    batches (PyG's DataLoader's cannot)."""
    count = len(batches)
    fast = np.full(count, calibration.mode == "eager" or capturable)
    seconds, low, high = np.zeros(count), np.zeros(count), np.zeros(count)
    if calibration.mode == "eager" or not fast.all():
        return seconds, low, high, fast, 0
    limit = int(calibration.compile["recompile_limit"]) if calibration.mode == "compile" else count
    paid = 0
    for _, rows in batches.groupby("device", sort=False):
        index = rows.index.to_numpy()
        first, code = first_appearances(*(rows[c].to_numpy() for c in ("padded_nodes", "padded_edges", "padded_graphs")))
        fast[index] = code < limit
        kept = index[first[:limit]]
        if calibration.mode == "compile":
            seconds[kept] = calibration.compile["seconds"]  # warm
            if kept.size:  # a device's first compilation is its process's: cold
                seconds[kept[0]] = calibration.compile["first_seconds"]
            low[kept], high[kept] = calibration.compile_band
        else:
            seconds[kept] = calibration.capture["seconds"]
            low[kept], high[kept] = calibration.capture_band
        paid += kept.size
    return seconds, low, high, fast, paid


def price_batches(batches: pd.DataFrame, calibration: Calibration, epochs_run: float, *,
                  capturable: bool = True) -> dict[str, Any]:
    """Price a run's batches (``step, device, epoch, graphs, padded_nodes, padded_edges,
    padded_graphs``; ``epochs_run`` epochs of graphs): the numbers of one estimate row
    (module docstring). Steady: every step at its step time; first epoch: steady plus the
    compilations of the steps that hold graphs of epoch 0 (for a run shorter than an epoch,
    only those it ran: :func:`estimate` prices such a row's first epoch from a whole
    epoch); run: every step plus every compilation once; the epoch columns
    are the run's mean epoch.

    Args:
        batches: one row per batch, with the columns above.
        calibration: prices a step at a padded shape and a compilation.
        epochs_run: epochs of graphs the batches hold.
        capturable: whether a captured step can replay the batches (in cudagraph mode;
            False for PyG's DataLoader: its steps are priced eager, nothing is captured).

    Returns:
        The row's numbers by column name (``MODEL_COLUMNS`` less the strategy, its
        settings and the columns computed against the baseline).

    >>> from throughput import load_calibration, shipped_calibrations
    >>> cal = load_calibration(shipped_calibrations()[0])  # an eager calibration: nothing compiles
    >>> batches = pd.DataFrame({"step": [0, 1], "device": 0, "epoch": 0, "graphs": 4, "padded_nodes": 128,
    ...                         "padded_edges": 256, "padded_graphs": 4})
    >>> priced = price_batches(batches, cal, epochs_run=1.0)
    >>> priced["steps_per_epoch"], priced["compilations"], math.isclose(priced["run_s"], 2 * cal.predict_step(128, 256, 4))
    (2.0, 0, True)
    """
    batches = batches.reset_index(drop=True)
    shapes = batches[["padded_nodes", "padded_edges", "padded_graphs"]].to_numpy(dtype=np.int64)
    one_off_seconds, one_off_low, one_off_high, fast, paid = _one_off_costs(batches, calibration, capturable)
    step_seconds = np.where(fast, calibration.predict_step(shapes[:, 0], shapes[:, 1], shapes[:, 2]),
                            calibration.predict_eager(shapes))
    # multiplicative, so a band never reaches zero; steps that run eagerly have the eager fit's
    spread = np.where(fast, 1 + calibration.error_band, 1 + calibration.eager_error_band)
    frame = pd.DataFrame({"step": batches["step"].to_numpy(), "first_epoch": batches["epoch"].to_numpy() == 0,
                          "run": step_seconds, "with_one_off": step_seconds + one_off_seconds,
                          "steady_low": step_seconds / spread, "steady_high": step_seconds * spread,
                          "low": step_seconds / spread + one_off_low, "high": step_seconds * spread + one_off_high})
    per_step = frame.groupby("step", sort=False).agg(
        {"first_epoch": "any", "run": "max", "with_one_off": "max", "steady_low": "max", "steady_high": "max",
         "low": "max", "high": "max"})
    steps = len(per_step)
    steady = float(per_step["run"].sum())
    one_off = per_step["with_one_off"] - per_step["run"]
    one_off_total = float(one_off.sum())
    devices = int(batches["device"].max()) + 1
    compiling = calibration.mode != "cudagraph"  # the one-off cost is compilation (0 in eager mode), else capture
    largest = np.array(calibration.shape_range) * EXTRAPOLATION_SLACK
    steady_epoch = steady / epochs_run
    return {
        "steps_per_epoch": steps / epochs_run,
        "step_ms": 1e3 * steady / steps,
        "first_epoch_s": steady_epoch + float(one_off[per_step["first_epoch"]].sum()),
        "steady_epoch_s": steady_epoch, "steady_low": float(per_step["steady_low"].sum()) / epochs_run,
        "steady_high": float(per_step["steady_high"].sum()) / epochs_run,
        "run_s": steady + one_off_total, "run_low": float(per_step["low"].sum()),
        "run_high": float(per_step["high"].sum()),
        "epoch_seconds": (steady + one_off_total) / epochs_run,
        "epoch_low": float(per_step["low"].sum()) / epochs_run,
        "epoch_high": float(per_step["high"].sum()) / epochs_run,
        "compile_seconds": one_off_total if compiling else 0.0,
        "compile_seconds_per_epoch": one_off_total / epochs_run if compiling else 0.0,
        "compilations": paid if compiling else 0,
        "capture_seconds": 0.0 if compiling else one_off_total, "captures": 0 if compiling else paid,
        "eager_step_share": float(1 - fast.mean()),
        "wait_share": max(0.0, 1 - float(step_seconds.sum()) / (devices * steady)) if steady else 0.0,
        "max_padded_nodes": int(shapes[:, 0].max()), "max_padded_edges": int(shapes[:, 1].max()),
        "max_padded_graphs": int(shapes[:, 2].max()),
        "extrapolated": bool((shapes > largest).any()),
    }


def loader_kinds(strategy: str, device_batches: bool = False) -> tuple[str, str]:
    """The loader kinds (:data:`throughput.loader_kinds.LOADERS`) that build a row's
    batches in a run's first epoch and in its later ones: PyG's collate for PyG's
    DataLoader and the PyG-style strategies (graphs read the first time, then kept), the
    packed loader for ``packing`` (on the device with ``device_batches``).

    >>> loader_kinds("static_64"), loader_kinds("packing", device_batches=True)
    (('pyg_first', 'pyg_cached'), ('packed_device', 'packed_device'))
    """
    if strategy == "packing":
        kind = "packed_device" if device_batches else "packed"
        return kind, kind
    return "pyg_first", "pyg_cached"


def _loader_cost(calibration: Calibration, kind: str) -> LoaderCost:
    found = (calibration.loaders or {}).get(kind)
    if found is None:
        raise ValueError(f"{calibration.label} has no timings of the {kind} loader; calibrate again with python -m "
                         "throughput calibrate to time every loader kind.")
    return found


def price_loading(batches: pd.DataFrame, calibration: Calibration, epochs_run: float,
                  kinds: tuple[str, str]) -> dict[str, float]:
    """The loading parts of one row's wall time (:data:`LOADER_PARTS` less ``epochs_run``):
    seconds per epoch of building the batches with loader ``kinds`` (first epoch, later
    epochs; :func:`loader_kinds`) and of handing them over from a worker, each step at its
    slowest device's batch, and the largest relative error band of the loader fits used.
    A packed loader's batches are priced at their padded shape, PyG's collate at the
    batch's real graphs (``nodes``, ``edges``, ``graphs``). NaN for a calibration without
    loader timings.

    >>> import dataclasses
    >>> from throughput import load_calibration, shipped_calibrations
    >>> cal = load_calibration(shipped_calibrations()[0])
    >>> batches = pd.DataFrame({"step": [0, 1], "device": 0, "epoch": 0, "graphs": 4, "nodes": 100, "edges": 200,
    ...                         "padded_nodes": 128, "padded_edges": 256, "padded_graphs": 5})
    >>> parts = price_loading(batches, dataclasses.replace(cal, loaders=None), 1.0, ("packed", "packed"))
    >>> sorted(parts), math.isnan(parts["loader_first_epoch_s"])
    (['handoff_epoch_s', 'loader_band', 'loader_first_epoch_s', 'loader_later_epoch_s'], True)
    """
    if calibration.loaders is None:
        return dict.fromkeys(LOADER_PARTS[1:], math.nan)
    padded = kinds[0].startswith("packed")
    columns = ["padded_nodes", "padded_edges", "padded_graphs"] if padded else ["nodes", "edges", "graphs"]
    shapes = batches[columns].to_numpy(dtype=np.int64)
    steps = batches["step"].to_numpy()

    def per_epoch(kind: str) -> float:
        seconds = _loader_cost(calibration, kind).predict(shapes)
        return float(pd.Series(seconds).groupby(steps).max().sum()) / epochs_run

    first, later = kinds
    return {"loader_first_epoch_s": per_epoch(first), "loader_later_epoch_s": per_epoch(later),
            "handoff_epoch_s": per_epoch("handoff"),
            "loader_band": max(_loader_cost(calibration, kind).fit.error_band for kind in (first, later, "handoff"))}


def _priced_rows(hist: SizeHistogram, run: RunSpec, requests: dict[str, dict[str, Any]],
                 calibration: Calibration, progress: ShareDone | None = None,
                 device_batches: bool = False) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """One priced row per strategy of ``requests`` and PyG's DataLoader over ``run``, with
    the epochs of graphs each ran (``epochs_run``) and its loading (:func:`price_loading`),
    and each row's settings (the simulator's; PyG's DataLoader's graphs per batch);
    ``progress`` is told the share of the strategies' stream simulated."""
    rows, settings = [], {}
    for name, result in run_strategies(hist, run, requests, progress=progress).items():
        epochs_run = int(result.batches["graphs"].sum()) / hist.num_graphs
        rows.append({"strategy": name, **price_batches(result.batches, calibration, epochs_run),
                     **price_loading(result.batches, calibration, epochs_run, loader_kinds(name, device_batches)),
                     "epochs_run": epochs_run})
        settings[name] = result.settings
    loader = pyg_dataloader_batches(hist, run.batch_size, run)
    epochs_run = loader.attrs["epochs_run"]
    rows.append({"strategy": PYG_DATALOADER,
                 **price_batches(loader, calibration, epochs_run, capturable=calibration.mode != "cudagraph"),
                 **price_loading(loader, calibration, epochs_run, loader_kinds(PYG_DATALOADER)),
                 "epochs_run": epochs_run})
    settings[PYG_DATALOADER] = {"graphs_per_batch": run.batch_size}
    return rows, settings


def _wall(model: pd.Series, one_off: pd.Series, parts: pd.DataFrame, factor: Any, workers: int,
          ) -> tuple[pd.Series, pd.Series, pd.Series]:
    """The steady epoch's loading and wall seconds and the whole run's wall seconds from the
    model's steady epoch, the run's one-off costs and the loading ``parts`` (each loading
    time multiplied by ``factor``: 1, or a band's end)."""
    first, later, handoff = (parts[name] * factor for name in
                             ("loader_first_epoch_s", "loader_later_epoch_s", "handoff_epoch_s"))
    epochs = parts["epochs_run"]
    if workers == 0:  # each step waits for its batch: the first epoch reads every graph, later ones copy
        steady = model + later
        run = model * epochs + one_off + first * epochs.clip(upper=1) + later * (epochs - 1).clip(lower=0)
        return later, steady, run
    steady = np.maximum(model, first / workers) + handoff  # workers start anew each epoch: first reads every epoch
    return first, steady, steady * epochs + one_off


def parallel_workers(workers: int, device: dict[str, Any]) -> int:
    """How many of ``workers`` loader processes build batches at once on the calibrated
    machine: each needs a core the training process does not use (its torch threads on a
    CPU, one core next to a GPU); at least 1. A device description without its cores (an
    older file) gives every worker a core.

    >>> parallel_workers(2, {"type": "cpu", "cores": 2, "threads": 1}), parallel_workers(4, {"type": "cuda"})
    (1, 4)
    >>> parallel_workers(8, {"type": "cuda", "cores": 16, "threads": 16})
    8
    """
    cores = device.get("cores")
    if workers == 0 or not isinstance(cores, int):
        return workers
    trainer = int(device.get("threads", 1)) if device.get("type") == "cpu" else 1
    return max(1, min(workers, cores - trainer))


def wall_time(table: pd.DataFrame, workers: int = 0) -> pd.DataFrame:
    """``table`` (an :func:`estimate` table) with its wall-time columns (:data:`WALL_COLUMNS`)
    priced for ``workers`` loader worker processes (module docstring): the loading seconds
    of a steady epoch (every worker's, summed), the steady epoch's and the run's wall time
    with their bands (the model's band and the loaders' band together), the run's mean epoch,
    speed-ups over the baseline's wall time, which of the two bounds the steady epoch
    (``bound_by``: the loader's part, divided by the workers, or the model's) and the share
    of the steady epoch's wall time spent not in the model step (``loader_share``). NaN for a
    table priced without loader timings. The packing row of a table with device-built
    batches is priced without workers (the loader builds them in the training process).

    Args:
        table: the estimate (its :data:`LOADER_PARTS` and ``attrs`` are needed).
        workers: loader worker processes per device (0: batches built in the training
            process).

    Returns:
        A copy of ``table`` with the wall columns; ``attrs["wall"]`` says how it was priced.

    >>> import dataclasses
    >>> from packing import SizeHistogram
    >>> from throughput import load_calibration, shipped_calibrations
    >>> table = estimate(SizeHistogram.from_counts([10, 20], [20, 44], [300, 100]), 32,
    ...                  dataclasses.replace(load_calibration(shipped_calibrations()[0]), loaders=None))
    >>> wall = wall_time(table, workers=2)
    >>> wall.attrs["wall"]["priced"], bool(wall["wall_run_s"].isna().all()), wall.attrs["wall"]["workers"]
    (False, True, 2)
    """
    workers = whole_number(workers, "workers", 0, 256)
    out = table.copy()
    out.attrs = copy.deepcopy(table.attrs)
    wall = out.attrs.setdefault("wall", {"device_batches": False, "priced": False})
    in_trainer = (out["strategy"] == "packing") & wall["device_batches"]
    parallel = parallel_workers(workers, out.attrs.get("calibration", {}).get("device", {}))
    one_off = out["run_s"] - out["steady_epoch_s"] * out["epochs_run"]
    spread = 1 + out["loader_band"]
    priced = {}
    for name, model, one_off_part, factor in (
            ("", out["steady_epoch_s"], one_off, 1),
            ("low", out["steady_low"], out["run_low"] - out["steady_low"] * out["epochs_run"], 1 / spread),
            ("high", out["steady_high"], out["run_high"] - out["steady_high"] * out["epochs_run"], spread)):
        pooled, alone = (_wall(model, one_off_part, out, factor, count) for count in (parallel, 0))
        priced[name] = tuple(alone_part.where(in_trainer, part) for part, alone_part in zip(pooled, alone))
    loader, steady, run = priced[""]
    out["loader_epoch_s"] = loader
    out["wall_steady_epoch_s"], out["wall_steady_low"], out["wall_steady_high"] = \
        steady, priced["low"][1], priced["high"][1]
    out["wall_run_s"], out["wall_run_low"], out["wall_run_high"] = run, priced["low"][2], priced["high"][2]
    out["wall_epoch_s"] = run / out["epochs_run"]
    reference = out.loc[out["strategy"] == out.attrs.get("baseline", PYG_DATALOADER)].iloc[0]
    out["wall_speedup_steady"] = reference["wall_steady_epoch_s"] / steady
    out["wall_speedup_run"] = reference["wall_epoch_s"] / out["wall_epoch_s"]
    waiting = loader / np.where(in_trainer, 1, max(parallel, 1))
    out["bound_by"] = np.where(steady.isna(), None, np.where(waiting > out["steady_epoch_s"], "loader", "model"))
    out["loader_share"] = 1 - out["steady_epoch_s"] / steady
    wall.update(workers=workers, parallel_workers=parallel, priced=bool(out["wall_run_s"].notna().all()))
    return out[list(COLUMNS)]


def estimate(hist: SizeHistogram, batch_size: int, calibration: Calibration, plan: PackingPlan | None = None, *,
             baseline: str = PYG_DATALOADER, devices: int = 1, epochs: int = 1, steps: int | None = None,
             seed: int = 0, num_shapes: int = 8, packs_per_batch: int | None = None,
             progress: ShareDone | None = None, workers: int = 0, device_batches: bool = False) -> pd.DataFrame:
    """One row per batching strategy (``ROWS``; the ``packing`` row is ``plan`` when given,
    ``packs_per_batch`` packs per batch, by default about ``batch_size`` graphs) for
    ``devices`` data-parallel devices over a run of ``epochs`` epochs (or ``steps`` steps)
    of the simulator's seeded stream: steps per epoch, mean time per step (ms, without
    compilations), the first, steady and mean epoch and the whole run with their error
    bands and compilations (module docstring), graphs per second, speed-ups over ``baseline`` (the user's current batching, one of ``ROWS``)
    per mean epoch, steady epoch and run, the share of device time spent waiting for a
    step's largest batch, the largest padded shape and whether it extrapolates the
    calibration; then the loading and the wall time with ``workers`` loader workers
    (:func:`wall_time`; NaN where the calibration has no loader timings). ``table.attrs``
    keeps the calibration's summary, the run, the baseline, each row's settings (values:
    the simulator's, and PyG's DataLoader's ``graphs_per_batch``) and how the wall time
    was priced (``wall``: workers, device-built batches, whether it was priced).

    Args:
        hist: the dataset's size histogram.
        batch_size: graphs per batch of the batching strategies and of PyG's loader.
        calibration: the device's calibration (:func:`throughput.load_calibration`).
        plan: the packing row's plan; None: packs of the dynamic batching target.
        baseline: the row the speed-ups are measured against.
        devices: data-parallel devices.
        epochs: epochs of the run priced, when ``steps`` is None.
        steps: optimizer steps of the run priced.
        seed: seed of the epoch orders and the dynamic target's sample.
        num_shapes: shapes of the buckets strategy.
        packs_per_batch: packs of ``plan`` per batch; None: as many as carry about
            ``batch_size`` graphs (:func:`packing.batching.packs_matching_batch_size`).
        progress: told the share of the run simulated, epoch by epoch.
        workers: loader worker processes of the wall time (0: batches built in the
            training process).
        device_batches: the packing row's batches built on the device
            (``PackedLoader(device=...)``, timed as ``packed_device``), not on the host.

    Returns:
        The estimate table, one row per strategy (``COLUMNS``).

    Raises:
        ValueError: a calibration that is not one, an unknown baseline, a dataset smaller
            than one step, or a bad run setting (named).

    >>> from packing import SizeHistogram
    >>> from throughput import load_calibration, shipped_calibrations
    >>> cal = load_calibration(shipped_calibrations()[0])
    >>> table = estimate(SizeHistogram.from_counts([10, 20], [20, 44], [300, 100]), 32, cal, epochs=3)
    >>> row = table.set_index("strategy").loc["dynamic"]
    >>> bool(abs(row["run_s"] - 3 * row["steady_epoch_s"]) < 1e-9)  # eager: nothing one-off
    True
    >>> table.attrs["wall"]["workers"], set(table["bound_by"]) <= {"loader", "model", None}
    (0, True)
    """
    require_calibration(calibration)
    if baseline not in ROWS:
        raise ValueError(f"baseline must be one of {', '.join(ROWS)}, got {baseline!r}.")
    run = RunSpec(batch_size, steps, epochs, seed, devices)
    if hist.num_graphs < run.devices * run.batch_size:
        raise ValueError(f"The dataset holds {hist.num_graphs:,} graphs, fewer than one step takes ({run.devices:,} "
                         f"device(s) x batch size {run.batch_size:,}): every step would mix epochs, and a time per "
                         "epoch would mean different things for PyG's DistributedSampler (which repeats graphs to "
                         "fill the devices) and for the simulated strategies (which draw the next epoch). Lower the "
                         "batch size or the devices.")
    requests = default_requests(hist, run.batch_size, plan, run.seed, num_shapes, packs_per_batch)
    rows, settings = _priced_rows(hist, run, requests, calibration, progress, device_batches)
    if run.steps is not None and any(row["epochs_run"] < 1 for row in rows):
        # a run shorter than an epoch met only some of its first epoch's shapes: price that epoch whole
        whole = {row["strategy"]: row["first_epoch_s"] for row in
                 _priced_rows(hist, RunSpec(run.batch_size, None, 1, run.seed, run.devices), requests, calibration)[0]}
        for row in rows:
            if row["epochs_run"] < 1:
                row["first_epoch_s"] = whole[row["strategy"]]
    table = pd.DataFrame(rows)
    table["graphs_per_second"] = hist.num_graphs / table["epoch_seconds"]
    reference = table.loc[table["strategy"] == baseline].iloc[0]
    table["speedup"] = reference["epoch_seconds"] / table["epoch_seconds"]
    table["speedup_steady"] = reference["steady_epoch_s"] / table["steady_epoch_s"]
    table["speedup_run"] = table["speedup"]  # per graph trained: a run of N steps trains other graph counts per row
    table["one_off_share"] = (table["compile_seconds"] + table["capture_seconds"]) / table["run_s"]
    table = table[list(MODEL_COLUMNS + LOADER_PARTS)]
    table.attrs.update(calibration=calibration.summary(), baseline=baseline, settings=settings,
                       run={**run.to_dict(), "num_shapes": whole_number(num_shapes, "num_shapes", 1, 16)},
                       wall={"device_batches": bool(device_batches), "priced": calibration.loaders is not None})
    return wall_time(table, workers)
