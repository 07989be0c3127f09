"""Proven lower bounds on the number of packs any plan needs, named, with the best.

Three bounds, each a number of packs that no plan within the limits can undercut:

* ``volume`` and ``large_items``: counting arguments (:mod:`packing.simple_bounds`);
* ``lp``: the linear programming relaxation of the pattern formulation, solved by column
  generation (:mod:`packing.column_generation`); only on request, because it takes seconds.

:func:`lower_bounds` returns them with their names; ``best`` is the largest and
``name_of_best`` names it (the cheapest bound that reaches the value);
``packing.words.bound_words`` says it in words.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from .column_generation import DEFAULT_TIME_BUDGET, LPBound, lp_bound
from .histogram import SizeHistogram
from .limits import MAX_PACK_LIMIT, PackLimits
from .packs import Items
from .sides import EDGES, NODES
from .simple_bounds import check_side, large_items_bound, lower_bound

#: Bound names, cheapest first (ties between bounds are named by the first).
BOUND_NAMES: tuple[str, ...] = ("volume", "large_items", "lp")


@dataclass(frozen=True)
class Bounds:
    """Every lower bound computed for one histogram and limits, with the best of them.

    ``lp`` is None unless the LP bound was run (``prove=True``); ``lp_result`` then holds
    its details (iterations, time, whether it converged, the dual certificate).
    ``large_items_by`` names the argument behind ``large_items``; ``limits`` and
    ``fingerprint`` (of the histogram) say what the bounds are for.

    >>> bounds = lower_bounds(SizeHistogram.from_counts([15, 3], [20, 2], [7, 20]), PackLimits(29, 100, 256))
    >>> bounds.volume, bounds.large_items, bounds.lp, bounds.best, bounds.name_of_best
    (6, 7, None, 7, 'large_items')
    """

    volume: int
    large_items: int
    lp: int | None = None
    large_items_by: str = NODES
    unlimited: str | None = None
    lp_result: LPBound | None = field(default=None, compare=False, repr=False)
    limits: PackLimits | None = field(default=None, compare=False, repr=False)
    fingerprint: str = field(default="", compare=False, repr=False)

    @property
    def best(self) -> int:
        """The largest bound computed."""
        return max(value for value in (self.volume, self.large_items, self.lp) if value is not None)

    @property
    def name_of_best(self) -> str:
        """``"volume"``, ``"large_items"`` or ``"lp"``: the cheapest bound that reaches ``best``."""
        return next(name for name in BOUND_NAMES if getattr(self, name) == self.best)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: the three bounds, the best and its name (``lp`` null unless proved)."""
        return {"volume": self.volume, "large_items": self.large_items, "large_items_by": self.large_items_by,
                "lp": self.lp, "best": self.best, "name_of_best": self.name_of_best}


def lower_bounds(
    hist: SizeHistogram,
    limits: PackLimits,
    prove: bool = False,
    *,
    unlimited: str | None = None,
    time_budget: float | None = None,
    progress: Callable[[float, str], None] | None = None,
    packs: Sequence[tuple[Items, int]] | None = None,
) -> Bounds:
    """Every lower bound on the packs of ``hist`` within ``limits``, named, with the best.

    The volume and large-items bounds take well under 10 ms on a few hundred size tuples.
    With ``prove=True`` the LP bound runs as well (:func:`packing.column_generation.lp_bound`: at
    most ``time_budget`` seconds, default ``packing.column_generation.DEFAULT_TIME_BUDGET``;
    ``progress(fraction, message)`` reports on it; results are cached per histogram and
    limits; ``packs``, those of a plan of ``hist`` within ``limits`` (``plan.packs``), seed
    it and let it stop once it proves that plan optimal). ``unlimited`` leaves a component
    out (1D baselines; no LP bound then).

    Args:
        hist: the graphs.
        limits: the limits every pack keeps.
        prove: run the LP bound as well.
        unlimited: ``"nodes"`` or ``"edges"`` for a plan that does not limit that side.
        time_budget: seconds the LP bound may take.
        progress: ``progress(fraction, message)`` after each LP round.
        packs: the distinct packs of a plan within ``limits``, with their counts, that seed
            the LP bound.

    Returns:
        The :class:`Bounds`, ``lp`` set when ``prove``.

    Raises:
        ValueError: for an unknown ``unlimited``, ``prove`` with ``unlimited``, limits
            a graph does not fit (on the side that is kept), or ``packs`` beyond the limits.

    >>> bounds = lower_bounds(SizeHistogram.from_counts([3, 2], [4, 2], [2, 3]), PackLimits(5, 6, 2), prove=True)
    >>> bounds.volume, bounds.lp, bounds.best
    (3, 3, 3)
    """
    check_side(limits, unlimited)
    kept = PackLimits(MAX_PACK_LIMIT if unlimited == NODES else limits.max_nodes,  # a 1D baseline's ignored side
                      MAX_PACK_LIMIT if unlimited == EDGES else limits.max_edges, limits.max_graphs)
    kept.check_fits(hist)  # no plan within these limits exists: there is nothing to bound
    large, by = large_items_bound(hist, limits, unlimited)
    volume = lower_bound(hist, limits, unlimited)
    if not prove:
        return Bounds(volume, large, None, by, unlimited, None, limits, hist.fingerprint())
    if unlimited is not None:
        raise ValueError("The LP bound is for plans that keep every limit; the 1D baselines have none.")
    result = lp_bound(hist, limits, DEFAULT_TIME_BUDGET if time_budget is None else time_budget, progress, packs)
    return Bounds(volume, large, result.bound, by, None, result, limits, hist.fingerprint())
