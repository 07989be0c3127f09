"""Checking a calibration on the device at hand before its numbers speak for it.

:func:`check_calibration` times 3-4 of the calibration's own shapes again, with the same
model and torch thread count, on this machine's device (eagerly: a compile-mode
calibration is checked on its eager steps, as a compiled check would cost a compilation
per shape), and compares each measured
step with the calibration's prediction. The check passes when every shape's ratio
(measured / predicted) lies in the band ``[1 / (1 + b), 1 + b]``, where ``b`` is the
calibration's error band (its 90th-percentile held-out error) but at least
:data:`MIN_BAND`: the run-to-run spread of step times on a shared machine, which no cost
model can predict (BENCHMARKS.md, "calibration check").

:func:`calibration_for_this_machine` is what the Throughput page starts on: the shipped
calibration of this device when one ships and passes its check, else a calibration
measured here and now (a few seconds), with the reason; also when the shipped
or team folder's one cannot be checked here (a shape or model too large for a check's memory).

A calibration with loader costs (:attr:`Calibration.loaders`) is checked on them too
(:func:`check_loaders`): every loader kind is timed again at :data:`LOADER_CHECK_SHAPES` of
its grid rows (its fastest, middle and slowest, about :data:`LOADER_CHECK_BUDGET` seconds
each: 1-3 s in all here) with the calibration's torch threads, and a kind passes when its
median ratio (measured / predicted) lies in the band of its own fit's held-out error, at
least :data:`MIN_BAND`. The median, not every shape: a loader's batch takes 0.1-7 ms and a
check times it for a twentieth of a second, so one shape caught by a transient (the other
core busy) would fail a check whose other shapes hold. A calibration without loader costs is
checked on its steps alone.

A check never times a shape whose step would need more than :data:`MAX_CHECK_BYTES`
(:meth:`throughput.models.ModelSpec.step_bytes`, estimated before anything is allocated): such
shapes are left out with the reason, and a model too large for it is refused.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from packing import BatchShape, whole_number

from .calibration import (MAX_THREADS, SHIPPED, Calibration, Progress, calibrate, check_loader_grid,
                          require_calibration, shipped_calibrations, usable_calibrations, utc_timestamp)
from .device import check_device, cpu_description, device_description, same_device, torch_threads
from .loader_kinds import LoaderCost
from .model_names import DEFAULT_IN_CHANNELS
from .records import ShapeTiming
from .shapes import default_shapes

if TYPE_CHECKING:
    from .models import ModelSpec

#: The narrowest band a check accepts: step times of one shape on this shared 2-core
#: machine move by up to about this much between two runs minutes apart.
MIN_BAND = 0.25
#: Shapes a check times, and the fewest it compares (a ratio of one or two shapes is noise).
CHECK_SHAPES = 4
MIN_CHECK_SHAPES = 3
#: Memory one step of a check may take (:meth:`throughput.models.ModelSpec.step_bytes`): a
#: check runs beside the dashboard's other sessions on a shared machine (this project's has
#: 23 GB); the largest shape of the default grid needs 1.7 GB by that estimate in SchNet
#: (hidden 64, 3 layers), and a check times a calibration's fastest shapes.
MAX_CHECK_BYTES = 2 * 2**30
#: The grid of a calibration measured at first use: 16 shapes up to 8,192 nodes, at most 0.25 s
#: each (2-4 s in all on this project's 2-core machine).
QUICK_GRID = {"count": 16, "max_nodes": 8192, "max_edges": 65_536, "max_graphs": 256}
QUICK_BUDGET = 0.25
#: A calibration measured now whose held-out error (90th percentile) is above this says so.
NOISY_BAND = 0.5
#: Grid rows a loader check times per kind, and the seconds of timed batches at each.
LOADER_CHECK_SHAPES = 3
LOADER_CHECK_BUDGET = 0.05
#: Seconds of timed batches per loader kind and grid row of a calibration measured at first use
#: (45 rows: 3-4 s here).
QUICK_LOADER_BUDGET = 0.05


@dataclass(frozen=True)
class ShapeCheck:
    """One shape of a check: seconds per step predicted by the calibration and measured now."""

    shape: BatchShape
    predicted: float
    measured: float

    @property
    def ratio(self) -> float:
        return self.measured / self.predicted

    def to_dict(self) -> dict[str, Any]:
        nodes, edges, graphs = self.shape
        return {"nodes": nodes, "edges": edges, "graphs": graphs, "predicted_s": self.predicted,
                "measured_s": self.measured, "ratio": self.ratio}


@dataclass(frozen=True)
class LoaderCheck:
    """One loader kind of a check: its batches predicted and measured at a few grid rows,
    and the band its median ratio must lie in."""

    loader: str
    shapes: tuple[ShapeCheck, ...]
    band: float

    @property
    def ratio_median(self) -> float:
        return statistics.median(shape.ratio for shape in self.shapes)

    @property
    def within_band(self) -> bool:
        """The median ratio inside ``[1 / (1 + band), 1 + band]`` (module docstring: why the median).

        >>> LoaderCheck("packed", (ShapeCheck(BatchShape(8, 16, 1), 1e-4, 2e-4),
        ...                        ShapeCheck(BatchShape(9, 16, 2), 1e-4, 1.1e-4),
        ...                        ShapeCheck(BatchShape(10, 16, 2), 1e-4, 0.9e-4)), 0.25).within_band
        True
        """
        return 1 / (1 + self.band) <= self.ratio_median <= 1 + self.band

    def describe(self) -> str:
        """The kind's check in a few words.

        >>> LoaderCheck("handoff", (ShapeCheck(BatchShape(8, 16, 1), 1e-3, 2e-3),), 0.3).describe()
        'handoff 2.00 (2.00 to 2.00), outside 0.77 to 1.30'
        """
        ratios = [shape.ratio for shape in self.shapes]
        where = "within" if self.within_band else "outside"
        return (f"{self.loader} {self.ratio_median:.2f} ({min(ratios):.2f} to {max(ratios):.2f}), {where} "
                f"{1 / (1 + self.band):.2f} to {1 + self.band:.2f}")

    def to_dict(self) -> dict[str, Any]:
        return {"loader": self.loader, "band": self.band, "ratio_median": self.ratio_median,
                "within_band": self.within_band, "shapes": [shape.to_dict() for shape in self.shapes]}


@dataclass(frozen=True)
class CalibrationCheck:
    """The outcome of :func:`check_calibration`: the calibration checked (its label), the
    device it was checked on, each shape's prediction and measurement, the band and the
    verdict."""

    calibration: str
    device: dict[str, Any]
    shapes: tuple[ShapeCheck, ...]
    band: float
    checked: str
    same_device: bool
    skipped: tuple[str, ...] = ()  # shapes left out, each with the reason (:func:`checkable_timings`)
    loaders: tuple[LoaderCheck, ...] | None = None  # None: the calibration has no loader costs

    @property
    def ratio_median(self) -> float:
        """Median of measured / predicted over the shapes (above 1: this device is slower)."""
        return statistics.median(shape.ratio for shape in self.shapes)

    @property
    def steps_within_band(self) -> bool:
        """Every shape's ratio inside ``[1 / (1 + band), 1 + band]``."""
        return all(1 / (1 + self.band) <= shape.ratio <= 1 + self.band for shape in self.shapes)

    @property
    def within_band(self) -> bool:
        """The steps within their band (:attr:`steps_within_band`) and every loader kind
        checked within its own (:attr:`LoaderCheck.within_band`)."""
        return self.steps_within_band and all(loader.within_band for loader in self.loaders or ())

    def describe_loaders(self) -> str:
        """The loader check in one sentence; "" when the calibration has no loader costs.

        >>> kind = LoaderCheck("packed", (ShapeCheck(BatchShape(8, 16, 1), 1e-4, 1.1e-4),), 0.25)
        >>> CalibrationCheck("gin on X", {"name": "X"}, (), 0.25, "2026-11-24T20:00:00Z", True, (),
        ...                  (kind,)).describe_loaders()
        'Loaders, measured / predicted per batch: packed 1.10 (1.10 to 1.10), within 0.80 to 1.25.'
        """
        if self.loaders is None:
            return ""
        return f"Loaders, measured / predicted per batch: {'; '.join(kind.describe() for kind in self.loaders)}."

    def describe(self) -> str:
        """The check in one sentence.

        >>> check = CalibrationCheck("gin on X", {"name": "X"}, (ShapeCheck(BatchShape(8, 16, 1), 0.001, 0.0011),), 0.25,
        ...                          "2026-11-24T20:00:00Z", True)
        >>> check.describe()
        'Checked on X (2026-11-24 20:00 UTC): measured / predicted 1.10 (1.10 to 1.10 over 1 shape), every shape within a factor of 1.25 either way (0.80 to 1.25).'
        """
        ratios = [shape.ratio for shape in self.shapes]
        when = self.checked[:16].replace("T", " ")
        left_out = f" Not timed: {'; '.join(self.skipped)}." if self.skipped else ""
        loaders = f" {self.describe_loaders()}" if self.loaders is not None else ""
        return (f"Checked on {self.device.get('name', '?')} ({when} UTC): measured / predicted "
                f"{self.ratio_median:.2f} ({min(ratios):.2f} to {max(ratios):.2f} over {len(ratios)} "
                f"shape{'s' if len(ratios) > 1 else ''}), {self.verdict()}.{left_out}{loaders}")

    def verdict(self) -> str:
        """Whether every shape's ratio is inside the band, or which are not (the first three).

        >>> slow = CalibrationCheck("gin on X", {"name": "X"}, (ShapeCheck(BatchShape(8, 16, 1), 0.001, 0.0014),), 0.25,
        ...                         "2026-11-24T20:00:00Z", True)
        >>> slow.verdict()
        '1 of 1 outside a factor of 1.25 either way (0.80 to 1.25): 1.400 at 8 nodes, 16 edges, 1 graph'
        """
        low, high = 1 / (1 + self.band), 1 + self.band
        outside = [shape for shape in self.shapes if not low <= shape.ratio <= high]
        band = f"a factor of {high:.2f} either way ({low:.2f} to {high:.2f})"
        if not outside:
            return f"every shape within {band}"
        return f"{len(outside)} of {len(self.shapes)} outside {band}: " + ", ".join(
            f"{shape.ratio:.3f} at {shape.shape.num_nodes:,} nodes, {shape.shape.num_edges:,} edges, "
            f"{shape.shape.num_graphs:,} graph{'s' if shape.shape.num_graphs != 1 else ''}" for shape in outside[:3]
        ) + ("..." if len(outside) > 3 else "")

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe, for the export's throughput section."""
        return {"calibration": self.calibration, "device": dict(self.device), "checked": self.checked,
                "same_device": self.same_device, "band": self.band, "ratio_median": self.ratio_median,
                "within_band": self.within_band, "steps_within_band": self.steps_within_band,
                "shapes": [shape.to_dict() for shape in self.shapes], "skipped": list(self.skipped),
                "loaders": None if self.loaders is None else [kind.to_dict() for kind in self.loaders]}


