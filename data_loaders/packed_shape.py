"""The one shape every padded batch of a packed loader has: nodes, edges and graphs.

A pack can be full in nodes, in edges or in graph slots. So that the padding always has
somewhere to go, the default shape adds one padding node and one padding graph to the
plan's capacity, as jraph's ``pad_with_graphs`` and PopTorch Geometric's fixed-size
batches do: ``max_nodes + 1`` nodes, ``max_edges`` edges and ``max_graphs + 1`` graphs per
pack (padding edges are self-loops on padding nodes, so they need no extra room).
No torch here: the shape is plain numbers.
"""
from __future__ import annotations

from dataclasses import dataclass

from packing import PackingPlan
from packing.limits import whole_number


@dataclass(frozen=True)
class BatchShape:
    """Nodes, edges and graphs of every padded batch (validated whole numbers).

    >>> from packing import PackLimits, PackingPlan
    >>> plan = PackingPlan([(((3, 4, 2),), 5)], PackLimits(6, 8, 2))
    >>> BatchShape.for_plan(plan)
    BatchShape(num_nodes=7, num_edges=8, num_graphs=3)
    >>> BatchShape.for_plan(plan, packs_per_step=4)
    BatchShape(num_nodes=25, num_edges=32, num_graphs=9)
    """

    num_nodes: int
    num_edges: int
    num_graphs: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "num_nodes", whole_number(self.num_nodes, "num_nodes", low=1))
        object.__setattr__(self, "num_edges", whole_number(self.num_edges, "num_edges", low=0))
        object.__setattr__(self, "num_graphs", whole_number(self.num_graphs, "num_graphs", low=1))

    @classmethod
    def for_plan(cls, plan: PackingPlan, packs_per_step: int = 1) -> "BatchShape":
        """The smallest shape that holds ``packs_per_step`` packs of ``plan`` plus one
        padding node and one padding graph.

        Node and edge room is the plan's capacity: its limits, or for a 1D baseline's
        unlimited component the largest sum a pack reaches (``plan.node_capacity``,
        ``plan.edge_capacity``), the same numbers its efficiencies are measured against.
        """
        packs = whole_number(packs_per_step, "packs_per_step")
        return cls(packs * plan.node_capacity + 1, packs * plan.edge_capacity,
                   packs * plan.limits.max_graphs + 1)

    def check_holds(self, needed: "BatchShape") -> "BatchShape":
        """Return ``self`` if it is at least ``needed`` in every component, else raise a
        ``ValueError`` naming the component that is too small.

        >>> BatchShape(10, 20, 4).check_holds(BatchShape(11, 20, 3))
        Traceback (most recent call last):
        ...
        ValueError: The batch shape has 10 nodes, but the plan needs at least 11 (its packs plus one padding node); use BatchShape.for_plan(plan) or larger.
        """
        for name, word, extra in (("num_nodes", "nodes", " (its packs plus one padding node)"),
                                  ("num_edges", "edges", ""),
                                  ("num_graphs", "graphs", " (its packs plus one padding graph)")):
            have, need = getattr(self, name), getattr(needed, name)
            if have < need:
                raise ValueError(f"The batch shape has {have:,} {word}, but the plan needs at least {need:,}"
                                 f"{extra}; use BatchShape.for_plan(plan) or larger.")
        return self

    def __str__(self) -> str:
        return f"{self.num_nodes:,} nodes, {self.num_edges:,} edges, {self.num_graphs:,} graphs"
