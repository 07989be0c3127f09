"""The command line, run as a user would: `python -m packing ...` in a subprocess."""
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from packing.export import config_histogram, load_config

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "packing", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module")
def molhiv_file(tmp_path_factory, molhiv):
    return molhiv.save(tmp_path_factory.mktemp("cli") / "molhiv.parquet")


def test_stats(molhiv_file):
    result = cli("stats", str(molhiv_file))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["distinct_tuples"] == 795


def test_pack_writes_a_plan_that_loads_back(tmp_path, molhiv_file, molhiv):
    out = tmp_path / "plan.json"
    result = cli("pack", str(molhiv_file), "--heuristic", "sum", "--algorithm", "first_fit", "--out", str(out))
    assert result.returncode == 0, result.stderr
    config, plan = load_config(out)
    assert plan.check(molhiv) and plan.num_packs == config["metrics"]["packs"]
    assert (plan.heuristic, plan.algorithm) == ("sum", "first_fit")
    assert config_histogram(config) == molhiv and config["dataset"]["name"] == "molhiv"
    csv = tmp_path / "plan.csv"
    assert cli("pack", str(molhiv_file), "--out", str(csv)).returncode == 0
    assert pd.read_csv(csv)["count"].sum() == plan.num_packs or pd.read_csv(csv)["count"].sum() > 0


def test_sweep_table(tmp_path, molhiv_file):
    out = tmp_path / "sweep.csv"
    result = cli("sweep", str(molhiv_file), "--nodes", "222:444:111", "--edges", "502,1004",
                 "--workers", "1", "--out", str(out))
    assert result.returncode == 0, result.stderr
    frame = pd.read_csv(out)
    assert len(frame) == 6 and set(frame.max_nodes) == {222, 333, 444}
    report = json.loads(result.stdout)
    assert report["best_harmonic_mean"]["harmonic_mean"] == frame["harmonic_mean"].max()


def test_bad_input_gives_a_message_not_a_traceback(tmp_path, molhiv_file):
    result = cli("pack", str(molhiv_file), "--max-nodes", "100")
    assert result.returncode == 2
    assert "do not fit into one pack" in result.stderr and "Traceback" not in result.stderr
    missing = cli("stats", str(tmp_path / "missing.csv"))
    assert missing.returncode == 2 and "No histogram file" in missing.stderr
    bad_grid = cli("sweep", str(molhiv_file), "--nodes", "abc")
    assert bad_grid.returncode == 2 and "not a list" in bad_grid.stderr
    empty_range = cli("sweep", str(molhiv_file), "--nodes", "300:200:10")
    assert empty_range.returncode == 2 and "non-empty range" in empty_range.stderr
    folder = cli("stats", str(tmp_path))
    assert folder.returncode == 2 and "Traceback" not in folder.stderr


def test_help_explains_every_option():
    result = cli("pack", "--help")
    assert result.returncode == 0
    for option in ("--max-nodes", "--max-edges", "--max-graphs", "--heuristic", "--algorithm", "--one-dim", "--out"):
        assert option in result.stdout
