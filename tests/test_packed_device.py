"""The device-resident packed loader (``PackedLoader(..., device=...)``): its batches equal
the host-built loader's, tensor for tensor (values, dtypes, the slice and increment tables
``get_example`` reads, ``num_graphs``), every epoch, on every rank, with several packs per
step, both remainders, and from an exported configuration; on random datasets (hypothesis),
on ogbg-molhiv's real sizes and on real QM9 molecules (qm9pack coordinates, radius graphs).
``device="cpu"`` runs the same code as CUDA; the CUDA test (skipped without a GPU) checks
the batches there equal the CPU's and that building them never waits on the GPU."""
from __future__ import annotations

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch_geometric.data import Data
from torch_geometric.transforms import AddSelfLoops

from data_loaders import PackedLoader, dataset_sizes, graph_sizes, load_histogram, random_mol_dataset
from data_loaders.qm9 import parse_coordinates, read_qm9
from data_helpers import needs_shared
from packed_helpers import Graphs, mixed_dataset
from packing import PackLimits, SizeHistogram, pack
from packing.export import export_config
from packing.io import save_config

SIZES = ([3, 1, 4, 0, 2, 5, 3, 2, 1, 4, 6, 2], [4, 0, 6, 0, 2, 8, 4, 2, 0, 6, 10, 2])


def plan_for(dataset, **settings):
    """A plan for exactly the graphs of ``dataset`` (a stored dataset or a list)."""
    return pack(SizeHistogram.from_sizes(*graph_sizes(dataset)), **settings)


def assert_same_batch(host, resident) -> None:
    """Every attribute, the separation tables, the graph count and the
    per-graph node counts of two batches are equal, dtype included."""
    assert sorted(host.keys()) == sorted(resident.keys())
    for key in host.keys():
        one, other = host[key], resident[key]
        if isinstance(one, torch.Tensor):
            assert one.dtype == other.dtype and torch.equal(one, other.cpu()), key
        else:
            assert one == other, key
    for table in ("_slice_dict", "_inc_dict"):
        ones, others = getattr(host, table), getattr(resident, table)
        assert ones.keys() == others.keys(), table
        for key in ones:
            assert ones[key].dtype == others[key].dtype and torch.equal(ones[key], others[key].cpu()), (table, key)
    assert host.num_graphs == resident.num_graphs
    assert getattr(host, "_num_nodes", None) == getattr(resident, "_num_nodes", None)


def assert_same_epochs(dataset, plan, epochs=(0, 1), device="cpu", **settings) -> int:
    """The host-built and the device-resident loaders give equal batches; returns the steps."""
    host = PackedLoader(dataset, plan, **settings)
    resident = PackedLoader(dataset, plan, device=device, **settings)
    assert len(host) == len(resident) and resident.shape == host.shape
    steps = 0
    for epoch in epochs:
        host.set_epoch(epoch)
        resident.set_epoch(epoch)
        for one, other in zip(host, resident, strict=True):
            assert_same_batch(one, other)
            steps += 1
    return steps


@st.composite
def datasets(draw):
    count = draw(st.integers(1, 25))
    nodes = draw(st.lists(st.integers(0, 8), min_size=count, max_size=count))
    nodes[0] = draw(st.sampled_from([0, 2, 3]))  # graph 0 keeps one-row attributes graph-level
    edges = [draw(st.integers(0, 12)) if n else 0 for n in nodes]
    edges[0] = draw(st.sampled_from([0, 2, 3])) if nodes[0] else 0
    limits = (draw(st.integers(max(max(nodes), 1), 20)), draw(st.integers(max(max(edges), 1), 30)),
              draw(st.integers(1, 6)))
    return nodes, edges, limits


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(datasets(), st.integers(1, 3), st.integers(1, 3), st.sampled_from(["pad", "drop"]), st.booleans(),
       st.sampled_from(["stored", "view", "list"]), st.integers(0, 3))
