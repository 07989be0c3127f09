"""The ``throughput`` section of the exported configuration JSON, checked when a
configuration is loaded (:func:`check_throughput_section`), without importing the
``throughput`` package, which writes the section (its format: ``throughput/report.py``).

A section holds ``version`` (1 or 2), ``calibration`` and ``run`` (objects), ``baseline``
(text), ``check`` (an object or null) and ``check_note`` (text; both since version 2) and
``table``: one object per strategy with its ``strategy`` name, its ``settings`` in words,
whether the estimate was ``extrapolated`` and finite numbers in every other column; a
version 2 table has at least ``TABLE_COLUMNS`` (version 1 had other times: the report
shows its table as stored).
"""
from __future__ import annotations

import math
from typing import Any

VERSIONS = (1, 2)
#: Columns every row of a version 2 table has (the report and its chart read them).
TABLE_COLUMNS = ("steps_per_epoch", "step_ms", "steady_epoch_s", "steady_low", "steady_high", "run_s", "run_low",
                 "run_high", "compile_seconds", "speedup_steady", "speedup_run")


def check_throughput_section(section: Any) -> dict[str, Any]:
    """Check a ``throughput`` section read from a configuration file; returns it, or raises
    ``ValueError`` naming the first malformed field.

    >>> row = {"strategy": "packing", **dict.fromkeys(TABLE_COLUMNS, 1.5), "extrapolated": False}
    >>> section = {"version": 2, "calibration": {"label": "gin on a CPU"}, "run": {"batch_size": 32},
    ...            "baseline": "pyg_dataloader", "check": None, "check_note": "not checked on this machine",
    ...            "table": [row]}
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
    if type(version) is not int or version not in VERSIONS:
        raise ValueError(f"throughput.version must be 1 or 2, got {version!r}.")
    for name in ("calibration", "run"):
        if not isinstance(section.get(name), dict):
            raise ValueError(f"throughput.{name} must be an object.")
    since_2 = version >= 2  # version 1 had no check
    for name in ("baseline", "check_note") if since_2 or "check_note" in section else ("baseline",):
        if not isinstance(section.get(name), str):
            raise ValueError(f"throughput.{name} must be text, got {section.get(name)!r}.")
    if (since_2 or "check" in section) and not isinstance(section.get("check"), (dict, type(None))):
        raise ValueError("throughput.check must be an object or null.")
    rows = section.get("table")
    if not isinstance(rows, list) or not rows:
        raise ValueError("throughput.table must be a non-empty list of rows, one per strategy.")
    for index, row in enumerate(rows):
        _check_row(row, f"throughput.table[{index}]")
        lacking = [column for column in TABLE_COLUMNS if column not in row] if since_2 else []
        if lacking:
            raise ValueError(f"throughput.table[{index}] lacks {', '.join(lacking)} (a version 2 table has "
                             f"{', '.join(TABLE_COLUMNS)}).")
    return section


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
            if not isinstance(value, bool):
                raise ValueError(f"{where}.extrapolated must be true or false, got {value!r}.")
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"{where}.{column} must be a finite number, got {value!r}.")