def check_shapes_of(calibration: Calibration, seconds: float, count: int = CHECK_SHAPES,
                    timings: Sequence[ShapeTiming] | None = None) -> list[BatchShape]:
    """``count`` of the calibration's timed shapes (or of ``timings``, those a check can
    afford in memory) spread from its fastest to the slowest that fits the time: each shape's
    steps (about 8 of them) take a quarter of ``seconds`` at most, by the calibration's own
    times; at least the 3 fastest.

    >>> from throughput.calibration import SHIPPED, load_calibration
    >>> h100 = load_calibration(SHIPPED / "nvidia-h100-80gb-hbm3__gin-h64-l3__eager.json")
    >>> len(check_shapes_of(h100, 2.0)), len(check_shapes_of(h100, 0.0))  # no time at all: the 3 fastest
    (4, 3)
    """
    ordered = sorted(calibration.timings if timings is None else timings, key=lambda timing: timing.median)
    affordable = [timing for timing in ordered if 8 * timing.median <= seconds / count]
    affordable = affordable if len(affordable) >= MIN_CHECK_SHAPES else ordered[:MIN_CHECK_SHAPES]
    if len(affordable) <= count:
        return [timing.shape for timing in affordable]
    picks = sorted({round(i * (len(affordable) - 1) / (count - 1)) for i in range(count)})
    return [affordable[i].shape for i in picks]


