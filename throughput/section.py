"""The ``throughput`` section of the exported configuration JSON, checked when a
configuration is loaded (:func:`check_throughput_section`, :func:`load_checked_config`),
and the notes of an estimate in words (the one-off compilation cost, the shapes beyond the
calibration), which the Throughput page, the report and ``python -m throughput estimate``
print. :mod:`throughput.report` writes the section.

A section holds ``version`` (1: a section of any other version was written by a
development version before the first release and is refused), ``calibration`` and ``run``
(objects), ``baseline`` (text), ``check`` (an object or null), ``check_note`` (text) and
``table``: one object per strategy (each named once) with its ``strategy`` name, its
``settings`` in words, whether the estimate was ``extrapolated`` and finite numbers of at
least 0 (speed-ups above 0) in every other column, but the loading and wall-time columns
(``WALL_COLUMNS``), which are null where the calibration had no loader timings and
``bound_by`` text ("loader" or "model"); every row has at least ``TABLE_COLUMNS``, its
largest padded shape (``max_padded_*``) among them. ``wall`` is an object: ``workers`` and
``parallel_workers``, the workers building batches at once on the calibrated machine,
whole numbers, ``device_batches`` and ``priced``, true or false. ``calibration`` holds the
largest shape it timed, ``shape_range`` (three whole numbers: what the extrapolation note
compares the padded shapes with); its other fields and those of ``run`` that the report
reads may be left out, but where given have their form (:func:`check_calibration_summary`):
the device, model, fit and held-out error objects, text, whole numbers and errors of at
least 0.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from packing import BatchShape, PackingPlan
from packing.fields import EDITED, check_number, check_object, check_sizes, check_text, check_whole
from packing.io import load_config
from packing.words import short_run_note, three_digits

#: The only version read: sections of the development versions before the first release are refused.
SECTION_VERSION = 1
#: Run and steady speed-ups further apart than this share are reported as one-off cost.
ONE_OFF_SHARE = 0.1
#: Columns every row of a table has (the report and its chart read them).
TABLE_COLUMNS = ("steps_per_epoch", "step_ms", "steady_epoch_s", "steady_low", "steady_high", "run_s", "run_low",
                 "run_high", "compile_seconds", "speedup_steady", "speedup_run", "max_padded_nodes", "max_padded_edges",
                 "max_padded_graphs")
#: Columns of the loading and the wall time: null where the calibration had no loader timings.
WALL_COLUMNS = ("epochs_run", "loader_first_epoch_s", "loader_later_epoch_s", "handoff_epoch_s", "loader_band",
                "loader_epoch_s", "wall_steady_epoch_s", "wall_steady_low", "wall_steady_high", "wall_run_s",
                "wall_run_low", "wall_run_high", "wall_epoch_s", "wall_speedup_steady", "wall_speedup_run",
                "loader_share")
#: What bounds a row's wall time (``bound_by``).
BOUNDS = ("loader", "model")
#: The largest number a table holds (a time of 30 million years): beyond it a chart's axis overflows.
MOST = 1e15


def check_throughput_section(section: Any) -> dict[str, Any]:
    """Check a ``throughput`` section read from a configuration file; returns it, or raises
    ``ValueError`` naming the first malformed field.

    >>> row = {"strategy": "packing", **dict.fromkeys(TABLE_COLUMNS, 1.5), "extrapolated": False}
    >>> section = {"version": 1, "calibration": {"label": "gin on a CPU", "shape_range": [900, 1800, 40]},
    ...            "run": {"batch_size": 32}, "baseline": "pyg_dataloader", "check": None,
    ...            "check_note": "not checked on this machine", "table": [row],
    ...            "wall": {"workers": 0, "parallel_workers": 0, "device_batches": False, "priced": False}}
    >>> check_throughput_section(section) is section
    True
    >>> check_throughput_section({**section, "table": [{**row, "run_s": "fast"}]})
    Traceback (most recent call last):
    ...
    ValueError: throughput.table[0].run_s must be a finite number, got 'fast'.
    """
    if not isinstance(section, dict):
        raise ValueError(f"throughput must be an object, got {type(section).__name__}.")
    version = section.get("version")
    if type(version) is not int or version != SECTION_VERSION:
        raise ValueError(f"throughput.version {version!r} is not supported (this tool reads version "
                         f"{SECTION_VERSION}): the section was written by an earlier development version; "
                         "export the configuration again.")
    check_calibration_summary(check_object(section.get("calibration"), "throughput.calibration"))
    _check_run(check_object(section.get("run"), "throughput.run"))
    for name in ("baseline", "check_note"):
        check_text(section.get(name), f"throughput.{name}")
    if not isinstance(section.get("check"), (dict, type(None))):
        raise ValueError("throughput.check must be an object or null.")
    wall = _check_wall(section.get("wall"))
    rows = section.get("table")
    if not isinstance(rows, list) or not rows:
        raise ValueError("throughput.table must be a non-empty list of rows, one per strategy.")
    for index, row in enumerate(rows):
        _check_row(row, f"throughput.table[{index}]")
        lacking = [column for column in TABLE_COLUMNS if column not in row]
        if lacking:
            raise ValueError(f"throughput.table[{index}] lacks {', '.join(lacking)} (every row has "
                             f"{', '.join(TABLE_COLUMNS)}).")
    if wall["priced"]:
        _check_priced(rows)
    names = [row["strategy"] for row in rows]
    if len(set(names)) < len(names):
        raise ValueError(f"throughput.table names a strategy twice ({', '.join(names)}); {EDITED}.")
    return section


def load_checked_config(source: str | Path | bytes | dict[str, Any]) -> tuple[dict[str, Any], PackingPlan]:
    """A configuration and its plan (:func:`packing.io.load_config`) with its ``throughput``
    section, when it has one, checked (:func:`check_throughput_section`).

    >>> from packing import PackLimits, SizeHistogram, export_config, pack
    >>> hist = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2])
    >>> config = export_config(pack(hist, PackLimits(5, 6, 4)), hist, {}, {"throughput": {"version": 0}})
    >>> load_checked_config(config)
    Traceback (most recent call last):
    ...
    ValueError: throughput.version 0 is not supported (this tool reads version 1): the section was written by an earlier development version; export the configuration again.
    """
    config, plan = load_config(source)
    if "throughput" in config:
        check_throughput_section(config["throughput"])
    return config, plan


def _optional(data: dict[str, Any], where: str, checks: dict[str, Callable[[Any, str], Any]]) -> None:
    """Apply ``checks[name]`` to each field ``name`` that ``data`` has (a field may be left out)."""
    for name, check in checks.items():
        if name in data:
            check(data[name], f"{where}.{name}")


def _whole_from(low: int, allow_none: bool = False) -> Callable[[Any, str], None]:
    return lambda value, where: check_whole(value, where, low, allow_none)


def _error(value: Any, where: str) -> None:
    check_number(value, where, 0)


def _device(value: Any, where: str) -> None:
    _optional(check_object(value, where), where, {"name": check_text, "device": check_text, "type": check_text,
                                                  "threads": _whole_from(1, allow_none=True)})


def _model(value: Any, where: str) -> None:
    _optional(check_object(value, where), where, {"name": check_text, "hidden": _whole_from(1),
                                                  "layers": _whole_from(1)})


def _held_out(value: Any, where: str) -> None:
    _optional(check_object(value, where), where, {"median": _error, "p90": _error, "max": _error, "rms": _error,
                                                  "shapes": _whole_from(0)})


def _fit(value: Any, where: str) -> None:
    _optional(check_object(value, where), where, {"form": check_text, "model": check_text, "held_out": _held_out})


def _compile(value: Any, where: str) -> None:
    if value is not None:
        check_object(value, where)


def check_calibration_summary(calibration: dict[str, Any]) -> dict[str, Any]:
    """Check the calibration a ``throughput`` section names: it has ``shape_range``, and
    each other field it has is of the form the report and the pages read; returns it.

    >>> check_calibration_summary({"label": "gin", "shape_range": [900, 1800, 40]})["label"]
    'gin'
    >>> check_calibration_summary({"label": "gin"})
    Traceback (most recent call last):
    ...
    ValueError: throughput.calibration.shape_range must be a list of three whole numbers (nodes, edges, graphs), got null; export the configuration again (a file that does not verify was edited or damaged).
    >>> check_calibration_summary({"fit": {"held_out": {"median": None}}})
    Traceback (most recent call last):
    ...
    ValueError: throughput.calibration.fit.held_out.median must be a finite number of at least 0, got null; export the configuration again (a file that does not verify was edited or damaged).
    """
    _optional(calibration, "throughput.calibration", {
        "label": check_text, "device": _device, "versions": check_object, "model": _model, "mode": check_text,
        "created": check_text, "shapes_timed": _whole_from(0), "fit": _fit,
        "compile": _compile, "source": check_text})
    check_sizes(calibration.get("shape_range"), "throughput.calibration.shape_range")
    return calibration


def _check_run(run: dict[str, Any]) -> None:
    _optional(run, "throughput.run", {
        "batch_size": _whole_from(1), "steps": _whole_from(1, allow_none=True),
        "epochs": _whole_from(1, allow_none=True), "seed": _whole_from(0), "devices": _whole_from(1),
        "num_shapes": _whole_from(1, allow_none=True)})


def _check_flag(value: Any, where: str) -> None:
    if not isinstance(value, bool):
        raise ValueError(f"{where} must be true or false, got {value!r}.")


def _check_wall(wall: Any) -> dict[str, Any]:
    """The section's ``wall``, every one of its fields given and of its form."""
    checked = check_object(wall, "throughput.wall")
    for name, check in {"workers": _whole_from(0), "parallel_workers": _whole_from(0), "device_batches": _check_flag,
                        "priced": _check_flag}.items():
        check(checked.get(name), f"throughput.wall.{name}")
    return checked


