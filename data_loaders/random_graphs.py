"""An ``InMemoryDataset`` of random graphs with real sizes and ogbg-mol* feature widths.

For trying the packed loader, its tests and the loader benchmark without a download: the
graph sizes come from a size histogram (e.g. ogbg-molhiv's, bundled), the features are
random integers of the widths and ranges OGB gives molecules (``x``: 9 atom features,
``edge_attr``: 3 bond features, ``y``: one binary label per graph, shaped ``[1, 1]`` as in
ogbg-molhiv). Edges join random nodes of the same graph. Only the shapes are real.
"""
from __future__ import annotations

import numpy as np
import torch
from torch_geometric.data import Data, InMemoryDataset

from packing import SizeHistogram

#: Value ranges of OGB's atom and bond features (``ogb.utils.features``).
ATOM_FEATURE_DIMS = (119, 5, 12, 12, 10, 6, 6, 2, 2)
BOND_FEATURE_DIMS = (5, 6, 2)


class RandomGraphs(InMemoryDataset):
    """Graphs held as PyG stores them: concatenated tensors plus ``slices``."""

    def __init__(self, data: Data, slices: dict[str, torch.Tensor]) -> None:
        super().__init__()
        self.data, self.slices = data, slices


def _features(rng: np.random.Generator, rows: int, dims: tuple[int, ...]) -> torch.Tensor:
    return torch.from_numpy(rng.integers(0, dims, size=(rows, len(dims)), dtype=np.int64))


def random_mol_dataset(hist: SizeHistogram, seed: int = 0) -> RandomGraphs:
    """One graph per graph of ``hist`` (in random order), with random OGB-width features.

    Args:
        hist: the graph sizes to reproduce.
        seed: the seed of the order, the edges and the features.

    Returns:
        An ``InMemoryDataset`` of ``hist.num_graphs`` graphs with ``x`` (9 atom features),
        ``edge_index``, ``edge_attr`` (3 bond features) and ``y`` (shape ``[1, 1]``).

    >>> dataset = random_mol_dataset(SizeHistogram.from_sizes([3, 2], [4, 2]))
    >>> len(dataset), dataset[0]
    (2, Data(x=[2, 9], edge_index=[2, 2], edge_attr=[2, 3], y=[1, 1]))
    """
    rng = np.random.default_rng(seed)
    order = rng.permutation(hist.num_graphs)
    nodes = np.repeat(hist.num_nodes, hist.counts)[order]
    edges = np.repeat(hist.num_edges, hist.counts)[order]
    # each edge joins two random nodes of its own graph (local indices, as PyG stores them)
    owner_nodes = np.repeat(nodes, edges)
    edge_index = (rng.random((2, owner_nodes.size)) * owner_nodes).astype(np.int64)
    node_slices = torch.from_numpy(np.concatenate([[0], np.cumsum(nodes)]))
    edge_slices = torch.from_numpy(np.concatenate([[0], np.cumsum(edges)]))
    data = Data(
        x=_features(rng, int(nodes.sum()), ATOM_FEATURE_DIMS),
        edge_index=torch.from_numpy(edge_index),
        edge_attr=_features(rng, int(edges.sum()), BOND_FEATURE_DIMS),
        y=torch.from_numpy(rng.integers(0, 2, size=(nodes.size, 1), dtype=np.int64)),
    )
    slices = {"x": node_slices, "edge_index": edge_slices, "edge_attr": edge_slices.clone(),
              "y": torch.arange(nodes.size + 1)}
    return RandomGraphs(data, slices)
