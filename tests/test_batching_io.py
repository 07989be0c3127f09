"""The batching comparison on the command line (``python -m packing batching``, run in this
process through ``run(argv)``; test_cli.py runs the entry point) and as the ``batching``
section of the exported configuration."""
import json
import time

import pandas as pd
import pytest

from common_helpers import Finished, replaced, run_main

from packing import PackLimits, PackMethod, SizeHistogram, pack
from packing.io import save_histogram
from packing.batching import (STRATEGIES, batching_section, check_batching_section, compare_batching,
                              packs_matching_batch_size)
from packing.cli import run
from packing.export import export_config
from packing.io import config_json, load_config
from packing.words import describe_settings

SMALL = SizeHistogram.from_counts([3, 8, 12, 20], [4, 14, 30, 60], [50, 30, 15, 5])


def cli(*args: str) -> Finished:
    """``python -m packing ARGS`` run in this process."""
    return run_main(run, *args)


@pytest.fixture(scope="module")
def molhiv_file(tmp_path_factory, molhiv):
    return save_histogram(molhiv, tmp_path_factory.mktemp("batching_cli") / "molhiv.csv")


def test_cli_writes_the_comparison_table(tmp_path, molhiv_file, molhiv):
    out = tmp_path / "table.csv"
    result = cli("batching", str(molhiv_file), "--batch-size", "32", "--steps", "3000", "--out", str(out))
    assert result.returncode == 0, result.stderr
    table = pd.read_csv(out)
    assert table["strategy"].tolist() == list(STRATEGIES) and (table.batches == 3000).all()
    assert {"node_efficiency", "edge_efficiency", "graph_efficiency", "distinct_shapes", "max_padded_nodes",
            "max_padded_edges", "settings"} <= set(table.columns)
    assert "static_pow2" in result.stdout and "dynamic" in result.stdout
    expected = compare_batching(molhiv, 32, steps=3000)
    pd.testing.assert_frame_equal(table.drop(columns=["settings"]), expected, check_dtype=False)
    assert table["settings"].tolist() == [describe_settings(name, expected.attrs["settings"][name])
                                          for name in STRATEGIES]


def test_cli_packing_limits_and_json_section(tmp_path, molhiv_file, molhiv):
    out = tmp_path / "batching.json"
    result = cli("batching", str(molhiv_file), "--batch-size", "16", "--epochs", "2", "--devices", "2",
                 "--max-nodes", "222", "--max-edges", "502", "--max-graphs", "256", "--packs-per-batch", "1",
                 "--out", str(out))
    assert result.returncode == 0, result.stderr
    section = check_batching_section(json.loads(out.read_text()))
    assert section["run"] == {"batch_size": 16, "steps": None, "epochs": 2, "seed": 0, "devices": 2}
    assert section["strategies"]["packing"]["limits"] == {"max_nodes": 222, "max_edges": 502, "max_graphs": 256}
    packing = next(row for row in section["table"] if row["strategy"] == "packing")
    plan = pack(molhiv, PackLimits(222, 502, 256))
    # padded as the loader pads: the limits plus one padding node
    assert packing["batches"] == 2 * plan.num_packs
    assert packing["node_efficiency"] == pytest.approx(plan.total_nodes / (plan.num_packs * 223))
    assert "mixed_shape_steps" in packing
    assert all("settings" not in row for row in section["table"])  # values in strategies, not sentences


