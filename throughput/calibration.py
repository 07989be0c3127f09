"""Calibrations: step times of a real PyG model measured on a named device, the cost model
fitted to them, and the JSON file that carries both.

:func:`calibrate` times forward + backward + Adam step of the model at a grid of padded
shapes (:mod:`throughput.measure`, :mod:`throughput.shapes`) and fits the cost model
(:mod:`throughput.fit`). The file (``SCHEMA_VERSION`` 2)::

    {
      "schema": "graph-packing-calibration", "schema_version": 2,
      "created": "2026-11-24T18:00:00Z",
      "device": {"type": "cpu", "name": "Intel(R) Xeon(R) Processor", "vendor": "GenuineIntel", "cores": 2,
                 "logical_cpus": 2, "threads": 2, "mhz": 2600, "vector_flags": ["avx2", ...],
                 "platform": "Linux-...", "cuda": null},   # throughput.device
      "versions": {"torch": "2.13.0+cpu", "torch_geometric": "2.8.0.post1", "cuda": null, "python": "3.11.2"},
      "model": {"name": "gin", "hidden": 64, "layers": 3, "in_channels": 9, "parameters": 25153, ...},
      "mode": "eager",             # or "compile": torch.compile(dynamic=False); "cudagraph": captured steps
      "timing": {"warmup": 3, "repeats": 15, "min_repeats": 3, "budget_seconds": 1.0, "seed": 0},
      "timings": [{"nodes": 1024, "edges": 2048, "graphs": 3, "median": 0.012, "p25": ..., "p75": ...,
                   "min": ..., "repeats": 15}, ...],   # compile mode adds compile_seconds, eager_median;
                                                       # cudagraph mode capture_seconds, eager_median
      "fit": {"form": "linear", "coefficients": {...}, "held_out": {"median": ..., "p90": ..., ...}, ...},
      "eager_fit": null,                   # compile and cudagraph modes: the fit of the eager step times
      "compile": null,      # compile mode: cold (fresh-process) and warm compilations, compile_summary
      "capture": {...},     # cudagraph mode only: the CUDA graph captures, capture_summary
      "loaders": {          # only when the loaders were timed (throughput.loader_cost)
        "grid": [[8, 10, 20], ...],   # (graphs per batch, nodes per graph, edges per graph) timed
        "threads": 1, "budget_seconds": 0.2, "device": "cpu",   # packed_device was built there
        "data": {"graphs": "random molecules ...", "x": "9 atom features (int64)", ...},
        "kinds": {"pyg_first": {"timings": [...], "fit": {...}}, ...}   # every kind of LOADERS,
      },                                                            # timings in grid order
      "digest": "sha256 of the rest"
    }

``loaders`` prices building the batches: per loader kind (:data:`throughput.loader_kinds.LOADERS`)
the seconds per batch timed at each grid row and fitted as the step is. A file without it
(written before loaders were timed, or ``calibrate(loaders=False)``) loads with ``loaders``
None: its estimates are model time only.

``mode="cudagraph"`` times a step captured as a CUDA graph and replayed
(:class:`data_loaders.captured.CapturedStep`), on a CUDA device only.

:func:`load_calibration` refuses a file whose digest does not match its content (changed
after it was written) or whose stored fit is not the fit of its own timings, and one whose
shapes or model are larger than any device can have timed (:mod:`throughput.shapes`). The
digest detects damage and accidental edits; it is no signature: anyone can recompute it, so
a forged file passes it and is only as trustworthy as where it came from.
"""
from __future__ import annotations

import copy
import hashlib
import json
import math
import os
import statistics
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, NamedTuple

import numpy as np

from packing import BatchShape, whole_number
from packing.io import read_json_object, write_replacing

from .cold_compile import cold_compile_seconds
from .device import check_device, device_description, torch_threads
from .fit import MIN_SHAPES, CostFit, cost_fit_from_dict, fit_cost_model
from .loader_kinds import LOADERS, TIMED_DATA, LoaderCost
from .model_names import DEFAULT_IN_CHANNELS
from .records import ShapeTiming
from .shapes import check_model_size, check_shape, check_shapes, default_shapes

SCHEMA = "graph-packing-calibration"
SCHEMA_VERSION = 2
#: Versions :func:`load_calibration` reads: 1 had no cold compilations of their own and no
#: CPU details beyond its name and threads.
READABLE_VERSIONS = (1, 2)
_SCHEMA_1_COMPILE = ("first_seconds", "seconds", "p25", "p75", "recompile_limit", "dynamic", "fx_graph_cache")
MAX_FILE_BYTES = 16 * 2**20
MAX_THREADS = 4096  # torch CPU threads a calibration may set
MAX_COLD_RUNS = 20  # fresh processes timing a first compilation
MODES = ("eager", "compile", "cudagraph")
SHIPPED = Path(__file__).resolve().parent / "calibrations"
#: Environment variable naming a folder of further calibrations (see :func:`shipped_calibrations`).
CALIBRATIONS_ENV = "GRAPH_PACKING_CALIBRATIONS"
_FIT_TOLERANCE = 1e-6
Progress = Callable[[int, int, BatchShape], None]
LoaderProgress = Callable[[int, int, str], None]
#: Seconds a calibration may time one loader kind at one grid row.
MAX_LOADER_BUDGET = 60.0
#: Largest batch of a loader grid row a file may hold (64 times the default grid's largest):
#: a check builds such batches, so a forged row must not make it allocate gigabytes.
MAX_LOADER_NODES, MAX_LOADER_EDGES = 2**19, 2**21


