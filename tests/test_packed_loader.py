"""The packed loader in one process: static shapes, every graph once per epoch, exact masks,
padding that never touches real graphs, features of any width and dtype, several packs per
step, rank shares, exported configurations, and clear errors before the first batch."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch_geometric.data import Batch, Data
from torch_geometric.transforms import AddSelfLoops, Compose

from data_loaders import dataset_sizes, load_histogram
from data_loaders.packed import PackedBatchSampler, PackedLoader, graph_sizes
from data_loaders import BatchShape
from data_loaders.pyg_internals import separation_tables
from data_loaders.random_graphs import random_mol_dataset
from packed_helpers import Graphs, mixed_dataset, mixed_graph, plan_for, real_ids
from packing import PackingPlan, PackLimits, SizeHistogram, pack
from packing.export import export_config
from packing.io import save_config

SIZES = ([3, 1, 4, 0, 2, 5, 3, 2, 1, 4, 6, 2], [4, 0, 6, 0, 2, 8, 4, 2, 0, 6, 10, 2])
SHAPES_TO_CHECK = ("x", "pos", "flag", "node_label", "edge_index", "edge_attr", "y", "gid", "batch", "ptr",
                   "node_mask", "edge_mask", "graph_mask")


@pytest.fixture(scope="module")
def mixed():
    return mixed_dataset(*SIZES)


@pytest.fixture(scope="module")
def molhiv_sample():
    """2,000 random graphs with ogbg-molhiv's sizes and OGB feature widths (a subset view)."""
    hist, _ = load_histogram("ogbg-molhiv", split="train")
    return random_mol_dataset(hist, seed=3)[:2000]


def shapes(batch) -> dict[str, tuple]:
    return {key: (tuple(batch[key].shape), batch[key].dtype) for key in SHAPES_TO_CHECK}


def assert_padded_correctly(batch, shape: BatchShape, originals: list[Data]) -> None:
    """Masks exact, padding edges self-loops on padding nodes, no edge between graphs, and
    every real graph recoverable unchanged."""
    graphs = len(originals)
    nodes = sum(graph.num_nodes for graph in originals)
    edges = sum(graph.num_edges for graph in originals)
    assert batch.num_graphs == shape.num_graphs and batch.num_nodes == shape.num_nodes
    assert batch.node_mask.tolist() == [i < nodes for i in range(shape.num_nodes)]
    assert batch.edge_mask.tolist() == [i < edges for i in range(shape.num_edges)]
    assert batch.graph_mask.tolist() == [i < graphs for i in range(shape.num_graphs)]
    source, target = batch.edge_index
    assert torch.equal(batch.batch[source], batch.batch[target])  # no edge joins two graphs
    padding_edges = batch.edge_index[:, ~batch.edge_mask]
    assert torch.equal(padding_edges[0], padding_edges[1])  # self-loops ...
    assert bool((padding_edges[0] >= nodes).all())  # ... on padding nodes
    assert bool((batch.batch[~batch.node_mask] == graphs).all())  # all padding nodes: one padding graph
    assert batch.ptr.tolist() == [0, *np.cumsum([g.num_nodes for g in originals]).tolist(),
                                  *[shape.num_nodes] * (shape.num_graphs - graphs)]
    for position, original in enumerate(originals):
        recovered = batch.get_example(position)
        for key in original.keys():
            assert torch.equal(recovered[key], original[key]), key
    padding = batch.get_example(graphs)
    assert padding.num_nodes == shape.num_nodes - nodes and padding.num_edges == shape.num_edges - edges
    for empty in range(graphs + 1, shape.num_graphs):
        assert batch.get_example(empty).num_nodes == 0 and batch.get_example(empty).num_edges == 0


