"""Pack limits as one value: at most ``max_nodes`` nodes, ``max_edges`` edges and
``max_graphs`` graphs per pack.

Every limit is a whole number from 1 to :data:`MAX_PACK_LIMIT`; anything else (a bool, a
fraction, NaN, infinity, a string, a number too large to pack with) is refused with a
message that names the limit and the value. The ceiling is checked here, where the user
gives a limit, and stops below the engine's :data:`MAX_LIMIT` by the padding node and
graph a padded batch adds (:mod:`packing.shape`), so every limit accepted here also works
in the padded shapes, the export and the batching simulation.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np

from .histogram import SizeHistogram

DEFAULT_MAX_GRAPHS = 256
MAX_LIMIT = 2**40  # about 1.1e12: far above any pack, far below int64 overflow in the engine
PADDING = 1  # the padding node and the padding graph a padded batch adds to a pack (packing.shape)
#: The largest limit a user may give: a pack at it, with its padding, still fits MAX_LIMIT.
MAX_PACK_LIMIT = MAX_LIMIT - PADDING
CEILING_WHY = " (the largest limit leaves room for the padding node and graph of a padded batch within 2^40)"
_FIELDS = ("max_nodes", "max_edges", "max_graphs")


def whole_number(value: Any, name: str, low: int = 1, high: int = MAX_LIMIT, why: str = "") -> int:
    """``value`` as an int in ``[low, high]``; integral floats are accepted, everything else
    (bools, fractions, NaN, infinity, strings) is refused with a message naming ``name``
    (and, out of range, ending with ``why``).

    >>> whole_number(12.0, "max_nodes")
    12
    >>> whole_number(5.5, "max_nodes")
    Traceback (most recent call last):
    ...
    ValueError: max_nodes must be a whole number, got 5.5.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a whole number, got {value!r} ({type(value).__name__}).")
    if not isinstance(value, Integral):
        if not math.isfinite(value) or not float(value).is_integer():
            raise ValueError(f"{name} must be a whole number, got {value!r}.")
    number = int(value)
    if not low <= number <= high:
        raise ValueError(f"{name} must lie between {low:,} and {high:,}, got {number:,}{why}.")
    return number


def limit_number(value: Any, name: str) -> int:
    """``value`` as a pack limit: :func:`whole_number` from 1 to :data:`MAX_PACK_LIMIT`, out
    of range refused with a message that says why the ceiling is there.

    >>> limit_number(MAX_PACK_LIMIT, "max_nodes") == MAX_PACK_LIMIT
    True
    >>> limit_number(2**40, "max_nodes")
    Traceback (most recent call last):
    ...
    ValueError: max_nodes must lie between 1 and 1,099,511,627,775, got 1,099,511,627,776 (the largest limit leaves room for the padding node and graph of a padded batch within 2^40).
    """
    return whole_number(value, name, high=MAX_PACK_LIMIT, why=CEILING_WHY)


