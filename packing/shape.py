"""The padded shape of a batch: how many nodes, edges and graphs every tensor of it has.

A padded batch holds its real graphs plus one padding graph that takes every missing node
and edge (padding edges are self-loops on its first node, so they need no room of their
own), then empty graphs up to the graph count, as jraph's ``pad_with_graphs``, PyG's
``transforms.Pad`` and PopTorch Geometric's fixed-size batches do. So that the padding
always has somewhere to go, a shape of ``N`` nodes, ``E`` edges and ``G`` graphs holds a
batch of ``v`` real nodes, ``e`` real edges and ``g`` real graphs when ``v + 1 <= N``,
``e <= E`` and ``g + 1 <= G``. Plain numbers, no torch.
"""
from __future__ import annotations

from typing import NamedTuple

from .limits import MAX_LIMIT, PADDING, PackLimits, whole_number
from .plan import PackingPlan


class _Fields(NamedTuple):
    num_nodes: int
    num_edges: int
    num_graphs: int


class BatchShape(_Fields):
    """Nodes, edges and graphs of a padded batch (validated whole numbers: at least one
    node and one graph, edges from 0), one value from the engine to the loader and the
    throughput estimates: the packed loader's shape, the batching simulator's padding
    targets (static-constant, dynamic) and the shapes a calibration times.

    Why not :class:`~packing.PackLimits`: limits are the budget a pack keeps (real nodes,
    edges and graphs; a 1D baseline may break one of them), a shape is what a batch is
    padded to, which includes room for the padding graph: one node and one graph more than
    the real content (the module docstring), and a shape may have no edges at all. The
    two convert in one place each: :meth:`for_limits` (and :meth:`for_plan`, the plan's
    capacity) from a budget to a shape, :attr:`real_room` back.

    A tuple ``(num_nodes, num_edges, num_graphs)``: it unpacks, compares equal to the plain
    tuple and writes to JSON as a list.

    >>> plan = PackingPlan([(((3, 4, 2),), 5)], PackLimits(6, 8, 2))
    >>> BatchShape.for_plan(plan)
    BatchShape(num_nodes=7, num_edges=8, num_graphs=3)
    >>> BatchShape.for_plan(plan, packs_per_step=4)
    BatchShape(num_nodes=25, num_edges=32, num_graphs=9)
    >>> BatchShape(640, 9856, 32) == (640, 9856, 32), str(BatchShape(640, 9856, 32))
    (True, '640 nodes, 9,856 edges, 32 graphs')
    >>> BatchShape(0, 4, 1)
    Traceback (most recent call last):
    ...
    ValueError: num_nodes must lie between 1 and 1,099,511,627,776, got 0.
    """

    __slots__ = ()

    def __new__(cls, num_nodes: int, num_edges: int, num_graphs: int) -> "BatchShape":
        """Raises ``ValueError`` naming a component that is not a whole number in range."""
        return super().__new__(cls, whole_number(num_nodes, "num_nodes", low=1),
                               whole_number(num_edges, "num_edges", low=0),
                               whole_number(num_graphs, "num_graphs", low=1))

    @classmethod
    def _make(cls, iterable) -> "BatchShape":
        """A shape from three numbers, validated (``_replace`` goes through here too)."""
        return cls(*iterable)

    @classmethod
    def _holding(cls, nodes: int, edges: int, graphs: int, packs_per_step: int) -> "BatchShape":
        """``packs_per_step`` packs of ``nodes``, ``edges`` and ``graphs`` each, plus one
        padding node and one padding graph: the one place that adds the padding room."""
        packs = whole_number(packs_per_step, "packs_per_step")
        for per_pack, padding, word in ((nodes, PADDING, "nodes"), (edges, 0, "edges"), (graphs, PADDING, "graphs")):
            if packs * per_pack + padding > MAX_LIMIT:
                with_padding = " with its padding" if padding else ""
                raise ValueError(f"{packs:,} packs per step of up to {per_pack:,} {word} each need "
                                 f"{packs * per_pack + padding:,} {word} in a batch{with_padding}, more than the "
                                 f"{MAX_LIMIT:,} a batch can have: use fewer packs per step or a lower {word} limit "
                                 f"(at most {(MAX_LIMIT - padding) // packs:,}).")
        return cls(packs * nodes + PADDING, packs * edges, packs * graphs + PADDING)

    @classmethod
    def for_limits(cls, limits: PackLimits, packs_per_step: int = 1) -> "BatchShape":
        """The smallest shape that holds ``packs_per_step`` packs kept within ``limits``.

        Args:
            limits: the budget each pack keeps.
            packs_per_step: packs in one batch (at least 1).

        Returns:
            ``packs_per_step`` times the limits, plus one padding node and one padding graph.

        Raises:
            ValueError: ``packs_per_step`` is not a whole number of at least 1.

        >>> BatchShape.for_limits(PackLimits(6, 8, 2), packs_per_step=2)
        BatchShape(num_nodes=13, num_edges=16, num_graphs=5)
        """
        return cls._holding(limits.max_nodes, limits.max_edges, limits.max_graphs, packs_per_step)

    @classmethod
    def for_plan(cls, plan: PackingPlan, packs_per_step: int = 1) -> "BatchShape":
        """The smallest shape that holds ``packs_per_step`` packs of ``plan`` plus one
        padding node and one padding graph.

        Node and edge room is the plan's capacity: its limits, or for a 1D baseline's
        unlimited component the largest sum a pack reaches (``plan.node_capacity``,
        ``plan.edge_capacity``), the same numbers its efficiencies are measured against.
        Graph room is the most graphs a pack of the plan holds (``plan.graph_capacity``),
        which may be far below the graph limit (QM9 bonds at 29 nodes: 2 graphs, against
        the paper's limit of 256). Two plans with the same limits (training and validation)
        can so get different graph counts: :meth:`covering` gives one shape for both.
        ``ValueError`` when ``packs_per_step`` is not a whole number of at least 1.

        >>> BatchShape.for_plan(PackingPlan([(((3, 4, 2),), 5)], PackLimits(6, 8, 256)))
        BatchShape(num_nodes=7, num_edges=8, num_graphs=3)
        """
        return cls._holding(plan.node_capacity, plan.edge_capacity, plan.graph_capacity, packs_per_step)

    @classmethod
    def covering(cls, *shapes: "BatchShape") -> "BatchShape":
        """The smallest shape that holds each of ``shapes``: one shape for the loaders of
        several plans (training and validation), so that a compiled model sees one shape.

        >>> BatchShape.covering(BatchShape(223, 502, 29), BatchShape(223, 502, 20), BatchShape(201, 480, 23))
        BatchShape(num_nodes=223, num_edges=502, num_graphs=29)
        """
        if not shapes:
            raise ValueError("covering needs at least one shape.")
        return cls(*(max(values) for values in zip(*shapes)))

    @property
    def real_room(self) -> tuple[int, int, int]:
        """The most real nodes, edges and graphs a batch of this shape holds: one node and
        one graph are left for the padding graph (the inverse of :meth:`for_limits`).

        >>> BatchShape(640, 9856, 32).real_room
        (639, 9856, 31)
        """
        return self.num_nodes - 1, self.num_edges, self.num_graphs - 1

    def pack_limits(self) -> PackLimits:
        """The pack limits whose packs, one per batch, pad to exactly this shape: its real
        room (so packing is compared with dynamic batching at the same padded shape).

        >>> BatchShape(640, 9856, 32).pack_limits()
        PackLimits(max_nodes=639, max_edges=9856, max_graphs=31)
        >>> BatchShape.for_limits(BatchShape(640, 9856, 32).pack_limits())
        BatchShape(num_nodes=640, num_edges=9856, num_graphs=32)

        Raises:
            ValueError: for a shape with no room for a real graph (one node or one graph).
        """
        nodes, edges, graphs = self.real_room
        return PackLimits(nodes, max(edges, 1), graphs)

    def check_holds(self, needed: "BatchShape") -> "BatchShape":
        """Return ``self`` if it is at least ``needed`` in every component, else raise a
        ``ValueError`` naming the component that is too small.

        >>> BatchShape(10, 20, 4).check_holds(BatchShape(11, 20, 3))
        Traceback (most recent call last):
        ...
        ValueError: The batch shape has 10 nodes, but the plan needs at least 11 (its packs plus one padding node); use BatchShape.for_plan(plan, packs_per_step) or larger.
        """
        for name, word, extra in (("num_nodes", "nodes", " (its packs plus one padding node)"),
                                  ("num_edges", "edges", ""),
                                  ("num_graphs", "graphs", " (its packs plus one padding graph)")):
            have, need = getattr(self, name), getattr(needed, name)
            if have < need:
                raise ValueError(f"The batch shape has {have:,} {word}, but the plan needs at least {need:,}"
                                 f"{extra}; use BatchShape.for_plan(plan, packs_per_step) or larger.")
        return self

    def __str__(self) -> str:
        return f"{self.num_nodes:,} nodes, {self.num_edges:,} edges, {self.num_graphs:,} graphs"
