"""Small helpers several test modules share: a nested copy with one value replaced,
stopping a child process for good, and running a command line's ``main(argv)`` in this
process as ``python -m`` would."""
from __future__ import annotations

import copy
import io
import runpy
import subprocess
import sys
import warnings
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from typing import Any, Callable


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


@dataclass
class Finished:
    """What a command line run in this process left: its exit status and what it printed
    (the fields of ``subprocess.CompletedProcess`` that the tests read)."""
    returncode: int
    stdout: str
    stderr: str


def run_main(main: Callable[[list[str]], int | None], *args: str) -> Finished:
    """Run ``main(list(args))`` as ``sys.exit(main())`` under ``python -m`` would: the exit
    status it returns or exits with (argparse exits 2 on a bad option, 0 after ``--help``),
    and its stdout and stderr, with the warnings it raised written to stderr as Python
    writes them. Any other exception propagates, so a command that would end in a
    traceback fails the test.

    >>> def main(argv):
    ...     print("hello", argv[0])
    ...     raise SystemExit(2)
    >>> run_main(main, "world")
    Finished(returncode=2, stdout='hello world\\n', stderr='')
    """
    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(record=True) as caught, redirect_stdout(out), redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as exit_:
            status = exit_.code
    for warning in caught:
        err.write(warnings.formatwarning(warning.message, warning.category, warning.filename, warning.lineno))
    if status is not None and not isinstance(status, int):  # sys.exit("message"): printed, status 1
        err.write(f"{status}\n")
        status = 1
    return Finished(status or 0, out.getvalue(), err.getvalue())


def run_module(module: str, *args: str) -> Finished:
    """``python -m MODULE ARGS`` in this process: the module run as ``__main__`` by runpy,
    as ``-m`` does, with ``sys.argv`` set for it (see :func:`run_main`)."""
    def main(argv: list[str]) -> None:
        saved = sys.argv
        sys.argv = [module, *argv]  # runpy sets argv[0] to the module's file, as -m does
        try:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        finally:
            sys.argv = saved
    return run_main(main, *args)
