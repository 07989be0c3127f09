"""Checks of the fields of a JSON object read from a file (a configuration, a section of
it): each ``check_*`` function refuses a field of the wrong form with one line naming it
and what to do (:data:`EDITED`)."""
from __future__ import annotations

import math
from typing import Any

from .limits import MAX_LIMIT

#: What to do about a configuration field of the wrong form.
EDITED = "export the configuration again (a file that does not verify was edited or damaged)"


def kind_of(value: Any) -> str:
    """A JSON value's kind in words, with the value when it is short.

    >>> kind_of("two"), kind_of(None), kind_of([1]), kind_of(float("nan")), kind_of("x" * 50)[:10]
    ("a string ('two')", 'null', 'a list', 'a number (nan)', 'a string (')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
    return f"a string ({shown})" if isinstance(value, str) else f"a number ({shown})"


def _refuse(where: str, wanted: str, value: Any, fix: str = EDITED) -> ValueError:
    return ValueError(f"{where} must be {wanted}, got {kind_of(value)}; {fix}.")


def check_object(value: Any, where: str) -> dict[str, Any]:
    """``value`` if it is a JSON object, else ``ValueError`` naming the field ``where``.

    >>> check_object("cpu", "throughput.calibration.device")
    Traceback (most recent call last):
    ...
    ValueError: throughput.calibration.device must be an object, got a string ('cpu'); export the configuration again (a file that does not verify was edited or damaged).
    """
    if not isinstance(value, dict):
        raise _refuse(where, "an object", value)
    return value


def check_text(value: Any, where: str, allow_none: bool = False) -> None:
    """Refuse ``value`` unless it is text (or null where allowed).

    >>> check_text(["a"], "throughput.calibration.label")
    Traceback (most recent call last):
    ...
    ValueError: throughput.calibration.label must be text, got a list; export the configuration again (a file that does not verify was edited or damaged).
    """
    if not (isinstance(value, str) or value is None and allow_none):
        raise _refuse(where, "text" + " or null" * allow_none, value)


def check_flag(value: Any, where: str) -> None:
    """Refuse ``value`` unless it is true or false.

    >>> check_flag(1, "batching.strategies.dynamic.given")
    Traceback (most recent call last):
    ...
    ValueError: batching.strategies.dynamic.given must be true or false, got a number (1); export the configuration again (a file that does not verify was edited or damaged).
    """
    if not isinstance(value, bool):
        raise _refuse(where, "true or false", value)


def check_whole(value: Any, where: str, low: int = 0, allow_none: bool = False, high: float = math.inf,
                fix: str = EDITED) -> None:
    """Refuse ``value`` unless it is a whole number from ``low`` to ``high`` (or null where
    allowed); the message ends with ``fix``, what to do about the file.

    >>> check_whole("two", "throughput.run.devices", 1)
    Traceback (most recent call last):
    ...
    ValueError: throughput.run.devices must be a whole number of at least 1, got a string ('two'); export the configuration again (a file that does not verify was edited or damaged).
    >>> check_whole(2**41, "timings[0].nodes", 1, high=2**40, fix="calibrate again instead of editing the file")
    Traceback (most recent call last):
    ...
    ValueError: timings[0].nodes must be a whole number of at least 1 and at most 1,099,511,627,776, got a number (2199023255552); calibrate again instead of editing the file.
    """
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        most = f" and at most {high:,}" if math.isfinite(high) else ""
        raise _refuse(where, f"a whole number of at least {low}{most}" + " or null" * allow_none, value, fix)


def check_number(value: Any, where: str, low: float = -math.inf, high: float = math.inf,
                 above: bool = False) -> None:
    """Refuse ``value`` unless it is a finite number from ``low`` to ``high`` (``above``:
    greater than ``low``).

    >>> check_number(None, "throughput.calibration.fit.held_out.median", 0)
    Traceback (most recent call last):
    ...
    ValueError: throughput.calibration.fit.held_out.median must be a finite number of at least 0, got null; export the configuration again (a file that does not verify was edited or damaged).
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or \
            not (low < value if above else low <= value) or value > high:
        least = f" above {low:g}" if above else f" of at least {low:g}" if math.isfinite(low) else ""
        most = f"{' and' if least else ''} at most {high:g}" if math.isfinite(high) else ""
        raise _refuse(where, f"a finite number{least}{most}", value)


def check_sizes(value: Any, where: str, length: int = 3) -> None:
    """Refuse ``value`` unless it is a list of ``length`` sizes (nodes, edges and, with
    three, graphs): whole numbers from 1 to :data:`packing.MAX_LIMIT`, as a ``BatchShape``
    holds them.

    >>> check_sizes([900, 1800, 40], "throughput.calibration.shape_range")
    >>> check_sizes([900, 1800], "batching.strategies.dynamic.target")
    Traceback (most recent call last):
    ...
    ValueError: batching.strategies.dynamic.target must be a list of three whole numbers (nodes, edges, graphs), got a list; export the configuration again (a file that does not verify was edited or damaged).
    """
    if not isinstance(value, list) or len(value) != length:
        words = "three whole numbers (nodes, edges, graphs)" if length == 3 else f"{length} whole numbers (nodes, edges)"
        raise _refuse(where, f"a list of {words}", value)
    for index, item in enumerate(value):
        check_whole(item, f"{where}[{index}]", 1, high=MAX_LIMIT)
