"""The padding rules of static and dynamic batching (Speckhard et al., "Training Speedups
via Batching for Geometric Learning").

A padded batch has a shape (:class:`packing.BatchShape`: nodes, edges, graphs): the real
graphs plus one padding graph that takes every missing node and edge (self-loops on its
first node), and empty graphs up to the graph count, as jraph's ``pad_with_graphs`` and
PyG's ``transforms.Pad`` do. A shape can hold a batch of ``v`` nodes, ``e`` edges and ``g``
graphs when ``v + 1 <= nodes``, ``e <= edges`` and ``g + 1 <= graphs``: one node and one
graph slot are left for the padding graph. Every rule here leaves that room.

The per-batch rules take and return integer numpy arrays (or Python ints); the constant
and dynamic targets are one :class:`~packing.BatchShape` for the whole run. All are exact.
"""
from __future__ import annotations

import numpy as np

from ..shape import BatchShape

#: Static-64 and the dynamic padding target round to multiples of this.
MULTIPLE = 64


def multiple_above(values: np.ndarray | int, multiple: int = MULTIPLE) -> np.ndarray:
    """The smallest multiple of ``multiple`` strictly greater than each value:
    ``multiple * (value // multiple + 1)``, the rounding of the published code of
    Speckhard et al.

    >>> multiple_above(np.array([0, 63, 64, 65])).tolist()
    [64, 64, 128, 128]
    """
    return multiple * (np.asarray(values, dtype=np.int64) // multiple + 1)


def multiple_at_least(values: np.ndarray | int, multiple: int = MULTIPLE) -> np.ndarray:
    """The smallest multiple of ``multiple`` that is at least each value, and at least
    ``multiple`` (the published code starts its search at 64).

    >>> multiple_at_least(np.array([0, 1, 64, 65])).tolist()
    [64, 64, 64, 128]
    """
    values = np.maximum(np.asarray(values, dtype=np.int64), 1)
    return multiple * -(-values // multiple)


def power_of_two_at_least(values: np.ndarray | int) -> np.ndarray:
    """The smallest power of two that is at least each value, and at least 2 (the
    published code starts its search at 2).

    >>> power_of_two_at_least(np.array([0, 2, 3, 512, 513, 2**52 + 1])).tolist()[:5]
    [2, 2, 4, 512, 1024]
    >>> int(power_of_two_at_least(2**52 + 1)) == 2**53
    True
    """
    values = np.maximum(np.asarray(values, dtype=np.int64), 2)
    if values.size and int(values.max()) > 2**52:  # beyond exact floats: integer doubling
        powers = np.full(values.shape, 2, dtype=np.int64)
        while (powers < values).any():
            powers = np.where(powers < values, powers * 2, powers)
        return powers
    # value = mantissa * 2**exponent with mantissa in [0.5, 1): a power of two has mantissa 0.5.
    mantissa, exponent = np.frexp(values.astype(np.float64))
    return np.left_shift(np.int64(1), (exponent - (mantissa == 0.5)).astype(np.int64))


def static_64_shape(nodes: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Static-64 padding of batches with ``nodes`` and ``edges`` real: nodes to the next
    multiple of 64 above the real nodes (room for one padding node, ``64 * (v // 64 + 1)``:
    strictly up, as the published code), edges to the smallest multiple of 64 that holds
    them (at least 64).

    >>> [a.tolist() for a in static_64_shape(np.array([63, 64]), np.array([128, 129]))]
    [[64, 128], [128, 192]]
    """
    return multiple_above(nodes), multiple_at_least(edges)


def static_pow2_shape(nodes: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Static-2^N padding: nodes to the smallest power of two above the real nodes (room for
    one padding node: strictly up, as the published code), edges to the smallest power of
    two that holds them (at least 2).

    >>> [a.tolist() for a in static_pow2_shape(np.array([511, 512]), np.array([512, 513]))]
    [[512, 1024], [512, 1024]]
    """
    return power_of_two_at_least(np.asarray(nodes, dtype=np.int64) + 1), power_of_two_at_least(edges)


def constant_shape(largest_nodes: int, largest_edges: int, batch_size: int) -> BatchShape:
    """Static-constant target of Speckhard et al. (section 4, appendix H; TF-GNN's tutorial): the
    largest graph's nodes and edges times the batch size, ``batch_size`` graphs. With
    ``batch_size - 1`` real graphs, ``(B - 1) * largest_nodes + 1 <= B * largest_nodes`` leaves a
    node for the padding graph (``largest_nodes`` counts as at least 1).

    >>> constant_shape(29, 812, 32)
    BatchShape(num_nodes=928, num_edges=25984, num_graphs=32)
    """
    return BatchShape(batch_size * max(int(largest_nodes), 1), batch_size * int(largest_edges), batch_size)


def target_from_sample(sample_nodes: np.ndarray, sample_edges: np.ndarray, batch_size: int) -> BatchShape:
    """Algorithm 1 of Speckhard et al. on a given sample of graph sizes: the mean nodes and mean
    edges per graph times the batch size, each rounded strictly up to the next multiple of
    64 (``64 * (floor(mean * B / 64) + 1)``, computed exactly); graphs: ``batch_size``, of
    which ``batch_size - 1`` are real (one slot is reserved for the padding graph).

    Args:
        sample_nodes: nodes of each sampled graph.
        sample_edges: edges of each sampled graph.
        batch_size: B.

    Returns:
        The padding target (T_v, T_e, B).

    Raises:
        ValueError: the sample is empty.

    >>> target_from_sample(np.array([18, 18]), np.array([306, 306]), 32)
    BatchShape(num_nodes=640, num_edges=9856, num_graphs=32)
    """
    sample_nodes = np.asarray(sample_nodes, dtype=np.int64)
    if sample_nodes.size == 0:
        raise ValueError("The sample for the padding target is empty; sample at least one graph.")
    count = sample_nodes.size
    # mean * B / 64 floored, in integers: (sum * B) // (count * 64).
    total_nodes = int(sample_nodes.sum()) * batch_size
    total_edges = int(np.asarray(sample_edges, dtype=np.int64).sum()) * batch_size
    return BatchShape(MULTIPLE * (total_nodes // (count * MULTIPLE) + 1),
                      MULTIPLE * (total_edges // (count * MULTIPLE) + 1), batch_size)
