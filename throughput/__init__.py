"""Throughput estimates measured on a named device: calibrate a real PyG model, fit a cost
model of one training step, and price every batching strategy per step and per epoch.

Torch is imported only to measure (:func:`calibrate`); loading a calibration and
estimating need numpy, scipy and pandas.

>>> from throughput import load_calibration, shipped_calibrations
>>> cal = load_calibration(shipped_calibrations()[0])
>>> cal.predict_step(2000, 4000, 64) > 0
True
"""
from .calibration import Calibration, calibrate, load_calibration, shipped_calibrations
from .check import (CalibrationCheck, MachineCalibration, calibration_for_this_machine, check_calibration,
                    default_calibration)
from .estimate import ROWS, estimate
from .fit import CostFit, fit_cost_model
from .report import throughput_section
from .section import check_throughput_section, devices_note, extrapolation_note, load_checked_config
from .step_cost import step_cost

__all__ = ["Calibration", "CalibrationCheck", "CostFit", "MachineCalibration", "ROWS", "calibrate",
           "calibration_for_this_machine", "check_calibration", "check_throughput_section", "default_calibration",
           "devices_note", "estimate", "extrapolation_note", "fit_cost_model", "load_calibration",
           "load_checked_config", "shipped_calibrations", "step_cost", "throughput_section"]
