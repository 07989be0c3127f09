"""Sizes of PyG InMemoryDatasets from slices equal the per-graph loop; safe loading."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch_geometric.data import Data, InMemoryDataset

from data_loaders import load_pyg_dataset
from data_loaders.pyg_sizes import dataset_sizes, loop_sizes

from packing import SizeHistogram


class Graphs(InMemoryDataset):
    """An in-memory data set of the given graphs (no files)."""

    def __init__(self, graphs: list[Data]) -> None:
        super().__init__()
        self.data, self.slices = self.collate(graphs)


def make_graphs(sizes: list[tuple[int, int]], with_x: bool) -> list[Data]:
    graphs = []
    for nodes, edges in sizes:
        edge_index = torch.randint(0, max(nodes, 1), (2, edges))
        graph = Data(edge_index=edge_index, num_nodes=nodes)
        if with_x:
            graph.x = torch.ones(nodes, 2)
        graphs.append(graph)
    return graphs


sizes_strategy = st.lists(st.tuples(st.integers(1, 30), st.integers(0, 60)), min_size=2, max_size=40)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sizes=sizes_strategy, with_x=st.booleans(), data=st.data())
def test_slices_equal_per_graph_loop_including_subset_views(sizes, with_x, data) -> None:
    dataset = Graphs(make_graphs(sizes, with_x))
    fast = dataset_sizes(dataset)
    slow = loop_sizes(dataset)
    assert [a.tolist() for a in fast] == [a.tolist() for a in slow] == [list(c) for c in zip(*sizes)]
    index = data.draw(st.lists(st.integers(0, len(sizes) - 1), min_size=1, max_size=20))
    view = dataset[index]
    assert [a.tolist() for a in dataset_sizes(view)] == [a.tolist() for a in loop_sizes(view)]
    hist = SizeHistogram.from_sizes(*fast)
    assert hist.num_graphs == len(sizes) and hist.total_edges == sum(e for _, e in sizes)


def test_saved_dataset_in_both_formats_gives_loop_histogram(tmp_path: Path) -> None:
    sizes = [(3, 4), (5, 8), (3, 4), (7, 0)]
    graphs = make_graphs(sizes, with_x=True)
    expected = SizeHistogram.from_sizes(*zip(*sizes))
    new_format = tmp_path / "new" / "processed" / "data.pt"
    new_format.parent.mkdir(parents=True)
    InMemoryDataset.save(graphs, str(new_format))
    (new_format.parent / "pre_transform.pt").write_bytes(b"")
    old_format = tmp_path / "old.pt"
    torch.save(InMemoryDataset.collate(graphs), old_format)
    for target in (new_format, tmp_path / "new", old_format):
        hist, info = load_pyg_dataset(target)
        assert hist == expected and info["source"] == "user file" and info["graphs"] == 4


def test_a_saved_data_set_of_one_graph_counts_its_nodes_from_their_features(tmp_path: Path) -> None:
    path = tmp_path / "one.pt"
    InMemoryDataset.save(make_graphs([(5, 6)], with_x=True), str(path))  # PyG keeps no slices, no num_nodes
    assert load_pyg_dataset(path)[0] == SizeHistogram.from_sizes([5], [6])


def test_graphs_without_node_features_use_stored_node_counts(tmp_path: Path) -> None:
    graphs = make_graphs([(10, 2), (4, 6)], with_x=False)  # like ogbg-ppa
    path = tmp_path / "ppa_like.pt"
    torch.save(InMemoryDataset.collate(graphs), path)
    assert load_pyg_dataset(path)[0] == SizeHistogram.from_sizes([10, 4], [2, 6])


class _Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def test_pickle_with_foreign_objects_is_refused_and_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    path = tmp_path / "evil.pt"
    torch.save((_Payload(marker), {"x": torch.tensor([0, 1])}), path)
    with pytest.raises(ValueError, match=r"not loaded, for safety \(Unsupported global: GLOBAL \w+ was not an allowed global by default\)\.$"):
        load_pyg_dataset(path)
    assert not marker.exists()
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"garbage" * 10)
    with pytest.raises(ValueError, match=r"garbage.pt is not a readable PyTorch file \(Unsupported operand \d+\)"):
        load_pyg_dataset(garbage)


def test_bad_paths_and_uploads_are_refused(tmp_path: Path) -> None:
    import io

    with pytest.raises(ValueError, match="local file, not an upload"):
        load_pyg_dataset(io.BytesIO(b"data"))
    with pytest.raises(ValueError, match="No file or folder"):
        load_pyg_dataset(tmp_path / "missing.pt")
    (tmp_path / "empty_root" / "processed").mkdir(parents=True)
    with pytest.raises(ValueError, match="exactly one processed .pt file"):
        load_pyg_dataset(tmp_path / "empty_root")
    not_torch = tmp_path / "text.pt"
    not_torch.write_text("hello")
    with pytest.raises(ValueError, match="not a readable PyTorch file|not loaded"):
        load_pyg_dataset(not_torch)
    torch.save({"a": torch.zeros(2)}, tmp_path / "dict.pt")
    with pytest.raises(ValueError, match="not a saved InMemoryDataset"):
        load_pyg_dataset(tmp_path / "dict.pt")
