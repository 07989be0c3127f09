"""Shards without a cluster: the exact merge of histograms, reading one shard by the size-table
rules, SMILES counted per shard, shard lists, sweeps on any executor, and no Dask in packing."""
import gzip
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from data_loaders.shards import PartialHistogram, ShardFormat, ShardReport, merge_partials, read_shard, shard_paths
from data_loaders.smiles import smiles_sizes
from packing import SizeHistogram, sweep
from packing.histogram import MAX_TOTAL
from packing.io import load_size_table

ROOT = Path(__file__).resolve().parents[1]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 30), st.integers(0, 60)), min_size=1, max_size=300),
       st.lists(st.integers(0, 300), max_size=6), st.randoms(use_true_random=False))
def test_merge_of_any_split_equals_the_whole(sizes, cuts, random):
    nodes, edges = (np.array(column) for column in zip(*sizes))
    bounds = [0, *sorted(cut % (len(sizes) + 1) for cut in cuts), len(sizes)]
    parts = [SizeHistogram.from_sizes(nodes[a:b], edges[a:b]) for a, b in zip(bounds, bounds[1:]) if b > a]
    random.shuffle(parts)
    merged = SizeHistogram.merge(parts)
    assert merged == SizeHistogram.from_sizes(nodes, edges)
    assert merged.num_graphs == len(sizes) and merged.total_edges == int(edges.sum())


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.tuples(st.integers(1, 9), st.integers(0, 16)), max_size=20), min_size=1, max_size=8))
def test_merging_partials_keeps_every_graph_and_every_shard_report_once(shards):
    parts = [PartialHistogram(SizeHistogram.from_sizes(*zip(*sizes)) if sizes else None,
                              (ShardReport(f"shard-{index}", len(sizes), len(sizes)),))
             for index, sizes in enumerate(shards)]
    merged = merge_partials([merge_partials(parts[:3]), merge_partials(parts[3:])] if len(parts) > 3 else parts)
    every = [size for sizes in shards for size in sizes]
    assert [report.shard for report in merged.shards] == [f"shard-{index}" for index in range(len(shards))]
    if every:
        assert merged.histogram == SizeHistogram.from_sizes(*zip(*every))
    else:
        assert merged.histogram is None


def test_merge_keeps_huge_counts_exact_and_refuses_overflow():
    big = 2**61 + 5  # a float holds it as 2^61: a float sum would lose the 5
    a, b = SizeHistogram.from_counts([1, 2], [0, 2], [big, 1]), SizeHistogram.from_counts([1], [0], [9])
    merged = SizeHistogram.merge([a, b])
    assert merged.counts.tolist() == [big + 9, 1] and merged.num_graphs == big + 10
    assert 2 * big > MAX_TOTAL
    with pytest.raises(ValueError, match="more than can be counted exactly|too many to count exactly"):
        SizeHistogram.merge([a, a])


@pytest.mark.parametrize("parts, message", [([], "at least one histogram"), ([SizeHistogram.from_sizes([1], [0]), "x"],
                                             "Only size histograms")])
def test_merge_refuses_nothing_and_strangers(parts, message):
    with pytest.raises(ValueError, match=message):
        SizeHistogram.merge(parts)


@pytest.fixture()
def sizes() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    nodes = rng.integers(1, 40, 5000)
    return pd.DataFrame({"Num_Nodes ": nodes, "num_edges": 2 * (nodes - 1) + rng.integers(0, 9, nodes.size)})


@pytest.mark.parametrize("name", ["part.csv", "part.tsv", "part.parquet", "part.csv.gz"])
def test_a_size_shard_reads_as_the_size_table_reader_reads_it(tmp_path, sizes, name):
    path = tmp_path / name
    if name.endswith(".parquet"):
        sizes.to_parquet(path)
    else:
        sizes.to_csv(path, sep="\t" if ".tsv" in name else ",", index=False,
                     compression="gzip" if name.endswith(".gz") else None)
    part = read_shard(str(path), ShardFormat())
    assert part.histogram == load_size_table(path) == SizeHistogram.from_sizes(sizes.iloc[:, 0], sizes.iloc[:, 1])
    assert part.shards[0].rows == part.shards[0].graphs == len(sizes) and part.shards[0].invalid == 0


def test_a_histogram_shard_counts_graphs_not_rows(tmp_path):
    path = tmp_path / "hist.csv"
    path.write_text("num_nodes,num_edges,count\n3,4,1000\n5,8,2\n")
    report = read_shard(str(path), ShardFormat()).shards[0]
    assert (report.rows, report.graphs) == (2, 1002)


@pytest.mark.parametrize("content, message", [
    (b"num_nodes,num_edges\n3,4\n5,\n", "row 2 has no value for num_edges"),
    (b"num_nodes\n3\n", "missing column"),
    (b"num_nodes,num_edges\n3,4,9\n", "more fields than the header"),
    (b"num_nodes,num_edges\n0,4\n", "edges but no nodes"),
])
def test_a_bad_size_shard_is_refused_with_its_path(tmp_path, content, message):
    path = tmp_path / "part-3.csv"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message) as error:
        read_shard(str(path), ShardFormat())
    assert str(path) in str(error.value)