def slug(text: str) -> str:
    """A file-name-safe lower-case form of ``text``.

    >>> slug("NVIDIA H100 80GB HBM3")
    'nvidia-h100-80gb-hbm3'
    """
    kept = "".join(c if c.isalnum() else "-" for c in text.lower())
    return "-".join(part for part in kept.split("-") if part) or "device"


@dataclass(frozen=True)
class Calibration:
    """A model's step times on one device and the cost model fitted to them.

    ``model``, ``hidden``, ``layers``, ``device`` (``"cpu"``, ``"cuda"``, ``"cuda:1"``)
    and ``mode`` (``"eager"``, ``"compile"`` or ``"cudagraph"``) say what was timed;
    ``device_info`` and ``versions`` where and with what; ``timings`` the measurements;
    ``fit`` the cost model of a step; in compile and cudagraph modes ``eager_fit`` prices
    steps that run eagerly, ``compile`` the cost of compilations (compile mode) and
    ``capture`` that of CUDA graph captures (cudagraph mode, :func:`capture_summary`);
    ``loaders`` the cost of building a batch for each loader kind
    (:mod:`throughput.loader_cost`), None for a file that did not time them, and
    ``loader_info`` how they were timed (the file's ``loaders`` section less its kinds).
    """

    model: str
    hidden: int
    layers: int
    device: str
    mode: str
    timings: tuple[ShapeTiming, ...]
    fit: CostFit
    device_info: dict[str, Any]
    versions: dict[str, Any]
    model_info: dict[str, Any]
    timing: dict[str, Any]
    created: str
    eager_fit: CostFit | None = None
    compile: dict[str, Any] | None = None
    capture: dict[str, Any] | None = None
    source: str = field(default="", compare=False)
    loaders: dict[str, LoaderCost] | None = None
    loader_info: dict[str, Any] | None = None

    # ----------------------------------------------------------------- predictions
    def predict_step(self, nodes: Any, edges: Any, graphs: Any) -> Any:
        """Seconds of one training step at a padded shape (numbers, or arrays of shapes).

        >>> cal = Calibration.from_dict(json.loads(shipped_calibrations()[0].read_text()))
        >>> 0 < cal.predict_step(1000, 2000, 32) < cal.predict_step(4000, 8000, 32)
        True
        """
        shapes = np.column_stack(np.broadcast_arrays(nodes, edges, graphs)).astype(np.int64)
        seconds = self.fit.predict(shapes)
        return float(seconds[0]) if np.ndim(nodes) == 0 and np.ndim(edges) == 0 and np.ndim(graphs) == 0 \
            else seconds

    def predict_eager(self, shapes: np.ndarray) -> np.ndarray:
        """Seconds per step at each shape row when it runs eagerly (in compile mode: past
        torch's recompile limit; in cudagraph mode: a step that is not captured)."""
        return (self.eager_fit or self.fit).predict(np.asarray(shapes, dtype=np.int64).reshape(-1, 3))

    @property
    def error_band(self) -> float:
        """Relative error band of the step model (its 90th-percentile held-out error)."""
        return self.fit.error_band

    @property
    def cold_words(self) -> str:
        """How a process's first compilation was timed, in words (compile mode only).

        >>> compiled = next(p for p in shipped_calibrations() if p.name.endswith("__compile.json"))
        >>> load_calibration(compiled).cold_words[:40]
        "the calibration's own first shape, timed"
        """
        cost = self.compile
        if cost is None:
            raise ValueError(f"{self.label} is {_a(self.mode)} calibration: it measured no compilations.")
        if not cost["cold_in_fresh_processes"]:
            return ("the calibration's own first shape, timed in the calibrating process, not in fresh ones (a file "
                    "of schema 1, --cold-runs 0 or a model factory)")
        runs = len(cost["cold_seconds"])
        return f"cold: {runs} fresh process{'es' if runs > 1 else ''}, {cost['cold_low']:.3g}-{cost['cold_high']:.3g} s"

    @property
    def compile_band(self) -> tuple[float, float]:
        """Seconds any one compilation may take, cold or warm: from the fastest to the
        slowest the calibration measured (a compilation costs more or less with what the
        process compiled before); compile mode only."""
        if self.compile is None:
            raise ValueError(f"{self.label} is {_a(self.mode)} calibration: it measured no compilations.")
        cost = self.compile
        return min(cost["p25"], cost["cold_low"]), max(cost["p75"], cost["cold_high"])

    @property
    def capture_band(self) -> tuple[float, float]:
        """Seconds any one CUDA graph capture may take: from the fastest to the slowest
        the calibration measured; cudagraph mode only."""
        if self.capture is None:
            raise ValueError(f"{self.label} is {_a(self.mode)} calibration: it measured no CUDA graph captures.")
        return self.capture["low"], self.capture["high"]

    @property
    def eager_error_band(self) -> float:
        """Relative error band of the steps that run eagerly: the eager fit's in compile
        and cudagraph modes, else :attr:`error_band`."""
        return (self.eager_fit or self.fit).error_band

    @property
    def device_name(self) -> str:
        return str(self.device_info.get("name", self.device))

    @property
    def shape_range(self) -> tuple[int, int, int]:
        """The largest nodes, edges and graphs timed: predictions beyond extrapolate."""
        return tuple(max(t.shape[i] for t in self.timings) for i in range(3))  # type: ignore[return-value]

    @property
    def label(self) -> str:
        """One line naming what was timed where.

        >>> Calibration.from_dict(json.loads(shipped_calibrations()[0].read_text())).label.startswith("gin")
        True
        """
        return (f"{self.model} (hidden {self.hidden}, {self.layers} layers, {self.mode}) on {self.device_name}, "
                f"{self.created[:10]}")

    def same_measurement(self, other: "Calibration") -> bool:
        """Whether ``other`` holds the same measurements (a copy of this calibration read
        back from its file: its fit is refitted on load, so it may differ in the last digits).

        >>> cal = Calibration.from_dict(json.loads(shipped_calibrations()[0].read_text()))
        >>> cal.same_measurement(load_calibration(json.dumps(cal.to_dict())))
        True
        """
        return (self.created, self.mode, self.device_info, self.model_info, self.timings) == \
            (other.created, other.mode, other.device_info, other.model_info, other.timings)

    @property
    def filename(self) -> str:
        """The file name calibrations are shipped under: device, model, mode."""
        return calibration_filename(self.device_name, self.model, self.hidden, self.layers, self.mode)

    def summary(self) -> dict[str, Any]:
        """Where the numbers come from, for an export: device, versions, model, mode, date,
        the fit and its held-out error (JSON-safe)."""
        return {"label": self.label, "device": dict(self.device_info), "versions": dict(self.versions),
                "model": dict(self.model_info), "mode": self.mode, "created": self.created,
                "shapes_timed": len(self.timings), "shape_range": list(self.shape_range), "fit": {"form": self.fit.form, "model": self.fit.describe(),
                                                           "held_out": dict(self.fit.held_out)},
                "compile": None if self.compile is None else dict(self.compile), "source": self.source,
                **({} if self.capture is None else {"capture": dict(self.capture)}),
                **({} if self.loaders is None else {"loaders": {
                    kind: {"model": cost.describe(), "held_out_p90": cost.fit.held_out["p90"]}
                    for kind, cost in self.loaders.items()}})}

    # ----------------------------------------------------------------- serialisation
    def to_dict(self) -> dict[str, Any]:
        """The file's content (module docstring), digest included."""
        body = {
            "schema": SCHEMA, "schema_version": SCHEMA_VERSION, "created": self.created,
            "device": dict(self.device_info), "versions": dict(self.versions), "model": dict(self.model_info),
            "mode": self.mode, "timing": dict(self.timing), "timings": [t.to_dict() for t in self.timings],
            "fit": self.fit.to_dict(), "eager_fit": None if self.eager_fit is None else self.eager_fit.to_dict(),
            "compile": None if self.compile is None else dict(self.compile),
            **({} if self.capture is None else {"capture": dict(self.capture)}),  # eager and compile files as before
            **({} if self.loaders is None else {"loaders": {  # a copy: the content must not alias the grid
                **copy.deepcopy(self.loader_info),
                "kinds": {kind: cost.to_dict() for kind, cost in self.loaders.items()}}}),
        }
        return {**body, "digest": digest(body)}

    def save(self, path: str | Path) -> Path:
        """Write the calibration as JSON to ``path`` (a folder: under :attr:`filename`)."""
        path = Path(path)
        if path.is_dir():
            path = path / self.filename
        try:
            write_replacing(path, json.dumps(self.to_dict(), indent=1) + "\n")
        except OSError as error:
            raise ValueError(f"Could not write the calibration to {path}: {error.strerror or error}.") from None
        return path

    @classmethod
    def from_timings(cls, model: str, hidden: int, layers: int, device: str, mode: str,
                     timings: list[ShapeTiming], *, device_info: dict[str, Any], versions: dict[str, Any],
                     model_info: dict[str, Any], timing: dict[str, Any], created: str,
                     recompile_limit: int | None = None, cold_compiles: list[float] | None = None,
                     source: str = "", loaders: dict[str, LoaderCost] | None = None,
                     loader_info: dict[str, Any] | None = None) -> "Calibration":
        """A calibration from measured step times: fits the cost model (and in compile mode
        the eager fit and the compilation costs, with torch's ``recompile_limit`` and the
        ``cold_compiles`` timed in fresh processes, see :func:`compile_summary`; in
        cudagraph mode the eager fit and the capture costs, see :func:`capture_summary`),
        with the ``loaders`` costs and how they were timed (``loader_info``), if timed."""
        if (loaders is None) != (loader_info is None):
            raise ValueError("Give loaders with loader_info (how they were timed), or neither.")
        if mode == "compile" and (recompile_limit is None or any(t.compile_seconds is None for t in timings)):
            raise ValueError("A compile-mode calibration needs compile_seconds and eager_median at every shape "
                             "and torch's recompile_limit.")
        if mode == "cudagraph" and any(t.capture_seconds is None for t in timings):
            raise ValueError("A cudagraph-mode calibration needs capture_seconds and eager_median at every shape.")
        fit, eager = _fits(timings, mode)
        compile_cost = compile_summary(timings, recompile_limit, cold_compiles) if mode == "compile" else None
        capture_cost = capture_summary(timings) if mode == "cudagraph" else None
        return cls(model, hidden, layers, device, mode, tuple(timings), fit, device_info, versions, model_info,
                   timing, created, eager, compile_cost, capture_cost, source, loaders, loader_info)

    @classmethod
    def from_dict(cls, data: Any, source: str = "") -> "Calibration":
        """Rebuild and verify a calibration from its file content (see :func:`load_calibration`)."""
        return _verified(data, source)


