"""Registry, options, bundled profiles, the on-disk cache and the command line."""
from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from common_helpers import Finished, run_main
from data_helpers import needs_shared
from data_loaders import DatasetSpec, list_datasets, load_histogram
from data_loaders.__main__ import main
from data_loaders.cache import cache_key, cache_path

from packing import SizeHistogram
from packing.io import load_size_table

REPO = Path(__file__).resolve().parents[1]
SOURCES = {"bundled profile", "local files", "download", "computed from coordinates", "cache", "user file"}


def test_registry_contract() -> None:
    specs = {spec.name: spec for spec in list_datasets()}
    assert {"ogbg-molhiv", "ogbg-molpcba", "ogbg-code2", "ogbg-ppa", "pcqm4mv2", "qm9", "aflow"} <= set(specs)
    for spec in specs.values():
        assert isinstance(spec, DatasetSpec) and spec.title and spec.source and spec.splits
        assert isinstance(spec.options, dict) and isinstance(spec.choices, dict)
        assert spec.bundled or spec.download_size
        with pytest.raises(dataclasses.FrozenInstanceError):
            spec.name = "x"  # type: ignore[misc]
    assert specs["qm9"].options == {"graph": "bonds", "cutoff": 5.0, "k": 8}
    assert specs["qm9"].choices == {"graph": ("bonds", "full", "radius", "knn")}
    assert specs["aflow"].options == {"k": 24}
    specs["qm9"].options["graph"] = "full"
    assert list_datasets()[5].options["graph"] == "bonds"


@pytest.mark.parametrize("spec", [s for s in list_datasets() if s.bundled], ids=lambda s: s.name)
def test_every_bundled_data_set_opens_offline_on_every_split(spec: DatasetSpec) -> None:
    for split in spec.splits:
        hist, info = load_histogram(spec.name, split)
        assert info["source"] == "bundled profile" and info["graphs"] == hist.num_graphs > 0
        assert set(info) >= {"dataset", "split", "options", "source", "provenance", "graphs", "seconds"}
        assert info["seconds"] < 1.0


@pytest.mark.parametrize("call, message", [
    (lambda: load_histogram("nope"), "Unknown data set 'nope'"),
    (lambda: load_histogram("qm9", graph="triangles"), "must be one of bonds, full, radius, knn"),
    (lambda: load_histogram("qm9", graph="radius", cutoff=-1), "between"),
    (lambda: load_histogram("qm9", graph="knn", k=2.5), "whole number"),
    (lambda: load_histogram("qm9", colour="red"), "no option"),
    (lambda: load_histogram("ogbg-molhiv", "dev"), "no split 'dev'"),
    (lambda: load_histogram("aflow", k="many"), "must be a number"),
])
def test_bad_requests_raise_value_errors(call, message) -> None:
    with pytest.raises(ValueError, match=message):
        call()


@needs_shared
def test_computed_histograms_are_cached_and_corrupt_entries_recomputed(isolated_roots) -> None:
    first, info = load_histogram("aflow", "classification_data", k=16, use_bundled=False)
    assert info["source"] == "local files"
    second, info = load_histogram("aflow", "classification_data", k=16, use_bundled=False)
    assert info["source"] == "cache" and second == first
    path = cache_path(cache_key("aflow", "classification_data", {"k": 16}))
    for damage in (b"garbage", path.read_bytes()[:40]):
        path.write_bytes(damage)
        again, info = load_histogram("aflow", "classification_data", k=16, use_bundled=False)
        assert info["source"] == "local files" and again == first
    assert [p.name for p in isolated_roots["cache"].iterdir()] == [path.name]  # no temp files left


def test_cache_entry_for_another_key_is_not_trusted(isolated_roots) -> None:
    from data_loaders.cache import load_cached, save_cached

    key_a, key_b = cache_key("demo", "all", {"k": 1}), cache_key("demo", "all", {"k": 2})
    save_cached(key_a, SizeHistogram.from_sizes([1], [1]), "a")
    cache_path(key_b).write_bytes(cache_path(key_a).read_bytes())
    assert load_cached(key_b) is None and not cache_path(key_b).exists()
    assert load_cached(key_a)[1] == "a"


