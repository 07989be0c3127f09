"""Calibrations for tests: a small GIN timed on this CPU now, and the same calibration as a
slower machine would have measured it."""
from __future__ import annotations

import dataclasses
from typing import Sequence

from throughput import Calibration, calibrate
from throughput.shapes import default_shapes

#: Eight shapes up to 2,048 nodes: a GIN (hidden 64, 3 layers) step takes 1-10 ms on this CPU.
SHAPES = default_shapes(8, max_nodes=2048, max_edges=16_384, max_graphs=64)


def calibrated_now(budget: float = 0.3) -> Calibration:
    """GIN (hidden 64, 3 layers, eager, 1 thread) calibrated on this CPU now."""
    return calibrate("gin", 64, 3, "cpu", SHAPES, budget=budget, threads=1)


def scaled(calibration: Calibration, factors: float | Sequence[float]) -> Calibration:
    """The same calibration with its step times multiplied by ``factors``: one number for
    every shape (a slower machine's), or one per shape (a machine whose load changed)."""
    each = [factors] * len(calibration.timings) if isinstance(factors, (int, float)) else list(factors)
    timings = [dataclasses.replace(t, median=t.median * f, p25=t.p25 * f, p75=t.p75 * f, fastest=t.fastest * f)
               for t, f in zip(calibration.timings, each, strict=True)]
    return Calibration.from_timings(
        calibration.model, calibration.hidden, calibration.layers, calibration.device, calibration.mode, timings,
        device_info=calibration.device_info, versions=calibration.versions, model_info=calibration.model_info,
        timing=calibration.timing, created=calibration.created)


def past_band(band: float) -> float:
    """How much slower a calibration must be to fail a check of this ``band``: 3x, or twice
    the band where this machine's noise widened it."""
    return max(3.0, 2 * (1 + band))
