"""The padded batch shapes a calibration times: :class:`packing.BatchShape` values.

The default grid spreads ``count`` shapes over the ranges the batching strategies produce
on molecule, crystal and radius-graph data at batch sizes up to a few hundred: nodes from
``max_nodes / 1024`` to ``max_nodes`` (32 to 32,768 by default), edges from half to 32
times the nodes (bonds, radius and k-NN graphs, fully connected molecules), at most
``max_edges``, and 1 to ``max_graphs`` graphs (never more graphs than nodes). The points
come from a Halton sequence on log scales, so nodes, edges and graphs vary independently
(the fit can tell their costs apart) and every part of the range is covered.

>>> shapes = default_shapes(8)
>>> len(shapes), all(1 <= g <= n and e <= 262_144 for n, e, g in shapes)
(8, True)
>>> check_shapes([(100, 200, 4), (100, 200, 4)])
Traceback (most recent call last):
...
ValueError: Shape (100, 200, 4) is listed twice; give each shape once.
"""
from __future__ import annotations

from typing import Any, Iterable

from packing import BatchShape, whole_number

from .fit import MIN_SHAPES

DEFAULT_COUNT = 24
#: The top of the default calibration grid (not a pack's limits: ``packing.DEFAULT_MAX_GRAPHS`` is those).
GRID_MAX_NODES = 32_768
GRID_MAX_EDGES = 262_144
GRID_MAX_GRAPHS = 512
MAX_SHAPES = 400
#: The most nodes, edges and graphs of one timed shape: a GIN step (hidden 64, 3 layers) at
#: 2^24 nodes or 2^27 edges needs tens of GB, about the memory of the largest GPUs; a file
#: claiming more was not timed on any device (and a check would try to allocate it).
MAX_SHAPE_NODES = 2**24
MAX_SHAPE_EDGES = 2**27
MAX_SHAPE_GRAPHS = MAX_SHAPE_NODES  # a graph holds a node at least
#: The widest hidden layer, the widest node features and the deepest model a calibration
#: times: GIN's two 4,096-wide linear layers a layer already hold 0.5 GB with their gradients
#: and Adam's moments (the page offers 1,024 at most), and a file of 65,536 (issue 37) had a
#: check allocate 17 GB; features and layers keep the bounds the tool always had, and a check
#: refuses a model whose estimated memory is too large (throughput.check.MAX_CHECK_BYTES).
MAX_HIDDEN = 4096
MAX_IN_CHANNELS = 1 << 16
MAX_LAYERS = 256


def halton(index: int, base: int) -> float:
    """The ``index``-th element (from 1) of the van der Corput sequence in ``base``.

    >>> [halton(i, 2) for i in (1, 2, 3)]
    [0.5, 0.25, 0.75]
    """
    value, fraction = 0.0, 1.0 / base
    while index:
        index, digit = divmod(index, base)
        value += digit * fraction
        fraction /= base
    return value


def default_shapes(count: int = DEFAULT_COUNT, *, max_nodes: int = GRID_MAX_NODES,
                   max_edges: int = GRID_MAX_EDGES, max_graphs: int = GRID_MAX_GRAPHS) -> list[BatchShape]:
    """``count`` distinct shapes spread over the ranges of the module docstring.

    Args:
        count: shapes, 6 to ``MAX_SHAPES``.
        max_nodes: the largest padded nodes (at least 64).
        max_edges: the largest padded edges (at least 64).
        max_graphs: the largest graph count (at least 1).

    Returns:
        The shapes, in Halton order.

    Raises:
        ValueError: a count or maximum out of range.
    """
    count = whole_number(count, "count", MIN_SHAPES, MAX_SHAPES)
    max_nodes = whole_number(max_nodes, "max_nodes", 64, MAX_SHAPE_NODES)
    max_edges = whole_number(max_edges, "max_edges", 64, MAX_SHAPE_EDGES)
    max_graphs = whole_number(max_graphs, "max_graphs", 1, MAX_SHAPE_GRAPHS)
    shapes: list[BatchShape] = []
    index = 1
    while len(shapes) < count:
        nodes = max(2, round(max_nodes * 2.0 ** (-10 * halton(index, 2))))
        edges = min(max_edges, round(nodes * 2.0 ** (6 * halton(index, 3) - 1)))
        graphs = min(nodes, max(1, round(max_graphs ** halton(index, 5))))
        if (nodes, edges, graphs) not in shapes:
            shapes.append(BatchShape(nodes, edges, graphs))
        index += 1
    return shapes


