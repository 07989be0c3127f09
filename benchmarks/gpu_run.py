"""The one script to run when a GPU machine is lent: GPU tests, calibrations, loader rows,
predicted against measured wall time.

    python -m benchmarks.gpu_run OUT_DIR              # on the GPU machine, 8 minutes at most
    python -m benchmarks.gpu_run OUT_DIR --dry-run    # on a CPU: the same parts at tiny sizes, no capture
    python -m benchmarks.gpu_run OUT_DIR --part NAME  # one part, in this process, without its budget

Each part runs in a child process of its own (``--part NAME``) with its output in
``OUT_DIR/NAME.log``; a part still running when its budget is spent is killed (with every
process it started), and a part that fails or is killed is recorded in
``OUT_DIR/summary.json`` while the script goes on to the next. ``summary.json`` (rewritten
after every part) holds the device, torch and CUDA versions, the date, and each part's
budget, seconds, status and files. Every file goes into ``OUT_DIR``; nothing under
``benchmarks/results`` or ``throughput/calibrations`` is touched.

Budgets: the step times of BENCHMARKS.md's H100 runs (a GIN step 3-12 ms eager, about 2 ms
captured; a compilation 4-9 s, PyG's two 22 s on a cold cache; a process's start with torch
and CUDA about 10 s) give each part's expected time (next to :data:`PARTS`); each budget is
1.3-2.5 times that, and the budgets add up to 8 minutes, the most the GPU issue allows.
The run also stops at 8 minutes in all whatever a part was given: a part with no time
left is skipped.
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from benchmarks.timing import REPO

#: The test files whose GPU tests (marked ``gpu``, skipped without CUDA) the tests part runs.
TEST_FILES = ("tests/test_captured_step.py", "tests/test_packed_device.py", "tests/test_packed_models.py")
#: The calibrations' model: the shipped calibrations' GIN (hidden 64, 3 layers).
CALIBRATION_MODEL = ("gin", 64, 3)
#: The loader rows timed on the GPU: ~128 graphs a step and the recommended configuration.
LOADER_ROWS = ["--loaders", "pyg,packed-128,recommended", "--steps", "20", "--rounds", "3", "--warmup", "5"]
#: What the dry run changes in a loader part: the first 400 graphs, a step or two each.
DRY_LOADER = ["--device", "cpu", "--graphs", "400", "--steps", "2", "--rounds", "1", "--warmup", "1"]


@dataclass(frozen=True)
class Part:
    """One part of the run: its name (its log is ``NAME.log``), its budget in seconds, what
    it does in words (for ``--help``) and ``run(out, dry)``, which writes into ``out``."""

    name: str
    budget_s: int
    what: str
    run: Callable[[Path, bool], None] = field(repr=False)
    dry_skip: str = ""  # why the dry run skips this part ("": it runs, at tiny sizes)


def run_tests(out: Path, dry: bool) -> None:
    """pytest on the GPU tests of :data:`TEST_FILES` (marked ``gpu``; the suite runs the
    others on every machine), each result logged as it comes, with a JUnit report in
    ``out/tests.xml``. The dry run only collects them."""
    import pytest

    code = pytest.main(["-v", "-p", "no:cacheprovider", "-m", "gpu", f"--junitxml={out / 'tests.xml'}",
                        *TEST_FILES, *(["--collect-only"] if dry else [])])
    if code != 0:
        raise SystemExit(f"pytest exited with status {int(code)}")


def calibration_settings(mode: str, dry: bool) -> dict[str, Any]:
    """The shapes and timing of one calibration: on the GPU the default grid (24 shapes; 10
    in compile mode, each a compilation of about 4 s, and one cold compilation in a fresh
    process), up to 15 timed steps a shape; dry: 6 tiny shapes, 3 steps. The eager
    calibration also times the loaders (0.2 s a grid row; dry 0.01 s), which the other
    modes take from it (:func:`calibrate_part`).

    >>> calibration_settings("eager", dry=True)["repeats"], len(calibration_settings("compile", False)["shapes"])
    (3, 10)
    """
    from throughput.shapes import default_shapes

    if dry:
        return {"device": "cpu", "shapes": default_shapes(6, max_nodes=256, max_edges=1024, max_graphs=8),
                "warmup": 1, "repeats": 3, "budget": 0.05, "cold_runs": 0, "loaders": mode == "eager",
                "loader_budget": 0.01}
    return {"device": "cuda", "shapes": default_shapes(10 if mode == "compile" else 24), "warmup": 3,
            "repeats": 15, "budget": 1.0, "cold_runs": 1, "loaders": mode == "eager", "loader_budget": 0.2}


def eager_calibrations(out: Path) -> list[Path]:
    """The eager calibration the ``calibrate-eager`` part wrote into ``out`` (none if it failed)."""
    return sorted(out.glob(f"*__{CALIBRATION_MODEL[0]}-h{CALIBRATION_MODEL[1]}-l{CALIBRATION_MODEL[2]}__eager.json"))


def eager_calibration(out: Path) -> Path:
    """The eager calibration the ``calibrate-eager`` part wrote into ``out``."""
    found = eager_calibrations(out)
    if not found:
        raise SystemExit(f"no eager calibration in {out}: the calibrate-eager part did not write one")
    return found[0]


def calibrate_part(mode: str) -> Callable[[Path, bool], None]:
    """``run(out, dry)`` of the calibration in ``mode``: ``throughput.calibrate``, saved
    into ``out`` under the calibration's own file name. The eager one times the loaders;
    the others carry its loader timings (the same machine's host work, whatever the step's
    mode) where its part wrote them, else price model time only."""

    def run(out: Path, dry: bool) -> None:
        from throughput import calibrate, load_calibration

        settings = calibration_settings(mode, dry)
        print(f"calibrating {CALIBRATION_MODEL} in {mode} mode on {settings['device']} at "
              f"{len(settings['shapes'])} shapes", flush=True)
        cal = calibrate(*CALIBRATION_MODEL, mode=mode, **settings)
        eager = eager_calibrations(out)
        if mode != "eager" and eager:  # without it (its part failed) this calibration prices model time only
            timed = load_calibration(eager[0])
            cal = dataclasses.replace(cal, loaders=timed.loaders, loader_info=timed.loader_info)
        print(f"{cal.label}\n{cal.fit.describe()}\nwrote {cal.save(out)}", flush=True)

    return run


def wall_argv(calibration: Path, out: Path, dry: bool) -> list[str]:
    """``benchmarks.bench_throughput``'s arguments: ogbg-molhiv's training split, 2 epochs,
    priced with ``calibration``, written into ``out``; dry, its first 300 graphs for 1 epoch.

    >>> wall_argv(Path("cal.json"), Path("/tmp/gpu"), dry=True)[-4:]
    ['--graphs', '300', '--epochs', '1']
    """
    run = ["--epochs", "2"] if not dry else ["--graphs", "300", "--epochs", "1"]
    return ["--calibration", str(calibration), "--datasets", "molhiv", "--no-check", "--out", str(out), *run]


def run_wall(out: Path, dry: bool) -> None:
    """Predicted against measured wall time (:func:`wall_argv`) with the eager calibration of
    ``out``, writing ``out/throughput.csv``."""
    from benchmarks import bench_throughput

    bench_throughput.main(wall_argv(eager_calibration(out), out, dry))


def loader_argv(modes: str, built: str, workers: int, dry: bool) -> list[str]:
    """``benchmarks.bench_loader``'s arguments for a part: on CUDA, :data:`LOADER_ROWS` in
    ``modes`` with ``workers``; dry, eager steps only (no compilation, no capture) at
    :data:`DRY_LOADER`'s sizes, with 1 worker where the GPU run has some.

    >>> loader_argv("eager,cudagraph", "host,device", 4, dry=True)[-4:]
    ['--built', 'host,device', '--workers', '1']
    """
    if not dry:
        return [*LOADER_ROWS, "--device", "cuda", "--modes", modes, "--built", built, "--workers", str(workers)]
    return [*LOADER_ROWS, *DRY_LOADER, "--modes", "eager", "--built", built, "--workers", str(min(workers, 1))]


def loader_part(name: str, modes: str, built: str, workers: int) -> Callable[[Path, bool], None]:
    """``run(out, dry)`` of ``benchmarks.bench_loader`` (:func:`loader_argv`), writing
    ``out/loader_NAME.csv``."""

    def run(out: Path, dry: bool) -> None:
        from benchmarks import bench_loader

        bench_loader.main([*loader_argv(modes, built, workers, dry), "--out", str(out / f"loader_{name}.csv")])

    return run


#: Expected on the GPU, from BENCHMARKS.md's H100 runs (estimates, not measurements of the lent
#: device): tests 20-35 s (a process with torch and CUDA about 10 s, six small GPU tests, the
#: README example in a process of its own); eager calibration about 35 s (24 shapes x 18 steps of
#: 3-10 ms, then the loaders: 45 grid rows of 0.2 s, worker starts, three long epochs of first
#: reads); compile about 65 s (a first compilation 8.6 s, 9 more at 3.7 s, a cold one in a fresh
#: process about 15 s); cudagraph about 20 s (eager steps, a capture and replays per shape);
#: loader-eager 20-25 s (65 steps of 2-30 ms per loader); loader-compile about 60 s (PyG's two
#: compilations 22 s on a cold cache, 5-7 s per packed loader); loader-workers about 30 s (inductor's
#: cache warm by then: 1-4 s per compilation); wall about 40 s (a process start, four copies of
#: the dataset, 4 runs x 2 epochs of 258-300 steps at 3-10 ms plus loading).
PARTS = (
    Part("tests", 60, f"pytest -m gpu {' '.join(TEST_FILES)}: the captured step against eager steps, "
                      "device-resident batches on CUDA equal to host-built ones, the README's GPU example", run_tests),
    Part("calibrate-eager", 55, "throughput.calibrate of GIN h64 l3 (as the shipped calibrations), eager, 24 shapes, "
                                "and the loaders' costs",
         calibrate_part("eager")),
    Part("calibrate-compile", 90, "the same, torch.compile, 10 shapes and 1 cold compilation in a fresh process",
         calibrate_part("compile"), dry_skip="no compilation in a dry run"),
    Part("calibrate-cudagraph", 35, "the same, the step captured as a CUDA graph and replayed, 24 shapes",
         calibrate_part("cudagraph"), dry_skip="no capture on a CPU"),
    Part("loader-eager", 45, "bench_loader, 0 workers, eager and cudagraph: PyG DataLoader(batch_size=128), the "
                             "packed loader at ~128 graphs a step and at the configuration recommended for batch "
                             "size 128, batches built on the host and on the device",
         loader_part("eager", "eager,cudagraph", "host,device", 0)),
    Part("loader-compile", 80, "bench_loader, 0 workers, compiled: the same loaders",
         loader_part("compile", "compile", "host,device", 0), dry_skip="no compilation in a dry run"),
    Part("loader-workers", 50, "bench_loader, 4 workers, eager and compiled: PyG DataLoader and the packed loaders "
                               "built on the host (in the workers)",
         loader_part("workers", "eager,compile", "host", 4)),
    Part("wall", 65, "bench_throughput on ogbg-molhiv's training split, 2 epochs: predicted against measured wall "
                     "time (model and loading) for PyG's DataLoader and the packed loader, 0 and 2 workers, with "
                     "the eager calibration", run_wall),
)
#: The whole run stops after this many seconds, whatever a part was given.
TOTAL_BUDGET_S = sum(part.budget_s for part in PARTS)


def budgets_text() -> str:
    """The ``--help`` epilog: each part, its budget and what it does.

    >>> budgets_text().splitlines()[1].split()[:3]
    ['tests', '60', 's']
    """
    lines = [f"Parts, in order, each with the most seconds it may take (total {TOTAL_BUDGET_S} s = "
             f"{TOTAL_BUDGET_S / 60:.1f} min):"]
    for part in PARTS:
        what = part.what + (f" [dry run: skipped, {part.dry_skip}]" if part.dry_skip else "")
        head = f"  {part.name:20s} {part.budget_s:4d} s  "
        lines += textwrap.wrap(head + what, 100, subsequent_indent=" " * len(head))
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gpu_run", description=__doc__.split("\n\n")[0],
                                     epilog=budgets_text(), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, metavar="OUT_DIR", help="folder for every file the run writes")
    parser.add_argument("--dry-run", action="store_true",
                        help="run on the CPU at tiny sizes, without compilation or capture (the test suite does)")
    parser.add_argument("--part", choices=[part.name for part in PARTS],
                        help="run this part alone, in this process, without its budget")
    return parser


def files_state(folder: Path) -> dict[str, int]:
    """Every file under ``folder`` (relative name) and its modification time."""
    return {str(path.relative_to(folder)): path.stat().st_mtime_ns for path in folder.rglob("*") if path.is_file()}


def log_tail(log: Path, lines: int = 15) -> str:
    """The last ``lines`` lines of a part's log, indented."""
    text = log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
    return "\n".join(f"    {line}" for line in text)