def test_static_shapes_and_every_graph_once_per_epoch(mixed):
    plan = plan_for(mixed, max_nodes=7, max_edges=10, max_graphs=3)
    loader = PackedLoader(mixed, plan, seed=5)
    expected = BatchShape(8, 10, 4)
    assert loader.shape == expected and len(loader) == plan.num_packs
    epochs = []
    for epoch in range(3):
        loader.set_epoch(epoch)
        seen, first = [], None
        for batch in loader:
            assert shapes(batch) == (first := first or shapes(batch))
            assert first["x"][0] == (8, 5) and first["edge_index"][0] == (2, 10) and first["y"][0] == (4, 2)
            ids = real_ids(batch)
            assert_padded_correctly(batch, expected, [mixed[i] for i in ids])
            seen.extend(ids)
        assert sorted(seen) == list(range(len(mixed)))
        epochs.append(seen)
    assert epochs[0] != epochs[1] != epochs[2]  # set_epoch reshuffles
    loader.set_epoch(1)
    assert [i for batch in loader for i in real_ids(batch)] == epochs[1]  # ... deterministically


def test_shuffle_keeps_the_plan_and_deals_graphs_of_one_size_tuple():
    """Each epoch's packs hold exactly the plan's size tuples; graphs of one tuple move."""
    dataset = mixed_dataset([3] * 6 + [2] * 6, [4] * 6 + [2] * 6)
    plan = plan_for(dataset, max_nodes=5, max_edges=6, max_graphs=2)
    sampler = PackedBatchSampler(dataset, plan, seed=0)
    sizes = lambda pack: sorted((dataset[int(i)].num_nodes, dataset[int(i)].num_edges) for i in pack)
    plan_packs = sorted(sorted((n, e) for n, e, k in items for _ in range(k))
                        for items, count in plan.packs for _ in range(count))
    contents = set()
    for epoch in range(4):
        sampler.set_epoch(epoch)
        packs = sampler.epoch_packs()
        assert sorted(sizes(pack) for pack in packs) == plan_packs
        contents.add(tuple(tuple(sorted(pack.tolist())) for pack in packs))
    assert len(contents) == 4


def test_without_shuffle_the_order_is_the_plans(mixed):
    plan = plan_for(mixed, max_nodes=7, max_edges=10, max_graphs=3)
    first = [pack.tolist() for pack in PackedBatchSampler(mixed, plan, shuffle=False).epoch_packs()]
    sampler = PackedBatchSampler(mixed, plan, shuffle=False)
    sampler.set_epoch(4)
    assert [pack.tolist() for pack in sampler.epoch_packs()] == first
    assert list(sampler) == first


def test_storage_gather_equals_pyg_batching(mixed, molhiv_sample):
    """The fast path gives exactly Batch.from_data_list, slice tables included."""
    for dataset in (mixed, molhiv_sample):
        loader = PackedLoader(dataset, plan_for(dataset, max_nodes=130, max_edges=280, max_graphs=8))
        source = loader.dataset
        assert source.storage is not None
        indices = [5, 0, 11, 3, 3, 7]
        fast = source.__getitems__(indices)
        reference = Batch.from_data_list([dataset[i] for i in indices])
        assert sorted(fast.keys()) == sorted(reference.keys())
        for key in reference.keys():
            assert torch.equal(fast[key], reference[key]), key
        (fast_slices, fast_increments), (slices, increments) = separation_tables(fast), separation_tables(reference)
        for key in slices:
            assert torch.equal(fast_slices[key], slices[key]), key
            assert torch.equal(fast_increments[key], increments[key]), key
        assert fast.num_graphs == reference.num_graphs


def test_general_path_gives_the_same_batches(mixed):
    """A list of Data (no slices) takes the general path and pads to the same batches."""
    plan = plan_for(mixed, max_nodes=7, max_edges=10, max_graphs=3)
    as_list = [mixed[i] for i in range(len(mixed))]
    fast, general = PackedLoader(mixed, plan, seed=2), PackedLoader(as_list, plan, seed=2)
    assert fast.dataset.storage is not None and general.dataset.storage is None
    for one, other in zip(fast, general, strict=True):
        for key in SHAPES_TO_CHECK:
            assert torch.equal(one[key], other[key]), key


