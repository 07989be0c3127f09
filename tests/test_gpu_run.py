"""benchmarks/gpu_run.py, the one script a lent GPU machine runs: its dry run on this CPU
(every part that needs no CUDA, at tiny sizes, through the same child processes), the
budgets its --help states, its refusal without CUDA, and a part that fails or overruns its
budget not losing the parts after it."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import torch

from benchmarks import gpu_run
from benchmarks.bench_loader import load_dataset
from packing import recommend
from throughput import load_calibration

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def dry_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("gpu")
    start = time.monotonic()
    summary = gpu_run.main([str(out), "--dry-run"])
    summary["test_seconds"] = time.monotonic() - start
    return out, summary


def test_the_dry_run_runs_every_part_that_needs_no_cuda_and_records_each(dry_run):
    out, summary = dry_run
    assert json.loads((out / "summary.json").read_text(encoding="utf-8")) == {
        key: value for key, value in summary.items() if key != "test_seconds"}
    assert summary["dry_run"] is True and summary["torch"] == torch.__version__ and summary["device"]
    assert summary["total_budget_s"] == sum(part.budget_s for part in gpu_run.PARTS) <= 8 * 60
    statuses = {part["name"]: part["status"] for part in summary["parts"]}
    assert statuses == {"tests": "ok", "calibrate-eager": "ok", "calibrate-compile": "skipped: no compilation in a dry run",
                        "calibrate-cudagraph": "skipped: no capture on a CPU", "loader-eager": "ok",
                        "loader-compile": "skipped: no compilation in a dry run", "loader-workers": "ok", "wall": "ok"}
    for part in summary["parts"]:
        assert part["seconds"] <= part["budget_s"]
        if part["status"] == "ok":
            assert part["log"] == f"{part['name']}.log" and part["log"] in part["files"]
    assert summary["test_seconds"] < 90  # tiny sizes: the GPU minutes go to measuring


def test_the_dry_run_collects_the_gpu_tests(dry_run):
    out, summary = dry_run
    log = (out / "tests.log").read_text(encoding="utf-8")
    for test in ("test_each_replay_trains_on_its_own_batch[device-resident batches]",
                 "test_cuda_batches_equal_cpu_batches_and_never_wait_on_the_gpu",
                 "test_readme_gpu_example_trains_as_shown_on_a_gpu"):
        assert f"<Function {test}>" in log  # collected, run on the GPU
    assert (out / "tests.xml").exists()


def test_the_dry_run_writes_a_calibration_under_its_own_name(dry_run):
    out, summary = dry_run
    (name,) = [name for name in summary["parts"][1]["files"] if name.endswith(".json")]
    cal = load_calibration(out / name)  # verified on load
    assert name == cal.filename and cal.mode == "eager" and len(cal.timings) == 6


def test_the_dry_run_compares_predicted_and_measured_wall_time(dry_run):
    out, summary = dry_run
    cal = load_calibration(out / next(name for name in summary["parts"][1]["files"] if name.endswith(".json")))
    assert cal.loaders is not None  # the eager calibration times the loaders the wall part prices with
    wall = pd.read_csv(out / "throughput.csv")
    assert sorted(zip(wall["loader"].str.split(" ").str[0], wall["workers"])) == [
        ("PyG", 0), ("PyG", 2), ("packed", 0), ("packed", 2)]
    assert (wall["dataset"] == "ogbg-molhiv train").all() and (wall["epochs"] == 1).all()
    assert (wall["wall_ratio"] > 0).all() and (wall["run_wall_s"] >= wall["measured_run_s"]).all()  # times rounded
    assert set(wall["calibration"]) == {cal.filename}


def test_the_dry_run_times_the_loader_rows_of_the_gpu_run(dry_run):
    out, _ = dry_run
    eager = pd.read_csv(out / "loader_eager.csv")
    _, hist = load_dataset(400)
    recommended = f"recommended for batch size 128: {recommend(hist, 128).limits}"
    assert sorted(zip(eager["loader"], eager["limits"].str.split(",").str[0].str.split(":").str[0])) == sorted([
        ("PyG DataLoader", "batch_size=128"), ("packed", "about 128 graphs"), ("packed, on device", "about 128 graphs"),
        ("packed", "recommended for batch size 128"), ("packed, on device", "recommended for batch size 128")])
    assert eager["limits"].str.startswith(recommended).sum() == 2  # packing.recommend's choice, not a fixed one
    assert set(eager["mode"]) == {"eager"} and set(eager["workers"]) == {0} and (eager["graphs/s"] > 0).all()
    workers = pd.read_csv(out / "loader_workers.csv")
    assert set(workers["workers"]) == {1} and "packed, on device" not in set(workers["loader"])  # no workers there


def test_help_states_the_budget_of_every_part():
    done = subprocess.run([sys.executable, "-m", "benchmarks.gpu_run", "--help"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    for part in gpu_run.PARTS:
        assert any(line.split()[:3] == [part.name, str(part.budget_s), "s"] for line in lines), part.name
    assert f"total {gpu_run.TOTAL_BUDGET_S} s = 8.0 min" in done.stdout


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA device")
def test_a_run_without_cuda_is_refused_in_one_line(tmp_path):
    out = tmp_path / "gpu"
    done = subprocess.run([sys.executable, "-m", "benchmarks.gpu_run", str(out)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("error: no CUDA device here")
    assert "--dry-run" in done.stderr and not out.exists()


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie left for init to reap does not)."""
    status = Path(f"/proc/{pid}/status")
    try:
        return "\nState:\tZ" not in status.read_text()
    except FileNotFoundError:
        return False


def test_a_part_over_its_budget_is_killed_and_a_failed_part_does_not_stop_the_run(tmp_path, monkeypatch):
    pid_file = tmp_path / "grandchild.pid"
    scripts = {"sleeps": f"import pathlib, subprocess, time; child = subprocess.Popen(['sleep', '60']); "
                         f"pathlib.Path({str(pid_file)!r}).write_text(str(child.pid)); time.sleep(60)",
               "fails": "print('the traceback of a failure'); raise SystemExit(3)",
               "writes": f"open({str(tmp_path / 'rows.csv')!r}, 'w').write('a,b')"}
    parts = tuple(gpu_run.Part(name, budget, f"a part that {name}", lambda out, dry: None)
                  for name, budget in (("sleeps", 2), ("fails", 30), ("writes", 30)))
    monkeypatch.setattr(gpu_run, "PARTS", parts)
    monkeypatch.setattr(gpu_run, "part_command", lambda part, out, dry: [sys.executable, "-c", scripts[part.name]])
    start = time.monotonic()
    summary = gpu_run.run_all(tmp_path, dry=True)
    assert time.monotonic() - start < 30
    assert [part["status"] for part in summary["parts"]] == ["timed out: killed after 2 s", "failed (exit 3)", "ok"]
    assert not alive(int(pid_file.read_text()))  # what the part started is killed with it
    assert "the traceback of a failure" in (tmp_path / "fails.log").read_text(encoding="utf-8")
    assert summary["parts"][2]["files"] == ["rows.csv", "writes.log"]
    assert json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))["parts"] == summary["parts"]
