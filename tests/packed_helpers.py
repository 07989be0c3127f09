"""Small real PyG datasets for the packed-loader tests."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import torch
from torch_geometric.data import Data, InMemoryDataset

from data_loaders import dataset_sizes
from packing import PackingPlan, SizeHistogram, pack


class Graphs(InMemoryDataset):
    """An ``InMemoryDataset`` of the given graphs, stored as PyG stores them."""

    def __init__(self, graphs: Sequence[Data], transform=None) -> None:
        super().__init__(transform=transform)
        self.data, self.slices = self.collate(list(graphs))


def mixed_graph(nodes: int, edges: int, gid: int, rng: np.random.Generator) -> Data:
    """A graph with attributes of many widths, dtypes and levels; ``gid`` names it."""
    return Data(
        x=torch.from_numpy(rng.normal(size=(nodes, 5)).astype(np.float32)),
        pos=torch.from_numpy(rng.normal(size=(nodes, 3))),  # float64
        flag=torch.from_numpy(rng.random(nodes) < 0.5),  # bool, node level
        node_label=torch.from_numpy(rng.integers(0, 7, nodes)),  # long, node level
        edge_index=torch.from_numpy(rng.integers(0, max(nodes, 1), (2, edges))),
        edge_attr=torch.from_numpy(rng.normal(size=(edges, 2)).astype(np.float16)),
        y=torch.from_numpy(rng.normal(size=(1, 2)).astype(np.float32)),  # graph level
        gid=torch.tensor([gid]),
    )


def mixed_dataset(nodes: Sequence[int], edges: Sequence[int], seed: int = 0, transform=None) -> Graphs:
    rng = np.random.default_rng(seed)
    return Graphs([mixed_graph(n, e, i, rng) for i, (n, e) in enumerate(zip(nodes, edges))], transform)


def plan_for(dataset, **settings) -> PackingPlan:
    """A plan for exactly the graphs of ``dataset`` (keyword form of ``packing.pack``)."""
    return pack(SizeHistogram.from_sizes(*dataset_sizes(dataset)), **settings)


def real_ids(batch) -> list[int]:
    """The ``gid`` of every real graph in a padded batch."""
    return batch.gid[batch.graph_mask].view(-1).tolist()