def _check_priced(rows: list[dict[str, Any]]) -> None:
    """A table priced in wall time has a number in every wall column of every row."""
    for index, row in enumerate(rows):
        empty = [column for column in (*WALL_COLUMNS, "bound_by") if column in row and row[column] is None]
        if empty:
            raise ValueError(f"throughput.table[{index}].{empty[0]} is null in a table priced in wall time "
                             f"(throughput.wall.priced); {EDITED}.")


def _check_row(row: Any, where: str) -> None:
    if not isinstance(row, dict):
        raise ValueError(f"{where} must be an object.")
    if not isinstance(row.get("strategy"), str):
        raise ValueError(f"{where}.strategy must be text, got {row.get('strategy')!r}.")
    for column, value in row.items():
        if column in ("strategy", "settings"):
            if not isinstance(value, str):
                raise ValueError(f"{where}.{column} must be text, got {value!r}.")
        elif column == "extrapolated":
            _check_flag(value, f"{where}.extrapolated")
        elif column == "bound_by":
            if value is not None and value not in BOUNDS:
                raise ValueError(f"{where}.bound_by must be {' or '.join(map(repr, BOUNDS))} or null, got {value!r}.")
        elif value is None and column in WALL_COLUMNS:
            continue
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"{where}.{column} must be a finite number, got {value!r}.")
        else:  # times, counts, shares and speed-ups: none is negative, a speed-up divides
            check_number(value, f"{where}.{column}", 0, MOST, above="speedup" in column)