def calibration_filename(device_name: str, model: str, hidden: int, layers: int, mode: str) -> str:
    """The file name of a calibration (:attr:`Calibration.filename`), known before it is timed.

    >>> calibration_filename("AMD EPYC", "gin", 64, 3, "eager")
    'amd-epyc__gin-h64-l3__eager.json'
    """
    return f"{slug(device_name)}__{slug(model)}-h{hidden}-l{layers}__{mode}.json"


def require_calibration(value: Any) -> "Calibration":
    """``value`` when it is a :class:`Calibration`; a ``ValueError`` saying how to get one
    otherwise.

    >>> require_calibration("cpu.json")
    Traceback (most recent call last):
    ...
    ValueError: calibration must be a Calibration (throughput.load_calibration), got str.
    """
    if not isinstance(value, Calibration):
        raise ValueError(f"calibration must be a Calibration (throughput.load_calibration), got "
                         f"{type(value).__name__}.")
    return value


def digest(body: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of a calibration without its digest: the order of
    keys does not change it.

    >>> digest({"a": 1, "b": [2.5]}) == digest({"b": [2.5], "a": 1}), len(digest({}))
    (True, 64)
    """
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------- measuring
def utc_timestamp() -> str:
    """Now in UTC as calibrations and checks record it, e.g. ``2026-11-25T04:30:00Z``.

    >>> stamp = utc_timestamp()
    >>> len(stamp), stamp[10], stamp[-1], datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").year >= 2024
    (20, 'T', 'Z', True)
    """
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def compile_summary(timings: list[ShapeTiming], recompile_limit: int, cold: list[float] | None = None,
                    ) -> dict[str, Any]:
    """The cost of compilations in compile mode, as measured: ``cold`` (the first
    compilation of a fresh process, which also sets the compiler up: median, fastest and
    slowest of the fresh processes timed; None: the calibration's own first shape, as
    schema 1 files measured it), ``warm`` (every later shape of the calibration: median and
    quartiles) and torch's ``recompile_limit`` (new shapes past it run eagerly);
    ``cold_in_fresh_processes`` says which of the two ways the cold cost was measured.

    >>> rows = [ShapeTiming((8 * i, 16 * i, 1), 0.01, 0.01, 0.01, 0.01, 3, c, 0.02) for i, c in
    ...         enumerate([9.0, 2.0, 3.0, 4.0], 1)]
    >>> summary = compile_summary(rows, 8, cold=[10.0, 12.0])
    >>> summary["first_seconds"], summary["cold_low"], summary["cold_high"], summary["seconds"]
    (11.0, 10.0, 12.0, 3.0)
    """
    costs = [t.compile_seconds for t in timings]
    fresh = cold is not None
    cold = [costs[0]] if cold is None else [float(c) for c in cold]
    warm = costs[1:] or costs
    return {"first_seconds": statistics.median(cold), "cold_seconds": cold, "cold_low": min(cold),
            "cold_high": max(cold), "seconds": statistics.median(warm), "p25": float(np.quantile(warm, 0.25)),
            "p75": float(np.quantile(warm, 0.75)), "recompile_limit": recompile_limit, "dynamic": False,
            "fx_graph_cache": False, "cold_in_fresh_processes": fresh}


def capture_summary(timings: list[ShapeTiming]) -> dict[str, Any]:
    """The cost of CUDA graph captures in cudagraph mode, as measured at every shape (the
    first call of a :class:`data_loaders.captured.CapturedStep`: its warm-up steps, the
    capture and one replay, less the median replay): median and quartiles, fastest and
    slowest. Each distinct padded shape is captured once per process.

    >>> rows = [ShapeTiming((8 * i, 16 * i, 1), 0.01, 0.01, 0.01, 0.01, 3, eager_median=0.02, capture_seconds=c)
    ...         for i, c in enumerate([0.5, 0.2, 0.3, 0.4], 1)]
    >>> summary = capture_summary(rows)
    >>> summary["seconds"], summary["low"], summary["high"]
    (0.35, 0.2, 0.5)
    """
    costs = [t.capture_seconds for t in timings]
    return {"seconds": statistics.median(costs), "p25": float(np.quantile(costs, 0.25)),
            "p75": float(np.quantile(costs, 0.75)), "low": min(costs), "high": max(costs)}


def check_mode(mode: Any, device: str) -> str:
    """``mode`` when it is one of ``MODES`` and ``device`` can run it; a ``ValueError``
    saying what to use otherwise.

    >>> check_mode("compile", "cpu")
    'compile'
    >>> check_mode("cudagraph", "cpu")
    Traceback (most recent call last):
    ...
    ValueError: mode 'cudagraph' times a step captured as a CUDA graph, which records GPU kernels: it needs a CUDA \
device, got cpu. On a CPU use mode 'eager' or 'compile'; calibrate cudagraph on your GPU machine (--device cuda).
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}.")
    if mode == "cudagraph" and not device.startswith("cuda"):
        raise ValueError(f"mode 'cudagraph' times a step captured as a CUDA graph, which records GPU kernels: it "
                         f"needs a CUDA device, got {device}. On a CPU use mode 'eager' or 'compile'; calibrate "
                         "cudagraph on your GPU machine (--device cuda).")
    return mode