def test_device_batches_equal_host_batches(case, world_size, packs_per_step, remainder, shuffle, form, epoch):
    nodes, edges, limits = case
    dataset = mixed_dataset(nodes, edges, seed=len(nodes))
    if form == "view":  # a subset view, reversed: positions in the storage differ from indices
        dataset = dataset[list(range(len(nodes)))[::-1]]
    elif form == "list":
        dataset = [dataset[i] for i in range(len(nodes))]
    plan = plan_for(dataset, max_nodes=limits[0], max_edges=limits[1], max_graphs=limits[2])
    if remainder == "drop" and plan.num_packs < world_size * packs_per_step:
        return  # no step (the sampler refuses it; tests/test_packed_loader.py)
    for rank in range(world_size):
        assert_same_epochs(dataset, plan, (epoch, epoch + 1), rank=rank, world_size=world_size, seed=epoch,
                           packs_per_step=packs_per_step, remainder=remainder, shuffle=shuffle)


def test_graphs_without_node_features_keep_their_node_counts():
    graphs = [Data(num_nodes=n, edge_index=torch.zeros(2, e, dtype=torch.long), y=torch.tensor([float(n)]))
              for n, e in zip(*SIZES) if n]
    for dataset in (graphs, Graphs(graphs)):
        plan = plan_for(dataset, max_nodes=8, max_edges=12, max_graphs=3)
        assert assert_same_epochs(dataset, plan, seed=2, packs_per_step=2) == 2 * len(PackedLoader(dataset, plan,
                                                                                                     packs_per_step=2))
    for batch in PackedLoader(graphs, plan_for(graphs, max_nodes=8, max_edges=12), device="cpu"):
        real = int(batch.graph_mask.sum())
        assert [batch.get_example(i).num_nodes for i in range(real)] == batch.y[:real].int().tolist()  # y: its nodes


def test_an_exported_recommendation_gives_the_same_batches(tmp_path):
    dataset = mixed_dataset(*SIZES)
    hist = SizeHistogram.from_sizes(*dataset_sizes(dataset))
    config = export_config(pack(hist, max_nodes=8, max_edges=12, max_graphs=3), hist, {"dataset": "mixed"})
    config["recommendation"] = {"packs_per_step": 2}
    path = save_config(config, tmp_path / "config.json")
    host = PackedLoader.from_config(dataset, path, seed=5)
    resident = PackedLoader.from_config(dataset, path, seed=5, device="cpu")
    assert resident.batch_sampler.packs_per_step == 2 and resident.device == torch.device("cpu")
    for one, other in zip(host, resident, strict=True):
        assert_same_batch(one, other)


@needs_shared
def test_molhiv_sizes_with_packs_of_about_128_graphs():
    """ogbg-molhiv's training split (32,901 real graph sizes, OGB feature widths), packs of
    about 128 graphs, two epochs."""
    hist, _ = load_histogram("ogbg-molhiv", split="train")
    dataset = random_mol_dataset(hist, seed=1)
    plan = pack(hist, PackLimits(3264, 6976, 256), algorithm="best")
    steps = assert_same_epochs(dataset, plan, seed=3)
    assert steps == 2 * plan.num_packs > 400


@pytest.fixture(scope="module")
def qm9_radius_graphs() -> list[Data]:
    """The first 1,500 QM9 molecules (qm9pack): atoms with their real coordinates, ordered
    pairs closer than 3 Angstrom as edges, the distance as the edge attribute, and the atom
    count as a graph target."""
    molecules = read_qm9(with_coordinates=True).iloc[:1500]
    nodes = molecules["N_atoms"].to_numpy()
    coordinates = parse_coordinates(molecules["XYZ_Ang"], nodes)
    graphs, start = [], 0
    for n in nodes:
        pos = torch.from_numpy(coordinates[start:start + n]).float()
        start += n
        distances = torch.cdist(pos, pos)
        close = (distances < 3.0) & ~torch.eye(n, dtype=torch.bool)
        edge_index = close.nonzero().t().contiguous()
        graphs.append(Data(pos=pos, edge_index=edge_index, edge_attr=distances[close].unsqueeze(1),
                           y=torch.tensor([float(n)])))
    return graphs


