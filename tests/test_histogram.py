"""SizeHistogram: validation, Table 1 statistics on real data, marginals, files."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packing import SizeHistogram
from packing.io import load_size_table, save_histogram


def test_table1_statistics_molhiv(molhiv):
    stats = molhiv.stats()
    assert (stats["graphs"], stats["largest_nodes"], stats["largest_edges"], stats["distinct_tuples"]) == (
        32901, 222, 502, 795)
    assert round(100 * stats["node_efficiency"], 1) == 11.4
    assert round(100 * stats["edge_efficiency"], 1) == 10.8
    assert round(stats["node_speedup"], 1) == 8.8 and round(stats["edge_speedup"], 1) == 9.3


def test_table1_statistics_molpcba(molpcba):
    stats = molpcba.stats()
    assert (stats["graphs"], stats["largest_nodes"], stats["largest_edges"], stats["distinct_tuples"]) == (
        350343, 313, 636, 576)
    assert round(100 * stats["node_efficiency"], 2) == 8.21
    assert round(100 * stats["edge_efficiency"], 2) == 8.71
    assert round(stats["node_speedup"], 1) == 12.2 and round(stats["edge_speedup"], 1) == 11.5


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 40), st.integers(0, 90)), min_size=1, max_size=200))
def test_from_sizes_conserves_graphs_nodes_and_edges(sizes):
    nodes, edges = np.array(sizes).T
    hist = SizeHistogram.from_sizes(nodes, edges)
    assert hist.num_graphs == len(sizes)
    assert hist.total_nodes == nodes.sum() and hist.total_edges == edges.sum()
    assert hist.num_tuples == len(set(sizes))
    for component, values in (("nodes", nodes), ("edges", edges)):
        keys, counts = hist.marginal(component)
        assert dict(zip(keys.tolist(), counts.tolist())) == pd.Series(values).value_counts().to_dict()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 2**40), st.integers(0, 2**40)), min_size=1, max_size=200),
       st.tuples(st.integers(1, 2**40), st.integers(0, 2**40)))
def test_rows_of_finds_every_graphs_tuple_and_names_a_size_not_held(sizes, stranger):
    nodes, edges = np.array(sizes, dtype=np.int64).T
    hist = SizeHistogram.from_sizes(nodes, edges)
    rows = hist.rows_of(nodes, edges)
    assert np.array_equal(hist.num_nodes[rows], nodes) and np.array_equal(hist.num_edges[rows], edges)
    assert np.array_equal(np.bincount(rows, minlength=hist.num_tuples), hist.counts)
    if stranger not in sizes:
        with pytest.raises(ValueError, match=f"1 graph\\(s\\) have sizes the histogram does not hold, e.g. graph "
                                             f"{len(sizes):,} with {stranger[0]:,} nodes"):
            hist.rows_of(np.append(nodes, stranger[0]), np.append(edges, stranger[1]))


def test_from_counts_merges_repeated_tuples():
    hist = SizeHistogram.from_counts([3, 3, 1], [4, 4, 0], [2, 5, 1])
    assert hist.to_frame().values.tolist() == [[1, 0, 1], [3, 4, 7]]


@pytest.mark.parametrize(
    "nodes, edges, counts, message",
    [
        ([1, -2], [1, 1], [1, 1], "must not be negative"),
        ([1.5], [1], [1], r"whole numbers; found 1\.5\.$"),
        ([1], [1], [0], "count must be positive"),
        ([1, 2], [1], [1, 1], "same length"),
        ([], [], [], "at least one graph"),
        (["a"], [1], [1], "non-numeric"),
        ([np.nan], [1], [1], "NaN"),
        ([0, 2], [4, 2], [1, 1], "edges but no nodes"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(nodes, edges, counts, message):
    with pytest.raises(ValueError, match=message):
        SizeHistogram.from_counts(nodes, edges, counts)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_file_round_trip(tmp_path, molhiv, suffix):
    path = save_histogram(molhiv, tmp_path / f"hist{suffix}")
    assert load_size_table(path) == molhiv


def test_per_graph_size_files_are_read_as_sizes(tmp_path):
    path = tmp_path / "sizes.csv"
    path.write_text("num_nodes,num_edges\n3,4\n3,4\n5,8\n")
    assert load_size_table(path) == SizeHistogram.from_counts([3, 5], [4, 8], [2, 1])


def test_wrong_columns_and_types_are_named(tmp_path):
    (tmp_path / "bad.csv").write_text("nodes,edges\n1,2\n")
    with pytest.raises(ValueError, match=r"bad.csv: missing column\(s\) \['num_nodes', 'num_edges'\]"):
        load_size_table(tmp_path / "bad.csv")
    with pytest.raises(ValueError, match="Unknown histogram file type"):
        save_histogram(SizeHistogram.from_sizes([1], [2]), tmp_path / "x.txt")
    with pytest.raises(ValueError, match="No file at"):
        load_size_table(tmp_path / "missing.csv")


def test_equality_and_hash():
    a = SizeHistogram.from_sizes([1, 2], [1, 2])
    b = SizeHistogram.from_counts([2, 1], [2, 1], [1, 1])
    assert a == b and hash(a) == hash(b)
    assert a != SizeHistogram.from_sizes([1, 2, 2], [1, 2, 2])