def _a(mode: str) -> str:
    """``mode`` with its article: 'an eager', 'a compile'."""
    return f"{'an' if mode[0] in 'aeiou' else 'a'} {mode}"


def calibrate(model: Any = "gin", hidden: int = 64, layers: int = 3, device: str = "cpu",
              shapes: Any = None, mode: str = "eager", *, in_channels: int = DEFAULT_IN_CHANNELS, warmup: int = 3,
              repeats: int = 15, budget: float = 1.0, seed: int = 0, threads: int | None = None,
              cold_runs: int = 2, progress: Progress | None = None, loaders: bool = True,
              loader_budget: float = 0.2, loader_progress: LoaderProgress | None = None) -> Calibration:
    """Time forward + backward + Adam step of ``model`` (``"gin"``, ``"schnet"`` or a
    factory, see :func:`throughput.models.model_spec`) on ``device`` at each padded
    ``shapes`` row (nodes, edges, graphs; None: :func:`throughput.shapes.default_shapes`)
    in ``mode`` (``"eager"``, ``"compile"`` or ``"cudagraph"``), and fit the cost model.

    ``warmup`` untimed steps, then ``repeats`` timed steps at most, at least 3, stopping
    after ``budget`` seconds per shape. ``threads`` sets torch's CPU threads for the
    measurement (None: as they are; the file records the number, which CPU times depend
    on). In compile mode ``cold_runs`` fresh processes each time the first compilation of
    a process at the first shape (:mod:`throughput.cold_compile`; a user's model factory
    cannot be sent to another process, so its cold cost is its first shape's). In cudagraph
    mode (a CUDA device only) each shape's step is captured through
    :class:`data_loaders.captured.CapturedStep` and its replays are timed, with the capture's
    cost (the first call less the median replay) and the eager step's median. Then, with ``loaders``, the loaders
    are timed with the same torch threads (:func:`throughput.loader_cost.calibrate_loaders`:
    every kind at the grid of :func:`throughput.loader_cost.loader_shapes`, ``packed_device``
    on ``device``, about ``loader_budget`` seconds each; 15-20 s on this project's 2-core CPU
    at 0.2).

    Args:
        model: ``"gin"``, ``"schnet"`` or a factory ``factory(hidden, layers)``.
        hidden: hidden channels.
        layers: message-passing layers.
        device: ``"cpu"``, ``"cuda"`` or ``"cuda:<index>"``.
        shapes: padded shapes to time (:class:`packing.BatchShape` or (nodes, edges,
            graphs) triples, at least 6); None: :func:`throughput.shapes.default_shapes`.
        mode: ``"eager"``, ``"compile"`` (``torch.compile(dynamic=False)``) or
            ``"cudagraph"`` (CUDA graph replays; a CUDA device only).
        in_channels: node features of the random inputs.
        warmup: untimed steps per shape.
        repeats: timed steps per shape at most (at least 3 are timed).
        budget: seconds of timed steps per shape, 0 to 600.
        seed: seed of the random inputs and weights.
        threads: torch CPU threads while timing (None: as they are).
        cold_runs: compile mode: fresh processes timing a process's first compilation.
        progress: ``progress(done, total, shape)``, called as each shape starts.
        loaders: time the loaders too (False: a calibration of model time only).
        loader_budget: seconds of timed batches per loader kind and grid row, 0 to 60.
        loader_progress: ``loader_progress(done, total, kind)``, called as each loader
            timing starts and once at the end (``done == total``).

    Returns:
        The calibration: the timings, the fitted cost model, the device and software, and
        with ``loaders`` the cost of building a batch for every loader kind.

    Raises:
        ValueError: bad arguments, a missing CUDA device, mode ``"cudagraph"`` on a CPU, or a
            shape that does not fit in the device's memory.

    >>> cal = calibrate(hidden=4, layers=1, shapes=[(n, 2 * n, 2) for n in (8, 16, 24, 32, 40, 48)],
    ...                 warmup=1, repeats=3, loaders=False)
    >>> cal.model, len(cal.timings), cal.fit.form in cal.fit.forms, cal.predict_step(48, 96, 2) > 0  # any form
    ('gin', 6, True, True)
    >>> cal.loaders is None
    True
    """

    from .measure import ShapeTimer, TimingPlan
    from .models import model_spec

    spec = model_spec(model, hidden, layers, in_channels)
    device = check_device(device)
    check_mode(mode, device)
    grid = default_shapes() if shapes is None else check_shapes(shapes)
    if len(grid) < MIN_SHAPES:
        raise ValueError(f"Give at least {MIN_SHAPES} shapes to fit the cost model and check it on held-out shapes; got {len(grid)}.")
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not 0 < budget <= 600:
        raise ValueError(f"budget must be between 0 and 600 seconds per shape, got {budget!r}.")
    plan = TimingPlan(whole_number(warmup, "warmup", 0, 1000), whole_number(repeats, "repeats", 3, 100_000),
                      3, float(budget))
    seed = whole_number(seed, "seed", 0, 2**63 - 1)
    threads = None if threads is None else whole_number(threads, "threads", 1, MAX_THREADS)
    cold_runs = whole_number(cold_runs, "cold_runs", 0, MAX_COLD_RUNS)
    if isinstance(loader_budget, bool) or not isinstance(loader_budget, (int, float)) or \
            not 0 < loader_budget <= MAX_LOADER_BUDGET:
        raise ValueError(f"loader_budget must be above 0 and at most {MAX_LOADER_BUDGET:g} seconds per loader and "
                         f"shape, got {loader_budget!r}.")
    with torch_threads(threads):
        timer = ShapeTimer(spec, device, mode, plan, seed)
        timings = []
        for done, shape in enumerate(grid):
            if progress is not None:
                progress(done, len(grid), shape)
            timings.append(timer.time(shape))
        if progress is not None:
            progress(len(grid), len(grid), grid[-1])
        costs, loader_info = _time_loaders(device, float(loader_budget), seed, loader_progress) if loaders else \
            (None, None)
        info, versions = device_description(device)
        cold = None
        if mode == "compile" and cold_runs and isinstance(model, str):
            cold = [cold_compile_seconds(spec.name, spec.hidden, spec.layers, spec.in_channels, device, grid[0],
                                         info["threads"], seed) for _ in range(cold_runs)]
    limit = timer.recompile_limit if mode == "compile" else None
    return Calibration.from_timings(
        spec.name, spec.hidden, spec.layers, device, mode, timings, device_info=info, versions=versions,
        model_info=spec.to_dict(timer.module), timing={**plan.to_dict(), "seed": seed},
        created=utc_timestamp(), recompile_limit=limit,
        cold_compiles=cold, loaders=costs, loader_info=loader_info)