def test_worker_processes_give_the_same_batches(mixed):
    """Also with persistent workers (as for a GPU): set_epoch still reshuffles every epoch."""
    plan = plan_for(mixed, max_nodes=7, max_edges=10, max_graphs=3)
    here = PackedLoader(mixed, plan, seed=6)
    workers = PackedLoader(mixed, plan, seed=6, num_workers=2, persistent_workers=True)
    for epoch in (0, 1, 2):
        here.set_epoch(epoch)
        workers.set_epoch(epoch)
        for one, other in zip(here, workers, strict=True):
            for key in SHAPES_TO_CHECK:
                assert torch.equal(one[key], other[key]), key
            assert other.get_example(0).num_nodes == one.get_example(0).num_nodes


def test_any_feature_width_and_dtype_is_padded_with_its_value(mixed):
    plan = plan_for(mixed, max_nodes=7, max_edges=10, max_graphs=3)
    values = {"x": -1.5, "pos": 2.0, "flag": True, "node_label": -1, "edge_attr": 9.0, "y": -7.0}
    batch = next(iter(PackedLoader(mixed, plan, pad_values=values)))
    for key, value in values.items():
        mask = {"edge_attr": batch.edge_mask, "y": batch.graph_mask}.get(key, batch.node_mask)
        assert bool((batch[key][~mask] == value).all()), key
        assert batch[key].dtype == mixed[0][key].dtype, key
    assert bool((batch.gid[~batch.graph_mask] == 0).all())


def test_node_level_targets_and_graphs_without_features():
    """Node-level y is padded per node; graphs that only carry num_nodes get it padded."""
    graphs = [Data(num_nodes=n, edge_index=torch.zeros(2, 0, dtype=torch.long), y=torch.arange(n))
              for n in (2, 3, 1, 4)]
    dataset = Graphs(graphs)
    plan = plan_for(dataset, max_nodes=5, max_edges=1, max_graphs=2)
    loader = PackedLoader(dataset, plan, shuffle=False)
    assert [a.level for a in loader.layout.attributes if a.key == "y"] == ["node"]
    for batch in loader:
        assert batch.num_nodes == 6 and batch.y.shape == (6,) and batch.num_graphs == 3
        real = batch.y[batch.node_mask].tolist()
        assert real and bool((batch.y[~batch.node_mask] == 0).all())
        assert sum(batch.get_example(i).num_nodes for i in range(3)) == 6


