"""Timing and result files shared by the benchmark scripts."""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pandas as pd


def take_no_options(doc: str, results: str, argv: list[str] | None = None) -> None:
    """Refuse any option on the command line of a benchmark that takes none (``argv``;
    None: the process's): ``--help`` prints what it measures and exits, an unknown argument
    is an error (exit 2); neither runs the benchmark, whose run overwrites ``results``.

    >>> take_no_options("Speed of X.\\n\\nMore.", "benchmarks/results/x.csv", [])  # returns: the caller runs
    >>> take_no_options("Speed of X.", "benchmarks/results/x.csv", ["--fast"])
    Traceback (most recent call last):
    ...
    SystemExit: 2
    """
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0],
                                     epilog=f"Takes no options; a run writes {results}.")
    parser.parse_args(argv)


def timed(run: Callable[[], object], repeats: int, warmup: bool = False) -> tuple[float, object]:
    """Median wall time over ``repeats`` runs (after one untimed run when ``warmup``) and
    the last result.

    >>> seconds, value = timed(lambda: 2 + 2, repeats=3)
    >>> value, seconds >= 0
    (4, True)
    """
    result = run() if warmup else None
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


RESULTS = Path(__file__).resolve().parent / "results"


def save_results(table: pd.DataFrame, name: str, path: Path | None = None) -> Path:
    """Stamp ``table`` with the machine it ran on and write ``benchmarks/results/<name>.csv``
    (or ``path``)."""
    table = table.assign(machine=f"{platform.machine()}, {os.cpu_count()} cores")
    path = RESULTS / f"{name}.csv" if path is None else path
    path.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(path, index=False)
    print(f"\nwrote {path}")
    return path


REPO = Path(__file__).resolve().parent.parent


def packing_copy(into: Path, commit: str | None = None) -> Path:
    """A copy of the ``packing`` package under ``into`` for a subprocess's PYTHONPATH: as of
    ``commit`` (``git archive``), or as in this working tree when ``commit`` is None.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     (packing_copy(Path(folder)) / "packing" / "greedy.py").exists()
    True
    """
    into.mkdir(parents=True, exist_ok=True)
    if commit is None:
        shutil.copytree(REPO / "packing", into / "packing", ignore=shutil.ignore_patterns("__pycache__"))
    else:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", commit, "packing"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def histogram_payload(hist) -> dict[str, list[int]]:
    """A histogram's bins as JSON-ready lists, for a script run in a fresh Python
    (:func:`run_isolated`), which rebuilds it with ``SizeHistogram.from_counts``.

    >>> from packing import SizeHistogram
    >>> histogram_payload(SizeHistogram.from_sizes([3, 2, 3], [4, 2, 4]))
    {'nodes': [2, 3], 'edges': [2, 4], 'counts': [1, 2]}
    """
    return {"nodes": hist.num_nodes.tolist(), "edges": hist.num_edges.tolist(), "counts": hist.counts.tolist()}


def run_isolated(code: Path, script: str, payload: dict) -> dict:
    """Run ``script`` in a fresh Python whose only project code is ``code`` (its working
    folder and PYTHONPATH); ``payload`` goes in as JSON on stdin, the last stdout line
    comes back as JSON.

    >>> run_isolated(Path("."), "import json, sys; print(json.dumps(json.load(sys.stdin)))", {"a": 1})
    {'a': 1}
    """
    env = {**os.environ, "PYTHONPATH": str(code)}
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps(payload), capture_output=True, text=True,
                          cwd=code, env=env)
    if done.returncode:
        raise RuntimeError(f"isolated run in {code} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def side_by_side(codes: dict[str, Path], script: str, payload: dict, rounds: int) -> dict[str, list[dict]]:
    """``rounds`` runs of ``script`` per code version, alternating (old, new, old, new, ...)
    so that both meet the same spells of load on a shared machine; every run's result.

    >>> side_by_side({"here": Path(".")}, "import json; print(json.dumps(1))", {}, rounds=2)
    {'here': [1, 1]}
    """
    results: dict[str, list[dict]] = {name: [] for name in codes}
    for _ in range(rounds):
        for name, code in codes.items():
            results[name].append(run_isolated(code, script, payload))
    return results