@dataclass(frozen=True)
class PackLimits:
    """The most nodes, edges and graphs one pack may hold (validated, hashable, JSON-safe).

    >>> limits = PackLimits(222, 502)
    >>> limits, limits.to_dict()["max_graphs"]
    (PackLimits(max_nodes=222, max_edges=502, max_graphs=256), 256)
    >>> PackLimits.from_dict(limits.to_dict()) == limits
    True
    """

    max_nodes: int
    max_edges: int
    max_graphs: int = DEFAULT_MAX_GRAPHS

    def __post_init__(self) -> None:
        for name in _FIELDS:
            object.__setattr__(self, name, limit_number(getattr(self, name), name))

    @classmethod
    def for_histogram(
        cls, hist: SizeHistogram, max_nodes: int | None = None, max_edges: int | None = None,
        max_graphs: int | None = DEFAULT_MAX_GRAPHS,
    ) -> "PackLimits":
        """Limits for ``hist`` with unset values filled from the data: the largest graph's
        nodes and edges (at least 1 each) and, for ``max_graphs=None``, every graph.

        >>> PackLimits.for_histogram(SizeHistogram.from_sizes([3, 5], [0, 0]))
        PackLimits(max_nodes=5, max_edges=1, max_graphs=256)
        >>> PackLimits.for_histogram(SizeHistogram.from_sizes([3, 2**41], [0, 0]))
        Traceback (most recent call last):
        ...
        ValueError: The largest graph has 2,199,023,255,552 nodes, more than the 1,099,511,627,775 a pack can hold, so no limits hold it; leave it out of the size table.
        """
        for given, largest, word in ((max_nodes, hist.largest_nodes, "nodes"), (max_edges, hist.largest_edges, "edges")):
            if given is None and largest > MAX_PACK_LIMIT:
                raise ValueError(f"The largest graph has {largest:,} {word}, more than the {MAX_PACK_LIMIT:,} a pack "
                                 "can hold, so no limits hold it; leave it out of the size table.")
        return cls(
            max(hist.largest_nodes, 1) if max_nodes is None else max_nodes,
            max(hist.largest_edges, 1) if max_edges is None else max_edges,
            min(hist.num_graphs, MAX_PACK_LIMIT) if max_graphs is None else max_graphs,
        )

    def fits(self, hist: SizeHistogram) -> bool:
        """Whether every graph of ``hist`` fits into an empty pack.

        >>> PackLimits(4, 8).fits(SizeHistogram.from_sizes([5], [2]))
        False
        """
        return hist.largest_nodes <= self.max_nodes and hist.largest_edges <= self.max_edges

    def check_fits(self, hist: SizeHistogram) -> "PackLimits":
        """Return ``self`` if every graph fits into one pack, else raise a ``ValueError``
        that counts the graphs that do not fit and says which limits would.

        >>> PackLimits(4, 8).check_fits(SizeHistogram.from_sizes([5, 3], [2, 9]))
        Traceback (most recent call last):
        ...
        ValueError: 2 graph(s) do not fit into one pack of at most 4 nodes and 8 edges: the largest graph has 5 nodes, the graph with the most edges has 9. Raise the limits to at least 5 nodes and 9 edges.
        """
        too_big = (hist.num_nodes > self.max_nodes) | (hist.num_edges > self.max_edges)
        if not too_big.any():
            return self
        graphs = int(hist.counts[too_big].sum())
        raise ValueError(
            f"{graphs:,} graph(s) do not fit into one pack of at most {self.max_nodes:,} nodes and "
            f"{self.max_edges:,} edges: the largest graph has {hist.largest_nodes:,} nodes, the graph with the "
            f"most edges has {hist.largest_edges:,}. Raise the limits to at least {hist.largest_nodes:,} nodes and "
            f"{hist.largest_edges:,} edges."
        )

    def to_dict(self) -> dict[str, int]:
        """``{"max_nodes": ..., "max_edges": ..., "max_graphs": ...}``."""
        return {name: getattr(self, name) for name in _FIELDS}

    @classmethod
    def from_dict(cls, data: Any) -> "PackLimits":
        """Read :meth:`to_dict` output strictly: an object with exactly the three limits as
        JSON integers (no strings, floats or bools).

        >>> PackLimits.from_dict({"max_nodes": 5, "max_edges": "6", "max_graphs": 2})
        Traceback (most recent call last):
        ...
        ValueError: limits.max_edges must be an integer, got '6'.
        """
        if not isinstance(data, dict):
            raise ValueError(f"limits must be an object with {', '.join(_FIELDS)}, got {type(data).__name__}.")
        unknown = set(data) - set(_FIELDS)
        if unknown:
            raise ValueError(f"limits has unknown field(s) {', '.join(sorted(map(str, unknown)))}.")
        values = {}
        for name in _FIELDS:
            value = data.get(name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"limits.{name} must be an integer, got {value!r}.")
            values[name] = limit_number(value, f"limits.{name}")
        return cls(**values)

    def __str__(self) -> str:
        return f"{self.max_nodes:,} nodes, {self.max_edges:,} edges, {self.max_graphs:,} graphs"