def test_real_qm9_molecules(qm9_radius_graphs):
    dataset = Graphs(qm9_radius_graphs)
    plan = plan_for(dataset, max_nodes=64, max_edges=1024)
    assert assert_same_epochs(dataset, plan, seed=7, packs_per_step=2, epochs=(0,)) >= 100
    assert assert_same_epochs(qm9_radius_graphs[:300], plan_for(qm9_radius_graphs[:300], max_nodes=64,
                                                                max_edges=1024), epochs=(3,)) > 0


def test_the_copy_is_taken_when_the_loader_is_made():
    dataset = mixed_dataset(*SIZES)
    loader = PackedLoader(dataset, plan_for(dataset, max_nodes=8, max_edges=12), device="cpu", shuffle=False)
    assert loader.resident.storage_bytes == sum(dataset._data[a.key].numel() * dataset._data[a.key].element_size()
                                                for a in loader.layout.attributes)
    first = next(iter(loader)).x.clone()
    dataset._data.x.add_(1.0)
    assert torch.equal(next(iter(loader)).x, first)


@pytest.mark.parametrize("settings, message", [
    ({"device": "tpu"}, r'device must be None, "cpu", "cuda"'),
    ({"device": "cpu", "num_workers": 2}, "leave out num_workers"),
    ({"device": "cpu", "pin_memory": True}, "pin_memory has nothing to pin"),
    ({"device": "cpu", "memory_budget": 1000}, r"takes .* GiB on cpu, past the memory budget of 9.31e-07 GiB \(given\)"),
    ({"device": "cpu", "memory_budget": 0}, "memory_budget"),
])
def test_bad_device_settings_are_refused_in_words(settings, message):
    dataset = mixed_dataset(*SIZES)
    with pytest.raises(ValueError, match=message):
        PackedLoader(dataset, plan_for(dataset, max_nodes=8, max_edges=12), **settings)


def test_a_dataset_read_graph_by_graph_is_refused_with_what_to_do():
    graphs = [Data(x=torch.ones(n, 2), edge_index=torch.zeros(2, e, dtype=torch.long)) for n, e in zip(*SIZES) if n]
    dataset = Graphs(graphs, transform=AddSelfLoops())
    plan = plan_for(dataset, max_nodes=8, max_edges=24)
    with pytest.raises(ValueError, match=r"has a transform.*PackedLoader\(list\(dataset\), plan, device=...\)"):
        PackedLoader(dataset, plan, device="cpu")
    assert_same_epochs(list(dataset), plan, epochs=(0,))


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA device")
def test_cuda_without_a_gpu_is_refused():
    dataset = mixed_dataset(*SIZES)
    with pytest.raises(ValueError, match="torch sees no CUDA device"):
        PackedLoader(dataset, plan_for(dataset, max_nodes=8, max_edges=12), device="cuda")


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_batches_equal_cpu_batches_and_never_wait_on_the_gpu():
    hist, _ = load_histogram("ogbg-molhiv", split="train")
    dataset = random_mol_dataset(hist, seed=1)[:4000]
    plan = pack(SizeHistogram.from_sizes(*dataset_sizes(dataset)), PackLimits(3264, 6976, 256), algorithm="best")
    host = PackedLoader(dataset, plan, seed=3, packs_per_step=2)
    resident = PackedLoader(dataset, plan, seed=3, packs_per_step=2, device="cuda")
    torch.cuda.set_sync_debug_mode("error")
    try:
        batches = list(resident)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert all(batch.x.is_cuda and batch.edge_index.is_cuda and batch.graph_mask.is_cuda for batch in batches)
    for one, other in zip(host, batches, strict=True):
        assert_same_batch(one, other)
