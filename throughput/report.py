"""Estimates as the ``throughput`` section of the exported configuration JSON and as text.

The section (version 1)::

    "throughput": {
      "version": 1,
      "calibration": {"label": "...", "device": {...}, "versions": {...}, "model": {...}, "mode": "eager",
                      "created": "...", "shapes_timed": 24, "fit": {"form": "linear", "model": "step = ...",
                      "held_out": {"median": ..., "p90": ..., ...}}, "compile": null, "source": "file name"},
      "run": {"batch_size": 128, "steps": null, "epochs": 10, "seed": 0, "devices": 1, "num_shapes": 8},
      "baseline": "pyg_dataloader",
      "check": {"calibration": "...", "device": {...}, "checked": "...", "band": 0.25, "ratio_median": 1.02,
                "within_band": true, "steps_within_band": true,
                "shapes": [{"nodes": ..., "predicted_s": ..., "measured_s": ...}, ...], "loaders": [...]},
      "check_note": "the check in words (or why there is none)",
      "wall": {"workers": 0, "parallel_workers": 0, "device_batches": false, "priced": true},
      "table": [{"strategy": "static_constant", "steps_per_epoch": ..., "step_ms": ..., "steady_epoch_s": ...,
                 "first_epoch_s": ..., "run_s": ..., "run_low": ..., "run_high": ..., "speedup_steady": ...,
                 "speedup_run": ..., "epoch_seconds": ..., ...}, ...]
    }

Every number in ``table`` is a prediction of the calibration named in ``calibration``
(the device it was measured on, the software versions, the fit and its held-out error);
``check`` is :func:`throughput.check_calibration` of it on the machine that exported, or
null when it could not be checked there (a GPU calibration on a CPU machine: the note says
so). A cudagraph calibration's table has its one-off costs in ``capture_seconds`` and
``captures`` (its ``compile_seconds`` and ``compilations`` are 0), and its notes in words
say so (:func:`one_off_notes`). ``wall`` says how the wall-time columns
(``wall_steady_epoch_s``, ``wall_run_s``, ``bound_by``, ...:
:func:`throughput.estimate.wall_time`) were priced: with how many loader workers, whether
the packing row's batches are built on the device, and whether the calibration had loader
timings (``priced``; when it had none they are null and the times are model time only).
"""
from __future__ import annotations

from typing import Any, Callable

import pandas as pd

from packing.batching import json_rows
from packing.words import describe_settings, run_length_words, short_run_note, three_digits

from .check import CalibrationCheck
from .estimate import MODEL_TIME_ONLY, PYG_DATALOADER
from .section import ONE_OFF_SHARE, SECTION_VERSION, devices_note, estimate_notes, extrapolation_note, one_off_note


#: What the PyG DataLoader row's settings say of it in cudagraph mode.
NOT_CAPTURED = ("not captured: PyG's DataLoader pads nothing, so its batches' shapes change from batch to batch and a "
                "captured step replays one shape; priced eager")


def _captured(table: pd.DataFrame) -> bool:
    return table.attrs.get("calibration", {}).get("mode") == "cudagraph"


def settings_words(table: pd.DataFrame) -> list[str]:
    """Each row's settings in words, in the table's order, from ``attrs["settings"]`` of a
    :func:`throughput.estimate` table: a simulated strategy's as the batching comparison
    says them (:func:`packing.words.describe_settings`), PyG's DataLoader's with what it does
    not do (pad, and in cudagraph mode be captured).

    >>> rows = pd.DataFrame({"strategy": ["pyg_dynamic", "pyg_dataloader"]})
    >>> rows.attrs.update(settings={"pyg_dynamic": {"max_num": 640, "mode": "node"},
    ...                             "pyg_dataloader": {"graphs_per_batch": 32}}, calibration={"mode": "eager"})
    >>> settings_words(rows)
    ['budget 640 nodes, no graph cap, other sizes unpadded', 'PyG DataLoader, 32 graphs per batch, no padding']
    """
    settings = table.attrs["settings"]

    def words(name: str) -> str:
        if name != PYG_DATALOADER:
            return describe_settings(name, settings[name])
        return (f"PyG DataLoader, {settings[name]['graphs_per_batch']:,} graphs per batch, no padding"
                + (f"; {NOT_CAPTURED}" if _captured(table) else ""))

    return [words(name) for name in table["strategy"]]