def _time_loaders(device: str, budget: float, seed: int, progress: LoaderProgress | None,
                  ) -> tuple[dict[str, LoaderCost], dict[str, Any]]:
    """Every loader kind's cost at the default grid, and how it was timed (the file's
    ``loaders`` section less its kinds), with torch's threads as they are set now."""
    import torch

    from .loader_cost import calibrate_loaders, loader_shapes

    grid = loader_shapes()
    costs = calibrate_loaders(device, grid, budget=budget, seed=seed, progress=progress)
    return costs, {"grid": [list(row) for row in grid], "threads": torch.get_num_threads(), "budget_seconds": budget,
                   "device": device, "data": dict(TIMED_DATA)}


def _fits(timings: list[ShapeTiming], mode: str) -> tuple[CostFit, CostFit | None]:
    shapes = np.array([t.shape for t in timings], dtype=np.int64)
    fit = fit_cost_model(shapes, [t.median for t in timings])
    eager = fit_cost_model(shapes, [t.eager_median for t in timings]) if mode in ("compile", "cudagraph") else None
    return fit, eager


# --------------------------------------------------------------------- loading
def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{where} must be a non-empty string, got {value!r}.")
    return value


def _object(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise ValueError(f"{key} must be an object.")
    return value


def _same_fit(stored: CostFit, refit: CostFit) -> bool:
    if stored.form != refit.form or set(stored.coefficients) != set(refit.coefficients):
        return False
    return all(math.isclose(stored.coefficients[k], refit.coefficients[k], rel_tol=_FIT_TOLERANCE, abs_tol=1e-15)
               for k in refit.coefficients) and all(
        math.isclose(stored.held_out[k], refit.held_out[k], rel_tol=_FIT_TOLERANCE, abs_tol=1e-12)
        for k in ("median", "p90", "max", "rms"))


def _cold_compiles(stored: dict[str, Any], version: int, first_shape: float | None) -> list[float] | None:
    """The cold compilations of a compile-mode file; None where it timed none apart (schema 1
    files, files rewritten from them, ``--cold-runs 0``): its cold cost is then the first
    shape's compilation ``first_shape``, which files written before
    ``cold_in_fresh_processes`` tell only by that value."""
    if version == 1 or stored.get("cold_in_fresh_processes") is False:
        return None
    cold = stored.get("cold_seconds")
    if not isinstance(cold, list) or not cold or not all(
            not isinstance(c, bool) and isinstance(c, (int, float)) and math.isfinite(c) and c >= 0 for c in cold):
        raise ValueError("compile.cold_seconds must list the seconds of at least one cold compilation.")
    return None if "cold_in_fresh_processes" not in stored and cold == [first_shape] else cold


def _sizes(timings: list[ShapeTiming], model_info: dict[str, Any], name: str) -> tuple[int, int]:
    """The model's hidden channels and layers, once every shape and model size is within
    what a calibration can have timed (:mod:`throughput.shapes`): a forged file claiming more
    would have a check allocate it."""
    try:
        for i, timing in enumerate(timings):
            check_shape(timing.shape, f"timings[{i}].")
        hidden, layers, _ = check_model_size(model_info.get("hidden"), model_info.get("layers"),
                                             model_info.get("in_channels", DEFAULT_IN_CHANNELS), "model.")
    except ValueError as error:
        raise ValueError(f"{name} cannot have been timed on any device: {error} Use another file, or calibrate "
                         "again (python -m throughput calibrate).") from None
    return hidden, layers


#: A long epoch's batches at most this many times the short timed epochs' median.
MAX_LONG_RUN_FACTOR = 10
_LOADER_KEYS = ("grid", "threads", "budget_seconds", "device", "data", "kinds")


def check_loader_grid(rows: Any) -> list[list[int]]:
    """The ``loaders.grid`` rows (graphs per batch, nodes per graph, edges per graph), each
    batch within :data:`MAX_LOADER_NODES` and :data:`MAX_LOADER_EDGES`; a ``ValueError``
    naming the row otherwise.

    >>> check_loader_grid([[8, 10, 20]] * 5 + [[2**19, 2, 2]])
    Traceback (most recent call last):
    ...
    ValueError: loaders.grid[5] is a batch of 1,048,576 nodes and 1,048,576 edges, more than the 524,288 and 2,097,152 a loader is timed at.
    """
    if not isinstance(rows, list) or len(rows) < MIN_SHAPES:
        raise ValueError(f"loaders.grid must list at least {MIN_SHAPES} (graphs, nodes, edges) rows.")
    grid = []
    for i, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != 3:
            raise ValueError(f"loaders.grid[{i}] must be [graphs per batch, nodes per graph, edges per graph].")
        count = whole_number(row[0], f"loaders.grid[{i}] graphs", 1, MAX_LOADER_NODES)
        nodes = whole_number(row[1], f"loaders.grid[{i}] nodes", 1, MAX_LOADER_NODES)
        edges = whole_number(row[2], f"loaders.grid[{i}] edges", 0, MAX_LOADER_EDGES)
        if count * nodes > MAX_LOADER_NODES or count * edges > MAX_LOADER_EDGES:
            raise ValueError(f"loaders.grid[{i}] is a batch of {count * nodes:,} nodes and {count * edges:,} edges, "
                             f"more than the {MAX_LOADER_NODES:,} and {MAX_LOADER_EDGES:,} a loader is timed at.")
        grid.append([count, nodes, edges])
    return grid


def _loader_cost(kind: str, entry: Any, rows: int) -> LoaderCost:
    """One kind of ``loaders.kinds``: its timings (one per grid row, shapes within the
    sanity limits) and its fit, which must be the fit of those timings."""
    where = f"loaders.kinds.{kind}"
    if not isinstance(entry, dict) or not isinstance(entry.get("timings"), list):
        raise ValueError(f"{where} must be an object with timings and fit.")
    if len(entry["timings"]) != rows:
        raise ValueError(f"{where}.timings must hold one row per loaders.grid row ({rows}), got "
                         f"{len(entry['timings'])}.")
    timings = [ShapeTiming.from_dict(row, f"{where}.timings[{i}]") for i, row in enumerate(entry["timings"])]
    for i, timing in enumerate(timings):
        check_shape(timing.shape, f"{where}.timings[{i}].")
        if timing.eager_median is not None:
            raise ValueError(f"{where}.timings[{i}] holds a compilation or capture: loaders have none.")
    refit = fit_cost_model([t.shape for t in timings], [t.median for t in timings])
    if not _same_fit(cost_fit_from_dict(entry.get("fit"), f"{where}.fit"), refit):
        raise ValueError(f"{where}.fit is not the fit of its timings.")
    factor = entry.get("long_run_factor", 1.0)
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 1 <= factor <= MAX_LONG_RUN_FACTOR:
        raise ValueError(f"{where}.long_run_factor must lie between 1 and {MAX_LONG_RUN_FACTOR}, got {factor!r}.")
    return LoaderCost(kind, tuple(timings), refit, float(factor))


def _loader_section(data: dict[str, Any], name: str) -> tuple[dict[str, LoaderCost] | None, dict[str, Any] | None]:
    """The loader costs of a file and how they were timed; (None, None) for a file without a
    ``loaders`` section; ``ValueError`` naming the damaged field otherwise."""
    section = data.get("loaders")
    if section is None:
        return None, None
    try:
        if not isinstance(section, dict) or set(section) != set(_LOADER_KEYS):
            raise ValueError(f"loaders must be an object of {', '.join(_LOADER_KEYS)}.")
        grid = check_loader_grid(section["grid"])
        whole_number(section["threads"], "loaders.threads", 1, MAX_THREADS)
        budget = section["budget_seconds"]
        if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not 0 < budget <= MAX_LOADER_BUDGET:
            raise ValueError(f"loaders.budget_seconds must be above 0 and at most {MAX_LOADER_BUDGET:g}.")
        _text(section["device"], "loaders.device")
        if not isinstance(section["data"], dict):
            raise ValueError("loaders.data must be an object.")
        kinds = section["kinds"]
        if not isinstance(kinds, dict) or set(kinds) != set(LOADERS):
            found = sorted(kinds) if isinstance(kinds, dict) else kinds
            raise ValueError(f"loaders.kinds must hold exactly the loader kinds {', '.join(LOADERS)}; got {found!r}.")
        costs = {kind: _loader_cost(kind, kinds[kind], len(grid)) for kind in LOADERS}
    except ValueError as error:
        raise ValueError(f"{name}: its loaders section is damaged: {error} Calibrate again "
                         "(python -m throughput calibrate) instead of editing the file.") from None
    return costs, {key: section[key] for key in _LOADER_KEYS if key != "kinds"}


def _verified(data: Any, name: str) -> Calibration:
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ValueError(f"{name} is not a graph packing calibration (schema "
                         f"{data.get('schema') if isinstance(data, dict) else None!r}).")
    version = data.get("schema_version")
    if version not in READABLE_VERSIONS:
        raise ValueError(f"Calibration schema version {version!r} is not supported; this tool reads versions "
                         f"{', '.join(map(str, READABLE_VERSIONS))}.")
    body = {key: value for key, value in data.items() if key != "digest"}
    try:
        expected = digest(body)
    except (TypeError, ValueError):
        raise ValueError(f"{name} holds values that are not plain JSON numbers or strings.") from None
    if data.get("digest") != expected:
        raise ValueError(f"{name} was changed after it was written (its digest does not match its content); "
                         "calibrate again instead of editing the file.")
    mode = data.get("mode")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}.")
    device_info, versions, model_info = _object(data, "device"), _object(data, "versions"), _object(data, "model")
    if mode == "cudagraph" and device_info.get("type") != "cuda":
        raise ValueError(f"{name} is a cudagraph calibration of a {device_info.get('type')!r} device: CUDA graphs "
                         "are captured on CUDA devices only; the file is damaged.")
    _text(device_info.get("name"), "device.name")
    _text(versions.get("torch"), "versions.torch")
    rows = data.get("timings")
    if not isinstance(rows, list) or len(rows) < 6:
        raise ValueError("timings must list at least 6 timed shapes.")
    timings = [ShapeTiming.from_dict(row, f"timings[{i}]") for i, row in enumerate(rows)]
    if len({t.shape for t in timings}) != len(timings):
        raise ValueError("timings lists a shape twice.")
    hidden, layers = _sizes(timings, model_info, name)
    stored_compile = data.get("compile")
    limit = stored_compile.get("recompile_limit") if isinstance(stored_compile, dict) else None
    if mode == "compile" and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError("A compile-mode calibration needs a compile object with torch's recompile_limit.")
    cold = _cold_compiles(stored_compile, version, timings[0].compile_seconds) if mode == "compile" else None
    loaders, loader_info = _loader_section(data, name)
    calibration = Calibration.from_timings(
        _text(model_info.get("name"), "model.name"), hidden, layers, _text(device_info.get("device"), "device.device"),
        mode, timings, device_info=device_info, versions=versions, model_info=model_info,
        timing=_object(data, "timing"), created=_text(data.get("created"), "created"), recompile_limit=limit,
        cold_compiles=cold, source=name, loaders=loaders, loader_info=loader_info)
    if not _same_fit(cost_fit_from_dict(data.get("fit"), "fit"), calibration.fit):
        raise ValueError(f"{name}: the stored fit is not the fit of its timings; the file is damaged.")
    if (data.get("eager_fit") is None) != (calibration.eager_fit is None) or (calibration.eager_fit is not None and
            not _same_fit(cost_fit_from_dict(data["eager_fit"], "eager_fit"), calibration.eager_fit)):
        raise ValueError(f"{name}: eager_fit does not match the eager timings of a {mode}-mode calibration.")
    recomputed = calibration.compile if version == SCHEMA_VERSION or calibration.compile is None else \
        {key: calibration.compile[key] for key in _SCHEMA_1_COMPILE}
    if recomputed is not None and isinstance(stored_compile, dict) and "cold_in_fresh_processes" not in stored_compile:
        recomputed = {key: value for key, value in recomputed.items() if key != "cold_in_fresh_processes"}  # older
    if stored_compile != recomputed:
        raise ValueError(f"{name}: the compile costs do not match its timings; the file is damaged.")
    if data.get("capture") != calibration.capture:
        raise ValueError(f"{name}: the capture costs do not match its timings; the file is damaged.")
    return calibration


