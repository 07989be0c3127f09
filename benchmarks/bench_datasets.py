"""Data set loading speed: slices vs per-graph loop, QM9 radius graphs, cache, a large user
file, bundled profiles.

Targets (issue 3): sizes of a 1,000,000-graph InMemoryDataset in under 1 s; the QM9
radius-graph histogram computed in under 30 s and loaded from the cache in under 0.2 s.
Prints a table and writes benchmarks/results/datasets.csv. Run from the repo root:

    .venv/bin/python -m benchmarks.bench_datasets
"""
from __future__ import annotations

import os
import tempfile

import numpy as np
import pandas as pd
import torch
from torch_geometric.data import Data, InMemoryDataset

from benchmarks.timing import save_results, take_no_options, timed
from data_loaders import load_histogram, load_user_file
from data_loaders.pyg_sizes import dataset_sizes, loop_sizes
from data_loaders.qm9 import read_qm9

GRAPHS = 1_000_000
LOOP_SAMPLE = 2_000
UPLOAD_GRAPHS = 8_200_000  # the size of the upload a user reported taking 23 s


class Collated(InMemoryDataset):
    """An InMemoryDataset built directly from concatenated storage and slices."""

    def __init__(self, data: Data, slices: dict[str, torch.Tensor]) -> None:
        super().__init__()
        self.data, self.slices = data, slices


def million_graph_dataset(seed: int = 0) -> tuple[Collated, np.ndarray, np.ndarray]:
    """1M graphs with 1-30 nodes and 0-20 edges, stored as PyG's collate would store them."""
    rng = np.random.default_rng(seed)
    nodes = rng.integers(1, 31, GRAPHS)
    edges = rng.integers(0, 21, GRAPHS)
    offsets = lambda sizes: torch.from_numpy(np.concatenate([[0], np.cumsum(sizes)]))  # noqa: E731
    data = Data(x=torch.zeros(int(nodes.sum()), 1, dtype=torch.uint8),
                edge_index=torch.zeros(2, int(edges.sum()), dtype=torch.long))
    return Collated(data, {"x": offsets(nodes), "edge_index": offsets(edges)}), nodes, edges


def main() -> pd.DataFrame:
    rows = []
    dataset, nodes, edges = million_graph_dataset()
    seconds, sizes = timed(lambda: dataset_sizes(dataset), repeats=5)
    assert np.array_equal(sizes[0], nodes) and np.array_equal(sizes[1], edges)
    rows.append(("InMemoryDataset sizes from slices", GRAPHS, seconds, "< 1 s"))
    sample = dataset[:LOOP_SAMPLE]
    loop_seconds, loop = timed(lambda: loop_sizes(sample), repeats=1)
    assert np.array_equal(loop[0], nodes[:LOOP_SAMPLE])
    per_graph = loop_seconds / LOOP_SAMPLE
    rows.append((f"per-graph loop ({LOOP_SAMPLE} graphs, extrapolated to 1M)", GRAPHS,
                 per_graph * GRAPHS, f"{per_graph * 1e6:.0f} us/graph"))
    from torch_geometric.loader import DataLoader

    loader_seconds, _ = timed(
        lambda: [(batch.num_nodes, batch.num_edges) for batch in DataLoader(sample, batch_size=1)], repeats=1)
    per_batch = loader_seconds / LOOP_SAMPLE
    rows.append((f"DataLoader(batch_size=1) loop ({LOOP_SAMPLE} graphs, extrapolated to 1M)", GRAPHS,
                 per_batch * GRAPHS, f"{per_batch * 1e6:.0f} us/graph"))
    del dataset, sample

    with tempfile.TemporaryDirectory() as cache:
        os.environ["GRAPH_PACKING_CACHE"] = cache
        read_qm9.cache_clear()
        seconds, (hist, info) = timed(
            lambda: load_histogram("qm9", graph="radius", cutoff=5.0, use_bundled=False), repeats=1)
        assert info["source"] == "computed from coordinates"
        rows.append(("QM9 radius 5.0 A, computed (cold: CSV read, parse, distances)", hist.num_graphs,
                     seconds, "< 30 s"))
        seconds, (cached, info) = timed(
            lambda: load_histogram("qm9", graph="radius", cutoff=5.0, use_bundled=False), repeats=5)
        assert info["source"] == "cache" and cached == hist
        rows.append(("QM9 radius 5.0 A, from the Parquet cache", hist.num_graphs, seconds, "< 0.2 s"))
        seconds, (bonds, _) = timed(
            lambda: load_histogram("qm9", graph="bonds", use_bundled=False, use_cache=False), repeats=1)
        rows.append(("QM9 bonds, computed (RDKit over all SMILES)", bonds.num_graphs, seconds, ""))
        seconds, (pcba, info) = timed(
            lambda: load_histogram("ogbg-molpcba", "train", use_bundled=False, use_cache=False), repeats=3)
        rows.append((f"ogbg-molpcba train, OGB raw fast path ({info['source']})", pcba.num_graphs, seconds, ""))
        rng = np.random.default_rng(0)
        nodes = rng.integers(1, 60, UPLOAD_GRAPHS)
        upload = os.path.join(cache, "sizes.csv")
        pd.DataFrame({"num_nodes": nodes, "num_edges": 2 * nodes + rng.integers(0, 10, UPLOAD_GRAPHS)}).to_csv(
            upload, index=False)
        megabytes = os.path.getsize(upload) / 1e6
        seconds, (hist, _) = timed(lambda: load_user_file(upload), repeats=3)
        rows.append((f"user file: {UPLOAD_GRAPHS:,}-row size CSV ({megabytes:.0f} MB), read and counted",
                     hist.num_graphs, seconds, "23 s before one-key counting"))
    for name, options in (("ogbg-molpcba", {}), ("qm9", {"graph": "radius"}), ("aflow", {"k": 12})):
        split = "train" if name.startswith("ogbg") else "all"
        seconds, (hist, info) = timed(lambda: load_histogram(name, split, **options), repeats=5)
        rows.append((f"{name} {options or ''} bundled profile", hist.num_graphs, seconds, "instant"))

    table = pd.DataFrame(rows, columns=["what", "graphs", "seconds", "target / note"])
    with pd.option_context("display.max_colwidth", 80, "display.width", 200):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    save_results(table, "datasets")
    return table


if __name__ == "__main__":
    take_no_options(__doc__, "benchmarks/results/datasets.csv")
    main()