def test_several_packs_per_step(molhiv_sample):
    plan = plan_for(molhiv_sample, max_nodes=150, max_edges=330, max_graphs=16)
    loader = PackedLoader(molhiv_sample, plan, packs_per_step=3, seed=1)
    # graph slots: 3 times the fullest pack's 13 graphs (not the limit's 16), plus the padding graph
    assert plan.graph_capacity == 13 and loader.shape == BatchShape(451, 990, 40)
    steps = list(loader.batch_sampler)
    assert len(steps) == len(loader) == -(-plan.num_packs // 3)
    assert sorted(i for step in steps for i in step) == list(range(len(molhiv_sample)))
    for step, batch in zip(steps, loader, strict=True):
        assert batch.x.shape == (451, 9) and batch.edge_attr.shape == (990, 3) and batch.y.shape == (40, 1)
        assert int(batch.graph_mask.sum()) == len(step)
        assert int(batch.node_mask.sum()) == sum(molhiv_sample[i].num_nodes for i in step)


def test_loaders_of_two_plans_with_the_same_limits_share_one_covering_shape(molhiv_sample):
    """Graph slots follow each plan's fullest pack, so a training and a validation plan of
    the same limits pad to different graph counts; BatchShape.covering gives both one shape."""
    parts = molhiv_sample[:1600], molhiv_sample[1600:]
    plans = [plan_for(part, max_nodes=150, max_edges=330, max_graphs=64) for part in parts]
    own = [BatchShape.for_plan(plan, 2) for plan in plans]
    assert own[0].num_graphs != own[1].num_graphs and own[0][:2] == own[1][:2]
    shared = BatchShape.covering(*own)
    assert shared.num_graphs == max(shape.num_graphs for shape in own)
    seen = set()
    for part, plan in zip(parts, plans):
        loader = PackedLoader(part, plan, packs_per_step=2, shape=shared)
        seen |= {(b.x.shape[0], b.edge_index.shape[1], b.num_graphs, b.y.shape[0]) for b in loader}
    assert seen == {(*shared, shared.num_graphs)}


def test_a_larger_shape_is_kept_and_a_smaller_one_refused(mixed):
    plan = plan_for(mixed, max_nodes=7, max_edges=10, max_graphs=3)
    batch = next(iter(PackedLoader(mixed, plan, shape=BatchShape(16, 16, 8))))
    assert batch.x.shape == (16, 5) and batch.num_graphs == 8 and batch.edge_index.shape == (2, 16)
    with pytest.raises(ValueError, match="has 7 nodes, but the plan needs at least 8"):
        PackedLoader(mixed, plan, shape=BatchShape(7, 10, 4))
    assert PackedLoader(mixed, plan, shape=(16, 16, 8)).shape == BatchShape(16, 16, 8)  # a plain tuple is read
    with pytest.raises(ValueError, match=r"shape must be a BatchShape or \(num_nodes, num_edges, num_graphs\)"):
        PackedLoader(mixed, plan, shape=(16, 16))


def test_node_only_plan_pads_to_its_largest_edge_sum(mixed):
    """A 1D baseline leaves edges unlimited: the shape takes the largest edge sum used."""
    plan = plan_for(mixed, max_nodes=7, max_edges=10, max_graphs=3, algorithm="node_only")
    loader = PackedLoader(mixed, plan)
    assert loader.shape.num_edges == plan.tight_limits[1]
    assert {tuple(batch.edge_index.shape) for batch in loader} == {(2, plan.tight_limits[1])}


def test_when_every_graph_has_one_node_one_row_attributes_are_node_level():
    dataset = mixed_dataset([1, 1, 1], [0, 1, 0])
    loader = PackedLoader(dataset, plan_for(dataset, max_nodes=2, max_edges=2, max_graphs=2))
    assert {a.key: a.level for a in loader.layout.attributes}["gid"] == "node"
    assert {tuple(batch.gid.shape) for batch in loader} == {(3,)}


def test_when_every_graph_has_one_edge_one_row_attributes_are_edge_level():
    """PyG's rule again: in a graph of one edge, Data.is_edge_attr holds for a one-row attribute."""
    dataset = mixed_dataset([2, 3], [1, 1])
    loader = PackedLoader(dataset, plan_for(dataset, max_nodes=5, max_edges=2, max_graphs=2))
    assert {a.key: a.level for a in loader.layout.attributes}["gid"] == "edge"
    assert {tuple(batch.gid.shape) for batch in loader} == {(2,)}


@st.composite
def dataset_and_plan_settings(draw):
    count = draw(st.integers(1, 30))
    nodes = draw(st.lists(st.integers(0, 8), min_size=count, max_size=count))
    # when every graph has one node (or one edge), a one-row attribute is node-level (edge-level):
    # PyG's rule, tested above; graph 0 keeps the gid used here graph-level
    nodes[0] = draw(st.sampled_from([0, 2, 3]))
    edges = [draw(st.integers(0, 12)) if n else 0 for n in nodes]
    edges[0] = draw(st.sampled_from([0, 2, 3])) if nodes[0] else 0
    max_nodes = draw(st.integers(max(max(nodes), 1), 20))
    max_edges = draw(st.integers(max(max(edges), 1), 30))
    return nodes, edges, (max_nodes, max_edges, draw(st.integers(1, 6)))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dataset_and_plan_settings(), st.integers(1, 3), st.integers(1, 3), st.sampled_from(["pad", "drop"]),
       st.integers(0, 3))
