"""The models a calibration times: GIN and SchNet from ``torch_geometric.nn``, or the
user's own module, each with a graph-level regression head, and their inputs at a padded
shape (random) or from a PyG batch.

Every model is called as ``model(*inputs)`` and returns one row per graph. GIN and a
user's module take ``(x, edge_index, batch, num_graphs)`` with float node features ``x``
of width ``in_channels``; SchNet takes ``(z, pos, edge_index, batch, num_graphs)``
(atomic numbers and coordinates; the distances are computed on the batch's own edges, as
a pipeline with precomputed radius graphs does). ``num_graphs`` is a Python int, so
pooling needs no device synchronisation (PyG's compile guide).

>>> spec = model_spec("gin", hidden=8, layers=2, in_channels=4)
>>> module = spec.build()
>>> inputs = spec.random_inputs((10, 24, 3), torch.Generator().manual_seed(0), "cpu")
>>> tuple(module(*inputs).shape), spec.name
((3, 1), 'gin')
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import torch
from torch import Tensor
from torch_geometric.nn import global_add_pool
from torch_geometric.nn.models import GIN, SchNet

from packing import BatchShape

from .model_names import DEFAULT_IN_CHANNELS, MODELS
from .shapes import check_model_size

#: Atomic numbers drawn for SchNet's random molecules (H to F).
_ATOM_TYPES = 10
#: Bytes of a float32: weights, features and activations.
_FLOAT = 4
#: Copies of every weight a training step holds: the weight, its gradient and Adam's two moments.
_WEIGHT_COPIES = 4
#: Floats a layer keeps per hidden channel of each node, and of each edge by kind of model, for
#: the backward pass (GIN: the aggregation, its MLP and activations; SchNet: its filter network
#: on every edge). Peaks measured on this project's CPU (GIN hidden 64 and 256, SchNet 64 and
#: 128, up to 262,144 nodes or edges: 0.26 to 3.7 GB) were 0.4 to 0.9 of the estimate they give.
_NODE_FLOATS = 4
_EDGE_FLOATS = {"features": 1, "atoms": 8}
#: Bytes of a shape's random inputs per node (``batch`` and its int64 copy) and per edge
#: (``edge_index`` and the int64 temporaries of :func:`_graph_layout`).
_INPUT_NODE_BYTES = 16
_INPUT_EDGE_BYTES = 64


class GINRegressor(torch.nn.Module):
    """PyG's ``GIN`` (Xu et al., "How Powerful are Graph Neural Networks?") with sum pooling
    and a linear head: one number per graph."""

    def __init__(self, in_channels: int, hidden: int, layers: int) -> None:
        super().__init__()
        self.gin = GIN(in_channels, hidden, layers)
        self.head = torch.nn.Linear(hidden, 1)

    def forward(self, x: Tensor, edge_index: Tensor, batch: Tensor, num_graphs: int) -> Tensor:
        return self.head(global_add_pool(self.gin(x, edge_index), batch, size=num_graphs))


class SchNetRegressor(torch.nn.Module):
    """PyG's ``SchNet`` (Schütt et al., "SchNet: A continuous-filter convolutional neural
    network for modeling quantum interactions"): its embedding, Gaussian distance
    expansion, interaction blocks and output layers, run on the batch's edges."""

    def __init__(self, hidden: int, layers: int) -> None:
        super().__init__()
        self.net = SchNet(hidden_channels=hidden, num_filters=hidden, num_interactions=layers)

    def forward(self, z: Tensor, pos: Tensor, edge_index: Tensor, batch: Tensor, num_graphs: int) -> Tensor:
        net = self.net
        h = net.embedding(z)
        row, col = edge_index
        distance = (pos[row] - pos[col]).norm(dim=-1)
        expanded = net.distance_expansion(distance)
        for block in net.interactions:
            h = h + block(h, edge_index, distance, expanded)
        h = net.lin2(net.act(net.lin1(h)))
        return net.readout(h, batch, dim_size=num_graphs)


#: An edge joins nodes at most this many places apart in the batch (and in one graph), as
#: bonds, radius and k-NN edges of a molecule or crystal join nearby nodes of its range.
EDGE_REACH = 32


def _graph_layout(shape: BatchShape, generator: torch.Generator, device: str) -> tuple[Tensor, Tensor]:
    """``batch`` (graph of every node, graphs as contiguous equal node ranges, as PyG lays
    out a batch) and ``edge_index`` (each edge joins a random node to a random node of its
    graph at most ``EDGE_REACH`` places away)."""
    nodes, edges, graphs = shape
    batch = torch.arange(nodes) * graphs // nodes
    starts = torch.searchsorted(batch, torch.arange(graphs))
    ends = torch.searchsorted(batch, torch.arange(graphs), right=True)
    source = torch.randint(0, nodes, (edges,), generator=generator)
    owner = batch[source]
    low = torch.maximum(starts[owner], source - EDGE_REACH)
    high = torch.minimum(ends[owner], source + EDGE_REACH + 1)
    target = low + (torch.rand(edges, generator=generator) * (high - low)).long()
    return batch.to(device), torch.stack([source, target]).to(device)


