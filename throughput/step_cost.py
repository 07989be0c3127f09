"""A calibration as the step cost :func:`packing.recommend` searches with.

>>> from throughput import load_calibration, shipped_calibrations
>>> cost = step_cost(load_calibration(shipped_calibrations()[0]))
>>> cost.mode, bool(cost([1000], [2000], [32])[0] > 0)
('eager', True)
"""
from __future__ import annotations

from packing import StepCost

from .calibration import Calibration, require_calibration


def step_cost(calibration: Calibration) -> StepCost:
    """Seconds of a training step at padded shapes as ``calibration`` measured them (its
    cost model, vectorised), named by its device and mode; in compile mode ``one_off_s`` is
    the process's first compilation (one padded shape is compiled once, at the start), in
    cudagraph mode the median capture of the step as a CUDA graph (captured once).

    Raises:
        ValueError: ``calibration`` is not a :class:`Calibration`.
    """
    require_calibration(calibration)
    one_off = float(calibration.compile["first_seconds"]) if calibration.compile is not None else \
        float(calibration.capture["seconds"]) if calibration.capture is not None else 0.0
    return StepCost(calibration.predict_step, calibration.device_name, calibration.mode, calibration.label, one_off)
