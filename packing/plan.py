"""A packing plan: distinct packs ("strategies") with repeat counts, and its metrics."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from .bounds import Bounds
from .histogram import SizeHistogram, exact_dot
from .limits import MAX_LIMIT, PackLimits
from .method import PackMethod
from .metrics import efficiency, fill, harmonic_mean
from .packs import Items, pack_of, row_index, totals
from .sides import EDGES, NODES


def describe_pack(items: Items, shown: int = 4) -> str:
    """A pack's graphs in words, ``copies x (nodes, edges)``, shortened after ``shown`` sizes.

    >>> describe_pack(((17, 264, 6), (3, 4, 1)))
    '6 x (17, 264) + 1 x (3, 4)'
    >>> describe_pack(((9, 9, 1), (8, 8, 1), (7, 7, 2)), shown=2)
    '1 x (9, 9) + 1 x (8, 8) + 1 more size (2 graphs)'
    """
    words = [f"{copies} x ({nodes}, {edges})" for nodes, edges, copies in items[:shown]]
    rest = items[shown:]
    if rest:
        graphs = sum(copies for _, _, copies in rest)
        words.append(f"{len(rest)} more size{'s' if len(rest) > 1 else ''} ({graphs} graph{'s' if graphs > 1 else ''})")
    return " + ".join(words)


@dataclass(frozen=True)
class PackingPlan:
    """Packs of graphs within ``limits``, given as distinct packs with repeat counts.

    ``packs`` lists ``(items, count)``: each item is ``(nodes, edges, copies)`` for one graph
    size in the pack, and ``count`` packs have that content. ``method`` is what produced the
    plan (for ``best``: the winning heuristic and algorithm); ``requested`` what the user asked
    for when it differs. ``improved`` says that exact fill re-packed some packs.

    Efficiencies are measured against the limits. A 1D baseline leaves one component
    unlimited (``method.unlimited``); that component is measured against the largest sum that
    occurs, as in Krell et al., Table 2. ``tight_node_efficiency`` and
    ``tight_edge_efficiency`` measure against the largest sums used (the paper's convention).

    ``bounds`` are the lower bounds for these graphs and limits that :func:`packing.pack`
    computed (the volume and large-items bounds; the LP bound once proved and attached with
    :meth:`with_bounds`); ``lower_bound`` and ``gap`` use the best of them and
    ``bound_name`` says which it is. A plan built by hand or read from a file has none
    until they are attached: the plan never runs a bound itself. ``skipped`` names, with
    why, the methods a search (``best`` on very many distinct sizes) left out.

    >>> plan = PackingPlan([(((3, 4, 1), (2, 2, 1)), 2)], PackLimits(5, 8, 4))
    >>> plan.num_packs, plan.node_efficiency, plan.edge_efficiency
    (2, 1.0, 0.75)
    """

    packs: list[tuple[Items, int]]
    limits: PackLimits
    method: PackMethod = field(default_factory=PackMethod)
    improved: bool = False
    requested: PackMethod | None = None
    bounds: Bounds | None = field(default=None, compare=False, repr=False)
    skipped: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.packs:
            raise ValueError("A packing plan needs at least one pack; pack a histogram with graphs in it "
                             "(packing.pack) or build the plan from its packs.")

    # ----------------------------------------------------------------- per-pack arrays
    @cached_property
    def _arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        nodes, edges, graphs = np.array([totals(items) for items, _ in self.packs], dtype=np.int64).reshape(-1, 3).T
        counts = np.array([count for _, count in self.packs], dtype=np.int64)
        return nodes, edges, graphs, counts

    @property
    def pack_nodes(self) -> np.ndarray:
        """Nodes in each distinct pack."""
        return self._arrays[0]

    @property
    def pack_edges(self) -> np.ndarray:
        """Edges in each distinct pack."""
        return self._arrays[1]

    @property
    def pack_graphs(self) -> np.ndarray:
        """Graphs in each distinct pack."""
        return self._arrays[2]

    @property
    def pack_counts(self) -> np.ndarray:
        """How many times each distinct pack is used."""
        return self._arrays[3]

    # ----------------------------------------------------------------- metrics
    @property
    def requested_method(self) -> PackMethod:
        """What the user asked for (``best``, say), else the method that produced the plan."""
        return self.requested or self.method

    @property
    def label(self) -> str:
        """What produced the plan, in words; for best of all, the winner it found.

        >>> PackingPlan([(((3, 4, 1),), 1)], PackLimits(5, 6), PackMethod(), requested=PackMethod("best")).label
        'best of all: best fit, product heuristic'
        """
        if self.requested is None:
            return self.method.label
        winner = self.method.label.replace(", improved by exact fill", "")
        return f"{self.requested.label}: {winner}" + (" + exact fill" if self.improved else "")

    @cached_property
    def num_packs(self) -> int:
        return exact_dot(self.pack_counts, np.ones_like(self.pack_counts))

    @property
    def num_strategies(self) -> int:
        return len(self.packs)

    @cached_property
    def num_graphs(self) -> int:
        return exact_dot(self.pack_graphs, self.pack_counts)

    @cached_property
    def total_nodes(self) -> int:
        return exact_dot(self.pack_nodes, self.pack_counts)

    @cached_property
    def total_edges(self) -> int:
        return exact_dot(self.pack_edges, self.pack_counts)

    @property
    def tight_limits(self) -> tuple[int, int]:
        """The largest node and edge sums actually used by any pack."""
        return int(self.pack_nodes.max()), int(self.pack_edges.max())

    @property
    def node_capacity(self) -> int:
        """Node slots per pack that efficiency is measured against."""
        return self.tight_limits[0] if self.method.unlimited == NODES else self.limits.max_nodes

    @property
    def edge_capacity(self) -> int:
        """Edge slots per pack that efficiency is measured against."""
        return self.tight_limits[1] if self.method.unlimited == EDGES else self.limits.max_edges

    @property
    def graph_capacity(self) -> int:
        """Graph slots per pack: the most graphs any pack of the plan holds (at most
        ``limits.max_graphs``). The packed loader pads each pack to this many graph slots,
        not to the limit, since a limit no pack reaches would only add empty graph slots
        (:meth:`packing.BatchShape.for_plan`).

        >>> PackingPlan([(((3, 4, 2),), 5), (((5, 8, 1),), 2)], PackLimits(6, 8, 256)).graph_capacity
        2
        """
        return int(self.pack_graphs.max())

    @property
    def node_efficiency(self) -> float:
        """Real nodes / node slots of all packs, in [0, 1]."""
        return efficiency(self.total_nodes, self.num_packs, self.node_capacity)

    @property
    def edge_efficiency(self) -> float:
        """Real edges / edge slots of all packs, in [0, 1]."""
        return efficiency(self.total_edges, self.num_packs, self.edge_capacity)

    @property
    def harmonic_mean(self) -> float:
        """Harmonic mean of node and edge efficiency, 2ab / (a + b) (the node efficiency for
        graphs without edges, :func:`packing.metrics.harmonic_mean`)."""
        return harmonic_mean(self.histogram, self.node_efficiency, self.edge_efficiency)

    @property
    def tight_node_efficiency(self) -> float:
        """Real nodes / node slots when packs are as large as the largest node sum used: the
        convention of Krell et al. (2022), Table 2 (never below ``node_efficiency``)."""
        return efficiency(self.total_nodes, self.num_packs, self.tight_limits[0])

    @property
    def tight_edge_efficiency(self) -> float:
        """Real edges / edge slots against the largest edge sum used (the paper's convention)."""
        return efficiency(self.total_edges, self.num_packs, self.tight_limits[1])

    @property
    def packing_factor(self) -> float:
        """Graphs per pack on average."""
        return self.num_graphs / self.num_packs

    @property
    def node_fill(self) -> np.ndarray:
        """Share of the node capacity each distinct pack uses."""
        return fill(self.pack_nodes, self.node_capacity)

    @property
    def edge_fill(self) -> np.ndarray:
        """Share of the edge capacity each distinct pack uses."""
        return fill(self.pack_edges, self.edge_capacity)

    @cached_property
    def histogram(self) -> SizeHistogram:
        """The graphs the plan packs, as a size histogram."""
        nodes, edges, counts = [], [], []
        for items, count in self.packs:
            for n, e, copies in items:
                nodes.append(n)
                edges.append(e)
                counts.append(copies * count)
        return SizeHistogram.from_counts(nodes, edges, counts)

    def _proven(self) -> Bounds:
        """``bounds``, or a ``ValueError`` saying how to attach them when there are none."""
        if self.bounds is None:
            raise ValueError("This plan carries no lower bounds: build it with packing.pack(), or attach them with "
                             "plan.with_bounds(packing.lower_bounds(hist, plan.limits, "
                             "unlimited=plan.method.unlimited)).")
        return self.bounds

    @property
    def lower_bound(self) -> int:
        """The best lower bound known on the packs of any plan for these graphs and limits."""
        return self._proven().best

    @property
    def bound_name(self) -> str:
        """Which bound ``lower_bound`` is: ``volume``, ``large_items`` or ``lp``."""
        return self._proven().name_of_best

    @property
    def gap(self) -> float:
        """``num_packs / lower_bound - 1``: 0 means provably optimal."""
        return self.num_packs / self.lower_bound - 1

    def with_bounds(self, bounds: Bounds) -> "PackingPlan":
        """This plan measured against ``bounds`` (from :func:`packing.lower_bounds` for the
        same graphs and limits, e.g. with the LP bound); a ``ValueError`` if they are for
        other graphs, limits or kept components.

        >>> from packing import lower_bounds, pack
        >>> hist = SizeHistogram.from_sizes([3, 3, 3], [1, 1, 1])
        >>> plan = pack(hist, PackLimits(5, 5, 4))
        >>> plan.with_bounds(lower_bounds(hist, PackLimits(5, 5, 4), prove=True)).bound_name
        'large_items'
        """
        if not isinstance(bounds, Bounds) or bounds.limits != self.limits or \
                bounds.fingerprint != self.histogram.fingerprint() or bounds.unlimited != self.method.unlimited:
            raise ValueError("These bounds are for other graphs, limits or kept components than the plan; compute "
                             "them with packing.lower_bounds(hist, plan.limits) for the histogram the plan packs.")
        return replace(self, bounds=bounds)

    def closing_limit_shares(self) -> dict[str, float]:
        """Share of packs per limit they are closest to: ``graphs`` when the graph slots
        are full, else whichever of ``nodes`` / ``edges`` is filled to a larger fraction
        (never the component a 1D baseline leaves unlimited)."""
        unlimited = self.method.unlimited
        node_fill = -np.inf if unlimited == NODES else self.pack_nodes / self.limits.max_nodes
        edge_fill = -np.inf if unlimited == EDGES else self.pack_edges / self.limits.max_edges
        label = np.where(
            self.pack_graphs >= self.limits.max_graphs, 0, np.where(node_fill >= edge_fill, 1, 2)
        )
        totals = np.bincount(label, weights=self.pack_counts, minlength=3) / self.num_packs
        return {"graphs": float(totals[0]), NODES: float(totals[1]), EDGES: float(totals[2])}

    def broken_limits(self) -> dict[str, int]:
        """The limits some pack breaks, with the largest sum found (1D baselines only).

        >>> PackingPlan([(((3, 9, 1),), 1)], PackLimits(5, 4), PackMethod("node_only")).broken_limits()
        {'max_edges': 9}
        """
        broken = {}
        if self.tight_limits[0] > self.limits.max_nodes:
            broken["max_nodes"] = self.tight_limits[0]
        if self.tight_limits[1] > self.limits.max_edges:
            broken["max_edges"] = self.tight_limits[1]
        return broken

    @cached_property
    def graphs_that_fit(self) -> int:
        """The most graphs of the plan's histogram that one pack within its limits can hold
        (the smallest graphs first; a 1D baseline's ignored side left out): a graph limit at
        or above this never binds. The greedy algorithms (ours and the published one) and the
        1D baselines then pack the same packs with it; exact fill, balanced fill and the LP
        read the graph limit too, so their plans may change.

        >>> plan = PackingPlan([(((3, 4, 2),), 1)], PackLimits(7, 100, 256), PackMethod())
        >>> plan.graphs_that_fit  # two graphs of 3 nodes fill 6 of the 7 node slots
        2
        """
        max_nodes = MAX_LIMIT if self.method.unlimited == NODES else self.limits.max_nodes
        max_edges = MAX_LIMIT if self.method.unlimited == EDGES else self.limits.max_edges
        return self.histogram.graphs_that_fit(max_nodes, max_edges)

    def graph_rows(self, hist: SizeHistogram) -> list[tuple[tuple[int, ...], int]]:
        """Each distinct pack as the rows of ``hist`` its graphs have (one per graph,
        ascending), with how many packs have it; a ``KeyError`` for a size ``hist`` lacks.

        >>> plan = PackingPlan([(((3, 4, 2), (2, 1, 1)), 3)], PackLimits(8, 9, 4))
        >>> plan.graph_rows(SizeHistogram.from_counts([2, 3], [1, 4], [3, 6]))
        [((0, 1, 1), 3)]
        """
        rows = row_index(hist)
        return [(pack_of(items, rows), count) for items, count in self.packs]

    def graphs_per_pack(self) -> dict[int, int]:
        """How many packs hold k graphs, for each k that occurs."""
        counter: Counter[int] = Counter()
        for graphs, count in zip(self.pack_graphs.tolist(), self.pack_counts.tolist()):
            counter[graphs] += count
        return dict(sorted(counter.items()))

    def summary(self) -> dict[str, Any]:
        """The headline numbers as a JSON-safe dict."""
        return {
            "limits": self.limits.to_dict(),
            "method": self.method.to_dict(),
            "requested": self.requested_method.to_dict(),
            "improved": self.improved,
            "packs": self.num_packs,
            "strategies": self.num_strategies,
            "graphs": self.num_graphs,
            "node_efficiency": self.node_efficiency,
            "edge_efficiency": self.edge_efficiency,
            "harmonic_mean": self.harmonic_mean,
            "packing_factor": self.packing_factor,
            "lower_bound": self.lower_bound,
            "gap": self.gap,
            "bound": self.bound_name,
            "bounds": self._proven().to_dict(),
            "tight_limits": list(self.tight_limits),
            "broken_limits": self.broken_limits(),
            "skipped": list(self.skipped),
        }

    # ----------------------------------------------------------------- verification
    def check(self, hist: SizeHistogram) -> bool:
        """Verify that the plan packs every graph of ``hist`` exactly once and that no
        pack breaks a limit the method keeps; raise ``ValueError`` naming the first problem.
        Work grows with the distinct packs, never with the graphs.

        >>> hist = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2])
        >>> PackingPlan([(((3, 4, 1), (2, 2, 1)), 2)], PackLimits(5, 8, 4)).check(hist)
        True
        """
        unlimited = self.method.unlimited
        for nodes, edges, graphs, (items, _) in zip(self.pack_nodes, self.pack_edges, self.pack_graphs, self.packs):
            if unlimited != NODES and nodes > self.limits.max_nodes:
                raise ValueError(f"Pack {describe_pack(items)} has {nodes} nodes > limit {self.limits.max_nodes}.")
            if unlimited != EDGES and edges > self.limits.max_edges:
                raise ValueError(f"Pack {describe_pack(items)} has {edges} edges > limit {self.limits.max_edges}.")
            if graphs > self.limits.max_graphs:
                raise ValueError(f"Pack {describe_pack(items)} has {graphs} graphs > limit {self.limits.max_graphs}.")
        used: Counter[tuple[int, int]] = Counter()
        for items, count in self.packs:
            for nodes, edges, copies in items:
                used[nodes, edges] += copies * count
        expected = {(int(n), int(e)): int(c) for n, e, c in zip(hist.num_nodes, hist.num_edges, hist.counts)}
        if dict(used) != expected:
            diff = {k: used.get(k, 0) - expected.get(k, 0) for k in set(used) | set(expected)}
            wrong = sorted((k, d) for k, d in diff.items() if d)
            raise ValueError(
                "The plan does not pack the histogram exactly; graphs packed minus graphs in the data per "
                f"(nodes, edges): {wrong[:5]}."
            )
        return True

    # ----------------------------------------------------------------- serialisation
    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict; each pack lists ``[nodes, edges, copies]`` triples.

        >>> plan = PackingPlan([(((3, 4, 2),), 1)], PackLimits(6, 8, 2))
        >>> PackingPlan.from_dict(plan.to_dict()) == plan
        True
        """
        return {
            "limits": self.limits.to_dict(),
            "method": self.method.to_dict(),
            "requested": None if self.requested is None else self.requested.to_dict(),
            "unlimited": self.method.unlimited,
            "improved": self.improved,
            "packs": [{"items": [list(item) for item in items], "count": count} for items, count in self.packs],
        }

    @classmethod
    def from_dict(cls, data: Any) -> "PackingPlan":
        """Rebuild a plan written by :meth:`to_dict`; every malformed field gives one
        ``ValueError`` naming it. Nothing is expanded: work grows with the file."""
        if not isinstance(data, dict):
            raise ValueError(f"plan must be an object, got {type(data).__name__}.")
        limits = PackLimits.from_dict(data.get("limits"))
        method = PackMethod.from_dict(data.get("method"))
        try:
            requested = None if data.get("requested") is None else PackMethod.from_dict(data["requested"])
        except ValueError as error:
            raise ValueError(f"requested: {error}") from None
        if data.get("unlimited", method.unlimited) != method.unlimited:
            raise ValueError(f"plan.unlimited is {data.get('unlimited')!r}, but the algorithm "
                             f"{method.algorithm!r} leaves {method.unlimited!r} unlimited.")
        improved = data.get("improved", False)
        if not isinstance(improved, bool):
            raise ValueError(f"plan.improved must be true or false, got {improved!r}.")
        packs = data.get("packs")
        if not isinstance(packs, list) or not packs:
            raise ValueError("plan.packs must be a non-empty list.")
        return cls([_read_pack(pack, index, limits) for index, pack in enumerate(packs)],
                   limits, method, improved, requested)

    def to_frame(self) -> pd.DataFrame:
        """One row per distinct pack: its graphs, repeat count, sums and fill."""
        return pd.DataFrame(
            {
                "pack": [describe_pack(items, shown=len(items)) for items, _ in self.packs],
                "count": self.pack_counts,
                "graphs": self.pack_graphs,
                "nodes": self.pack_nodes,
                "edges": self.pack_edges,
                "node_fill": self.node_fill,
                "edge_fill": self.edge_fill,
            }
        ).sort_values("count", ascending=False, ignore_index=True)


def _json_int(value: Any, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{where} must be an integer, got {value!r}.")
    if not low <= value <= high:
        raise ValueError(f"{where} must lie between {low:,} and {high:,}, got {value:,}.")
    return value


def _read_pack(pack: Any, index: int, limits: PackLimits) -> tuple[Items, int]:
    """One ``{"items": [[nodes, edges, copies], ...], "count": n}`` entry, checked strictly."""
    where = f"plan.packs[{index}]"
    if not isinstance(pack, dict) or not isinstance(pack.get("items"), list) or not pack["items"]:
        raise ValueError(f"{where} must be an object with a non-empty items list and a count.")
    count = _json_int(pack.get("count"), f"{where}.count", 1, 2**62)
    items = []
    for position, item in enumerate(pack["items"]):
        label = f"{where}.items[{position}]"
        if not isinstance(item, list) or len(item) != 3:
            raise ValueError(f"{label} must be [nodes, edges, copies], got {item!r}.")
        nodes, edges = (_json_int(v, label, 0, 2**62) for v in item[:2])
        items.append((nodes, edges, _json_int(item[2], f"{label} copies", 1, limits.max_graphs)))
    if sum(copies for _, _, copies in items) > min(limits.max_graphs, MAX_LIMIT):
        raise ValueError(f"{where} holds {sum(c for _, _, c in items):,} graphs, more than max_graphs "
                         f"{limits.max_graphs:,}.")
    if len({(n, e) for n, e, _ in items}) != len(items):
        raise ValueError(f"{where} lists a size twice; give each (nodes, edges) once with its copies.")
    return tuple(sorted(items, reverse=True)), count