def test_ranks_share_every_epoch_exactly(case, world_size, packs_per_step, remainder, epoch):
    """Explicit ranks: equal step counts, no graph twice, every graph once with pad, and
    only the remainder left out with drop; every step in the shape, padded exactly."""
    nodes, edges, limits = case
    dataset = mixed_dataset(nodes, edges, seed=len(nodes))
    plan = plan_for(dataset, max_nodes=limits[0], max_edges=limits[1], max_graphs=limits[2])
    per_round = world_size * packs_per_step
    if remainder == "drop" and plan.num_packs < per_round:
        with pytest.raises(ValueError, match="leaves no step"):
            PackedBatchSampler(dataset, plan, rank=0, world_size=world_size, packs_per_step=packs_per_step,
                               remainder=remainder)
        return
    loaders = [PackedLoader(dataset, plan, seed=7, rank=rank, world_size=world_size,
                            packs_per_step=packs_per_step, remainder=remainder) for rank in range(world_size)]
    seen = []
    for loader in loaders:
        loader.set_epoch(epoch)
        steps = list(loader)
        assert len(steps) == len(loaders[0]) == len(loader)
        for batch in steps:
            assert batch.x.shape[0] == packs_per_step * plan.limits.max_nodes + 1
            assert batch.edge_index.shape[1] == packs_per_step * plan.limits.max_edges
            assert batch.num_graphs == packs_per_step * plan.graph_capacity + 1
            assert_padded_correctly(batch, loader.shape, [dataset[i] for i in real_ids(batch)])
            seen.extend(real_ids(batch))
    assert len(seen) == len(set(seen))
    if remainder == "pad":
        assert sorted(seen) == list(range(len(nodes)))
    else:
        kept = sorted(len(pack) for pack in loaders[0].batch_sampler.epoch_packs()[:len(loaders[0]) * per_round])
        assert len(seen) == sum(kept)


def test_exported_configuration_gives_the_same_packs(tmp_path, molhiv_sample):
    hist = SizeHistogram.from_sizes(*dataset_sizes(molhiv_sample))
    plan = pack(hist, max_nodes=300, max_edges=640, max_graphs=32, algorithm="best")
    path = save_config(export_config(plan, hist, {"dataset": "molhiv-shaped sample"}), tmp_path / "config.json")
    direct = PackedLoader(molhiv_sample, plan, seed=4)
    loaded = PackedLoader.from_config(molhiv_sample, path, seed=4)
    from_text = PackedLoader.from_config(molhiv_sample, path.read_text(), seed=4)
    assert loaded.plan == plan and loaded.shape == direct.shape
    for epoch in (0, 1):
        for loader in (direct, loaded, from_text):
            loader.set_epoch(epoch)
        assert list(loaded.batch_sampler) == list(direct.batch_sampler) == list(from_text.batch_sampler)
    for one, other in zip(direct, loaded, strict=True):
        assert torch.equal(one.x, other.x) and torch.equal(one.edge_index, other.edge_index)


def test_a_transform_that_changes_sizes_is_packed_by_the_sizes_it_gives():
    dataset = mixed_dataset([3, 2, 4], [2, 2, 2], transform=AddSelfLoops(attr="edge_attr", fill_value=0.0))
    stored = plan_for(dataset, max_nodes=4, max_edges=8, max_graphs=2)  # sizes before the transform
    with pytest.raises(ValueError, match=r"size \(2 nodes, 2 edges\) has 1 graphs in the plan but 0 in the dataset"):
        PackedLoader(dataset, stored)
    nodes, edges = graph_sizes(dataset)
    assert (nodes.tolist(), edges.tolist()) == ([3, 2, 4], [5, 4, 6])  # a self loop per node
    loader = PackedLoader(dataset, pack(SizeHistogram.from_sizes(nodes, edges), max_nodes=4, max_edges=8, max_graphs=2))
    assert loader.dataset.storage is None  # the general path: graphs come through the transform
    batches = list(loader)
    assert sorted(gid for batch in batches for gid in real_ids(batch)) == [0, 1, 2]
    assert all(batch.edge_index.shape[1] == 8 for batch in batches)


