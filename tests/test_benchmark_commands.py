"""Every benchmark script answers --help without running: a run overwrites the committed
results under benchmarks/results, so asking how to use one must not. Each script runs as
``python -m benchmarks.X`` in this process (runpy); one refusal runs in a real process."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from common_helpers import run_module

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(path.stem for path in (ROOT / "benchmarks").glob("*.py")
                 if path.read_text(encoding="utf-8").count('if __name__ == "__main__":'))


def results_state() -> dict[str, int]:
    return {path.name: path.stat().st_mtime_ns for path in (ROOT / "benchmarks" / "results").iterdir()}


@pytest.mark.parametrize("script", SCRIPTS)
def test_help_prints_usage_and_writes_no_results(script):
    before = results_state()
    done = run_module(f"benchmarks.{script}", "--help")
    assert done.returncode == 0 and done.stdout.startswith("usage:"), done.stderr[-2000:]
    assert results_state() == before


def test_an_unknown_option_is_refused_before_the_run():
    """In a real process: the entry point of a benchmark script."""
    done = subprocess.run([sys.executable, "-m", "benchmarks.table2", "--fast"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and "unrecognized arguments: --fast" in done.stderr
