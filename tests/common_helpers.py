"""Small helpers several test modules share: a nested copy with one value replaced, and
stopping a child process for good."""
from __future__ import annotations

import copy
import subprocess
from typing import Any


def replaced(data: dict, path: tuple, value: Any) -> dict:
    """A deep copy of ``data`` with the item at ``path`` (keys and indices) set to ``value``.

    >>> replaced({"a": [1, {"b": 2}]}, ("a", 1, "b"), 3)
    {'a': [1, {'b': 3}]}
    """
    copied = copy.deepcopy(data)
    target = copied
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return copied


def stop_process(process: subprocess.Popen, timeout: float) -> None:
    """Terminate ``process``; kill it if it has not ended after ``timeout`` seconds."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
