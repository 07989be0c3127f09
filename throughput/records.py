"""The measured step times at one shape, as stored in a calibration file (no torch here).

>>> row = ShapeTiming((100, 200, 4), 0.01, 0.009, 0.011, 0.008, 5).to_dict()
>>> ShapeTiming.from_dict(row, "timings[0]") == ShapeTiming((100, 200, 4), 0.01, 0.009, 0.011, 0.008, 5)
True
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from packing import MAX_LIMIT, BatchShape
from packing.fields import check_whole


#: A timed step or compilation lies between a nanosecond and about eleven days.
SHORTEST, LONGEST = 1e-9, 1e6
#: What to do about a calibration file with a field of the wrong form.
RECALIBRATE = "calibrate again instead of editing the file"


def _seconds(value: Any, where: str, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or \
            not (SHORTEST <= value <= LONGEST or (value == 0 and allow_zero)):
        raise ValueError(f"{where} must be {'0 or ' if allow_zero else ''}between {SHORTEST:g} and {LONGEST:g} "
                         f"seconds, got {value!r}; {RECALIBRATE}.")
    return float(value)


@dataclass(frozen=True)
class ShapeTiming:
    """Step times measured at one shape: median, quartiles and fastest (seconds), how
    many steps were timed, in compiled mode the cost of the shape's compilation and in
    cudagraph mode the cost of its CUDA graph capture, with the eager step's median
    (priced for shapes past torch's recompile limit, or that cannot be captured)."""

    shape: BatchShape
    median: float
    p25: float
    p75: float
    fastest: float
    repeats: int
    compile_seconds: float | None = None
    eager_median: float | None = None
    capture_seconds: float | None = None

    def to_dict(self) -> dict[str, Any]:
        nodes, edges, graphs = self.shape
        row = {"nodes": nodes, "edges": edges, "graphs": graphs, "median": self.median, "p25": self.p25,
               "p75": self.p75, "min": self.fastest, "repeats": self.repeats}
        if self.compile_seconds is not None:
            row.update(compile_seconds=self.compile_seconds, eager_median=self.eager_median)
        if self.capture_seconds is not None:
            row.update(capture_seconds=self.capture_seconds, eager_median=self.eager_median)
        return row

    @classmethod
    def from_dict(cls, row: Any, where: str) -> "ShapeTiming":
        """One row of a calibration's ``timings`` (``ValueError`` naming the bad field).

        >>> row = {"nodes": 64, "edges": 128, "graphs": 2, "median": 0.002, "p25": 0.002, "p75": 0.002,
        ...        "min": 0.002, "repeats": 5, "capture_seconds": 0.03, "eager_median": 0.004}
        >>> ShapeTiming.from_dict(row, "timings[0]").capture_seconds
        0.03
        >>> ShapeTiming.from_dict({**row, "compile_seconds": 9.0}, "timings[0]")
        Traceback (most recent call last):
        ...
        ValueError: timings[0] holds both compile_seconds and capture_seconds: a calibration times one mode; \
calibrate again instead of editing the file.
        """
        if not isinstance(row, dict):
            raise ValueError(f"{where} must be an object.")
        for name, low in (("nodes", 1), ("edges", 0), ("graphs", 1), ("repeats", 1)):
            check_whole(row.get(name), f"{where}.{name}", low, high=MAX_LIMIT, fix=RECALIBRATE)
        shape = BatchShape(row["nodes"], row["edges"], row["graphs"])
        values = [_seconds(row.get(name), f"{where}.{name}") for name in ("median", "p25", "p75", "min")]
        if not values[3] <= values[1] <= values[0] <= values[2]:
            raise ValueError(f"{where}: the times must satisfy min <= p25 <= median <= p75.")
        if "compile_seconds" in row and "capture_seconds" in row:
            raise ValueError(f"{where} holds both compile_seconds and capture_seconds: a calibration times one "
                             f"mode; {RECALIBRATE}.")
        one_off = {name: _seconds(row[name], f"{where}.{name}", allow_zero=True)
                   for name in ("compile_seconds", "capture_seconds") if name in row}
        eager = _seconds(row.get("eager_median"), f"{where}.eager_median") if one_off else None
        return cls(shape, *values, row["repeats"], eager_median=eager, **one_off)
