"""Estimates as the ``throughput`` section of the exported configuration JSON and as text.

The section (version 2)::

    "throughput": {
      "version": 2,
      "calibration": {"label": "...", "device": {...}, "versions": {...}, "model": {...}, "mode": "eager",
                      "created": "...", "shapes_timed": 24, "fit": {"form": "linear", "model": "step = ...",
                      "held_out": {"median": ..., "p90": ..., ...}}, "compile": null, "source": "file name"},
      "run": {"batch_size": 128, "steps": null, "epochs": 10, "seed": 0, "devices": 1, "num_shapes": 8},
      "baseline": "pyg_dataloader",
      "check": {"calibration": "...", "device": {...}, "checked": "...", "band": 0.25, "ratio_median": 1.02,
                "within_band": true, "shapes": [{"nodes": ..., "predicted_s": ..., "measured_s": ...}, ...]},
      "check_note": "the check in words (or why there is none)",
      "table": [{"strategy": "static_constant", "steps_per_epoch": ..., "step_ms": ..., "steady_epoch_s": ...,
                 "first_epoch_s": ..., "run_s": ..., "run_low": ..., "run_high": ..., "speedup_steady": ...,
                 "speedup_run": ..., "epoch_seconds": ..., ...}, ...]
    }

Every number in ``table`` is a prediction of the calibration named in ``calibration``
(the device it was measured on, the software versions, the fit and its held-out error);
``check`` is :func:`throughput.check_calibration` of it on the machine that exported, or
null when it could not be checked there (a GPU calibration on a CPU machine: the note says
so). Version 2 added the check and the steady-epoch and whole-run columns.
"""
from __future__ import annotations

from typing import Any

import pandas as pd

from packing import estimate_notes, three_digits
from packing.batching import json_rows, run_length_words

from .check import CalibrationCheck

SECTION_VERSION = 2


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
        The JSON-safe section: version, calibration, run, baseline, check and table.

    Raises:
        ValueError: the table's ``attrs`` lack the calibration or the run.

    >>> from packing import SizeHistogram
    >>> from throughput import estimate, load_calibration, shipped_calibrations
    >>> table = estimate(SizeHistogram.from_counts([10, 20], [20, 44], [300, 100]), 32,
    ...                  load_calibration(shipped_calibrations()[0]))
    >>> section = throughput_section(table)
    >>> section["run"]["batch_size"], section["calibration"]["device"]["type"], len(section["table"])
    (32, 'cpu', 8)
    """
    calibration, run = table.attrs.get("calibration"), table.attrs.get("run")
    if calibration is None or run is None:
        raise ValueError("throughput_section needs the table returned by throughput.estimate (its attrs hold the "
                         "calibration and the run).")
    rows = json_rows(table)
    return {"version": SECTION_VERSION, "calibration": calibration, "run": dict(run),
            "baseline": table.attrs.get("baseline"), "check": None if check is None else check.to_dict(),
            "check_note": check_note or (check.describe() if check is not None else "not checked on this machine"),
            "table": rows}


def _run_words(run: dict[str, Any]) -> str:
    return f"{run_length_words(run)} on {run.get('devices', 1)} device(s), batch size {run.get('batch_size', '?')}"


def format_table(table: pd.DataFrame) -> str:
    """The estimate as a text table with a header naming the calibration.

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
    shown = pd.DataFrame({
        "strategy": table["strategy"],
        "steps/epoch": table["steps_per_epoch"].round(1),
        "step ms": table["step_ms"].round(2),
        "steady epoch s": table["steady_epoch_s"].map(three_digits),
        "first epoch s": table["first_epoch_s"].map(three_digits),
        "run s": table["run_s"].map(three_digits),
        "run band s": [f"{three_digits(low)}-{three_digits(high)}" if not out else "none" for low, high, out in
                       zip(table["run_low"], table["run_high"], table["extrapolated"])],
        "compile s": table["compile_seconds"].map(three_digits),
        "graphs/s": table["graphs_per_second"].map(lambda v: f"{v:,.0f}" if v >= 100 else f"{v:.3g}"),
        "speed-up steady": table["speedup_steady"].map(lambda v: f"{v:.2f}x"),
        "speed-up run": table["speedup_run"].map(lambda v: f"{v:.2f}x"),
        "extrapolated": table["extrapolated"].map({True: "yes", False: ""}),
    })
    lines.append(shown.to_string(index=False))
    lines.extend(f"\n{note}" for note in estimate_notes(table))
    return "\n".join(lines)