def capture_note(table: pd.DataFrame, label: Callable[[str], str] = str) -> str:
    """For a cudagraph estimate: one sentence naming every strategy whose speed-up over the
    run differs from its steady speed-up by more than 10 %, the difference being CUDA graph
    captures (one per padded shape and device, paid once per run); "" when none does or the
    estimate is of another mode.

    >>> rows = pd.DataFrame({"strategy": ["static_64", "pyg_dataloader"], "speedup_run": [0.8, 1.0],
    ...                      "speedup_steady": [1.2, 1.0], "capture_seconds": [3.2, 0.0], "captures": [32, 0],
    ...                      "eager_step_share": [0.0, 1.0]})
    >>> rows.attrs.update(baseline="pyg_dataloader", calibration={"mode": "cudagraph"})
    >>> capture_note(rows)[-92:]
    'priced eager): static_64 0.80x over the run, 1.20x per steady epoch (32 captures in 3.20 s).'
    """
    if not _captured(table):
        return ""
    rows = table.set_index("strategy")

    def cost(row: pd.Series) -> str:
        if row["eager_step_share"] == 1:
            return "not captured, priced eager"
        count = int(row["captures"])
        return f"{count:,} capture{'s' if count != 1 else ''} in {three_digits(row['capture_seconds'])} s"

    items = [f"{label(name)} {row['speedup_run']:.2f}x over the run, {row['speedup_steady']:.2f}x per steady epoch "
             f"({cost(row)})" for name, row in rows.iterrows()
             if abs(row["speedup_run"] / row["speedup_steady"] - 1) > ONE_OFF_SHARE]
    if not items:
        return ""
    baseline = table.attrs.get("baseline")
    against = f" ({label(baseline)}, the baseline: {cost(rows.loc[baseline])})" if baseline in rows.index else ""
    return ("Capturing the step as a CUDA graph is a one-off cost per padded shape and device that a longer run "
            f"spreads thinner, so the speed-ups over the run and per steady epoch differ{against}: "
            + "; ".join(items) + ".")


def not_captured_note(table: pd.DataFrame, label: Callable[[str], str] = str) -> str:
    """For a cudagraph estimate: the strategies whose steps cannot be captured (PyG's
    DataLoader) and are priced eager; "" when every one is captured or the estimate is of
    another mode.

    >>> rows = pd.DataFrame({"strategy": ["packing", "pyg_dataloader"], "eager_step_share": [0.0, 1.0]})
    >>> rows.attrs["calibration"] = {"mode": "cudagraph"}
    >>> not_captured_note(rows)[:62]
    'pyg_dataloader is priced eager, not as CUDA graph replays: PyG'
    """
    if not _captured(table):
        return ""
    eager = [label(name) for name, share in zip(table["strategy"], table["eager_step_share"]) if share == 1]
    if not eager:
        return ""
    return (f"{', '.join(eager)} {'is' if len(eager) == 1 else 'are'} priced eager, not as CUDA graph replays: PyG's "
            "DataLoader pads nothing, so its batches' shapes change from batch to batch, and a captured step "
            "(data_loaders.CapturedStep) replays one shape.")


def one_off_notes(table: pd.DataFrame, label: Callable[[str], str] = str) -> list[str]:
    """The notes on an estimate's one-off costs in its mode: CUDA graph captures and the
    strategies not captured (cudagraph), else compilations (:func:`throughput.section.one_off_note`).

    >>> rows = pd.DataFrame({"strategy": ["packing"], "speedup_run": [1.0], "speedup_steady": [1.0]})
    >>> rows.attrs["calibration"] = {"mode": "eager"}
    >>> one_off_notes(rows)
    []
    """
    found = [capture_note(table, label), not_captured_note(table, label)] if _captured(table) else \
        [one_off_note(table, label)]
    return [note for note in found if note]


