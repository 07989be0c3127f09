"""Reading a JSON object that a user hands over (a path, JSON text, bytes or an already
parsed dict), with one set of clear errors: no file, too large, not JSON, nested too deeply,
not an object. The configuration export and throughput calibrations both read this way."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _file_text(path: Path, kind: str, max_bytes: int) -> str:
    try:
        if not path.is_file():
            raise ValueError(f"No {kind} file at {path}" + (" (it is a folder)." if path.is_dir() else "."))
        if path.stat().st_size > max_bytes:
            raise ValueError(f"{path.name} is larger than {max_bytes // 2**20} MB; not a {kind} file.")
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise ValueError(f"The {kind} file {path} could not be read: {error.strerror or error}.") from None


def read_json_object(source: Any, kind: str, max_bytes: int) -> tuple[dict[str, Any], str]:
    """The JSON object in ``source`` and a name for it in messages; ``kind`` names what the
    file should be (``"configuration"``). A ``ValueError`` says what is wrong otherwise.

    >>> read_json_object('{"a": 1}', "configuration", 2**20)
    ({'a': 1}, 'the configuration text')
    >>> read_json_object(b"[1]", "calibration", 2**20)
    Traceback (most recent call last):
    ...
    ValueError: the uploaded calibration is not a calibration file: the JSON is not an object.
    """
    if isinstance(source, dict):
        return source, f"the {kind}"
    if isinstance(source, bytes):
        text, name = source.decode("utf-8", errors="replace"), f"the uploaded {kind}"
    elif isinstance(source, str) and source.lstrip()[:1] in ("{", "["):
        text, name = source, f"the {kind} text"
    elif isinstance(source, (str, Path)) and str(source).strip():
        text, name = _file_text(Path(source), kind, max_bytes), Path(source).name
    else:
        raise ValueError(f"Give a {kind} file path, JSON text, bytes or a dict; got {str(source)[:80]!r}.")
    if len(text) > max_bytes:
        raise ValueError(f"{name} is larger than {max_bytes // 2**20} MB; not a {kind} file.")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{name} is not a {kind} file: invalid JSON ({error.msg} at line {error.lineno}).") from None
    except RecursionError:
        raise ValueError(f"{name} is not a {kind} file: the JSON is nested too deeply.") from None
    if not isinstance(data, dict):
        raise ValueError(f"{name} is not a {kind} file: the JSON is not an object.")
    return data, name