def _gb(size: int) -> str:
    return f"{size / 1e9:,.1f} GB"


def checkable_timings(calibration: Calibration, spec: "ModelSpec") -> tuple[list[ShapeTiming], tuple[str, ...]]:
    """The timings of ``calibration`` whose step of ``spec``'s model fits in
    :data:`MAX_CHECK_BYTES` by its estimate (nothing is allocated), and why each other one
    is left out; ``ValueError`` naming the field when the model alone or all but a few
    shapes do not fit.

    >>> from throughput.calibration import SHIPPED, load_calibration
    >>> from throughput.models import model_spec
    >>> cal = load_calibration(SHIPPED / "amd-epyc__gin-h64-l3__eager.json")
    >>> timings, skipped = checkable_timings(cal, model_spec("gin", 64, 3))
    >>> len(timings) == len(cal.timings), skipped
    (True, ())
    """
    model = f"{spec.name} (model.hidden {spec.hidden:,}, model.layers {spec.layers:,})"
    if spec.weight_bytes() > MAX_CHECK_BYTES:
        raise ValueError(f"{model} needs about {_gb(spec.weight_bytes())} for its weights, gradients and Adam's "
                         f"moments, more than the {_gb(MAX_CHECK_BYTES)} a check may take, so it is not checked: "
                         "calibrate this machine instead (python -m throughput calibrate).")
    fits, skipped = [], []
    for i, timing in enumerate(calibration.timings):
        need = spec.step_bytes(timing.shape)
        if need <= MAX_CHECK_BYTES:
            fits.append(timing)
        else:
            nodes, edges, _ = timing.shape
            skipped.append(f"timings[{i}] ({nodes:,} nodes, {edges:,} edges) needs about {_gb(need)} in {model}, "
                           f"more than the {_gb(MAX_CHECK_BYTES)} a check may take")
    if len(fits) < MIN_CHECK_SHAPES:
        raise ValueError(f"Only {len(fits)} of the calibration's shapes fit in a check's memory ({skipped[0]}), "
                         f"fewer than the {MIN_CHECK_SHAPES} a check compares: calibrate this machine instead "
                         "(python -m throughput calibrate).")
    return fits, tuple(skipped)


