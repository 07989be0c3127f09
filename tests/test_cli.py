"""The command line, run as a user would: `python -m packing ...`, in this process through
its ``run(argv)``; the entry point itself in a real process (a write cut short by a
file-size limit)."""
import json
import resource
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from common_helpers import Finished, run_main
from data_loaders.__main__ import main as data_loaders_main
from packing import PackMethod, compare, config_histogram, pack
from packing.cli import run
from packing.io import load_config, load_size_table, save_histogram

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str) -> Finished:
    """``python -m packing ARGS`` run in this process."""
    return run_main(run, *args)


@pytest.fixture(scope="module")
def molhiv_file(tmp_path_factory, molhiv):
    return save_histogram(molhiv, tmp_path_factory.mktemp("cli") / "molhiv.parquet")


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
    assert (plan.method.heuristic, plan.method.algorithm) == ("sum", "first_fit")
    assert config_histogram(config) == molhiv and config["dataset"]["name"] == "molhiv"
    assert config["dataset"]["split"] == "whole table"  # a size table says nothing of its split
    named = tmp_path / "named.json"
    result = cli("pack", str(molhiv_file), "--dataset", "ogbg-molhiv", "--split", "train", "--out", str(named))
    assert result.returncode == 0, result.stderr
    assert {key: load_config(named)[0]["dataset"][key] for key in ("name", "split")} == \
        {"name": "ogbg-molhiv", "split": "train"}
    csv = tmp_path / "plan.csv"
    assert cli("pack", str(molhiv_file), "--out", str(csv)).returncode == 0
    assert pd.read_csv(csv)["count"].sum() == plan.num_packs or pd.read_csv(csv)["count"].sum() > 0


def test_compare_prints_the_table_2_layout_with_the_chosen_method_last(tmp_path, molhiv_file, molhiv):
    out = tmp_path / "table.csv"
    result = cli("compare", str(molhiv_file), "--heuristic", "weighted", "--weights", "1", "0.5", "--out", str(out))
    assert result.returncode == 0, result.stderr
    table = pd.read_csv(out)
    expected = compare(molhiv, chosen=pack(molhiv, method=PackMethod("best_fit", "weighted", weights=(1.0, 0.5))))
    assert table["method"].tolist() == expected["method"].tolist()
    assert table["packs"].tolist() == expected["packs"].tolist()
    assert table["method"].iloc[-1] == "chosen: best fit, weighted(1,0.5) heuristic"
    assert "chosen: best fit, weighted(1,0.5) heuristic" in result.stdout and "best of all: " in result.stdout
    plain = cli("compare", str(molhiv_file))  # best fit with the product heuristic is a row already
    assert plain.returncode == 0 and "chosen:" not in plain.stdout


def test_sweep_table(tmp_path, molhiv_file):
    out = tmp_path / "sweep.csv"
    result = cli("sweep", str(molhiv_file), "--nodes", "222:444:111", "--edges", "502,1004",
                 "--workers", "1", "--out", str(out))
    assert result.returncode == 0, result.stderr
    frame = pd.read_csv(out)
    assert len(frame) == 6 and set(frame.max_nodes) == {222, 333, 444}
    report = json.loads(result.stdout)
    assert report["best_harmonic_mean"]["harmonic_mean"] == frame["harmonic_mean"].max()
    assert set(frame["method"]) == {"best fit, product heuristic"}  # the table says how it was packed
    as_json = tmp_path / "sweep.json"
    assert cli("sweep", str(molhiv_file), "--nodes", "222:444:111", "--edges", "502,1004", "--workers", "1",
               "--out", str(as_json)).returncode == 0
    same = pd.DataFrame(json.loads(as_json.read_text()))  # the same table, every digit
    exact = pd.read_csv(out, float_precision="round_trip")
    assert same["node_efficiency"].tolist() == exact["node_efficiency"].tolist()
    from figures.cli import read_sweep  # the report reads it back, every digit, an infeasible cell as null

    with_infeasible = tmp_path / "with_infeasible.json"
    assert cli("sweep", str(molhiv_file), "--nodes", "100,222", "--edges", "502", "--workers", "1",
               "--out", str(with_infeasible)).returncode == 0
    rows = json.loads(with_infeasible.read_text())
    assert rows[0]["feasible"] is False and rows[0]["packs"] is None and rows[0]["node_efficiency"] is None
    back = read_sweep(str(with_infeasible))
    assert back["node_efficiency"].iloc[1] == rows[1]["node_efficiency"] and not back["feasible"].iloc[0]
    assert isinstance(rows[1]["packs"], int) and isinstance(rows[1]["lower_bound"], int)
    as_csv = tmp_path / "with_infeasible.csv"  # counts stay whole numbers beside an empty cell, not 3744.0
    assert cli("sweep", str(molhiv_file), "--nodes", "100,222", "--edges", "502", "--workers", "1",
               "--out", str(as_csv)).returncode == 0
    written = pd.read_csv(as_csv, dtype=str, keep_default_na=False)  # the text as written
    assert written.loc[0, "packs"] == written.loc[0, "lower_bound"] == ""
    assert written.loc[1, "packs"] == str(rows[1]["packs"]) and written.loc[1, "lower_bound"] == str(rows[1]["lower_bound"])