@needs_shared
def test_a_cache_that_cannot_be_written_costs_only_the_caching(monkeypatch, tmp_path: Path, capsys) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("GRAPH_PACKING_CACHE", str(blocker / "cache"))  # mkdir fails: NotADirectoryError
    hist, info = load_histogram("aflow", "classification_data", k=16, use_bundled=False)
    assert info["source"] == "local files" and hist.num_graphs > 0 and "GRAPH_PACKING_CACHE" in info["warning"]
    assert main(["histogram", "aflow", "--split", "classification_data", "--option", "k=16", "--no-bundled",
                 "--out", str(tmp_path / "h.csv")]) == 0
    error = capsys.readouterr().err
    assert error.startswith("warning: The histogram was computed but not cached") and "UserWarning" not in error
    assert load_size_table(tmp_path / "h.csv") == hist


@needs_shared
def test_a_cache_path_that_is_a_folder_is_left_alone(isolated_roots) -> None:
    path = cache_path(cache_key("aflow", "classification_data", {"k": 16}))
    path.mkdir(parents=True)
    hist, info = load_histogram("aflow", "classification_data", k=16, use_bundled=False)
    assert info["source"] == "local files" and hist.num_graphs > 0 and path.is_dir()
    assert "IsADirectoryError" in info["warning"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_flipped_cache_bytes_never_give_a_wrong_histogram(isolated_roots, data) -> None:
    from data_loaders.cache import load_cached, save_cached

    hist = SizeHistogram.from_counts([3, 5, 8, 21], [4, 10, 16, 40], [7, 5, 300, 2])
    key = cache_key("flips", "all", {"k": 3})
    path = save_cached(key, hist, "a test entry")
    content = bytearray(path.read_bytes())
    position = data.draw(st.integers(0, len(content) - 1))
    content[position] ^= data.draw(st.integers(1, 255))
    path.write_bytes(bytes(content))
    found = load_cached(key)
    assert found is None or found[0] == hist


def _cli(*args: str) -> Finished:
    """``python -m data_loaders ARGS`` run in this process (data and cache folders: ``isolated_roots``)."""
    return run_main(main, *args)


def test_command_line(isolated_roots, tmp_path: Path) -> None:
    listing = subprocess.run([sys.executable, "-m", "data_loaders", "list"], cwd=REPO, capture_output=True, text=True,
                             timeout=120, stdin=subprocess.DEVNULL)  # the entry point, in a real process
    assert listing.returncode == 0 and "ogbg-molhiv" in listing.stdout and "graph=bonds" in listing.stdout
    assert _cli("list").stdout == listing.stdout
    assert "--option" in _cli("histogram", "--help").stdout
    out = tmp_path / "knn.parquet"
    run = _cli("histogram", "qm9", "--option", "graph=knn", "--option", "k=5", "--out", str(out))
    assert run.returncode == 0, run.stderr
    assert load_size_table(out) == load_histogram("qm9", graph="knn", k=5)[0]
    sizes = tmp_path / "sizes.csv"
    sizes.write_text("num_nodes,num_edges\n3,4\n5,8\n")
    run = _cli("file", str(sizes), "--out", str(tmp_path / "h.csv"))
    assert run.returncode == 0 and load_size_table(tmp_path / "h.csv").num_graphs == 2
    bad = _cli("histogram", "qm9", "--option", "graph=triangles", "--out", str(out))
    assert bad.returncode == 2 and "error:" in bad.stderr and "Traceback" not in bad.stderr
    twice = _cli("histogram", "qm9", "--option", "graph=bonds", "--option", "graph=full", "--out", str(out))
    assert twice.returncode == 2 and "--option graph is given twice ('bonds' and 'full')" in twice.stderr
    for flag in (["--k", "5"], ["--hydrogens"]):  # options of AFLOW exports and SMILES, not of a size table
        unused = _cli("file", str(sizes), *flag, "--out", str(tmp_path / "h.csv"))
        assert unused.returncode == 2 and f"{flag[0]} does not apply to {sizes} (per-graph sizes (2 rows))" \
            in unused.stderr


def test_command_line_reports_unwritable_output(isolated_roots, tmp_path: Path) -> None:
    sizes = tmp_path / "h.csv"
    sizes.write_text("num_nodes,num_edges\n3,4\n")
    run = _cli("file", str(sizes), "--out", str(tmp_path / "missing_dir" / "o.csv"))
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.startswith("error: ") and "missing_dir does not exist; create it" in run.stderr
    assert not (tmp_path / "missing_dir").exists()


def test_package_does_not_import_streamlit() -> None:
    code = "import sys, data_loaders; data_loaders.load_histogram('qm9'); print('streamlit' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.stdout.strip() == "False", run.stderr
    sources = "".join(p.read_text() for p in (REPO / "data_loaders").glob("*.py"))
    assert "import streamlit" not in sources and "from streamlit" not in sources