def part_command(part: Part, out: Path, dry: bool) -> list[str]:
    """The child process's command line: this script with ``--part``.

    >>> part_command(PARTS[0], Path("/tmp/gpu"), dry=True)[2:]
    ['benchmarks.gpu_run', '/tmp/gpu', '--part', 'tests', '--dry-run']
    """
    return [sys.executable, "-m", "benchmarks.gpu_run", str(out), "--part", part.name, *(["--dry-run"] * dry)]


def run_part(part: Part, out: Path, dry: bool, seconds_left: float) -> dict[str, Any]:
    """Run ``part`` in a child process (``--part``) for at most its budget and
    ``seconds_left``; its record for the summary (status ``ok``, ``failed (exit N)``,
    ``timed out ...`` or ``skipped: ...``: a dry run's CUDA-only parts, or no time left)."""
    record: dict[str, Any] = {"name": part.name, "budget_s": part.budget_s, "what": part.what}
    skipped = part.dry_skip if dry and part.dry_skip else \
        f"the run's {TOTAL_BUDGET_S} s are spent" if seconds_left < 1 else ""
    if skipped:
        print(f"[{part.name}] skipped: {skipped}", flush=True)
        return {**record, "seconds": 0.0, "status": f"skipped: {skipped}", "log": None, "files": []}
    timeout = min(part.budget_s, seconds_left)
    log = out / f"{part.name}.log"
    before = files_state(out)
    print(f"[{part.name}] start, budget {timeout:.0f} s: {part.what}", flush=True)
    start = time.monotonic()
    with log.open("w", encoding="utf-8") as handle:
        child = subprocess.Popen(part_command(part, out, dry), cwd=REPO, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True,
                                 env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            code = child.wait(timeout=timeout)
            status = "ok" if code == 0 else f"failed (exit {code})"
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)  # the child and every process it started
            child.wait()
            status = f"timed out: killed after {timeout:.0f} s"
    seconds = time.monotonic() - start
    after = files_state(out)
    files = sorted(name for name, stamp in after.items() if before.get(name) != stamp)
    print(f"[{part.name}] {status} in {seconds:.1f} s; files: {', '.join(files)}", flush=True)
    if status != "ok":
        print(log_tail(log), flush=True)
    return {**record, "seconds": round(seconds, 2), "status": status, "log": log.name, "files": files}