def test_bad_input_gives_a_message_not_a_traceback(tmp_path, molhiv_file):
    result = cli("pack", str(molhiv_file), "--max-nodes", "100")
    assert result.returncode == 2
    assert "do not fit into one pack" in result.stderr and "Traceback" not in result.stderr
    missing = cli("stats", str(tmp_path / "missing.csv"))
    assert missing.returncode == 2 and "No file at" in missing.stderr
    bad_grid = cli("sweep", str(molhiv_file), "--nodes", "abc")
    assert bad_grid.returncode == 2 and "not a list" in bad_grid.stderr
    empty_range = cli("sweep", str(molhiv_file), "--nodes", "300:200:10")
    assert empty_range.returncode == 2 and "The range is empty: start 300 is above stop 200" in empty_range.stderr
    nowhere = cli("pack", str(molhiv_file), "--out", str(tmp_path / "no" / "plan.json"))
    assert nowhere.returncode == 2 and "does not exist; create it or choose another" in nowhere.stderr
    folder = cli("stats", str(tmp_path))
    assert folder.returncode == 2 and "it is a folder" in folder.stderr and "Traceback" not in folder.stderr
    (tmp_path / "twice.csv").write_text("num_nodes,num_edges,Num_Nodes\n5,8,1\n")
    twice = cli("stats", str(tmp_path / "twice.csv"))
    assert twice.returncode == 2 and "twice.csv has the column 'num_nodes' twice in its header" in twice.stderr
    (tmp_path / "sheet.csv").write_text("num_nodes,num_edges,,\n3,4,,\n5,8,,\n")  # a spreadsheet's empty columns
    assert json.loads(cli("stats", str(tmp_path / "sheet.csv")).stdout)["graphs"] == 2
    (tmp_path / "typo.csv").write_text("num_nodes,num_edges\n3,4\n5,x\n7,8\n")
    typo = cli("stats", str(tmp_path / "typo.csv"))
    assert typo.returncode == 2 and "typo.csv: row 2 has 'x' for num_edges; every value must be a whole number" \
        in typo.stderr