def test_an_empty_shard_counts_as_no_graphs_and_all_empty_is_refused(tmp_path):
    (tmp_path / "part-0.csv").write_text("num_nodes,num_edges\n3,4\n5,8\n")
    (tmp_path / "part-1.csv").write_text("num_nodes,num_edges\n")  # an empty partition, as Spark writes them
    (tmp_path / "part-2.csv").write_text("smiles\n")
    empty = read_shard(str(tmp_path / "part-1.csv"), ShardFormat())
    assert empty.histogram is None and (empty.shards[0].rows, empty.shards[0].graphs) == (0, 0)
    assert read_shard(str(tmp_path / "part-2.csv"), ShardFormat("smiles")).shards[0].rows == 0
    with pytest.raises(ValueError, match="missing column"):  # an empty shard must still have the columns
        read_shard(str(tmp_path / "part-2.csv"), ShardFormat())
    merged = merge_partials([read_shard(str(tmp_path / f"part-{i}.csv"), ShardFormat()) for i in (0, 1)])
    assert merged.histogram == SizeHistogram.from_sizes([3, 5], [4, 8]) and len(merged.shards) == 2


def test_smiles_shards_count_every_unparsable_row(tmp_path):
    smiles = ["CCO", "C1CC", None, "c1ccccc1", "", "not a smiles", "N#N", "x" * 200]
    path = tmp_path / "mols.parquet"
    pd.DataFrame({"SMILES": smiles, "id": range(len(smiles))}).to_parquet(path)
    for hydrogens in (False, True):
        part = read_shard(str(path), ShardFormat(" Smiles", hydrogens))
        nodes, edges, invalid = smiles_sizes(smiles, hydrogens=hydrogens)
        assert part.histogram == SizeHistogram.from_sizes(nodes, edges)
        report = part.shards[0]
        assert (report.rows, report.graphs, report.invalid) == (8, 3, 5) == (8, nodes.size, len(invalid))
    assert report.invalid_examples == ("row 2: 'C1CC'", "row 3: (no value)", "row 5: (no value)",
                                       "row 6: 'not a smiles'", "row 8: '" + "x" * 80 + "...'")


def test_a_shard_of_nothing_but_bad_smiles_is_counted_not_dropped(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("smiles\nC1CC\nQ\n")
    good = tmp_path / "good.csv"
    good.write_text("smiles\nCC\n")
    bad_part, good_part = (read_shard(str(p), ShardFormat("smiles")) for p in (path, good))
    assert bad_part.histogram is None and bad_part.shards[0].invalid == 2
    merged = merge_partials([bad_part, good_part])
    assert merged.histogram.num_graphs == 1 and [r.invalid for r in merged.shards] == [2, 0]


def test_smiles_column_must_exist(tmp_path):
    path = tmp_path / "mols.csv"
    path.write_text("smile\nCC\n")
    with pytest.raises(ValueError, match=r"no column 'smiles' holding SMILES; its columns are \['smile'\]"):
        read_shard(str(path), ShardFormat("smiles"))


def test_shard_paths_sorts_deduplicates_and_explains(tmp_path):
    for name in ("b.csv", "a.csv", "sub/c.csv"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("num_nodes,num_edges\n1,0\n")
    found = shard_paths([str(tmp_path / "*.csv"), str(tmp_path / "**" / "*.csv"), str(tmp_path / "a.csv")])
    assert [Path(p).relative_to(tmp_path).as_posix() for p in found] == ["a.csv", "b.csv", "sub/c.csv"]
    with pytest.raises(ValueError, match="No files match"):
        shard_paths([str(tmp_path / "*.parquet")])
    with pytest.raises(ValueError, match="is a folder; give its shards as a glob"):
        shard_paths([str(tmp_path / "sub")])


def test_a_gzip_bomb_shard_is_refused(tmp_path):
    path = tmp_path / "bomb.csv.gz"
    path.write_bytes(gzip.compress(b"num_nodes,num_edges\n" + b"1,0\n" * 300_000))
    with pytest.raises(ValueError, match="larger than the limit"):
        read_shard(str(path), ShardFormat(), max_bytes=100_000)


def test_sweep_runs_on_any_executor_and_leaves_it_open():
    hist = SizeHistogram.from_sizes([2, 3, 5, 7, 7], [2, 4, 8, 12, 12])
    grid = ([7, 9, 12, 20], [12, 16, 30])
    with ThreadPoolExecutor(max_workers=2) as pool:
        calls = []
        frame = sweep(hist, *grid, max_graphs=4, executor=pool, progress=lambda done, total: calls.append(done))
        assert pool.submit(lambda: 1).result() == 1  # not shut down by sweep
    pd.testing.assert_frame_equal(frame, sweep(hist, *grid, max_graphs=4, workers=1))
    assert calls[-1] == 12 and calls == sorted(calls)


def test_packing_never_imports_dask_and_data_loaders_imports_it_only_when_used():
    code = ("import sys, packing, data_loaders, data_loaders.__main__; "
            "print(sorted(m for m in ('dask', 'distributed') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
    sources = "\n".join(path.read_text() for path in (ROOT / "packing").glob("*.py"))
    assert "import dask" not in sources and "from dask" not in sources and "distributed" not in sources