def wall_note(table: pd.DataFrame) -> str:
    """What the wall time of an estimate is made of, in words, or that it is model time only
    (a calibration without loader timings).

    >>> rows = pd.DataFrame({"strategy": ["packing"]})
    >>> rows.attrs["wall"] = {"workers": 0, "device_batches": False, "priced": False}
    >>> wall_note(rows)[:50]
    'This calibration has no loader timings (an older f'
    >>> rows.attrs["wall"] = {"workers": 2, "device_batches": False, "priced": True}
    >>> wall_note(rows)[:60]
    "Wall time with 2 loader workers: PyG's workers are started a"
    """
    wall = table.attrs["wall"]
    if not wall["priced"]:
        return MODEL_TIME_ONLY
    workers = wall["workers"]
    packed = "the packed loader at its padded shape" + (", built on the device in the training process (it takes "
                                                        "no workers)" if wall["device_batches"] else "")
    parts = (f"the calibration's loader timings: PyG's collate for PyG's DataLoader and the PyG-style strategies, at "
             f"each batch's real graphs (a padded strategy's padding transform is not timed), and {packed}")
    if workers == 0:
        return (f"Wall time without loader workers: each step waits for its batch, so a step is the model's step plus "
                f"its batch's loading, priced with {parts}. A run's first epoch reads every graph for the first "
                "time; later epochs copy the graphs PyG kept.")
    return (f"Wall time with {workers} loader worker{'s' if workers > 1 else ''}: PyG's workers are started anew each "
            "epoch (its default), so every epoch reads every graph for the first time; an epoch takes the slower of "
            f"the model and the loading shared by the workers, plus each batch's hand-off from a worker, priced with "
            f"{parts}. Each worker is taken to have a CPU core of its own, apart from the training process's "
            "threads; starting the workers is not timed.")


def notes(table: pd.DataFrame, label: Callable[[str], str] = str) -> list[str]:
    """Every note on an estimate table in words: what its wall time is made of
    (:func:`wall_note`), then :func:`throughput.section.estimate_notes`, with the one-off notes of a
    cudagraph estimate in place of the compilations'.

    >>> rows = pd.DataFrame({"strategy": ["packing"], "speedup_run": [1.0], "speedup_steady": [1.0],
    ...                      "extrapolated": [False], "steps_per_epoch": [900.0]})
    >>> rows.attrs.update(run={"steps": 10}, wall={"workers": 0, "device_batches": False, "priced": False})
    >>> notes(rows) == [MODEL_TIME_ONLY, *estimate_notes(rows)]
    True
    """
    wall = [wall_note(table)]
    if not _captured(table):
        return wall + estimate_notes(table, label)
    found = [*one_off_notes(table, label), extrapolation_note(table, label), devices_note(table),
             short_run_note(table, label)]
    return wall + [note for note in found if note]


def throughput_section(table: pd.DataFrame, check: CalibrationCheck | None = None, check_note: str = "",
                       ) -> dict[str, Any]:
    """The export's ``throughput`` section (module docstring) from a
    :func:`throughput.estimate` table; give it to ``packing.export_config(...,
    sections={"throughput": ...})``.

    Args:
        table: the table returned by ``throughput.estimate`` (its ``attrs`` are needed).
        check: the calibration's check on this machine, if one was made.
        check_note: what to say instead of the check (e.g. why none was made).

    Returns:
        The JSON-safe section: version, calibration, run, baseline, check, wall and table
        (each row with its ``settings`` in words, :func:`settings_words`).

    Raises:
        ValueError: the table's ``attrs`` lack the calibration, the run, the settings or how
            its wall time was priced.

    >>> from packing import SizeHistogram
    >>> from throughput import estimate, load_calibration, shipped_calibrations
    >>> table = estimate(SizeHistogram.from_counts([10, 20], [20, 44], [300, 100]), 32,
    ...                  load_calibration(shipped_calibrations()[0]))
    >>> section = throughput_section(table)
    >>> section["run"]["batch_size"], section["calibration"]["device"]["type"], len(section["table"])
    (32, 'cpu', 8)
    """
    calibration, run, wall = (table.attrs.get(name) for name in ("calibration", "run", "wall"))
    if calibration is None or run is None or wall is None or "settings" not in table.attrs:
        raise ValueError("throughput_section needs the table returned by throughput.estimate (its attrs hold the "
                         "calibration, the run, each row's settings and how its wall time was priced).")
    rows = [{**row, "settings": words} for row, words in zip(json_rows(table), settings_words(table))]
    return {"version": SECTION_VERSION, "calibration": calibration, "run": dict(run),
            "baseline": table.attrs.get("baseline"), "check": None if check is None else check.to_dict(),
            "check_note": check_note or (check.describe() if check is not None else "not checked on this machine"),
            "wall": dict(wall), "table": rows}


