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


#: A timed step or compilation lies between a nanosecond and about eleven days.
SHORTEST, LONGEST = 1e-9, 1e6


def _seconds(value: Any, where: str, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or \
            not (SHORTEST <= value <= LONGEST or (value == 0 and allow_zero)):
        raise ValueError(f"{where} must be {'0 or ' if allow_zero else ''}between {SHORTEST:g} and {LONGEST:g} "
                         f"seconds, got {value!r}; calibrate again instead of editing the file.")
    return float(value)


def _count(value: Any, where: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= MAX_LIMIT:
        raise ValueError(f"{where} must be a whole number between {low} and {MAX_LIMIT:,} (2^40), got {value!r}.")
    return value


@dataclass(frozen=True)
class ShapeTiming:
    """Step times measured at one shape: median, quartiles and fastest (seconds), how
    many steps were timed, and in compiled mode the cost of the shape's compilation and
    the eager step's median (priced for shapes past torch's recompile limit)."""

    shape: BatchShape
    median: float
    p25: float
    p75: float
    fastest: float
    repeats: int
    compile_seconds: float | None = None
    eager_median: float | None = None

    def to_dict(self) -> dict[str, Any]:
        nodes, edges, graphs = self.shape
        row = {"nodes": nodes, "edges": edges, "graphs": graphs, "median": self.median, "p25": self.p25,
               "p75": self.p75, "min": self.fastest, "repeats": self.repeats}
        if self.compile_seconds is not None:
            row.update(compile_seconds=self.compile_seconds, eager_median=self.eager_median)
        return row

    @classmethod
    def from_dict(cls, row: Any, where: str) -> "ShapeTiming":
        """One row of a calibration's ``timings`` (``ValueError`` naming the bad field)."""
        if not isinstance(row, dict):
            raise ValueError(f"{where} must be an object.")
        shape = BatchShape(_count(row.get("nodes"), f"{where}.nodes", 1), _count(row.get("edges"), f"{where}.edges", 0),
                           _count(row.get("graphs"), f"{where}.graphs", 1))
        values = [_seconds(row.get(name), f"{where}.{name}") for name in ("median", "p25", "p75", "min")]
        if not values[3] <= values[1] <= values[0] <= values[2]:
            raise ValueError(f"{where}: the times must satisfy min <= p25 <= median <= p75.")
        compiled = None if "compile_seconds" not in row else (
            _seconds(row["compile_seconds"], f"{where}.compile_seconds", allow_zero=True),
            _seconds(row.get("eager_median"), f"{where}.eager_median"))
        return cls(shape, *values, _count(row.get("repeats"), f"{where}.repeats", 1),
                   *(compiled or (None, None)))