def check_shapes(shapes: Iterable[Any]) -> list[BatchShape]:
    """The shapes to time, checked.

    Args:
        shapes: (nodes >= 1, edges >= 0, graphs >= 1) triples or :class:`packing.BatchShape`
            values, at most ``MAX_SHAPES``.

    Returns:
        The shapes as ``BatchShape`` values, in the order given.

    Raises:
        ValueError: naming a malformed or repeated shape, or too many shapes.
    """
    if isinstance(shapes, (str, bytes)) or not hasattr(shapes, "__iter__"):
        raise ValueError(f"shapes must be a list of (nodes, edges, graphs), got {shapes!r}.")
    checked: list[BatchShape] = []
    for shape in shapes:
        checked_shape = check_shape(shape)
        if checked_shape in checked:
            raise ValueError(f"Shape {tuple(checked_shape)} is listed twice; give each shape once.")
        checked.append(checked_shape)
    if len(checked) > MAX_SHAPES:
        raise ValueError(f"At most {MAX_SHAPES} shapes can be timed, got {len(checked)}.")
    return checked


def check_shape(shape: Any, where: str = "shape ") -> BatchShape:
    """``shape`` as a :class:`packing.BatchShape` when it is (nodes, edges, graphs) within
    ``MAX_SHAPE_NODES``, ``MAX_SHAPE_EDGES`` and ``MAX_SHAPE_GRAPHS``; a ``ValueError``
    naming the field (prefixed by ``where``, e.g. ``"timings[0]."``) otherwise.

    >>> check_shape((100, 200, 4))
    BatchShape(num_nodes=100, num_edges=200, num_graphs=4)
    >>> check_shape((2**30, 200, 4), "timings[0].")
    Traceback (most recent call last):
    ...
    ValueError: timings[0].nodes must lie between 1 and 16,777,216, got 1,073,741,824.
    """
    if not isinstance(shape, (tuple, list)) or len(shape) != 3:
        raise ValueError(f"Each shape must be (nodes, edges, graphs), got {shape!r}.")
    return BatchShape(whole_number(shape[0], f"{where}nodes", 1, MAX_SHAPE_NODES),
                      whole_number(shape[1], f"{where}edges", 0, MAX_SHAPE_EDGES),
                      whole_number(shape[2], f"{where}graphs", 1, MAX_SHAPE_GRAPHS))


def check_model_size(hidden: Any, layers: Any, in_channels: Any, where: str = "") -> tuple[int, int, int]:
    """``(hidden, layers, in_channels)`` as whole numbers within ``MAX_HIDDEN``,
    ``MAX_LAYERS`` and ``MAX_IN_CHANNELS``; a ``ValueError`` naming the field (prefixed by
    ``where``, e.g. ``"model."``) otherwise.

    >>> check_model_size(64, 3, 9)
    (64, 3, 9)
    >>> check_model_size(65_536, 3, 9, "model.")
    Traceback (most recent call last):
    ...
    ValueError: model.hidden must lie between 1 and 4,096, got 65,536.
    """
    return (whole_number(hidden, f"{where}hidden", 1, MAX_HIDDEN), whole_number(layers, f"{where}layers", 1, MAX_LAYERS),
            whole_number(in_channels, f"{where}in_channels", 1, MAX_IN_CHANNELS))