def _run_words(run: dict[str, Any]) -> str:
    return f"{run_length_words(run)} on {run.get('devices', 1)} device(s), batch size {run.get('batch_size', '?')}"


def format_table(table: pd.DataFrame) -> str:
    """The estimate as a text table with a header naming the calibration: model times, then
    wall times where the calibration timed its loaders.

    >>> from packing import SizeHistogram
    >>> from throughput import estimate, load_calibration, shipped_calibrations
    >>> cal = load_calibration(shipped_calibrations()[0])
    >>> text = format_table(estimate(SizeHistogram.from_counts([10, 20], [20, 44], [300, 100]), 32, cal))
    >>> text.splitlines()[0] == f"calibration: {cal.label}", "pyg_dataloader" in text
    (True, True)
    """
    calibration = table.attrs.get("calibration", {})
    held_out = calibration.get("fit", {}).get("held_out", {})
    versions, device = calibration.get("versions", {}), calibration.get("device", {})
    software = ", ".join(f"{name} {versions[name]}" for name in ("torch", "torch_geometric", "cuda")
                         if versions.get(name))
    threads = f"; {device['threads']} torch CPU thread(s)" if device.get("type") == "cpu" and device.get("threads") \
        else ""
    lines = [f"calibration: {calibration.get('label', '?')}",
             f"measured with: {software or 'versions not recorded'}{threads}"
             + (f"; file {calibration['source']}" if calibration.get("source") else ""),
             f"cost model:  {calibration.get('fit', {}).get('model', '?')}",
             f"fit error on held-out shapes: median {100 * held_out.get('median', float('nan')):.1f} %, "
             f"90th percentile {100 * held_out.get('p90', float('nan')):.1f} % (the error band below)",
             f"run: {_run_words(table.attrs.get('run', {}))}; speed-up against: {table.attrs.get('baseline')}", ""]
    one_off = ("capture s", "capture_seconds") if _captured(table) else ("compile s", "compile_seconds")
    shown = pd.DataFrame({
        "strategy": table["strategy"],
        "steps/epoch": table["steps_per_epoch"].round(1),
        "step ms": table["step_ms"].round(2),
        "steady epoch s": table["steady_epoch_s"].map(three_digits),
        "first epoch s": table["first_epoch_s"].map(three_digits),
        "run s": table["run_s"].map(three_digits),
        "run band s": [f"{three_digits(low)}-{three_digits(high)}" if not out else "none" for low, high, out in
                       zip(table["run_low"], table["run_high"], table["extrapolated"])],
        one_off[0]: table[one_off[1]].map(three_digits),
        "graphs/s": table["graphs_per_second"].map(lambda v: f"{v:,.0f}" if v >= 100 else f"{v:.3g}"),
        "speed-up steady": table["speedup_steady"].map(lambda v: f"{v:.2f}x"),
        "speed-up run": table["speedup_run"].map(lambda v: f"{v:.2f}x"),
        "extrapolated": table["extrapolated"].map({True: "yes", False: ""}),
    })
    if table.attrs.get("wall", {}).get("priced"):
        shown = shown.assign(**{
            "wall steady epoch s": table["wall_steady_epoch_s"].map(three_digits),
            "wall run s": table["wall_run_s"].map(three_digits),
            "wall speed-up run": table["wall_speedup_run"].map(lambda v: f"{v:.2f}x"),
            "bound by": table["bound_by"]})
    lines.append(shown.to_string(index=False))
    lines.extend(f"\n{note}" for note in notes(table))
    return "\n".join(lines)
