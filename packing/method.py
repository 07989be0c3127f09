"""How to pack, as one value: the algorithm and what it takes (heuristic, weights, 1D
algorithm, exact-fill improvement).

An argument that does not apply to the algorithm is refused, never silently ignored: a
heuristic or weights for a baseline, weights for a heuristic other than ``weighted``,
``one_dim`` for tuple packing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from typing import Any

from .greedy import BEST_FIT, FIRST_FIT, FITS, WORST_FIT
from .heuristics import HEURISTICS, Heuristic, resolve_heuristic
from .one_dim import ONE_DIM_ALGORITHMS
from .published import PAPER_MIN, PUBLISHED_HEURISTICS, published_heuristic
from .sides import EDGES, NODES

TUPLE_ALGORITHMS: tuple[str, ...] = FITS
NONE = "none"
NODE_ONLY = "node_only"
EDGE_ONLY = "edge_only"
BASELINES: tuple[str, ...] = (NONE, NODE_ONLY, EDGE_ONLY)
ONE_DIM_BASELINES: tuple[str, ...] = (NODE_ONLY, EDGE_ONLY)
BEST = "best"
PUBLISHED = "published"
LP_ROUNDING = "lp_rounding"
BALANCED = "balanced"
#: Algorithms that take no settings at all.
PLAIN_ALGORITHMS: tuple[str, ...] = (LP_ROUNDING, BALANCED)
DEFAULT_HEURISTIC = "product"
DEFAULT_ONE_DIM = "lpfhp"
WEIGHTED = "weighted"


@dataclass(frozen=True)
class Algorithm:
    """What a user reads about one algorithm: a short ``name`` for a list of choices, a
    ``summary`` sentence, and the :class:`PackMethod` fields (``settings``) it takes."""

    name: str
    summary: str
    settings: tuple[str, ...]


_TUPLE_SETTINGS = ("heuristic", "weights", "improve")
#: Every algorithm by name, in the order a page lists them.
ALGORITHMS: dict[str, Algorithm] = {
    BEST_FIT: Algorithm("best fit: longest pack first (fullest open pack that fits)",
                        "Graph sizes, largest heuristic first, each go to the fullest open pack they fit: the one "
                        "with the least room left on its tighter side, as a share of the limit.", _TUPLE_SETTINGS),
    WORST_FIT: Algorithm("worst fit: shortest pack first (emptiest open pack that fits)",
                         "Each graph goes to the emptiest open pack it fits: the largest heuristic of its room.",
                         _TUPLE_SETTINGS),
    FIRST_FIT: Algorithm("first fit (earliest-opened open pack that fits)",
                         "Each graph size goes to the earliest-opened pack it fits.", _TUPLE_SETTINGS),
    PUBLISHED: Algorithm("published algorithm (Krell et al. 2022, as printed)",
                         "The tuple-packing algorithm of Krell et al. (2022) as published.", ("heuristic", "improve")),
    BEST: Algorithm("best of all (every heuristic x algorithm)",
                    "Best of all tries every heuristic with every tuple algorithm and the published algorithm.",
                    ("improve",)),
    BALANCED: Algorithm("balanced fill (graph slots bind, or many graphs a pack)",
                        "Graphs sorted by size are dealt to packs in serpentine order, so every pack mixes large and "
                        "small ones; best where the graph slots bind or packs hold 32 graphs or more.", ()),
    LP_ROUNDING: Algorithm("LP rounding (slow: up to a minute)",
                           "The LP relaxation (column generation, up to a minute, cached) rounded down; the rest by "
                           "best of all.", ()),
    NONE: Algorithm("baseline: no packing", "No packing: one graph per pack.", ()),
    NODE_ONLY: Algorithm("baseline: node-only 1D packing (ignores the edge limit)",
                         "Packs limited by nodes and graphs only; the edge limit is ignored.", ("one_dim",)),
    EDGE_ONLY: Algorithm("baseline: edge-only 1D packing (ignores the node limit)",
                         "Packs limited by edges and graphs only; the node limit is ignored.", ("one_dim",)),
}
ALL_ALGORITHMS: tuple[str, ...] = tuple(ALGORITHMS)
#: The choices of a setting in words, per algorithm kind: what a page offers.
HEURISTIC_WORDS: dict[str, str] = {**{name: name for name in HEURISTICS}, WEIGHTED: "weighted sum (set the weights)"}
PUBLISHED_HEURISTIC_WORDS: dict[str, str] = {**{name: name for name in PUBLISHED_HEURISTICS},
                                             PAPER_MIN: "min as published (computes max)"}
ONE_DIM_WORDS: dict[str, str] = {"lpfhp": "LPFHP (longest pack first)", "spfhp": "SPFHP (shortest pack first)",
                                 "nnlshp": "NNLSHP (least-squares mixture)"}
_FIELDS = ("algorithm", "heuristic", "one_dim", "weights", "improve")


def _check_weights(weights: Any) -> tuple[float, float]:
    """Two finite, non-negative numbers, not both zero."""
    if not isinstance(weights, (tuple, list)) or len(weights) != 2:
        raise ValueError(f"weights must be a pair (node_weight, edge_weight), got {weights!r}.")
    for value in weights:
        if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or value < 0:
            raise ValueError(f"weights must be finite numbers >= 0, got {weights!r}.")
    if weights[0] == 0 and weights[1] == 0:
        raise ValueError("weights must not both be zero.")
    return float(weights[0]), float(weights[1])


@dataclass(frozen=True)
class PackMethod:
    """An algorithm and its settings, validated; unset settings take the algorithm's defaults.

    * tuple packing (``best_fit``, ``worst_fit``, ``first_fit``): ``heuristic`` (default
      ``product``; ``weighted`` needs ``weights``), ``improve`` (exact fill afterwards);
    * ``published``: the algorithm of Krell et al. (2022) as published, with one of its
      heuristics (``product``, ``sum``, ``max``, ``min``, ``node``, ``edge``) or
      ``paper_min``, the public code's "min" (which computes the maximum: the paper's
      Minimum row); ``improve`` as above;
    * ``best``: every heuristic x tuple algorithm and the published algorithm, fewest packs
      wins; ``improve`` defaults to True;
    * ``balanced``: graphs dealt to packs in serpentine order of size, for limits where the
      graph slots bind (:mod:`packing.balanced`); no settings;
    * ``lp_rounding``: the LP relaxation solved by column generation (seconds, cached),
      rounded down, the rest packed by ``best``; no settings;
    * baselines ``none``, ``node_only``, ``edge_only``: ``one_dim`` (``lpfhp`` by default)
      for the two 1D ones, nothing else.

    >>> PackMethod()
    PackMethod(algorithm='best_fit', heuristic='product', one_dim=None, weights=None, improve=False)
    >>> PackMethod("node_only").one_dim, PackMethod("best").improve
    ('lpfhp', True)
    >>> PackMethod("none", heuristic="sum")
    Traceback (most recent call last):
    ...
    ValueError: The baseline 'none' takes no heuristic (got 'sum').
    """

    algorithm: str = BEST_FIT
    heuristic: str | None = None
    one_dim: str | None = None
    weights: tuple[float, float] | None = None
    improve: bool | None = None

    def __post_init__(self) -> None:
        algorithm = self.algorithm
        if algorithm not in ALL_ALGORITHMS:
            raise ValueError(f"Unknown algorithm {algorithm!r}; choose one of: {', '.join(ALL_ALGORITHMS)}.")
        if self.improve is not None and not isinstance(self.improve, bool):
            raise ValueError(f"improve must be True or False, got {self.improve!r}.")
        if algorithm in BASELINES or algorithm in PLAIN_ALGORITHMS:
            self._check_baseline()
            return
        if self.one_dim is not None:
            raise ValueError(f"one_dim is for the node_only / edge_only baselines, not {algorithm!r}.")
        if algorithm == BEST:
            if self.heuristic is not None or self.weights is not None:
                raise ValueError("'best' tries every heuristic itself; give no heuristic or weights.")
            object.__setattr__(self, "improve", True if self.improve is None else self.improve)
            return
        heuristic = DEFAULT_HEURISTIC if self.heuristic is None else self.heuristic
        if algorithm == PUBLISHED:
            if heuristic not in PUBLISHED_HEURISTICS or self.weights is not None:
                raise ValueError(f"The published algorithm takes one of the paper's heuristics "
                                 f"({', '.join(PUBLISHED_HEURISTICS)}) and no weights; got {heuristic!r}"
                                 + (f" with weights {self.weights!r}." if self.weights is not None else "."))
            object.__setattr__(self, "heuristic", heuristic)
            object.__setattr__(self, "improve", bool(self.improve))
            return
        if heuristic == PAPER_MIN:
            raise ValueError(f"{PAPER_MIN!r} is the published code's min (the maximum) and belongs to "
                             f"algorithm='published'; {algorithm!r} has a real 'min'.")
        if heuristic == WEIGHTED:
            if self.weights is None:
                raise ValueError("The 'weighted' heuristic needs weights=(node_weight, edge_weight).")
            object.__setattr__(self, "weights", _check_weights(self.weights))
        elif self.weights is not None:
            raise ValueError(f"weights apply to the 'weighted' heuristic only, not {heuristic!r}.")
        resolve_heuristic(heuristic, self.weights)
        object.__setattr__(self, "heuristic", heuristic)
        object.__setattr__(self, "improve", bool(self.improve))

    def _check_baseline(self) -> None:
        kind = "algorithm" if self.algorithm in PLAIN_ALGORITHMS else "baseline"
        for name in ("heuristic", "weights"):
            value = getattr(self, name)
            if value is not None:
                raise ValueError(f"The {kind} {self.algorithm!r} takes no {name} (got {value!r}).")
        if self.improve:
            raise ValueError(f"The {kind} {self.algorithm!r} cannot be improved by exact fill.")
        object.__setattr__(self, "improve", False)
        if self.algorithm not in ONE_DIM_BASELINES:
            if self.one_dim is not None:
                raise ValueError(f"one_dim is for the node_only / edge_only baselines, not {self.algorithm!r}.")
            return
        one_dim = DEFAULT_ONE_DIM if self.one_dim is None else self.one_dim
        if one_dim not in ONE_DIM_ALGORITHMS:
            raise ValueError(f"Unknown 1D algorithm {one_dim!r}; choose one of: {', '.join(ONE_DIM_ALGORITHMS)}.")
        object.__setattr__(self, "one_dim", one_dim)

    # ----------------------------------------------------------------- what applies
    @staticmethod
    def settings_for(algorithm: str) -> tuple[str, ...]:
        """The fields besides ``algorithm`` that ``algorithm`` takes (``weights`` only with
        the ``weighted`` heuristic); the rest must stay unset.

        >>> PackMethod.settings_for("published"), PackMethod.settings_for("none")
        (('heuristic', 'improve'), ())

        Raises:
            ValueError: for an unknown algorithm.
        """
        if algorithm not in ALGORITHMS:
            raise ValueError(f"Unknown algorithm {algorithm!r}; choose one of: {', '.join(ALL_ALGORITHMS)}.")
        return ALGORITHMS[algorithm].settings

    @staticmethod
    def choices(algorithm: str, setting: str) -> dict[str, str]:
        """The values ``setting`` (``heuristic`` or ``one_dim``) may take with
        ``algorithm``, each with its words for a page; empty when it does not apply.

        >>> list(PackMethod.choices("published", "heuristic"))[-2:], PackMethod.choices("none", "one_dim")
        (['edge', 'min'], {})
        """
        if setting not in PackMethod.settings_for(algorithm):
            return {}
        if setting == "heuristic":
            return dict(PUBLISHED_HEURISTIC_WORDS if algorithm == PUBLISHED else HEURISTIC_WORDS)
        if setting == "one_dim":
            return dict(ONE_DIM_WORDS)
        raise ValueError(f"{setting!r} is not chosen from a list; choices are for heuristic and one_dim.")

    # ----------------------------------------------------------------- derived
    @property
    def is_tuple_packing(self) -> bool:
        """Whether this is one tuple-packing run, ours or the published one (what sweeps
        and counts accept)."""
        return self.algorithm in TUPLE_ALGORITHMS or self.algorithm == PUBLISHED

    @property
    def unlimited(self) -> str | None:
        """The component a 1D baseline does not limit (``"edges"`` for node-only), else None.

        >>> PackMethod("node_only").unlimited, PackMethod().unlimited
        ('edges', None)
        """
        return {NODE_ONLY: EDGES, EDGE_ONLY: NODES}.get(self.algorithm)

    @property
    def keeps_limits(self) -> bool:
        """False for the 1D baselines, whose packs may break the limit they ignore."""
        return self.unlimited is None

    def heuristic_key(self) -> Heuristic:
        """The heuristic object of a tuple-packing method."""
        if self.heuristic is None:
            raise ValueError(f"{self.algorithm!r} has no heuristic.")
        if self.algorithm == PUBLISHED:
            return published_heuristic(self.heuristic)
        return resolve_heuristic(self.heuristic, self.weights)

    @property
    def label(self) -> str:
        """Words for a page or message, e.g. ``best fit, product heuristic``.

        >>> PackMethod("worst_fit", "sum", improve=True).label
        'worst fit, sum heuristic, improved by exact fill'
        >>> PackMethod("edge_only").label
        'edge-only baseline (lpfhp)'
        >>> PackMethod("published", "paper_min").label
        'published algorithm (Krell et al. 2022), min heuristic as published (computes max)'
        """
        if self.algorithm in BASELINES:
            name = {NONE: "no packing", NODE_ONLY: "node-only baseline", EDGE_ONLY: "edge-only baseline"}
            return name[self.algorithm] + (f" ({self.one_dim})" if self.one_dim else "")
        if self.algorithm == BEST:
            return "best of all" + ("" if self.improve else " (no exact fill)")
        if self.algorithm == LP_ROUNDING:
            return "LP rounding (column generation, the rest by best of all)"
        if self.algorithm == BALANCED:
            return "balanced fill (graphs dealt in serpentine order of size)"
        if self.algorithm == PUBLISHED:
            heuristic = "min heuristic as published (computes max)" if self.heuristic == PAPER_MIN \
                else f"{self.heuristic} heuristic"
            return f"published algorithm (Krell et al. 2022), {heuristic}" + (
                ", improved by exact fill" if self.improve else "")
        heuristic = self.heuristic_key().name if self.heuristic == WEIGHTED else self.heuristic
        words = f"{self.algorithm.replace('_', ' ')}, {heuristic} heuristic"
        return words + (", improved by exact fill" if self.improve else "")

    # ----------------------------------------------------------------- serialisation
    def to_dict(self) -> dict[str, Any]:
        """JSON-safe fields (``weights`` as a list or null)."""
        return {
            "algorithm": self.algorithm, "heuristic": self.heuristic, "one_dim": self.one_dim,
            "weights": None if self.weights is None else list(self.weights), "improve": self.improve,
        }

    @classmethod
    def from_dict(cls, data: Any) -> "PackMethod":
        """Read :meth:`to_dict` output; a malformed field gives a ``ValueError`` naming it.

        >>> PackMethod.from_dict(PackMethod("best_fit", "sum").to_dict())
        PackMethod(algorithm='best_fit', heuristic='sum', one_dim=None, weights=None, improve=False)
        """
        if not isinstance(data, dict):
            raise ValueError(f"method must be an object, got {type(data).__name__}.")
        unknown = set(data) - set(_FIELDS)
        if unknown:
            raise ValueError(f"method has unknown field(s) {', '.join(sorted(map(str, unknown)))}.")
        for name in ("algorithm", "heuristic", "one_dim"):
            value = data.get(name)
            if value is not None and not isinstance(value, str):
                raise ValueError(f"method.{name} must be a string, got {value!r}.")
        weights = data.get("weights")
        if weights is not None and not isinstance(weights, list):
            raise ValueError(f"method.weights must be a list of two numbers, got {weights!r}.")
        try:
            return cls(algorithm=data.get("algorithm", BEST_FIT), heuristic=data.get("heuristic"),
                       one_dim=data.get("one_dim"), weights=None if weights is None else tuple(weights),
                       improve=data.get("improve"))
        except ValueError as error:
            raise ValueError(f"method: {error}") from None


def tuple_methods(improve: bool = False) -> list[PackMethod]:
    """Every named heuristic x tuple algorithm, in ``HEURISTICS`` x ``TUPLE_ALGORITHMS`` order.

    >>> len(tuple_methods())
    18
    """
    return [PackMethod(algorithm, heuristic, improve=improve) for heuristic in HEURISTICS for algorithm in TUPLE_ALGORITHMS]


def published_methods(improve: bool = False) -> list[PackMethod]:
    """The published algorithm with each of its heuristics, in the order of the paper's Table 2.

    >>> [method.heuristic for method in published_methods()]
    ['product', 'sum', 'max', 'paper_min', 'node', 'edge', 'min']
    """
    return [PackMethod(PUBLISHED, heuristic, improve=improve) for heuristic in PUBLISHED_HEURISTICS]


def candidate_methods() -> list[PackMethod]:
    """What ``best`` tries, in tie-breaking order: every heuristic x tuple algorithm, then
    the published algorithm with each of its distinct heuristics (``paper_min`` repeats
    ``max``, so it is left out).

    >>> len(candidate_methods())
    24
    """
    return tuple_methods() + [method for method in published_methods() if method.heuristic != PAPER_MIN]

