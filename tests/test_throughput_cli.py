"""``python -m throughput calibrate|estimate|check`` as users run them, real files, in this
process through ``run(argv)`` (test_throughput_check.py runs the entry point in a real
process)."""
from __future__ import annotations

import json

import pytest

from common_helpers import Finished, run_main
from packing import PackLimits, SizeHistogram, pack
from packing.export import export_config
from packing.io import save_config
from throughput import load_calibration, shipped_calibrations
from throughput.cli import run


def run_cli(*args: str) -> Finished:
    """``python -m throughput ARGS`` run in this process."""
    return run_main(run, *args)


def test_calibrate_shows_progress_and_writes_a_verified_file(tmp_path):
    out = tmp_path / "cpu.json"
    done = run_cli("calibrate", "--hidden", "4", "--layers", "1", "--shapes", "6", "--max-nodes", "64",
                   "--max-edges", "128", "--max-graphs", "4", "--threads", "1", "--no-loaders", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "timing steps: 100%" in done.stderr and " 6/6 " in done.stderr
    assert "held-out error" in done.stdout and str(out) in done.stdout
    cal = load_calibration(out)
    assert cal.device_info["threads"] == 1 and len(cal.timings) == 6 and max(t.shape[0] for t in cal.timings) <= 64


def test_estimate_prints_every_strategy_and_writes_the_section(tmp_path):
    hist = SizeHistogram.from_counts([4, 6, 10], [8, 12, 22], [50, 30, 20])
    plan = pack(hist, PackLimits(40, 80, 8))
    config = save_config(export_config(plan, hist, {"dataset": "toy"}), tmp_path / "config.json")
    calibration = shipped_calibrations()[0]
    done = run_cli("estimate", str(config), "--calibration", str(calibration), "--batch-size", "8",
                   "--workers", "2", "--out", str(tmp_path / "estimate.json"))
    assert done.returncode == 0, done.stderr
    for name in ("static_constant", "static_64", "dynamic", "buckets", "packing", "pyg_dataloader"):
        assert name in done.stdout
    cal = load_calibration(calibration)
    assert cal.label in done.stdout
    versions = ", ".join(f"{name} {cal.versions[name]}" for name in ("torch", "torch_geometric") if cal.versions[name])
    assert f"measured with: {versions}" in done.stdout and f"file {calibration.name}" in done.stdout
    section = json.loads((tmp_path / "estimate.json").read_text())
    assert section["run"]["batch_size"] == 8 and len(section["table"]) == 8
    assert section["wall"]["workers"] == 2 and section["wall"]["priced"] == (cal.loaders is not None)
    assert f"calibration check: not run, so these are the numbers of {cal.device_name}" in done.stdout


def test_errors_end_with_a_message_and_status_2(tmp_path, capsys):
    hist = SizeHistogram.from_counts([4], [8], [10])
    config = save_config(export_config(pack(hist, PackLimits(8, 16, 2)), hist, {}), tmp_path / "config.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json")
    cases = [
        (("estimate", str(config), "--calibration", str(broken), "--batch-size", "4"), "not a calibration file"),
        (("estimate", str(config), "--calibration", str(shipped_calibrations()[0])), "give --batch-size"),
        (("estimate", str(tmp_path / "none.json"), "--calibration", str(broken)), "No configuration file"),
        (("calibrate", "--device", "cuda:7", "--shapes", "6"), "error:"),
        (("calibrate", "--shapes", "2"), "--shapes must lie between 6 and"),
        (("calibrate", "--max-nodes", "10"), "--max-nodes must lie between 64 and"),
        (("calibrate", "--device", "gpu"), "device must be 'cpu', 'cuda' or 'cuda:<index>', got 'gpu'"),
        (("calibrate", "--out", str(tmp_path / "no" / "such" / "c.json")), "does not exist; create it"),
        (("estimate", str(config), "--calibration", str(shipped_calibrations()[0]), "--batch-size", "1000000"),
         "A batch of 1,000,000 graphs takes"),
        (("estimate", str(config), "--calibration", str(shipped_calibrations()[0]), "--batch-size", "4",
          "--out", str(tmp_path / "x.txt")), "--out must end in .csv or .json"),
        (("check", str(broken)), "not a calibration file"),
        (("calibrate", "--threads", "0"), "--threads must lie between 1 and"),
        (("calibrate", "--hidden", "0"), "--hidden must lie between 1 and"),
        (("calibrate", "--cold-runs", "0"), "--cold-runs times first compilations: it applies to --mode compile"),
        (("calibrate", "--mode", "compile", "--cold-runs", "99"), "--cold-runs must lie between 0 and 20"),
        (("check", str(shipped_calibrations()[0]), "--out", str(tmp_path / "check.txt")), "--out must end in .json"),
        (("calibrate", "--out", str(tmp_path / "cal.txt")), "--out must end in .json"),  # before any timing
        (("calibrate", "--out", "/proc/cal.json"), "the folder /proc takes no new file"),
        (("estimate", str(config), "--calibration", str(shipped_calibrations()[0]), "--batch-size", "0"),
         "--batch-size must lie between 2 and"),
        (("check", str(shipped_calibrations()[0]), "--seconds", "0"), "--seconds must be above 0"),
        (("estimate", str(config), "--calibration", str(shipped_calibrations()[0]), "--batch-size", "4",
          "--workers", "-1"), "--workers must lie between 0 and 256, got -1"),
        (("estimate", str(config), "--calibration", str(shipped_calibrations()[0]), "--batch-size", "4",
          "--baseline", "fastest"), "--baseline must be one of"),
        (("estimate", str(config), "--calibration", str(shipped_calibrations()[0]), "--batch-size", "4",
          "--out", str(tmp_path / "no" / "x.csv")), "the folder " + str(tmp_path / "no") + " does not exist"),
    ]
    for args, message in cases:
        assert run(list(args)) == 2, args
        stderr = capsys.readouterr().err
        assert stderr.splitlines()[-1].startswith("error: ") and message in stderr, (args, stderr)
        assert "timing gin" not in stderr  # refused before any timing is announced
    assert not (tmp_path / "x.txt").exists()


def test_check_prints_every_shape_and_writes_the_check(tmp_path):
    done = run_cli("check", "--seconds", "0.5", "--out", str(tmp_path / "check.json"))
    assert done.returncode == 0, done.stderr
    assert "this machine's calibration: gin (hidden 64, 3 layers, eager)" in done.stdout
    steps = done.stdout.split("\nloader ")[0]  # the step shapes' lines, then each loader kind's (when timed)
    assert steps.count("ratio ") in (0, 3, 4)  # none when no calibration of this CPU ships (then measured)
    saved = json.loads((tmp_path / "check.json").read_text())
    assert saved["note"] and (saved["check"] is None or {"ratio_median", "within_band"} <= set(saved["check"]))


def test_estimate_check_of_a_gpu_calibration_on_a_cpu_machine_prices_and_says_it_was_not_checked(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    hist = SizeHistogram.from_counts([4, 6, 10], [8, 12, 22], [50, 30, 20])
    config = save_config(export_config(pack(hist, PackLimits(40, 80, 8)), hist, {"dataset": "toy"}),
                         tmp_path / "config.json")
    gpu = next(path for path in shipped_calibrations() if "nvidia" in path.name)
    done = run_cli("estimate", str(config), "--calibration", str(gpu), "--batch-size", "8", "--check",
                   "--out", str(tmp_path / "estimate.json"))
    assert done.returncode == 0, done.stderr
    assert "calibration check: not checked on this machine" in done.stdout
    section = json.loads((tmp_path / "estimate.json").read_text())
    assert section["check"] is None and section["check_note"].startswith("not checked on this machine")
