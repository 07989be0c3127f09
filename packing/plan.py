"""A packing plan: distinct packs ("strategies") with repeat counts, and its metrics."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from .bounds import volume_bound
from .histogram import SizeHistogram
from .metrics import harmonic_mean

Items = tuple[tuple[int, int], ...]  # the (num_nodes, num_edges) of every graph in a pack
MAX_GRAPHS_PER_PACK = 1_000_000  # a plan file claiming more is refused before it is expanded


def describe(items: Items, shown: int = 6) -> str:
    """A pack's graphs for a message, shortened when long.

    >>> describe(((3, 4),) * 10, shown=2)
    '((3, 4), (3, 4), ... 8 more)'
    """
    if len(items) <= shown:
        return str(items)
    head = ", ".join(str(item) for item in items[:shown])
    return f"({head}, ... {len(items) - shown} more)"


@dataclass(frozen=True)
class PackingPlan:
    """Packs of graphs, each at most ``max_nodes`` nodes, ``max_edges`` edges and
    ``max_graphs`` graphs, given as distinct packs with repeat counts.

    Efficiencies are measured against the limits the user chose. The 1D baselines leave
    one component unlimited (``unlimited="edges"`` for node-only packing); that component
    is measured against the largest sum that occurs, as in Krell et al., Table 2.
    ``improved`` says that exact fill re-packed the packs the heuristic left with slack.

    >>> plan = PackingPlan(packs=[(((3, 4), (2, 2)), 2)], max_nodes=5, max_edges=8, max_graphs=4)
    >>> plan.num_packs, plan.node_efficiency, plan.edge_efficiency
    (2, 1.0, 0.75)
    """

    packs: list[tuple[Items, int]]
    max_nodes: int
    max_edges: int
    max_graphs: int
    heuristic: str = "product"
    algorithm: str = "best_fit"
    unlimited: str | None = None
    improved: bool = False

    # ----------------------------------------------------------------- per-pack arrays
    @cached_property
    def _arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        nodes = np.array([sum(n for n, _ in items) for items, _ in self.packs], dtype=np.int64)
        edges = np.array([sum(e for _, e in items) for items, _ in self.packs], dtype=np.int64)
        graphs = np.array([len(items) for items, _ in self.packs], dtype=np.int64)
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
    def num_packs(self) -> int:
        return int(self.pack_counts.sum())

    @property
    def num_strategies(self) -> int:
        return len(self.packs)

    @property
    def num_graphs(self) -> int:
        return int(np.dot(self.pack_graphs, self.pack_counts))

    @property
    def total_nodes(self) -> int:
        return int(np.dot(self.pack_nodes, self.pack_counts))

    @property
    def total_edges(self) -> int:
        return int(np.dot(self.pack_edges, self.pack_counts))

    @property
    def tight_limits(self) -> tuple[int, int]:
        """The largest node and edge sums actually used by any pack."""
        return int(self.pack_nodes.max()), int(self.pack_edges.max())

    @property
    def node_capacity(self) -> int:
        """Node slots per pack that efficiency is measured against."""
        return self.tight_limits[0] if self.unlimited == "nodes" else self.max_nodes

    @property
    def edge_capacity(self) -> int:
        """Edge slots per pack that efficiency is measured against."""
        return self.tight_limits[1] if self.unlimited == "edges" else self.max_edges

    @property
    def node_efficiency(self) -> float:
        """Real nodes / node slots of all packs, in [0, 1]."""
        return self.total_nodes / (self.num_packs * self.node_capacity) if self.node_capacity else 1.0

    @property
    def edge_efficiency(self) -> float:
        """Real edges / edge slots of all packs, in [0, 1]."""
        return self.total_edges / (self.num_packs * self.edge_capacity) if self.edge_capacity else 1.0

    @property
    def harmonic_mean(self) -> float:
        """Harmonic mean of node and edge efficiency, 2ab / (a + b)."""
        return harmonic_mean(self.node_efficiency, self.edge_efficiency)

    @property
    def packing_factor(self) -> float:
        """Graphs per pack on average."""
        return self.num_graphs / self.num_packs

    @property
    def lower_bound(self) -> int:
        """Volume lower bound on packs for these graphs and the limits the plan keeps (a 1D
        baseline's unlimited component does not count)."""
        return volume_bound(
            self.total_nodes, self.total_edges, self.num_graphs,
            None if self.unlimited == "nodes" else self.max_nodes,
            None if self.unlimited == "edges" else self.max_edges,
            self.max_graphs,
        )

    @property
    def gap(self) -> float:
        """``num_packs / lower_bound - 1``: 0 means provably optimal."""
        return self.num_packs / self.lower_bound - 1

    def closing_limit_shares(self) -> dict[str, float]:
        """Share of packs per limit they are closest to: ``graphs`` when the graph slots
        are full, else whichever of ``nodes`` / ``edges`` is filled to a larger fraction
        (never the component a 1D baseline leaves unlimited)."""
        node_fill = -np.inf if self.unlimited == "nodes" else self.pack_nodes / self.max_nodes
        edge_fill = -np.inf if self.unlimited == "edges" else self.pack_edges / self.max_edges
        label = np.where(
            self.pack_graphs >= self.max_graphs, 0, np.where(node_fill >= edge_fill, 1, 2)
        )
        totals = np.bincount(label, weights=self.pack_counts, minlength=3) / self.num_packs
        return {"graphs": float(totals[0]), "nodes": float(totals[1]), "edges": float(totals[2])}

    def graphs_per_pack(self) -> dict[int, int]:
        """How many packs hold k graphs, for each k that occurs."""
        counter: Counter[int] = Counter()
        for graphs, count in zip(self.pack_graphs.tolist(), self.pack_counts.tolist()):
            counter[graphs] += count
        return dict(sorted(counter.items()))

    def summary(self) -> dict[str, Any]:
        """The headline numbers as a JSON-safe dict."""
        return {
            "heuristic": self.heuristic,
            "algorithm": self.algorithm,
            "improved": self.improved,
            "max_nodes": self.max_nodes,
            "max_edges": self.max_edges,
            "max_graphs": self.max_graphs,
            "packs": self.num_packs,
            "strategies": self.num_strategies,
            "graphs": self.num_graphs,
            "node_efficiency": self.node_efficiency,
            "edge_efficiency": self.edge_efficiency,
            "harmonic_mean": self.harmonic_mean,
            "packing_factor": self.packing_factor,
            "lower_bound": self.lower_bound,
            "gap": self.gap,
            "tight_limits": list(self.tight_limits),
        }

    # ----------------------------------------------------------------- verification
    def check(self, hist: SizeHistogram) -> bool:
        """Verify that the plan packs every graph of ``hist`` exactly once and that no
        pack breaks a limit; raise ``ValueError`` naming the first problem found.

        >>> hist = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2])
        >>> PackingPlan([(((3, 4), (2, 2)), 2)], 5, 8, 4).check(hist)
        True
        """
        used: Counter[tuple[int, int]] = Counter()
        for items, count in self.packs:
            if count <= 0:
                raise ValueError(f"Pack {describe(items)} has non-positive repeat count {count}.")
            if not items:
                raise ValueError("The plan contains an empty pack.")
            for item in items:
                used[item] += count
        for nodes, edges, graphs, (items, _) in zip(
            self.pack_nodes, self.pack_edges, self.pack_graphs, self.packs
        ):
            if self.unlimited != "nodes" and nodes > self.max_nodes:
                raise ValueError(f"Pack {describe(items)} has {nodes} nodes > limit {self.max_nodes}.")
            if self.unlimited != "edges" and edges > self.max_edges:
                raise ValueError(f"Pack {describe(items)} has {edges} edges > limit {self.max_edges}.")
            if graphs > self.max_graphs:
                raise ValueError(f"Pack {describe(items)} has {graphs} graphs > limit {self.max_graphs}.")
        expected = {
            (int(n), int(e)): int(c) for n, e, c in zip(hist.num_nodes, hist.num_edges, hist.counts)
        }
        if dict(used) != expected:
            diff = {k: used.get(k, 0) - expected.get(k, 0) for k in set(used) | set(expected)}
            wrong = sorted((k, d) for k, d in diff.items() if d)
            raise ValueError(
                f"The plan does not cover the histogram exactly; (nodes, edges): surplus {wrong[:5]}."
            )
        return True

    # ----------------------------------------------------------------- serialisation
    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict; each pack lists ``[nodes, edges, copies]`` triples.

        >>> plan = PackingPlan([(((3, 4), (3, 4)), 1)], 6, 8, 2)
        >>> PackingPlan.from_dict(plan.to_dict()) == plan
        True
        """
        packs = []
        for items, count in self.packs:
            copies = Counter(items)
            packs.append(
                {"items": [[n, e, k] for (n, e), k in sorted(copies.items(), reverse=True)], "count": count}
            )
        return {
            "max_nodes": self.max_nodes,
            "max_edges": self.max_edges,
            "max_graphs": self.max_graphs,
            "heuristic": self.heuristic,
            "algorithm": self.algorithm,
            "unlimited": self.unlimited,
            "improved": self.improved,
            "packs": packs,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "PackingPlan":
        """Rebuild a plan written by :meth:`to_dict`."""
        try:
            max_graphs = int(data["max_graphs"])
            packs = []
            for pack in data["packs"]:
                copies = [int(k) for _, _, k in pack["items"]]
                if min(copies, default=0) < 1 or sum(copies) > min(max_graphs, MAX_GRAPHS_PER_PACK):
                    raise ValueError(f"a pack with {sum(copies)} graphs (limit {max_graphs})")
                items = tuple((int(n), int(e)) for n, e, k in pack["items"] for _ in range(int(k)))
                packs.append((items, int(pack["count"])))
            return cls(
                packs=packs,
                max_nodes=int(data["max_nodes"]),
                max_edges=int(data["max_edges"]),
                max_graphs=max_graphs,
                heuristic=str(data.get("heuristic", "product")),
                algorithm=str(data.get("algorithm", "best_fit")),
                unlimited=data.get("unlimited"),
                improved=bool(data.get("improved", False)),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"Not a packing plan: {error} (missing or malformed).") from None

    def to_frame(self) -> pd.DataFrame:
        """One row per distinct pack: its graphs, repeat count, sums and fill."""
        return pd.DataFrame(
            {
                "pack": [" + ".join(f"({n},{e})" for n, e in items) for items, _ in self.packs],
                "count": self.pack_counts,
                "graphs": self.pack_graphs,
                "nodes": self.pack_nodes,
                "edges": self.pack_edges,
                "node_fill": self.pack_nodes / self.node_capacity,
                "edge_fill": self.pack_edges / max(self.edge_capacity, 1),
            }
        ).sort_values("count", ascending=False, ignore_index=True)