def test_a_transform_whose_sizes_change_after_the_plan_is_caught():
    grow = Compose([AddSelfLoops(attr="edge_attr", fill_value=0.0)])
    dataset = mixed_dataset([3, 2, 4], [2, 2, 2], transform=grow)
    loader = PackedLoader(dataset, pack(SizeHistogram.from_sizes(*graph_sizes(dataset)), max_nodes=4, max_edges=8,
                                        max_graphs=2))
    grow.transforms.append(AddSelfLoops(attr="edge_attr", fill_value=0.0))  # twice the loops from now on
    with pytest.raises(ValueError, match="does the dataset's transform add nodes or edges"):
        list(loader)


class Sevens(Graphs):
    """Stored like any InMemoryDataset, but ``get`` gives every node the features 7 (as
    subclasses such as PyG's HydroNet override ``get``)."""

    def get(self, idx: int) -> Data:
        graph = super().get(idx).clone()
        graph.x = torch.full_like(graph.x, 7.0)
        return graph


def test_a_dataset_with_its_own_get_is_read_through_it_as_pyg_reads_it(mixed):
    dataset = Sevens([mixed_graph(n, e, i, np.random.default_rng(i)) for i, (n, e) in enumerate(zip(*SIZES))])
    loader = PackedLoader(dataset, plan_for(dataset, max_nodes=8, max_edges=12, max_graphs=4))
    assert loader.dataset.storage is None  # not the stored rows: dataset[i] is what get() returns
    batches = list(loader)
    assert all(bool((batch.x[batch.node_mask] == 7).all()) for batch in batches)
    assert sorted(gid for batch in batches for gid in real_ids(batch)) == list(range(len(SIZES[0])))


def test_values_changed_after_the_loader_was_built_are_the_ones_batched():
    dataset = mixed_dataset(*SIZES)
    loader = PackedLoader(dataset, plan_for(dataset, max_nodes=8, max_edges=12, max_graphs=4), shuffle=False)
    assert loader.dataset.storage is not None  # the fast path
    dataset._data.y = dataset._data.y * 0 - 0.5  # normalised in place, as PyG's QM9 examples do
    batch = next(iter(loader))
    assert bool((batch.y[batch.graph_mask] == -0.5).all())


class DropEdges:
    """A random augmentation: every edge kept with probability 0.7."""

    def __call__(self, graph: Data) -> Data:
        graph = graph.clone()
        keep = torch.rand(graph.num_edges) > 0.3
        graph.edge_index, graph.edge_attr = graph.edge_index[:, keep], graph.edge_attr[keep]
        return graph


def test_a_transform_that_changes_sizes_at_random_is_named_as_unpackable():
    torch.manual_seed(0)
    dataset = mixed_dataset([4] * 40, [12] * 40, transform=DropEdges())
    plan = pack(SizeHistogram.from_sizes(*graph_sizes(dataset)), max_nodes=16, max_edges=48)
    with pytest.raises(ValueError, match=r"transform \(DropEdges\) gave \d+ graphs other sizes when they were read "
                                         r"again: a plan packs fixed sizes"):
        PackedLoader(dataset, plan)


def test_a_heterogeneous_stored_dataset_is_refused_in_words():
    from torch_geometric.data import HeteroData

    def hetero() -> HeteroData:
        graph = HeteroData()
        graph["atom"].x = torch.ones(3, 2)
        graph["atom", "bond", "atom"].edge_index = torch.zeros(2, 2, dtype=torch.long)
        return graph

    dataset = Graphs([hetero(), hetero()])
    with pytest.raises(ValueError, match="Graph 0 of the dataset is a HeteroData, not a PyG Data"):
        graph_sizes(dataset)