@pytest.mark.parametrize("args, message", [
    (("pack", "--max-nodes", str(2**64)), "--max-nodes must lie between 1 and"),
    (("sweep", "--max-graphs", "0"), "--max-graphs must lie between 1 and"),
    (("sweep", "--workers", "0"), "--workers must lie between 1 and 64, got 0"),
    (("sweep", "--workers", "100000"), "workers must lie between 1 and 64"),
    (("sweep", "--nodes", "1:10000000:1"), "more than 100,000 values"),
    (("sweep", "--nodes", "222:20222:10", "--edges", "502:100502:100"), "limit pairs is more than 1,000,000"),
    (("pack", "--algorithm", "none", "--heuristic", "sum"), "The baseline 'none' takes no heuristic"),
    (("pack", "--one-dim", "spfhp"), "one_dim is for the node_only / edge_only baselines"),
    (("pack", "--heuristic", "weighted", "--weights", "nan", "1"), "weights must be finite numbers"),
    (("pack", "--heuristic", "sum", "--weights", "1", "1"), "--weights apply to the 'weighted' heuristic only"),
    (("pack", "--algorithm", "node_only", "--prove"), "--prove bounds plans that keep every limit"),
    (("pack", "--prove", "--prove-seconds", "0"), "--prove-seconds must be a number of seconds"),
    (("batching", "--batch-size", "32", "--buckets", "0"), "--buckets must lie between 1 and 16, got 0"),
    (("batching", "--batch-size", "0"), "--batch-size must lie between 2 and"),
    (("pack", "--out", "/proc/plan.json"), "the folder /proc takes no new file"),
    (("pack", "--heuristic", "paper_min"), "belongs to algorithm='published'"),
    (("pack", "--prove-seconds", "5"), "--prove-seconds is the time budget of --prove; add --prove"),
    (("compare", "--prove-seconds", "5"), "--prove-seconds is the time budget of --prove; add --prove"),
    (("compare", "--max-nodes", "100"), "do not fit into one pack of at most 100 nodes"),
    (("sweep", "--nodes", "100"), "holds the largest graph (222 nodes, 502 edges), so no cell could be packed: "
                                  "raise --nodes to at least 222"),
    (("sweep", "--min-efficiency", "95"), "--min-efficiency is a fraction above 0 and at most 1"),
    (("pack", "--dataset", "ogbg-molhiv"), "--dataset names the dataset of a .json configuration; add --out"),
    (("pack", "--split", "train", "--dataset", "x"), "--dataset and --split name the dataset of a .json"),
])
def test_values_that_do_not_apply_or_fit_are_refused_with_the_limit(molhiv_file, args, message):
    command, *options = args
    result = cli(command, str(molhiv_file), *options)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr


def test_a_run_shorter_than_an_epoch_says_its_per_epoch_numbers_are_extrapolated(molhiv_file):
    short = cli("batching", str(molhiv_file), "--batch-size", "32", "--steps", "3")
    assert short.returncode == 0, short.stderr
    assert "note: This run of 3 steps is shorter than one epoch of every strategy: their per-epoch numbers are " \
           "extrapolated from the batches it ran" in short.stdout
    whole = cli("batching", str(molhiv_file), "--batch-size", "32", "--epochs", "1")
    assert whole.returncode == 0 and "extrapolated" not in whole.stdout


def test_an_output_file_that_is_the_input_is_refused_and_the_input_kept(tmp_path, molhiv):
    table = save_histogram(molhiv, tmp_path / "molhiv.csv")
    for args in (("sweep", str(table), "--nodes", "222", "--edges", "502"), ("pack", str(table))):
        result = cli(*args, "--out", str(tmp_path / "." / "molhiv.csv"))
        assert result.returncode == 2 and "is a file this command reads; writing it would replace it" in result.stderr
        assert load_size_table(table) == molhiv


def test_both_command_lines_read_size_files_by_the_same_rules(tmp_path):
    counted = tmp_path / "counted.csv"
    counted.write_text("num_nodes,num_edges,Count\n3,4,1000\n")
    stats = cli("stats", str(counted))
    assert stats.returncode == 0 and json.loads(stats.stdout)["graphs"] == 1000
    out = tmp_path / "out.csv"
    loaders = run_main(data_loaders_main, "file", str(counted), "--out", str(out))
    assert loaders.returncode == 0, loaders.stderr
    assert pd.read_csv(out)["count"].tolist() == [1000]
    shifted = tmp_path / "shifted.csv"
    shifted.write_text("num_nodes,num_edges\n3,4,2\n5,6,1\n")  # pandas would read column 1 as an index
    for result in (cli("stats", str(shifted)),
                   run_main(data_loaders_main, "file", str(shifted), "--out", str(out))):
        assert result.returncode == 2 and "more fields than the header" in result.stderr
    misnamed = tmp_path / "misnamed.csv"
    misnamed.write_text("num_nodes,num_edges,counts\n3,4,1000\n")  # read as one graph, 1,000 would be lost
    for result in (cli("stats", str(misnamed)),
                   run_main(data_loaders_main, "file", str(misnamed), "--out", str(out))):
        assert result.returncode == 2 and "has a column 'counts' but no 'count'" in result.stderr, result.stderr