def test_cli_packs_per_batch_match_the_batch_size_by_default(tmp_path, molhiv_file, molhiv):
    out = tmp_path / "batching.json"
    result = cli("batching", str(molhiv_file), "--batch-size", "32", "--max-nodes", "222", "--max-edges", "502",
                 "--out", str(out))
    assert result.returncode == 0, result.stderr
    section = check_batching_section(json.loads(out.read_text()))
    plan = pack(molhiv, PackLimits(222, 502, 32))
    packs = section["strategies"]["packing"]["packs_per_batch"]
    assert packs == round(32 / plan.packing_factor) > 1
    packing = next(row for row in section["table"] if row["strategy"] == "packing")
    assert packing["batches"] == -(-plan.num_packs // packs)
    assert packing["max_padded_nodes"] == 222 * packs + 1 and packing["node_efficiency"] == pytest.approx(
        plan.node_efficiency, rel=0.01)
    bad = cli("batching", str(molhiv_file), "--batch-size", "32", "--packs-per-batch", "many")
    assert bad.returncode == 2 and "expected a whole number of at least 1 or 'match'" in bad.stderr


def test_cli_packing_row_takes_every_method_the_pages_offer(tmp_path, molhiv_file, molhiv):
    out = tmp_path / "table.json"
    for flags, method in (
            (("--algorithm", "worst_fit", "--heuristic", "weighted", "--weights", "1", "0.5"),
             PackMethod("worst_fit", "weighted", weights=(1.0, 0.5))),
            (("--algorithm", "node_only", "--one-dim", "spfhp"), PackMethod("node_only", one_dim="spfhp"))):
        result = cli("batching", str(molhiv_file), "--batch-size", "32", "--max-nodes", "260", "--max-edges", "560",
                     "--max-graphs", "64", *flags, "--out", str(out))
        assert result.returncode == 0, result.stderr
        packing = json.loads(out.read_text())["strategies"]["packing"]
        assert PackMethod.from_dict(packing["method"]) == pack(molhiv, PackLimits(260, 560, 64), method).method


def test_cli_packing_defaults_hold_the_largest_graph(tmp_path, molhiv_file, molhiv):
    """Unset packing limits come from the dynamic target raised to hold every graph, as in
    compare_batching: with batch size 4 the sampled target alone is below molhiv's largest graphs."""
    out = tmp_path / "table.csv"
    result = cli("batching", str(molhiv_file), "--batch-size", "4", "--heuristic", "sum", "--out", str(out))
    assert result.returncode == 0, result.stderr
    packing = pd.read_csv(out).set_index("strategy").loc["packing"]
    assert packing["max_padded_nodes"] >= molhiv.largest_nodes and packing["max_padded_edges"] >= molhiv.largest_edges


def test_cli_bad_input_gets_a_message(tmp_path, molhiv_file):
    for args, message in ((("--batch-size", "1"), "--batch-size must lie between 2"),  # the option, by its name
                          (("--batch-size", "8", "--steps", "0"), "--steps must lie between 1"),
                          (("--batch-size", "8", "--buckets", "40"), "--buckets must lie between 1"),
                          (("--batch-size", "8", "--max-nodes", "50"), "do not fit into one pack")):
        result = cli("batching", str(molhiv_file), *args)
        assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr
    missing = cli("batching", str(tmp_path / "none.csv"), "--batch-size", "8")
    assert missing.returncode == 2 and "No file at" in missing.stderr


def test_the_section_travels_in_the_exported_configuration():
    plan = pack(SMALL, PackLimits(40, 120, 8))
    table = compare_batching(SMALL, 8, plan=plan, steps=40, seed=3)
    section = batching_section(table)
    config = export_config(plan, SMALL, {"dataset": "toy"}, sections={"batching": section})
    loaded, again = load_config(config_json(config))
    assert again == plan
    assert check_batching_section(loaded["batching"]) == json.loads(json.dumps(section))
    assert loaded["batching"]["run"]["steps"] == 40 and loaded["batching"]["run"]["seed"] == 3
    assert loaded["batching"]["strategies"]["dynamic"]["sample_size"] == 100  # every graph of the toy data
    assert [row["strategy"] for row in loaded["batching"]["table"]] == list(STRATEGIES)


@pytest.mark.parametrize("path, value, message", [
    (("version",), 2, "batching.version must be 1"),
    (("run",), [], "batching.run must be an object"),
    (("run", "batch_size"), 1, "batching.run.batch_size must be a whole number of at least 2"),
    (("run", "steps"), None, "either steps or epochs"),
    (("run", "seed"), -1, "batching.run.seed"),
    (("strategies", "static_64"), "x", "batching.strategies must map"),
    (("table",), [], "batching.table must be a non-empty list"),
    (("table", 0, "node_efficiency"), 1.5, r"batching.table\[0\].node_efficiency must be a fraction"),
    (("table", 1, "batches"), "many", r"batching.table\[1\].batches must be a whole number"),
    (("table", 2, "strategy"), "static_9", r"batching.table\[2\].strategy 'static_9' has no settings"),
    (("table", 3, "batches_per_epoch"), float("nan"), r"batches_per_epoch must be a finite number"),
])
def test_every_malformed_field_is_named(path, value, message):
    section = batching_section(compare_batching(SMALL, 8, steps=10))
    assert check_batching_section(section) is section
    with pytest.raises(ValueError, match=message):
        check_batching_section(replaced(section, path, value))


def test_section_needs_the_compare_table():
    with pytest.raises(ValueError, match="needs the table returned by compare_batching"):
        batching_section(pd.DataFrame({"strategy": ["static_64"]}))
    unknown = batching_section(compare_batching(SMALL, 8, steps=10))
    unknown["strategies"]["static_9"] = {}
    with pytest.raises(ValueError, match="unknown strategies"):
        check_batching_section(unknown)


@pytest.mark.parametrize("args, message", [
    (("--batch-size", "2", "--steps", "20000000"), "20,000,000 batches (steps x devices); at most 4,000,000"),
    (("--batch-size", "32", "--steps", "20000000", "--devices", "4096"), "lower the steps or the devices"),
    (("--batch-size", "32", "--epochs", "100000", "--devices", "4096"), "lower the epochs, or raise the batch size"),
    (("--batch-size", "512", "--steps", "1000000", "--devices", "2"),
     "draws 1,024,000,000 graphs (steps x devices x graphs per batch)"),
])
def test_runs_too_large_for_memory_are_refused_at_once(molhiv_file, args, message):
    start = time.perf_counter()
    result = cli("batching", str(molhiv_file), *args)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr
    assert time.perf_counter() - start < 20  # refused before simulating


def test_packs_per_step_count_in_the_work_of_a_run(molhiv):
    plan = pack(molhiv, PackLimits(222, 502, 64))
    with pytest.raises(ValueError, match=r"draws [\d,]+ graphs \(steps x devices x graphs per batch\).* packs per batch"):
        compare_batching(molhiv, 32, plan=plan, steps=100_000, packs_per_batch=4096)


def test_settings_that_do_not_apply_and_bad_outputs_are_refused_before_any_work(molhiv_file, tmp_path):
    ignored = cli("batching", str(molhiv_file), "--batch-size", "8", "--packs-per-batch", "5")
    assert ignored.returncode == 2 and "--packs-per-batch applies to packs of chosen limits" in ignored.stderr
    zero = cli("batching", str(molhiv_file), "--batch-size", "8", "--packs-per-batch", "0")
    assert zero.returncode == 2 and "expected a whole number of at least 1 or 'match', got '0'" in zero.stderr
    out = tmp_path / "x.txt"
    start = time.perf_counter()
    wrong = cli("batching", str(molhiv_file), "--batch-size", "8", "--steps", "2000000", "--out", str(out))
    assert wrong.returncode == 2 and "--out must end in .csv or .json, got 'x.txt'" in wrong.stderr
    assert time.perf_counter() - start < 20 and not out.exists() and wrong.stdout == ""


def test_a_batch_too_large_for_its_packs_names_the_batch_size():
    plan = pack(SMALL, PackLimits(40, 120, 8))
    with pytest.raises(ValueError, match=r"A batch of 1,000,000 graphs takes [\d,]+ packs .* lower the batch size or "
                                         r"raise the pack limits"):
        compare_batching(SMALL, 1_000_000, plan=plan, steps=10, packs_per_batch=packs_matching_batch_size(plan,
                                                                                                         1_000_000))