@dataclass(frozen=True)
class ModelSpec:
    """What a calibration times: a model ``name`` with ``hidden`` channels and ``layers``,
    how to build it and how to make its inputs."""

    name: str
    hidden: int
    layers: int
    in_channels: int
    factory: Callable[[], torch.nn.Module]
    kind: str  # "features" (x, edge_index, batch, num_graphs) or "atoms" (z, pos, edge_index, batch, num_graphs)

    def build(self) -> torch.nn.Module:
        """A freshly initialised model (seed the global RNG first for reproducible weights)."""
        module = self.factory()
        if not isinstance(module, torch.nn.Module):
            raise ValueError(f"The model factory must return a torch.nn.Module, got {type(module).__name__}.")
        return module

    def random_inputs(self, shape: BatchShape, generator: torch.Generator, device: str) -> tuple[Any, ...]:
        """Inputs of one padded batch of ``shape`` (nodes, edges, graphs) with random values."""
        nodes, _, graphs = shape
        batch, edge_index = _graph_layout(shape, generator, device)
        if self.kind == "atoms":
            z = torch.randint(1, _ATOM_TYPES, (nodes,), generator=generator).to(device)
            pos = (2 * torch.randn(nodes, 3, generator=generator)).to(device)
            return z, pos, edge_index, batch, graphs
        x = torch.randn(nodes, self.in_channels, generator=generator).to(device)
        return x, edge_index, batch, graphs

    def batch_inputs(self, batch: Any, device: str) -> tuple[Any, ...]:
        """Inputs from a PyG batch: ``x`` as float (its first ``in_channels`` columns) for
        GIN and user modules; ``z`` (or the first column of ``x``) and ``pos`` for SchNet."""
        edge_index, index = batch.edge_index.to(device), batch.batch.to(device)
        if self.kind == "atoms":
            z = batch.z if "z" in batch else batch.x[:, 0].long().clamp(0, 99)
            if "pos" not in batch:
                raise ValueError("SchNet needs node coordinates: the batch has no pos.")
            return z.to(device), batch.pos.float().to(device), edge_index, index, batch.num_graphs
        if batch.x.size(1) < self.in_channels:
            raise ValueError(f"The batch has {batch.x.size(1)} node features, the model takes {self.in_channels}.")
        return batch.x[:, :self.in_channels].float().to(device), edge_index, index, batch.num_graphs

    def weight_count(self) -> int:
        """Weights of the model, about (5-50 % over for GIN and SchNet, counted without
        building it); a user's module is counted as GIN.

        >>> model_spec("gin", hidden=64, layers=3, in_channels=9).weight_count()  # GIN has 21,505
        25280
        """
        if self.kind == "atoms":  # embedding of 100 elements, per interaction 4 linear layers and the filter's
            return self.hidden * (100 + self.layers * (4 * self.hidden + 60) + self.hidden)
        return self.hidden * (self.in_channels + 2 * self.layers * self.hidden + 2)

    def weight_bytes(self) -> int:
        """Bytes of the weights with their gradients and Adam's moments, about."""
        return _FLOAT * _WEIGHT_COPIES * self.weight_count()

    def step_bytes(self, shape: BatchShape) -> int:
        """Bytes one training step at ``shape`` needs, about (an upper estimate, see
        ``_NODE_FLOATS``): weights with their gradients and Adam's moments, inputs and the
        activations kept for the backward pass. Nothing is allocated.

        >>> spec = model_spec("gin", hidden=64, layers=3)
        >>> spec.step_bytes((32_768, 262_144, 512)) < 2**30 < spec.step_bytes((2**24, 2**24, 1))
        True
        """
        nodes, edges, _ = shape
        activations = _FLOAT * self.layers * self.hidden * (_NODE_FLOATS * nodes + _EDGE_FLOATS[self.kind] * edges)
        inputs = nodes * (_INPUT_NODE_BYTES + _FLOAT * self.in_channels) + edges * _INPUT_EDGE_BYTES
        return self.weight_bytes() + activations + inputs

    def to_dict(self, module: torch.nn.Module) -> dict[str, Any]:
        return {"name": self.name, "hidden": self.hidden, "layers": self.layers, "in_channels": self.in_channels,
                "parameters": sum(p.numel() for p in module.parameters()),
                "head": "sum pooling, linear layer to one number per graph", "loss": "mean squared error",
                "optimizer": "Adam (lr 1e-3)"}


def model_spec(model: str | Callable[..., torch.nn.Module] = "gin", hidden: int = 64, layers: int = 3,
               in_channels: int = DEFAULT_IN_CHANNELS) -> ModelSpec:
    """The :class:`ModelSpec` of ``"gin"``, ``"schnet"`` or a user's factory: a callable
    ``factory(hidden, layers)`` returning a module with GIN's call ``(x, edge_index,
    batch, num_graphs)`` and one output row per graph.

    Args:
        model: ``"gin"``, ``"schnet"`` (:data:`throughput.model_names.MODELS`) or a factory.
        hidden: hidden channels.
        layers: message-passing layers.
        in_channels: node features of the inputs (GIN and factories).

    Returns:
        How to build the model and its random inputs.

    Raises:
        ValueError: an unknown model name, or sizes out of range.

    >>> model_spec("schnet", hidden=16, layers=2).kind
    'atoms'
    >>> model_spec("gcn")
    Traceback (most recent call last):
    ...
    ValueError: Unknown model 'gcn': use gin, schnet, or a callable factory(hidden, layers) returning a torch.nn.Module.
    """
    hidden, layers, in_channels = check_model_size(hidden, layers, in_channels)
    if model == "gin":
        return ModelSpec("gin", hidden, layers, in_channels, lambda: GINRegressor(in_channels, hidden, layers),
                         "features")
    if model == "schnet":
        return ModelSpec("schnet", hidden, layers, in_channels, lambda: SchNetRegressor(hidden, layers), "atoms")
    if callable(model) and not isinstance(model, str):
        name = f"custom:{getattr(model, '__module__', '?')}.{getattr(model, '__qualname__', type(model).__name__)}"
        return ModelSpec(name, hidden, layers, in_channels, lambda: model(hidden, layers), "features")
    raise ValueError(f"Unknown model {model!r}: use {', '.join(MODELS)}, or a callable factory(hidden, layers) "
                     "returning a torch.nn.Module.")