def device_name(dry: bool) -> str:
    """The CUDA device's name (torch.cuda.get_device_name), or the CPU's for a dry run."""
    import torch

    if dry:
        from throughput.device import device_description

        return device_description("cpu")[0]["name"]
    return torch.cuda.get_device_name(0)


def write_summary(out: Path, summary: dict[str, Any]) -> Path:
    """``out/summary.json``, rewritten whole."""
    path = out / "summary.json"
    path.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return path


def run_all(out: Path, dry: bool) -> dict[str, Any]:
    """Every part in order within :data:`TOTAL_BUDGET_S`; the summary (also written after
    each part)."""
    import torch

    summary: dict[str, Any] = {
        "device": device_name(dry), "dry_run": dry, "torch": torch.__version__, "cuda": torch.version.cuda,
        "python": platform.python_version(), "host": f"{platform.machine()}, {os.cpu_count()} cores",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "total_budget_s": TOTAL_BUDGET_S, "parts": []}
    start = time.monotonic()
    for part in PARTS:
        summary["parts"].append(run_part(part, out, dry, TOTAL_BUDGET_S - (time.monotonic() - start)))
        summary["total_s"] = round(time.monotonic() - start, 2)
        write_summary(out, summary)
    failed = [part["name"] for part in summary["parts"] if part["status"] != "ok" and part["log"] is not None]
    print(f"done in {summary['total_s']:.0f} s; {'failed: ' + ', '.join(failed) if failed else 'every part ran'}; "
          f"wrote {out / 'summary.json'}", flush=True)
    return summary


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the parts (module docstring); the summary, or for ``--part`` the part's name.

    Exits with status 2 and one line on stderr for a run without ``--dry-run`` on a machine
    without CUDA.
    """
    args = build_parser().parse_args(argv)
    import torch

    if not args.dry_run and not torch.cuda.is_available():
        print("error: no CUDA device here (torch.cuda.is_available() is False): run this on the GPU machine, or add "
              "--dry-run to check the script on a CPU", file=sys.stderr)
        raise SystemExit(2)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    if args.part is not None:
        next(part for part in PARTS if part.name == args.part).run(out, args.dry_run)
        return {"part": args.part}
    return run_all(out, args.dry_run)


if __name__ == "__main__":
    summary = main()
    sys.exit(1 if any(part["status"].startswith(("failed", "timed out")) for part in summary.get("parts", [])) else 0)