def _device_here(calibration: Calibration, device: str | None) -> str:
    if device is not None:
        return check_device(device)
    if calibration.device_info.get("type") == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise ValueError(f"{calibration.device_name} is a CUDA device and this machine has none: check this "
                             "calibration on the GPU machine it describes, or calibrate this machine's CPU.")
        return "cuda"
    return "cpu"


def check_calibration(calibration: Calibration, device: str | None = None, seconds: float = 2.0) -> CalibrationCheck:
    """Time 3-4 of ``calibration``'s own shapes on ``device`` (None: the calibration's kind
    of device here) with its model and torch threads, spending about ``seconds`` on timed
    steps, and compare with its predictions (module docstring). A compile-mode calibration is
    checked on its eager steps (the eager fit it also carries): checking compiled steps would
    cost a compilation per shape, seconds to a minute each. A cudagraph calibration is checked
    the same way, on a CUDA device only (its eager fit was measured on one). A calibration with
    loader costs has them checked too (:func:`check_loaders`, 1-3 s more).

    Args:
        calibration: the calibration to check.
        device: the device to time on; None: the calibration's kind of device here.
        seconds: seconds spent on timed steps, about.

    Returns:
        The check: every shape's prediction and measurement, and whether all lie in the band.

    Raises:
        ValueError: the device is missing here (a GPU calibration on a machine without
            one; a cudagraph calibration on a CPU), the model does not build, or it or the shapes are too large for a check's
            memory (:func:`checkable_timings`).

    >>> from throughput import calibrate
    >>> cal = calibrate(hidden=4, layers=1, shapes=[(n, 2 * n, 2) for n in (8, 16, 24, 32, 40, 48)],
    ...                 warmup=1, repeats=3, threads=1, loaders=False)
    >>> check = check_calibration(cal, seconds=0.2)
    >>> 3 <= len(check.shapes) <= 4, check.ratio_median > 0, check.loaders is None
    (True, True, True)
    """

    from .measure import ShapeTimer, TimingPlan
    from .models import model_spec

    require_calibration(calibration)
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds <= 600:
        raise ValueError(f"seconds must be above 0 and at most 600, got {seconds!r}.")
    if calibration.model.startswith("custom:"):
        raise ValueError("A calibration of a user's own model cannot be rebuilt here to check it; calibrate again "
                         "with the model on this machine.")
    device = _device_here(calibration, device)
    if calibration.mode == "cudagraph" and not device.startswith("cuda"):
        raise ValueError(f"{calibration.label} is a cudagraph calibration, measured on a CUDA device: it cannot be "
                         f"checked on {device}. Check it on a CUDA device, or check an eager calibration here.")
    spec = model_spec(calibration.model, calibration.hidden, calibration.layers,
                      calibration.model_info.get("in_channels", DEFAULT_IN_CHANNELS))
    timings, skipped = checkable_timings(calibration, spec)
    shapes = check_shapes_of(calibration, seconds, timings=timings)
    plan = TimingPlan(warmup=3, repeats=60, min_repeats=5, budget=seconds / len(shapes))
    threads = whole_number(calibration.device_info.get("threads", 1), "threads", 1, MAX_THREADS)
    with torch_threads(threads if device == "cpu" else None):
        # compile and cudagraph modes: its eager steps are checked (a compiled one costs a compilation per shape)
        timer = ShapeTimer(spec, device, "eager", plan, int(calibration.timing.get("seed", 0)))
        measured = [timer.time(shape).median for shape in shapes]
        loaders = None if calibration.loaders is None else check_loaders(calibration, device)
        here, _ = device_description(device)
    predicted = calibration.predict_eager(np.array(shapes))
    return CalibrationCheck(
        calibration.label, here, tuple(ShapeCheck(shape, float(p), m) for shape, p, m in zip(shapes, predicted, measured)),
        max(calibration.eager_error_band, MIN_BAND), utc_timestamp(),
        same_device(calibration.device_info, here), skipped, loaders)


