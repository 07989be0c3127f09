"""Hostile input for the packed loader (issue 37, item 11): a list of graphs gets the same
attribute levels as an ``InMemoryDataset`` of the same graphs, and an ``edge_index`` entry
outside its graph's nodes is refused before any batch, naming the graph."""
from __future__ import annotations

import pytest
import torch
from torch_geometric.data import Data

from data_loaders.packed import PackedLoader, graph_sizes
from packed_helpers import Graphs, plan_for
from packing import PackingPlan


def graph(nodes: int, edges: list[tuple[int, int]], target: float) -> Data:
    """A graph of ``nodes`` nodes with the given edges and a graph-level target ``y``."""
    edge_index = torch.tensor(edges, dtype=torch.long).reshape(-1, 2).t().contiguous()
    return Data(x=torch.arange(nodes, dtype=torch.float).view(-1, 1), edge_index=edge_index,
                y=torch.tensor([target]))


def one_node_then_one_edge() -> list[Data]:
    """Graph 0 has no edges; every graph with more than one node has exactly one edge, so PyG's
    rule on any single graph of two nodes reads the one-row ``y`` as edge-level."""
    return [graph(1, [], 0.5), graph(2, [(0, 1)], 1.5), graph(3, [(2, 0)], 2.5), graph(1, [], 3.5)]


def test_a_list_gets_the_levels_an_in_memory_dataset_of_the_same_graphs_gets():
    graphs = one_node_then_one_edge()
    stored = Graphs(graphs)
    plan = plan_for(stored, max_nodes=4, max_edges=2, max_graphs=3)
    listed, kept = PackedLoader(graphs, plan, shuffle=False), PackedLoader(stored, plan, shuffle=False)
    assert listed.layout == kept.layout
    assert {a.key: a.level for a in listed.layout.attributes}["y"] == "graph"
    pairs = list(zip(listed, kept, strict=True))
    assert pairs
    for one, other in pairs:
        assert sorted(one.keys()) == sorted(other.keys())
        for key in one.keys():
            assert torch.equal(one[key], other[key]), key
    assert sorted(y for one, _ in pairs for y in one.y[one.graph_mask].tolist()) == [0.5, 1.5, 2.5, 3.5]


def test_a_tuple_of_graphs_is_settled_as_a_list_is():
    graphs = one_node_then_one_edge()
    plan = plan_for(Graphs(graphs), max_nodes=4, max_edges=2, max_graphs=3)
    assert PackedLoader(tuple(graphs), plan).layout == PackedLoader(graphs, plan).layout


def test_a_target_that_fits_no_level_is_refused_in_a_list_as_in_a_stored_dataset():
    graphs = one_node_then_one_edge()
    graphs[2].y = torch.ones(2)
    plan = plan_for(Graphs(graphs), max_nodes=4, max_edges=2, max_graphs=3)
    with pytest.raises(ValueError, match=r"'y' has 1 rows in graph 0 \(1 nodes, 0 edges\)"):
        PackedLoader(graphs, plan)
    with pytest.raises(ValueError, match="'y' has 1 rows in stored graph 0"):
        PackedLoader(Graphs(graphs), plan)


def bad_graphs(entry: int) -> list[Data]:
    """Four graphs of 3 nodes; graph 2 has an edge from node 1 to ``entry``."""
    return [graph(3, [(0, 1), (1, 2)], i) if i != 2 else graph(3, [(0, 1), (1, entry)], i) for i in range(4)]


def good_plan() -> PackingPlan:
    return plan_for(Graphs(bad_graphs(0)), max_nodes=7, max_edges=4, max_graphs=2)


@pytest.mark.parametrize("entry", [-1, 3, 1000])
@pytest.mark.parametrize("wrap", [list, tuple, Graphs], ids=["list", "tuple", "InMemoryDataset"])
def test_an_edge_outside_its_graph_is_refused_naming_the_graph_and_the_entry(entry, wrap):
    message = (rf"Graph 2 of the dataset has edge_index entry {entry}, outside its 3 nodes \(an entry must lie "
               r"in 0 <= entry < 3\): .* Fix or drop the edge in graph 2 before packing\.")
    with pytest.raises(ValueError, match=message):
        PackedLoader(wrap(bad_graphs(entry)), good_plan())


def test_a_stray_edge_is_named_by_its_position_in_a_subset_view():
    stored = Graphs(bad_graphs(-1))
    with pytest.raises(ValueError, match="Graph 1 of the dataset has edge_index entry -1"):
        graph_sizes(stored[[3, 2, 0]])
    assert [sizes.tolist() for sizes in graph_sizes(stored[[3, 0, 1]])] == [[3, 3, 3], [2, 2, 2]]


def test_a_stray_edge_made_by_a_transform_is_refused_before_any_batch():
    def count_from_the_end(data: Data) -> Data:  # one endpoint numbered from the end
        data = data.clone()
        data.edge_index[1, -1] = data.edge_index[1, -1] - data.num_nodes
        return data

    with pytest.raises(ValueError, match="Graph 0 of the dataset has edge_index entry -1"):
        PackedLoader(Graphs(bad_graphs(0), transform=count_from_the_end), good_plan())
