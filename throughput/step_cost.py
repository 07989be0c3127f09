"""A calibration as the step cost :func:`packing.recommend` searches with: model time, or
with ``workers`` given, wall time with the packed loader where the calibration timed its
loaders.

>>> from throughput import load_calibration, shipped_calibrations
>>> cost = step_cost(load_calibration(shipped_calibrations()[0]))
>>> cost.mode, bool(cost([1000], [2000], [32])[0] > 0)
('eager', True)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from packing import StepCost, whole_number

from .calibration import Calibration, require_calibration
from .estimate import parallel_workers


@dataclass(frozen=True)
class WallStep:
    """Seconds of a step in wall time at padded shapes: the model's step and the packed
    loader's batch at that shape with ``workers`` loader workers, as many at once as the
    calibrated machine has free cores (as :func:`throughput.estimate.wall_time` prices a
    step); a class, not a closure, so that a step cost can be pickled."""

    calibration: Calibration
    workers: int

    def __call__(self, nodes: Any, edges: Any, graphs: Any) -> np.ndarray:
        model = np.asarray(self.calibration.predict_step(nodes, edges, graphs), dtype=float)
        shapes = np.column_stack(np.broadcast_arrays(nodes, edges, graphs))
        loaders = self.calibration.loaders
        loading = loaders["packed"].predict(shapes).reshape(model.shape)
        if self.workers == 0:
            return model + loading
        parallel = parallel_workers(self.workers, self.calibration.device_info)
        return np.maximum(model, loading / parallel) + loaders["handoff"].predict(shapes).reshape(model.shape)


def step_cost(calibration: Calibration, workers: int | None = None) -> StepCost:
    """Seconds of a training step at padded shapes as ``calibration`` measured them (its
    cost model, vectorised), named by its device and mode; in compile mode ``one_off_s`` is
    the process's first compilation (one padded shape is compiled once, at the start), in
    cudagraph mode the median capture of the step as a CUDA graph (captured once). With
    ``workers`` (loader worker processes) and a calibration that timed its loaders, a step
    is its wall time with the packed loader (the recommendation trains with it): the model's
    step plus the packed batch's loading (0 workers), or the slower of the step and the
    loading shared by the workers (as many at once as the calibrated machine has free cores:
    :func:`throughput.estimate.parallel_workers`), plus the hand-off from a worker; else
    model time only
    (``source`` says which).

    Raises:
        ValueError: ``calibration`` is not a :class:`Calibration`, or ``workers`` is not a
            whole number of at least 0.

    >>> from throughput import load_calibration, shipped_calibrations
    >>> step_cost(load_calibration(shipped_calibrations()[0])).source[-15:]
    'model time only'
    """
    require_calibration(calibration)
    one_off = float(calibration.compile["first_seconds"]) if calibration.compile is not None else \
        float(calibration.capture["seconds"]) if calibration.capture is not None else 0.0
    if workers is None or calibration.loaders is None:
        return StepCost(calibration.predict_step, calibration.device_name, calibration.mode,
                        f"{calibration.label}, model time only", one_off)
    workers = whole_number(workers, "workers", 0, 256)
    return StepCost(WallStep(calibration, workers), calibration.device_name, calibration.mode,
                    f"{calibration.label}, wall time with the packed loader and {workers} loader workers", one_off)