def test_a_list_with_a_graph_missing_an_attribute_is_refused_before_training_naming_it(mixed):
    graphs = [mixed[i] for i in range(len(mixed))]
    del graphs[7].edge_attr
    plan = plan_for(mixed, max_nodes=8, max_edges=12, max_graphs=4)
    with pytest.raises(ValueError, match=r"Graph 7 has no attribute 'edge_attr', which the dataset's graphs carry"):
        PackedLoader(graphs, plan)
    assert len(list(PackedLoader(graphs, plan, exclude_keys=["edge_attr"]))) == len(
        PackedLoader(mixed, plan))  # left out, it trains


# ------------------------------------------------------------------ errors before the first batch
def test_a_plan_for_another_dataset_names_the_first_differing_size(mixed):
    other = mixed_dataset([3, 1, 4], [4, 0, 6])
    plan = plan_for(other, max_nodes=7, max_edges=10, max_graphs=3)
    with pytest.raises(ValueError, match=r"size \(0 nodes, 0 edges\) has 0 graphs in the plan but 1 in the dataset"):
        PackedLoader(mixed, plan)
    with pytest.raises(ValueError, match="must be a PackingPlan"):
        PackedLoader(mixed, plan.to_dict())


def test_limits_smaller_than_a_graph_are_refused(mixed):
    hist = SizeHistogram.from_sizes(*SIZES)
    valid = pack(hist, max_nodes=7, max_edges=10, max_graphs=3)
    too_small = PackingPlan(valid.packs, PackLimits(5, 10, 3), valid.method)
    with pytest.raises(ValueError, match="do not fit into one pack of at most 5 nodes"):
        PackedLoader(mixed, too_small)


def test_a_dataset_without_edge_index_is_refused():
    no_edges = Graphs([Data(x=torch.ones(n, 2)) for n in (2, 3)])
    plan = pack(SizeHistogram.from_sizes([2, 3], [0, 0]), max_nodes=5, max_edges=1)
    with pytest.raises(ValueError, match="no edge_index"):
        PackedLoader(no_edges, plan)
    rng = np.random.default_rng(0)
    graphs = [mixed_graph(2, 2, 0, rng), Data(x=torch.ones(3, 5))]
    with pytest.raises(ValueError, match="Graph 1 of the dataset has no edge_index"):
        PackedLoader(graphs, plan)
    with pytest.raises(ValueError, match="Graph 0 of the dataset is a int, not a PyG Data"):
        PackedLoader([2, 3], plan)


def test_a_configuration_that_fails_verification_is_refused(tmp_path, mixed):
    hist = SizeHistogram.from_sizes(*SIZES)
    config = export_config(pack(hist, max_nodes=7, max_edges=10, max_graphs=3), hist, {"dataset": "mixed"})
    config["metrics"]["packs"] += 1
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(config))
    with pytest.raises(ValueError, match=r"failed verification: The configuration's metrics.packs \(6\) does not match"):
        PackedLoader.from_config(mixed, path)
    with pytest.raises(ValueError, match="failed verification: No configuration file"):
        PackedLoader.from_config(mixed, tmp_path / "missing.json")


@pytest.mark.parametrize(("settings", "message"), [
    ({"batch_size": 8}, "sets batch_size itself"),
    ({"follow_batch": ["x"]}, "does not support follow_batch"),
    ({"remainder": "keep"}, "remainder must be one of pad, drop"),
    ({"rank": 1}, "Give both rank and world_size"),
    ({"rank": 2, "world_size": 2}, "rank must be below world_size"),
    ({"packs_per_step": 0}, "packs_per_step must lie between 1"),
    ({"pad_values": {"x": 0.0, "colour": 1}}, "pad_values names colour"),
    ({"pad_values": {"node_label": 0.5}}, "does not fit its dtype torch.int64"),
    ({"seed": -1}, "seed must lie between 0"),
])
def test_bad_settings_are_refused_with_their_name(mixed, settings, message):
    plan = plan_for(mixed, max_nodes=7, max_edges=10, max_graphs=3)
    with pytest.raises(ValueError, match=message):
        PackedLoader(mixed, plan, **settings)