def load_calibration(source: Any) -> Calibration:
    """Read and verify a calibration: a path, JSON text or bytes, or the parsed dict.

    Checks the schema, the digest (a file changed after it was written is refused; the
    digest is no signature, see the module docstring), every field's type, that every shape
    and the model's size lie within what a device can have timed, and that the stored fit is
    the fit of the stored timings.

    Args:
        source: a path, JSON text or bytes, or the parsed dict.

    Returns:
        The verified :class:`Calibration`.

    Raises:
        ValueError: one message saying what is wrong with the file.
        OSError: the file cannot be read.

    >>> cal = load_calibration(shipped_calibrations()[0])
    >>> cal.device, cal.mode
    ('cpu', 'eager')
    >>> load_calibration('{"schema": "graph-packing-config"}')
    Traceback (most recent call last):
    ...
    ValueError: the calibration text is not a graph packing calibration (schema 'graph-packing-config').
    """
    data, name = read_json_object(source, "calibration", MAX_FILE_BYTES)
    return _verified(data, name)


def shipped_calibrations() -> list[Path]:
    """The calibration files of the folder named by ``$GRAPH_PACKING_CALIBRATIONS`` (a team's
    own, e.g. on a shared drive; listed first, so one named as a shipped file replaces it on
    the dashboard) and those shipped in ``throughput/calibrations``, each sorted by name.

    >>> sorted({path.suffix for path in shipped_calibrations()})
    ['.json']
    """
    extra = os.environ.get(CALIBRATIONS_ENV)
    own = sorted(Path(extra).glob("*.json")) if extra and Path(extra).is_dir() else []
    return own + sorted(SHIPPED.glob("*.json"))