def extrapolation_note(table: pd.DataFrame, label: Callable[[str], str] = str) -> str:
    """For the strategies whose largest padded shape is beyond what the calibration timed:
    which sizes, and the command that times far enough, in backticks as Markdown marks code
    (``label`` names a strategy); "" when none is.

    >>> rows = pd.DataFrame({"strategy": ["packing", "dynamic"], "max_padded_nodes": [900, 300],
    ...                      "max_padded_edges": [1800, 600], "max_padded_graphs": [833, 32],
    ...                      "extrapolated": [True, False]})
    >>> rows.attrs["calibration"] = {"shape_range": [17109, 262144, 399], "mode": "eager",
    ...                              "device": {"device": "cpu", "type": "cpu", "threads": 1},
    ...                              "model": {"name": "gin", "hidden": 64, "layers": 3}}
    >>> extrapolation_note(rows)
    'Extrapolated: the padded shapes of packing (833 graphs) are larger than any the calibration timed (17,109 nodes, 262,144 edges, 399 graphs; up to 2.09x the largest timed). Their times have no error band: the band measures the fit on the shapes it timed, not beyond them. To measure them, calibrate with `python -m throughput calibrate --model gin --hidden 64 --layers 3 --mode eager --device cpu --threads 1 --max-nodes 17109 --max-edges 262144 --max-graphs 833`.'
    """
    beyond = table[table["extrapolated"]]
    if beyond.empty:
        return ""
    calibration = table.attrs["calibration"]
    timed = calibration["shape_range"]
    sides = ("nodes", "edges", "graphs")
    largest = [int(beyond[f"max_padded_{side}"].max()) for side in sides]
    parts = [f"{label(row['strategy'])} (" + ", ".join(
        f"{int(row[f'max_padded_{side}']):,} {side}" for side, most in zip(sides, timed)
        if row[f"max_padded_{side}"] > most) + ")" for _, row in beyond.iterrows()]
    if len(parts) > 3:  # one clause, not a list of every strategy
        parts = [f"{len(parts)} strategies (up to " + ", ".join(
            f"{need:,} {side}" for side, need, most in zip(sides, largest, timed) if need > most) + ")"]
    reach = max(need / most for need, most in zip(largest, timed) if most > 0)
    model, device = calibration.get("model", {}), calibration.get("device", {})
    known = {"--model": model.get("name"), "--hidden": model.get("hidden"), "--layers": model.get("layers"),
             "--mode": calibration.get("mode"), "--device": device.get("device"),
             "--threads": device.get("threads") if device.get("type") == "cpu" else None}  # as the calibration ran
    flags = " ".join(f"{flag} {value}" for flag, value in known.items() if value is not None)
    flags += "".join(f" --max-{side} {max(need, most)}" for side, need, most in zip(sides, largest, timed))
    return (f"Extrapolated: the padded shapes of {' and '.join(parts)} are larger than any the calibration timed "
            f"({BatchShape(*timed)}; up to {reach:.3g}x the largest timed). Their "
            "times have no error band: the band measures the fit on the shapes it timed, not beyond them. "
            f"To measure them, calibrate with `python -m throughput calibrate {flags}`.")