def test_an_attribute_whose_rows_change_level_between_graphs_is_named():
    graphs = [Data(x=torch.ones(3, 1), edge_index=torch.zeros(2, 4, dtype=torch.long), extra=torch.ones(3, 1)),
              Data(x=torch.ones(2, 1), edge_index=torch.zeros(2, 0, dtype=torch.long), extra=torch.ones(1, 1))]
    dataset = Graphs(graphs)
    with pytest.raises(ValueError, match="'extra' has 1 rows in stored graph 1, which has 2 nodes and 0 edges"):
        PackedLoader(dataset, plan_for(dataset, max_nodes=5, max_edges=4))


def test_a_list_of_graphs_whose_target_changes_rows_is_refused_as_a_stored_dataset_is():
    def graph(rows: int) -> Data:
        return Data(x=torch.ones(2, 1), edge_index=torch.zeros(2, 0, dtype=torch.long), y=torch.ones(rows))

    graphs = [graph(1) for _ in range(256)] + [graph(4)]
    plan = pack(SizeHistogram.from_sizes([2] * 257, [0] * 257), PackLimits(20, 1, 10))
    with pytest.raises(ValueError, match=r"'y' has 4 rows in graph 256 \(2 nodes, 0 edges\), but the dataset's graphs "
                                         r"carry it as graph-level"):
        PackedLoader(graphs, plan)
    stored = Graphs(graphs)  # the same graphs stored: refused when the levels are resolved
    with pytest.raises(ValueError, match="'y' has 4 rows in stored graph 256"):
        PackedLoader(stored, plan)
    lazy = LazyGraphs(graphs)  # read graph by graph (an on-disk dataset): refused at the step that reads it
    loader = PackedLoader(lazy, plan, shuffle=False)
    with pytest.raises(ValueError, match="'y' has 4 rows in graph 256"):
        list(loader)


class LazyGraphs(torch.utils.data.Dataset):
    """Graphs read one by one, as PyG's on-disk datasets are."""

    def __init__(self, graphs: list[Data]) -> None:
        self.graphs = graphs

    def __len__(self) -> int:
        return len(self.graphs)

    def __getitem__(self, index: int) -> Data:
        return self.graphs[index]


def test_reserved_names_are_refused():
    graphs = [Data(x=torch.ones(2, 1), edge_index=torch.zeros(2, 0, dtype=torch.long), node_mask=torch.ones(2))] * 2
    with pytest.raises(ValueError, match="node_mask, which the padded batch sets itself"):
        PackedLoader(Graphs(graphs), plan_for(Graphs(graphs), max_nodes=4, max_edges=1))


def test_attributes_that_cannot_be_padded_are_named(mixed):
    rng = np.random.default_rng(1)
    odd = [mixed_graph(3, 2, i, rng) for i in range(3)]
    for graph in odd:
        graph.triplet_index = torch.zeros(3, 1, dtype=torch.long)
    dataset = Graphs(odd)
    plan = plan_for(dataset, max_nodes=9, max_edges=6)
    with pytest.raises(ValueError, match="'triplet_index' is shifted by PyG"):
        PackedLoader(dataset, plan)
    assert PackedLoader(dataset, plan, exclude_keys=["triplet_index"]).layout.keys.count("triplet_index") == 0
    words = [Data(x=torch.ones(2, 1), edge_index=torch.zeros(2, 0, dtype=torch.long), smiles="CC")] * 2
    with pytest.raises(ValueError, match="'smiles' is a str, not a dense tensor"):
        PackedLoader(words, plan_for(Graphs(words), max_nodes=4, max_edges=1))
