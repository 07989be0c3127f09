"""The private PyG fields the packed loader relies on still exist and mean what it assumes.

Each check uses real PyG objects (``Batch.from_data_list``, an ``InMemoryDataset`` and a
subset view of it) and fails naming the field, so a PyG upgrade that renames or changes one
points straight at the function to fix in ``data_loaders/pyg_internals.py``.
"""
from __future__ import annotations

import copy
import pickle
import warnings

import torch
import torch_geometric
from torch_geometric.data import Batch, Data, InMemoryDataset

from data_loaders import pyg_internals
from data_loaders.pyg_internals import CHECKED_PYG_VERSION


def changed(field: str, expected: str) -> str:
    """The failure message for a private field that no longer holds what the code expects."""
    return (f"PyG {torch_geometric.__version__} changed {field}: expected {expected} (checked against PyG "
            f"{CHECKED_PYG_VERSION}). Update data_loaders/pyg_internals.py for this PyG version.")


def graphs_with_features() -> list[Data]:
    """Three graphs of 2, 3 and 4 nodes with node features, edges and a graph label."""
    return [Data(x=torch.full((n, 2), float(n)), edge_index=torch.tensor([[0, n - 1], [n - 1, 0]]),
                 y=torch.tensor([float(n)])) for n in (2, 3, 4)]


def graphs_with_node_counts() -> list[Data]:
    """Graphs that carry ``num_nodes`` and no node-level tensor."""
    return [Data(num_nodes=n, edge_index=torch.tensor([[0], [n - 1]])) for n in (3, 1, 5)]


class Stored(InMemoryDataset):
    """Graphs held as PyG holds them: concatenated, with ``slices``."""

    def __init__(self, graphs: list[Data]) -> None:
        super().__init__()
        self.data, self.slices = self.collate(graphs)


def test_in_memory_dataset_data_is_the_whole_storage_of_a_subset_view():
    dataset = Stored(graphs_with_features())
    view = dataset[[2, 0]]
    assert "_data" in vars(view), changed("InMemoryDataset._data", "an instance attribute holding the storage")
    storage = view._data
    assert isinstance(storage, Data) and storage.x.shape[0] == 9, \
        changed("InMemoryDataset._data", "one Data with every graph's rows (9 nodes), also for a subset view")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert view.data is storage, changed("InMemoryDataset._data", "the object the public `data` returns")
    assert list(view.indices()) == [2, 0], "InMemoryDataset.indices() no longer gives a view's storage positions"
    data, slices = pyg_internals.collated_storage(view)
    assert data is storage and slices is view.slices


def test_collated_num_nodes_holds_per_graph_node_counts():
    data, _ = InMemoryDataset.collate(graphs_with_node_counts())
    assert getattr(data, "_num_nodes", None) == [3, 1, 5], \
        changed("_num_nodes of a collated Data", "the node count of every graph, [3, 1, 5]")
    assert data.to_dict().get("_num_nodes") == [3, 1, 5], \
        changed("'_num_nodes' in Data.to_dict()", "the per-graph node counts, kept for saved datasets")
    assert pyg_internals.collated_node_counts(data) == [3, 1, 5]
    assert pyg_internals.collated_node_counts(data.to_dict()) == [3, 1, 5]


def test_batch_slice_and_increment_tables():
    batch = Batch.from_data_list(graphs_with_features())
    for field in ("_slice_dict", "_inc_dict"):
        assert isinstance(getattr(batch, field, None), dict), changed(f"Batch.{field}", "a dict set by from_data_list")
    slices, increments = batch._slice_dict, batch._inc_dict
    assert set(slices) == set(increments) == {"x", "edge_index", "y"}, \
        changed("Batch._slice_dict / _inc_dict", "one entry per attribute key")
    assert slices["x"].tolist() == [0, 2, 5, 9] and slices["edge_index"].tolist() == [0, 2, 4, 6] \
        and slices["y"].tolist() == [0, 1, 2, 3], \
        changed("Batch._slice_dict", "where each graph's rows start, with a leading 0 and the end")
    assert increments["edge_index"].tolist() == [0, 2, 5] and increments["x"].tolist() == [0, 0, 0], \
        changed("Batch._inc_dict", "each graph's shift: edge_index by the nodes before it, 0 for features")
    assert pyg_internals.separation_tables(batch) == (slices, increments)


def test_get_example_reads_the_tables_it_is_given():
    batch = Batch.from_data_list(graphs_with_features())
    slices, increments = pyg_internals.separation_tables(batch)
    merged_x = torch.tensor([0, 5, 9])  # graphs 0 and 1 read as one graph of 5 nodes
    pyg_internals.set_separation_tables(batch, {**slices, "x": merged_x}, increments)
    assert batch.get_example(0).x.shape[0] == 5, \
        changed("Batch._slice_dict", "the table Batch.get_example splits the batch with")
    shifted = {**increments, "edge_index": torch.tensor([0, 1, 5])}
    pyg_internals.set_separation_tables(batch, slices, shifted)
    assert batch.get_example(1).edge_index.tolist() == [[1, 3], [3, 1]], \
        changed("Batch._inc_dict", "the shift Batch.get_example subtracts from edge_index")


def test_batch_num_nodes_holds_per_graph_node_counts_read_by_get_example():
    batch = Batch.from_data_list(graphs_with_node_counts())
    assert getattr(batch, "_num_nodes", None) == [3, 1, 5], \
        changed("Batch._num_nodes", "the node count of every graph that carries num_nodes")
    assert pyg_internals.graph_node_counts(batch) == [3, 1, 5]
    pyg_internals.set_graph_node_counts(batch, [3, 7, 5])
    assert batch.get_example(1).num_nodes == 7, changed("Batch._num_nodes", "what Batch.get_example gives num_nodes")


def test_batch_num_graphs_comes_before_ptr():
    batch = Batch.from_data_list(graphs_with_features())
    assert getattr(batch, "_num_graphs", None) == 3, changed("Batch._num_graphs", "the graph count, 3")
    pyg_internals.set_graph_count(batch, 6)
    assert batch.num_graphs == 6 and len(batch) == 6, \
        changed("Batch._num_graphs", "what Batch.num_graphs returns, before counting ptr")


def test_empty_batch_of_data():
    batch = pyg_internals.empty_data_batch()
    assert isinstance(batch, Batch) and isinstance(batch, Data) and len(batch.keys()) == 0, \
        changed("Batch(_base_cls=Data)", "an empty Batch subclassing Data")


def test_fields_travel_with_copies_and_pickles():
    """The loader copies an empty batch per step and its workers pickle batches."""
    batch = pyg_internals.empty_data_batch()
    batch.x = torch.arange(5.0).unsqueeze(1)
    pyg_internals.set_separation_tables(batch, {"x": torch.tensor([0, 2, 5])}, {"x": torch.zeros(2, dtype=torch.long)})
    pyg_internals.set_graph_count(batch, 2)
    for twin in (copy.copy(batch), pickle.loads(pickle.dumps(batch))):
        assert twin.num_graphs == 2, changed("Batch._num_graphs", "kept by copy.copy and pickle")
        assert twin.get_example(1).x.flatten().tolist() == [2.0, 3.0, 4.0], \
            changed("Batch._slice_dict / _inc_dict", "kept by copy.copy and pickle")

