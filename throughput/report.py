"""Estimates as the ``throughput`` section of the exported configuration JSON and as text.

The section (version 1)::

    "throughput": {
      "version": 1,
      "calibration": {"label": "...", "device": {...}, "versions": {...}, "model": {...}, "mode": "eager",
                      "created": "...", "shapes_timed": 24, "fit": {"form": "linear", "model": "step = ...",
                      "held_out": {"median": ..., "p90": ..., ...}}, "compile": null, "source": "file name"},
      "run": {"batch_size": 128, "steps": null, "epochs": 1, "seed": 0, "devices": 1, "num_shapes": 8},
      "baseline": "pyg_dataloader",
      "table": [{"strategy": "static_constant", "steps_per_epoch": ..., "step_ms": ..., "epoch_seconds": ...,
                 "epoch_low": ..., "epoch_high": ..., "graphs_per_second": ..., "speedup": ..., ...}, ...]
    }

Every number in ``table`` is a prediction of the calibration named in ``calibration``
(the device it was measured on, the software versions, the fit and its held-out error).
"""
from __future__ import annotations

from typing import Any

import pandas as pd

from packing.batching_report import json_rows

SECTION_VERSION = 1


def throughput_section(table: pd.DataFrame) -> dict[str, Any]:
    """The export's ``throughput`` section (module docstring) from a
    :func:`throughput.estimate` table; give it to ``packing.export.export_config(...,
    sections={"throughput": ...})``.

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
            "baseline": table.attrs.get("baseline"), "table": rows}


def format_table(table: pd.DataFrame) -> str:
    """The estimate as a text table with a header naming the calibration."""
    calibration = table.attrs.get("calibration", {})
    held_out = calibration.get("fit", {}).get("held_out", {})
    lines = [f"calibration: {calibration.get('label', '?')}",
             f"cost model:  {calibration.get('fit', {}).get('model', '?')}",
             f"fit error on held-out shapes: median {100 * held_out.get('median', float('nan')):.1f} %, "
             f"90th percentile {100 * held_out.get('p90', float('nan')):.1f} % (the error band below)",
             f"speed-up against: {table.attrs.get('baseline')}", ""]
    shown = pd.DataFrame({
        "strategy": table["strategy"],
        "steps/epoch": table["steps_per_epoch"].round(1),
        "step ms": table["step_ms"].round(2),
        "epoch s": table["epoch_seconds"].map(lambda v: f"{v:.3g}"),
        "band s": [f"{low:.3g}-{high:.3g}" for low, high in zip(table["epoch_low"], table["epoch_high"])],
        "compile s": table["compile_seconds_per_epoch"].map(lambda v: f"{v:.3g}"),
        "graphs/s": table["graphs_per_second"].round(0).astype(int),
        "speed-up": table["speedup"].map(lambda v: f"{v:.2f}x"),
        "extrapolated": table["extrapolated"].map({True: "yes", False: ""}),
    })
    lines.append(shown.to_string(index=False))
    if table["extrapolated"].any():
        lines.append("\nextrapolated: a padded shape is larger than any the calibration timed; calibrate with "
                     "larger shapes (--max-nodes/--max-edges/--max-graphs) for a measured number.")
    return "\n".join(lines)