def loader_check_rows(cost: LoaderCost, count: int = LOADER_CHECK_SHAPES) -> list[int]:
    """Indices of the grid rows a check times for one loader kind: its fastest, middle and
    slowest by the calibration's own times (``count`` spread over them in that order).

    >>> from throughput.calibration import SHIPPED, load_calibration
    >>> cal = load_calibration(SHIPPED / "amd-epyc__gin-h64-l3__eager.json")
    >>> len(loader_check_rows(cal.loaders["packed"])) if cal.loaders else 3
    3
    """
    order = sorted(range(len(cost.timings)), key=lambda i: cost.timings[i].median)
    picks = sorted({round(i * (len(order) - 1) / (count - 1)) for i in range(count)}) if count > 1 else [0]
    return [order[i] for i in picks]


def check_loaders(calibration: Calibration, device: str, budget: float = LOADER_CHECK_BUDGET,
                  ) -> tuple[LoaderCheck, ...]:
    """Time every loader kind of ``calibration`` again on this machine (``packed_device`` on
    ``device``) at :func:`loader_check_rows` of its grid, about ``budget`` seconds each, with
    torch's threads as they are set, and compare with its predictions (module docstring).

    >>> from throughput.calibration import SHIPPED, load_calibration
    >>> cal = load_calibration(SHIPPED / "amd-epyc__gin-h64-l3__eager.json")
    >>> [kind.loader for kind in check_loaders(cal, "cpu", 0.01)]
    ['pyg_first', 'pyg_cached', 'packed', 'packed_device', 'handoff']
    """
    from .loader_cost import time_loader

    if calibration.loaders is None:
        raise ValueError(f"{calibration.label} timed no loaders: there is nothing of them to check.")
    grid = check_loader_grid(calibration.loader_info["grid"])  # no batch too large to build here
    checks = []
    for kind, cost in calibration.loaders.items():
        shapes = []
        for row in loader_check_rows(cost):
            measured = time_loader(kind, *grid[row], device=device, budget=budget)
            # the short epochs' median, as timed: the long-run factor is not re-timed here
            shapes.append(ShapeCheck(measured.shape, float(cost.fit.predict(np.array([measured.shape]))[0]),
                                     measured.median))
        checks.append(LoaderCheck(kind, tuple(shapes), max(cost.fit.error_band, MIN_BAND)))
    return tuple(checks)


@dataclass(frozen=True)
class MachineCalibration:
    """The calibration that speaks for this machine's CPU: ``calibration``, the ``check``
    of the shipped one tried first (None when none of this device ships), whether the
    calibration was ``measured`` here now, and the ``reason`` in words; ``unchecked`` says why
    the shipped (or team folder's) calibration of this CPU could not be checked here ("" when
    it could, or none ships)."""

    calibration: Calibration
    check: CalibrationCheck | None
    measured: bool
    reason: str
    unchecked: str = ""