def one_off_note(table: pd.DataFrame, label: Callable[[str], str] = str) -> str:
    """One sentence naming every strategy whose speed-up over the run differs from its
    steady speed-up by more than 10 %: the difference is compilation, paid once per run
    (``label`` names a strategy); "" when there is none. Compilations are counted per
    device: with two devices one shape is compiled twice.

    >>> rows = pd.DataFrame({"strategy": ["dynamic", "static_64", "pyg_dataloader"], "speedup_run": [2.6, 0.8, 1.0],
    ...                      "speedup_steady": [1.2, 1.2, 1.0], "compile_seconds": [8.6, 93.8, 34.5],
    ...                      "compilations": [1, 32, 8]})
    >>> rows.attrs["baseline"] = "pyg_dataloader"
    >>> one_off_note(rows)
    'Compilation is a one-off cost that a longer run spreads thinner, so the speed-ups over the run and per steady epoch differ (pyg_dataloader, the baseline: 8 compilations in 34.5 s): dynamic 2.60x over the run, 1.20x per steady epoch (1 compilation in 8.60 s); static_64 0.80x over the run, 1.20x per steady epoch (32 compilations in 93.8 s).'
    """
    baseline = table.attrs.get("baseline")
    rows = table.set_index("strategy")

    def cost(row: pd.Series) -> str:
        count = int(row["compilations"])
        return f"{count:,} compilation{'s' if count != 1 else ''} in {three_digits(row['compile_seconds'])} s"

    items = [f"{label(name)} {row['speedup_run']:.2f}x over the run, {row['speedup_steady']:.2f}x per steady epoch"
             + (f" ({cost(row)})" if "compilations" in row else "")
             for name, row in rows.iterrows() if abs(row["speedup_run"] / row["speedup_steady"] - 1) > ONE_OFF_SHARE]
    if not items:
        return ""
    against = f" ({label(baseline)}, the baseline: {cost(rows.loc[baseline])})" \
        if baseline in rows.index and "compilations" in rows else ""
    return ("Compilation is a one-off cost that a longer run spreads thinner, so the speed-ups over the run and per "
            f"steady epoch differ{against}: " + "; ".join(items) + ".")


def devices_note(table: pd.DataFrame) -> str:
    """For a run on several devices: what the estimate leaves out; "" for one device.

    >>> rows = pd.DataFrame({"strategy": ["packing"]})
    >>> rows.attrs["run"] = {"devices": 4}
    >>> devices_note(rows)[:52]
    '4 devices: each step is priced at its slowest device'
    """
    devices = table.attrs.get("run", {}).get("devices", 1)
    if devices <= 1:
        return ""
    return (f"{devices} devices: each step is priced at its slowest device's batch, from a calibration of one "
            "device; what data parallelism adds (the gradient all-reduce, DDP's hooks) was not measured and is not "
            "in these times.")


def estimate_notes(table: pd.DataFrame, label: Callable[[str], str] = str) -> list[str]:
    """Every note on an estimate table in words, for a report or a terminal: the one-off
    compilation costs, the shapes beyond the calibration, a run on several devices and a run
    shorter than an epoch (the Throughput page shows each in its own box).

    >>> rows = pd.DataFrame({"strategy": ["packing"], "speedup_run": [1.0], "speedup_steady": [1.0],
    ...                      "extrapolated": [False], "steps_per_epoch": [900.0]})
    >>> rows.attrs["run"] = {"steps": 10}
    >>> estimate_notes(rows)[0][:38]
    'This run of 10 steps is shorter than o'
    """
    return [note for note in (one_off_note(table, label), extrapolation_note(table, label), devices_note(table),
                              short_run_note(table, label)) if note]