def usable_calibrations() -> tuple[list[tuple[Path, Calibration]], list[str]]:
    """Every calibration of :func:`shipped_calibrations` that loads, in that order, and what
    is wrong with each file of the team's folder that does not (one stray JSON there must not
    take the others down).

    Returns:
        ``(path, calibration)`` of every file that loads, and one sentence per file of the
        team's folder that was left out.

    Raises:
        ValueError: a file shipped in ``throughput/calibrations`` does not load.

    >>> found, problems = usable_calibrations()
    >>> len(found) >= 3
    True
    """
    found, problems = [], []
    for path in shipped_calibrations():
        try:
            found.append((path, load_calibration(path)))
        except ValueError as error:
            if path.parent == SHIPPED:
                raise
            problems.append(f"{path.name} (in ${CALIBRATIONS_ENV}) was left out: {error}")
    return found, problems


class CalibrationFiles(NamedTuple):
    """The calibrations of files by name (file stem), what is wrong with the team files left
    out, and the names whose file is the team's (the others ship with the tool)."""

    found: dict[str, Calibration]
    problems: list[str]
    team: frozenset[str]


def calibrations_by_name() -> CalibrationFiles:
    """The calibrations of :func:`usable_calibrations` by file stem (a team file replaces a
    shipped one of the same name: the team's folder comes first), what is wrong with the
    team files left out, and which names are the team's.

    >>> files = calibrations_by_name()
    >>> all(isinstance(name, str) for name in files.found), files.team <= set(files.found)
    (True, True)
    """
    usable, problems = usable_calibrations()
    found: dict[str, Calibration] = {}
    team = set()
    for path, calibration in usable:
        name = Path(path).stem
        if name not in found:
            found[name] = calibration
            if Path(path).parent != SHIPPED:
                team.add(name)
    return CalibrationFiles(found, problems, frozenset(team))