def shipped_for_this_cpu(usable: list[tuple[Path, Calibration]] | None = None) -> tuple[Path, Calibration] | None:
    """The shipped eager calibration of this machine's CPU (:func:`throughput.device.same_device`
    on everything but torch's threads, which a check sets as the calibration had them) with
    its file, or None; ``usable`` (from :func:`usable_calibrations`) saves reading the files again.

    >>> found = shipped_for_this_cpu()
    >>> found is None or (found[1].mode, found[1].device_info["type"]) == ("eager", "cpu")
    True
    """
    for path, recorded in usable_calibrations()[0] if usable is None else usable:
        if recorded.mode == "eager" and same_device(recorded.device_info,
                                                    cpu_description(recorded.device_info.get("threads", 1))):
            return path, recorded
    return None


def default_calibration() -> Path:
    """The shipped calibration of this machine's CPU if there is one, else the first eager
    GPU one (the device graph batching is for), else the first one. Its numbers are that
    device's: :func:`calibration_for_this_machine` is the one checked on this machine.

    >>> default_calibration() in shipped_calibrations()
    True
    """
    usable = usable_calibrations()[0]
    if not usable:
        raise ValueError("No calibration is shipped with the tool; run python -m throughput calibrate.")
    mine = shipped_for_this_cpu(usable)
    if mine is not None:
        return mine[0]
    gpus = [path for path, cal in usable if cal.device_info.get("type") == "cuda" and cal.mode == "eager"]
    return (gpus or [usable[0][0]])[0]


def calibration_for_this_machine(progress: Progress | None = None, seconds: float = 2.0) -> MachineCalibration:
    """The shipped calibration of this CPU if one ships and passes :func:`check_calibration`,
    else GIN (hidden 64, 3 layers, eager) calibrated on this CPU now at ``QUICK_GRID``
    (at most 16 x ``QUICK_BUDGET`` seconds of timed steps plus their warm-up: 2-4 s here;
    its loaders at ``QUICK_LOADER_BUDGET``: 3-4 s more),
    also when it cannot be checked here (``unchecked`` says why: e.g. a forged team file
    whose shapes or model are too large for a check's memory).

    Args:
        progress: ``progress(done, total, shape)``, hearing each shape of a new calibration.
        seconds: seconds the shipped calibration's check spends on timed steps.

    Returns:
        The calibration, its check (None when none shipped) and whether it was measured
        now, with the reason in words.
    """
    mine = shipped_for_this_cpu()
    shipped = None if mine is None else mine[1]
    whose = "shipped" if mine is None or mine[0].parent == SHIPPED else "team folder's"
    check, unchecked = None, ""
    if shipped is not None:
        try:
            check = check_calibration(shipped, "cpu", seconds)
        except ValueError as error:  # a forged or damaged file of the team folder must not take the page down
            unchecked = f"The {whose} calibration of this CPU ({mine[0].name}) could not be checked here: {error}"
        if check is not None and check.steps_within_band:  # loader times are noisier: reported, not decisive
            loaders = "" if check.within_band else f" {check.describe_loaders()}"
            return MachineCalibration(shipped, check, False, f"The {whose} calibration of this CPU passed its check "
                                                             f"here (measured / predicted {check.ratio_median:.2f})."
                                                             f"{loaders}")
    started = time.perf_counter()
    measured = calibrate("gin", 64, 3, "cpu", default_shapes(QUICK_GRID["count"], **{
        key: value for key, value in QUICK_GRID.items() if key.startswith("max_")}), budget=QUICK_BUDGET,
                         progress=progress, loader_budget=QUICK_LOADER_BUDGET)
    took = time.perf_counter() - started
    why = (f"The {whose} calibration of this CPU could not be checked here" if unchecked else
           "No calibration of this CPU ships with the tool" if check is None else
           f"The {whose} calibration of this CPU failed its check here ({check.verdict()})")
    return MachineCalibration(measured, check, True,
                              f"{why}, so this machine was calibrated now ({took:.0f} s).{noise_note(measured)}",
                              unchecked)


def noise_note(calibration: Calibration) -> str:
    """A sentence when a calibration's fit misses held-out shapes by more than
    ``NOISY_BAND`` (most likely a machine busy while it timed); "" otherwise."""
    if calibration.error_band <= NOISY_BAND:
        return ""
    return (f" Its fit misses held-out shapes by up to {calibration.error_band:.0%} (90th percentile), so its "
            "estimates are that uncertain; most likely the machine was busy while it timed: calibrate again when it "
            "is quieter for tighter ones.")