def test_a_wide_header_is_refused_before_parsing(tmp_path):
    wide = tmp_path / "wide.csv"
    wide.write_text(",".join(f"c{i}" for i in range(100_000)) + "\n")
    result = cli("stats", str(wide))
    assert result.returncode == 2 and "columns in its header" in result.stderr


def test_help_explains_every_option():
    result = cli("pack", "--help")
    assert result.returncode == 0
    for option in ("--max-nodes", "--max-edges", "--max-graphs", "--heuristic", "--algorithm", "--one-dim", "--out",
                   "--prove", "--prove-seconds"):
        assert option in result.stdout


def test_pack_names_its_bound_and_prove_adds_the_lp_bound(tmp_path):
    # Two (2, 14) graphs and three (5, 2) graphs in packs of (11, 17, 4): 3 packs, and only
    # the LP bound proves it (the volume and large-items bounds say 2).
    sizes = tmp_path / "toy.csv"
    sizes.write_text("num_nodes,num_edges,count\n2,14,2\n5,2,3\n")
    limits = ("--max-nodes", "11", "--max-edges", "17", "--max-graphs", "4", "--algorithm", "best")
    plain = cli("pack", str(sizes), *limits)
    assert plain.returncode == 0, plain.stderr
    summary = json.loads(plain.stdout)
    assert (summary["packs"], summary["lower_bound"], summary["bound"]) == (3, 2, "volume")
    assert summary["bounds"]["lp"] is None
    proved = cli("pack", str(sizes), *limits, "--prove", "--out", str(tmp_path / "plan.json"))
    assert proved.returncode == 0, proved.stderr
    last = proved.stderr.splitlines()[-1]  # tqdm's last update
    assert last.startswith("proving: 100%|") and "LP bound 3" in last
    config, plan = load_config(tmp_path / "plan.json")
    assert (config["metrics"]["bound"], config["bounds"]["lp"], plan.gap) == ("lp", 3, 0)
    summary = json.loads(cli("pack", str(sizes), *limits, "--prove").stdout)
    assert (summary["lower_bound"], summary["gap"], summary["bound_label"]) == (3, 0, "LP bound (column generation)")


def test_the_published_algorithm_from_the_command_line(molhiv_file, molhiv):
    result = cli("pack", str(molhiv_file), "--algorithm", "published", "--heuristic", "paper_min")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["method"]["algorithm"] == "published" and summary["packs"] == 3800  # the paper's max row
    sweep = cli("sweep", str(molhiv_file), "--algorithm", "published", "--nodes", "222", "--edges", "502",
                "--workers", "1")
    assert sweep.returncode == 0, sweep.stderr
    assert json.loads(sweep.stdout)["best_harmonic_mean"]["packs"] == 3917  # product, the default heuristic


def test_a_write_cut_short_leaves_the_earlier_file_whole(tmp_path, molhiv_file):
    """A full disk or a killed process mid-write (here a 16 KB file-size limit) must not
    leave a half-written file in place of a good one: outputs are written under another
    name and renamed over the old file once complete. The cut run is a real process
    (``python -m packing``, the entry point): the limit would stop pytest too."""
    good = tmp_path / "plan.json"
    assert cli("pack", str(molhiv_file), "--out", str(good)).returncode == 0
    before = good.read_bytes()
    assert len(before) > 16_384

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (16_384, 16_384))

    cut = subprocess.run([sys.executable, "-m", "packing", "pack", str(molhiv_file), "--heuristic", "sum",
                          "--out", str(good)], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         preexec_fn=small_files)
    assert cut.returncode == 2 and "File too large" in cut.stderr and "Traceback" not in cut.stderr
    assert good.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["plan.json"]
    load_config(good)
