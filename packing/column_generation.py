"""The LP bound: the linear relaxation of the pattern formulation, by column generation.

Method: Gilmore and Gomory, "A linear programming approach to the cutting-stock problem"
(Operations Research 9, 1961). Every pack a plan can use is a *pattern* ``a`` (copies
``a_i`` of histogram row ``i``, within the node, edge and graph limits); a plan chooses
``x_a`` packs of each pattern so that ``sum_a a_i x_a >= count_i``. Its linear relaxation
``min sum_a x_a`` is solved over a growing set of patterns (the restricted master, by
HiGHS through ``scipy.optimize.linprog``); the master's duals ``y`` price new patterns with
a bounded 2D knapsack (:mod:`packing.pattern_pricing`), and a pattern worth more than 1 is
added, with other packs read from the same knapsack table (the best that hold one graph of
each of the most valuable rows), which cuts the rounds several-fold on thousands of sizes.

The master also holds free *exchange* columns: where a graph of row ``s`` fits wherever one
of row ``l`` does (no more nodes or edges, and enough graphs of ``s`` to fill any pack),
the room of ``l`` may cover ``s``. These are the dual-optimal inequalities
``y_s <= y_l`` of Ben Amor, Desrosiers and Valerio de Carvalho ("Dual-optimal inequalities
for stabilized column generation", Operations Research 54, 2006): they keep the LP optimum,
make the master's duals far less degenerate and so cut the rounds again; the master's
solution is turned back into real packs (:func:`_substituted`) before anyone sees it. The
master is solved by HiGHS' interior-point method, the faster of its methods on these LPs.

The bound is valid whenever the run stops, converged or not: for any ``y >= 0`` and any
``z`` at least the most a pattern is worth under ``y``, ``y / z`` is feasible for the dual
LP, so ``sum_i count_i y_i / z`` is at most the LP optimum and so at most the packs of any
plan (Farley, "A note on bounding a class of linear programming problems, including
cutting stock problems", Operations Research 38, 1990; the Lagrangian bound of the master).
The best such value over the run is kept with its duals, and rounded down by a relative
``1e-9`` before taking the ceiling, so floating-point error never overstates it. The duals
are the bound's certificate: :func:`verify_certificate` recomputes ``z`` (with one
knapsack at most) and gets at least the same bound back.

Runs respect a time budget, report progress and are cached per (histogram, limits); a
later call with a larger budget resumes from the cached patterns.
"""
from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import csc_matrix

from .exact_fill import Progress, improve
from .greedy import BEST_FIT, greedy_pack
from .heuristics import HEURISTICS
from .histogram import SizeHistogram
from .limits import PackLimits
from .packs import Items, copies_of, num_packs, row_index, runs_of, totals
from .pattern_pricing import DeadlineReached, PackPricer, Pattern
from .simple_bounds import large_items_bound

DEFAULT_TIME_BUDGET = 60.0  # seconds
MAX_TIME_BUDGET = 3600.0
CACHE_SIZE = 16
SAFETY = 1e-9  # relative amount a real-valued bound is lowered before its ceiling is taken
_IMPROVING = 1 + 1e-7  # a pattern worth more than this is a new column
_COLUMNS_PER_ROUND = 12  # heuristic columns tried per round besides the knapsack's
_TABLE_COLUMNS = 16  # further columns read from each knapsack table along each limit
_ROW_COLUMNS = 128  # columns read from each knapsack table that complete one graph of a valuable row
_SOLVER_TOLERANCE = 1e-7  # relative accuracy assumed of the master's value, to stop a run


def proven_ceiling(value: float) -> int:
    """The smallest whole number of packs a real-valued lower bound proves, after lowering
    it by a relative ``SAFETY`` against floating-point error.

    >>> proven_ceiling(3743.0000000001), proven_ceiling(3743.2)
    (3743, 3744)
    """
    return max(0, math.ceil(value * (1 - SAFETY) - SAFETY))


def farley_bound(counts: np.ndarray, duals: np.ndarray, most_worth: float) -> float:
    """``sum_i count_i y_i / z``: a lower bound on the LP optimum when ``z`` is at least the
    most any pattern is worth under the duals ``y >= 0`` (Farley 1990).

    >>> farley_bound(np.array([4, 2]), np.array([0.5, 0.5]), 1.0)
    3.0
    """
    total = math.fsum(float(c) * float(y) for c, y in zip(counts.tolist(), duals.tolist()))
    return total / most_worth if most_worth > 0 else 0.0


#: Why a column-generation run ended (``LPBound.stopped``), in words for people.
STOP_REASONS: dict[str, str] = {
    "converged": "converged: no pack can improve the LP relaxation",
    "bound meets the LP value": "more rounds could not raise the bound: it already equals the LP relaxation's "
                                "value rounded up",
    "plan proven optimal": "the bound reached the plan's packs, so the plan is optimal",
    "time budget": "the time budget ran out",
    "master LP failed": "the LP solver failed; the bound found before it holds",
    "no improving pack found": "the search found no new pack to improve the LP relaxation",
}


@dataclass(frozen=True)
class LPBound:
    """The outcome of one column-generation run (all bounds proven, see the module).

    ``bound`` packs at least, from ``farley`` (a lower bound on the LP optimum) with the
    certificate ``duals`` and ``pricing_bound``; ``lp_value`` is the last master's value
    (an upper bound on the LP optimum; ``converged`` when the two met); ``stopped`` says
    why the run ended; ``solution`` is the last master's solution (patterns, fractional
    number of packs), which :mod:`packing.lp_rounding` turns into a plan.
    """

    bound: int
    farley: float
    lp_value: float
    converged: bool
    stopped: str
    iterations: int
    columns: int
    seconds: float
    time_budget: float
    duals: tuple[float, ...] = field(repr=False)
    pricing_bound: float = field(repr=False)
    solution: tuple[tuple[Pattern, float], ...] = field(default=(), repr=False, compare=False)

    @property
    def stop_reason(self) -> str:
        """Why the run ended, in words for people (``stopped`` is the short form files keep).

        >>> lp_bound(SizeHistogram.from_counts([15, 3], [20, 2], [7, 20]), PackLimits(29, 100, 256)).stop_reason
        'converged: no pack can improve the LP relaxation'
        """
        return STOP_REASONS.get(self.stopped, self.stopped)

    def certificate(self) -> dict[str, object]:
        """The JSON-safe certificate: the duals per histogram row (they prove the bound, see
        :func:`lp_bound_from_certificate`), the most a pack is worth under them, the bound,
        whether the run converged and why it stopped."""
        return {"duals": list(self.duals), "pricing_bound": self.pricing_bound, "bound": self.bound,
                "converged": self.converged, "stopped": self.stopped}


@dataclass
class _Run:
    """What a run keeps between calls: the patterns, the best certificate, the packs of the
    best plan known (``upper_bound``), the last result."""

    patterns: list[Pattern]
    keys: set[tuple[tuple[int, int], ...]]
    exchanges: tuple[np.ndarray, np.ndarray]
    duals: np.ndarray
    pricing_bound: float
    farley: float
    upper_bound: int = 0
    lp_value: float = math.inf
    solution: tuple[tuple[Pattern, float], ...] = ()
    iterations: int = 0
    seconds: float = 0.0
    result: LPBound | None = None
    flows: np.ndarray = field(default_factory=lambda: np.zeros(0))
    column_rows: list[int] = field(default_factory=list)
    column_copies: list[float] = field(default_factory=list)
    column_starts: list[int] = field(default_factory=lambda: [0])

    def add(self, pattern: Pattern) -> bool:
        key = tuple(sorted(pattern.items()))
        if not pattern or key in self.keys:
            return False
        self.keys.add(key)
        self.patterns.append(pattern)
        self.column_rows.extend(pattern)
        self.column_copies.extend(float(copies) for copies in pattern.values())
        self.column_starts.append(len(self.column_rows))
        return True


_CACHE: "OrderedDict[tuple[str, PackLimits], _Slot]" = OrderedDict()
_CACHE_LOCK = threading.Lock()


def clear_cache() -> None:
    """Forget every cached LP run.

    >>> hist, limits = SizeHistogram.from_counts([15, 3], [20, 2], [7, 20]), PackLimits(29, 100, 256)
    >>> first = lp_bound(hist, limits)
    >>> clear_cache()
    >>> lp_bound(hist, limits) is first  # run again, not the cached result
    False
    """
    with _CACHE_LOCK:
        _CACHE.clear()


def _seed_patterns(hist: SizeHistogram, limits: PackLimits,
                   packs: Sequence[tuple[Items, int]] | None) -> tuple[list[Pattern], int]:
    """Starting patterns, the distinct ``packs`` of a plan of ``hist`` (``PackingPlan.packs``:
    items by size with repeat counts), and that plan's packs, an upper bound on the optimum.
    Without packs: best fit with the product heuristic, improved by exact fill (what
    ``pack(hist, limits, PackMethod("best_fit", "product", improve=True))`` makes), from the
    engine pieces themselves. A pack beyond ``limits`` is a ``ValueError``.

    >>> hist = SizeHistogram.from_counts([3, 2], [4, 2], [2, 3])
    >>> _seed_patterns(hist, PackLimits(5, 6, 2), None)
    ([{0: 1, 1: 1}, {0: 1}], 3)
    >>> _seed_patterns(hist, PackLimits(5, 6, 2), [(((3, 4, 1), (2, 2, 1)), 2), (((2, 2, 1),), 1)])
    ([{0: 1, 1: 1}, {0: 1}], 3)
    """
    if packs is None:
        strategies = greedy_pack(hist.num_nodes, hist.num_edges, hist.counts, limits, HEURISTICS["product"], BEST_FIT)
        bound, _ = large_items_bound(hist, limits)
        strategies = improve(hist.num_nodes, hist.num_edges, hist.counts, limits, strategies, bound)
        return [copies_of(pack) for pack, _ in strategies], num_packs(strategies)
    for items, _ in packs:
        if any(total > limit for total, limit in zip(totals(items), limits.to_dict().values())):
            raise ValueError(f"The packs given to the LP bound must keep the limits {limits}; {items} does not.")
    rows = row_index(hist)
    return [copies_of(runs_of(items, rows)) for items, _ in packs], sum(count for _, count in packs)


def _greedy_columns(pricer: PackPricer, values: np.ndarray, order: np.ndarray, tries: int) -> list[Pattern]:
    """Cheap columns: packs filled in order of worth per share of the limits, each started
    from one of the ``tries`` most valuable rows."""
    limits = pricer.limits
    columns = []
    for first in order[:tries].tolist():
        room_n, room_e, room_g = limits.max_nodes, limits.max_edges, limits.max_graphs
        pattern: Pattern = {}
        for row in [first, *order.tolist()]:
            if values[row] <= 0 or room_g == 0:
                break
            n, e = int(pricer.nodes[row]), int(pricer.edges[row])
            fit = min(int(pricer.copies[row]) - pattern.get(row, 0), room_g,
                      room_n // n if n else room_g, room_e // e if e else room_g)
            if fit > 0:
                pattern[row] = pattern.get(row, 0) + fit
                room_n, room_e, room_g = room_n - fit * n, room_e - fit * e, room_g - fit
        if pricer.worth(pattern, values) > _IMPROVING:
            columns.append(pattern)
    return columns


def exchange_pairs(pricer: PackPricer, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of rows ``(small, large)`` where a graph of ``small`` can take the place of a
    graph of ``large`` in any pack: it has at most as many nodes and edges, and its count
    never limits a pack (it is at least the copies the limits let one pack hold). Some
    optimal duals then have ``y_small <= y_large`` (dual-optimal inequalities), and the
    master may cover ``small`` with the room of ``large`` at no cost. Per row, the next
    smaller such row with as many nodes and the largest with the next smaller node count
    that has at most its edges; chains of these pairs reach further.

    >>> hist = SizeHistogram.from_counts([2, 2, 3], [1, 3, 2], [9, 9, 9])
    >>> exchange_pairs(PackPricer(hist, PackLimits(6, 6, 4)), hist.counts)
    (array([0, 0]), array([1, 2]))
    """
    free = np.flatnonzero(counts >= pricer.fitting)
    if not free.size:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    order = free[np.lexsort((pricer.edges[free], pricer.nodes[free]))]
    stride = pricer.limits.max_edges + 1
    keys = pricer.nodes[order] * stride + pricer.edges[order]
    levels = np.unique(pricer.nodes[order])
    large = np.arange(counts.size)
    same = np.searchsorted(keys, pricer.nodes * stride + pricer.edges, side="left") - 1
    below = np.searchsorted(levels, pricer.nodes, side="left") - 1
    lower_keys = levels[np.maximum(below, 0)] * stride + pricer.edges
    lower = np.searchsorted(keys, lower_keys, side="right") - 1
    pairs = []
    for position, level, valid in ((same, pricer.nodes, True), (lower, levels[np.maximum(below, 0)], below >= 0)):
        found = valid & (position >= 0)
        found[found] &= pricer.nodes[order[position[found]]] == level[found]
        pairs.append((order[position[found]], large[found]))
    small, big = (np.concatenate(side) for side in zip(*pairs))
    keep = small != big
    return small[keep], big[keep]


def _solve_master(run: _Run, counts: np.ndarray, seconds: float):
    """The restricted master LP, with one free column per exchange pair (covering its
    small row with its large row's room): its value, the duals of the covering rows
    (>= 0), the patterns used with their fractional numbers of packs and the exchange
    flows (None if HiGHS failed)."""
    small, large = run.exchanges
    pairs = small.size
    rows = np.concatenate([np.column_stack([small, large]).ravel(), np.asarray(run.column_rows, dtype=np.int64)])
    data = np.concatenate([np.tile([-1.0, 1.0], pairs), -np.asarray(run.column_copies)])
    starts = np.concatenate([np.arange(0, 2 * pairs, 2), 2 * pairs + np.asarray(run.column_starts)])
    matrix = csc_matrix((data, rows, starts), shape=(counts.size, pairs + len(run.patterns)))
    cost = np.concatenate([np.zeros(pairs), np.ones(len(run.patterns))])
    result = linprog(cost, A_ub=matrix, b_ub=-counts.astype(np.float64), bounds=(0, None),
                     method="highs-ipm", options={"time_limit": max(seconds, 0.05)})
    if result.status != 0:
        return None
    shares = result.x[pairs:]
    used = tuple((run.patterns[i], float(shares[i])) for i in np.flatnonzero(shares > 1e-9).tolist())
    duals = np.maximum(-np.asarray(result.ineqlin.marginals, dtype=np.float64), 0.0)
    return float(result.fun), duals, used, np.asarray(result.x[:pairs])


def _substituted(used: tuple[tuple[Pattern, float], ...], run: _Run, pricer: PackPricer
                 ) -> tuple[tuple[Pattern, float], ...]:
    """The master's solution without exchange flows: each flow from a large row to a small
    one becomes copies of the small row in place of the large one in packs that hold it
    (splitting a pack's share where the flow is smaller). Larger rows go first, so a row
    holds the copies its own flows give away once the flows into it are placed. The packs
    keep the limits (the small graph is no larger) and the copies bound (its count never
    limits a pack), and cover every row as the master did."""
    entries = [[dict(pattern), share] for pattern, share in used]
    holding: dict[int, set[int]] = {}
    for index, (pattern, _) in enumerate(entries):
        for row in pattern:
            holding.setdefault(row, set()).add(index)

    def swap(index: int, pattern: Pattern, small: int, large: int) -> None:
        pattern[large] -= 1
        if not pattern[large]:
            del pattern[large]
            holding[large].discard(index)
        pattern[small] = pattern.get(small, 0) + 1
        holding.setdefault(small, set()).add(index)

    small, large = run.exchanges
    for pair in np.lexsort((pricer.edges[large], pricer.nodes[large]))[::-1].tolist():
        flow, take, give = float(run.flows[pair]), int(small[pair]), int(large[pair])
        for index in sorted(holding.get(give, ())):
            pattern, share = entries[index]
            while flow > 1e-9 and give in pattern:
                if flow >= share - 1e-12:
                    swap(index, pattern, take, give)
                    flow -= share
                else:
                    entries[index][1] = share - flow
                    entries.append([dict(pattern), flow])
                    for row in pattern:
                        holding[row].add(len(entries) - 1)
                    swap(len(entries) - 1, entries[-1][0], take, give)
                    flow = 0.0
            if flow <= 1e-9:
                break
    merged: dict[tuple[tuple[int, int], ...], float] = {}
    for pattern, share in entries:
        key = tuple(sorted(pattern.items()))
        merged[key] = merged.get(key, 0.0) + share
    return tuple((dict(key), share) for key, share in merged.items())


def _start(hist: SizeHistogram, limits: PackLimits, pricer: PackPricer,
           packs: Sequence[tuple[Items, int]] | None) -> _Run:
    """A fresh run: starting patterns and the certificate of the volume bound: duals
    n_i / N, e_i / E or 1 / G, whichever proves most; no pack is worth more than 1 under
    them, because no pack exceeds the limit (:meth:`PackPricer.linear_bound`)."""
    patterns, upper_bound = _seed_patterns(hist, limits, packs)
    exchanges = exchange_pairs(pricer, hist.counts)
    run = _Run([], set(), exchanges, np.zeros(hist.num_tuples), 1.0, 0.0, upper_bound=upper_bound,
               flows=np.zeros(exchanges[0].size))
    for pattern in patterns:
        run.add(pattern)
    for row, copies in enumerate(pricer.copies.tolist()):
        run.add({row: copies})
    shares = [hist.num_nodes / limits.max_nodes, hist.num_edges / limits.max_edges,
              np.full(hist.num_tuples, 1 / limits.max_graphs)]
    run.duals = max(shares, key=lambda duals: farley_bound(hist.counts, duals, 1.0)).astype(np.float64)
    run.pricing_bound = pricer.linear_bound(run.duals)
    run.farley = farley_bound(hist.counts, run.duals, run.pricing_bound)
    return run


def _price_round(run: _Run, pricer: PackPricer, counts: np.ndarray, duals: np.ndarray,
                 deadline: float) -> list[Pattern] | None:
    """New columns for the master's ``duals`` (the knapsack's best pack and others from
    its table); None when nothing is worth more than 1 (exactly): the LP optimum."""
    priced = pricer.price(duals, deadline, extra=_TABLE_COLUMNS, completions=_ROW_COLUMNS)
    bound = farley_bound(counts, duals, priced.upper_bound)
    if bound > run.farley:
        run.duals, run.pricing_bound, run.farley = duals, priced.upper_bound, bound
    if priced.upper_bound <= _IMPROVING and priced.exact:
        return None
    return [pattern for pattern in [priced.pattern, *priced.more]
            if pattern is not None and pricer.worth(pattern, duals) > _IMPROVING]


def _rounds(run: _Run, hist: SizeHistogram, pricer: PackPricer, deadline: float, progress: Progress | None,
            report: Callable[[], float]) -> tuple[str, bool]:
    """Column-generation rounds until a stop; why it stopped and whether it converged."""
    limits, counts = pricer.limits, hist.counts
    share = pricer.nodes / limits.max_nodes + pricer.edges / limits.max_edges + 1 / limits.max_graphs
    try:
        while time.perf_counter() < deadline:
            if proven_ceiling(run.farley) >= run.upper_bound:
                return "plan proven optimal", False
            solved = _solve_master(run, counts, deadline - time.perf_counter())
            if solved is None:
                return ("time budget" if time.perf_counter() >= deadline else "master LP failed"), False
            run.lp_value, duals, run.solution, run.flows = solved
            run.iterations += 1
            if proven_ceiling(run.farley) >= math.ceil(run.lp_value * (1 - _SOLVER_TOLERANCE)):
                return "bound meets the LP value", False
            columns = _price_round(run, pricer, counts, duals, deadline)
            if columns is None:
                return "converged", True
            order = np.argsort(-duals / share, kind="stable")
            added = False
            for pattern in columns + _greedy_columns(pricer, duals, order, _COLUMNS_PER_ROUND):
                added = run.add(pattern) or added
            if not added:
                return "no improving pack found", False
            if progress:
                progress(min(report(), 0.99), f"round {run.iterations}: LP bound {proven_ceiling(run.farley):,}, "
                                              f"LP value at most {run.lp_value:,.2f}")
    except DeadlineReached:
        pass
    return "time budget", False


@dataclass
class _Slot:
    """One cache entry: its run (None until started) and the lock that one caller holds
    while it works on it (dashboard sessions run in threads)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    run: _Run | None = None


def _slot(key: tuple[str, PackLimits]) -> _Slot:
    with _CACHE_LOCK:
        slot = _CACHE.get(key)
        if slot is None:
            slot = _CACHE[key] = _Slot()
            while len(_CACHE) > CACHE_SIZE:
                _CACHE.popitem(last=False)
        _CACHE.move_to_end(key)
        return slot


def lp_bound(
    hist: SizeHistogram,
    limits: PackLimits,
    time_budget: float = DEFAULT_TIME_BUDGET,
    progress: Progress | None = None,
    packs: Sequence[tuple[Items, int]] | None = None,
) -> LPBound:
    """The LP bound of ``hist`` within ``limits`` by column generation (see the module).

    ``packs``, the distinct packs of a plan of ``hist`` within ``limits`` with their counts
    (``PackingPlan.packs``; default: best fit improved by exact fill), give starting
    patterns and the best plan known. Stops when the LP optimum is reached, when the bound
    can no longer rise (its ceiling meets the master's value), when it reaches the packs of
    the best plan known (that plan is then optimal), or after ``time_budget`` seconds; the
    bound is valid at any stop. ``progress(fraction, message)`` is called after every
    round. Cached per histogram and limits: a finished run, or one that had at least this
    budget, is returned at once; otherwise the run resumes from its cached patterns. Safe
    to call from several threads (a second caller for the same histogram and limits waits
    for the first).

    >>> result = lp_bound(SizeHistogram.from_counts([15, 3], [20, 2], [7, 20]), PackLimits(29, 100, 256))
    >>> result.bound, result.stopped
    (7, 'converged')
    """
    if isinstance(time_budget, bool) or not isinstance(time_budget, (int, float)) or \
            not 0 < time_budget <= MAX_TIME_BUDGET:
        raise ValueError(f"time_budget must be a number of seconds in (0, {MAX_TIME_BUDGET:g}], got {time_budget!r}.")
    limits.check_fits(hist)
    slot = _slot((hist.fingerprint(), limits))
    with slot.lock:
        pricer = PackPricer(hist, limits)
        run = slot.run
        if run is not None and packs is not None and sum(count for _, count in packs) < run.upper_bound:
            patterns, run.upper_bound = _seed_patterns(hist, limits, packs)  # a better plan than the run knew
            for pattern in patterns:
                run.add(pattern)
        done = None if run is None else run.result
        if done is not None and (done.stopped != "time budget" or done.time_budget >= time_budget
                                 or done.bound >= run.upper_bound):
            if progress:
                progress(1.0, f"LP bound {done.bound:,} (cached)")
            return done
        started = time.perf_counter()
        if run is None:
            if progress:
                progress(0.0, "packing a first plan for the starting patterns")
            run = slot.run = _start(hist, limits, pricer, packs)
        spent = run.seconds
        stopped, converged = _rounds(run, hist, pricer, started + time_budget - spent, progress,
                                     lambda: (spent + time.perf_counter() - started) / time_budget)
        run.seconds += time.perf_counter() - started
        run.result = LPBound(
            bound=proven_ceiling(run.farley), farley=run.farley, lp_value=run.lp_value, converged=converged,
            stopped=stopped, iterations=run.iterations, columns=len(run.patterns), seconds=run.seconds,
            time_budget=time_budget, duals=tuple(run.duals.tolist()), pricing_bound=run.pricing_bound,
            solution=_substituted(run.solution, run, pricer),
        )
    if progress:
        progress(1.0, f"LP bound {run.result.bound:,} ({stopped})")
    return run.result


_EXTREME = 200  # duals whose largest is beyond 2**200 (or below 2**-200) are scaled before use
_AGAIN = ("prove the bound again (pack --prove, or \"Prove a tighter lower bound\" on the Packing page) and export "
          "the configuration again")


def _duals(hist: SizeHistogram, duals: object) -> tuple[np.ndarray, int]:
    """A certificate's duals, checked (one finite number >= 0 per histogram row), and the
    power of two they were divided by: none unless the largest lies outside
    ``[2**-_EXTREME, 2**_EXTREME]``, where they are scaled (exactly) so that it lies in
    [0.5, 1). Farley's bound is the same for any positive multiple of the duals; scaled,
    they neither overflow nor lose precision as subnormal numbers, and the duals of a run
    are never scaled, so they price exactly as they did in the run.

    >>> hist = SizeHistogram.from_counts([2, 3], [1, 1], [5, 5])
    >>> _duals(hist, [1.0, 3.0]), _duals(hist, [2.0**300, 3 * 2.0**300])
    ((array([1., 3.]), 0), (array([0.25, 0.75]), 302))
    """
    values = None
    if isinstance(duals, (list, tuple)) and len(duals) == hist.num_tuples and \
            all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in duals):
        try:
            values = np.asarray(duals, dtype=np.float64)
        except OverflowError:  # an integer beyond any float
            pass
    if values is None or not np.isfinite(values).all() or (values < 0).any():
        raise ValueError(f"bounds.lp_certificate.duals must be {hist.num_tuples:,} finite numbers >= 0, one number "
                         f"per histogram row; {_AGAIN}.")
    largest = float(values.max(initial=0.0))
    power = 0 if largest == 0 or 2.0**-_EXTREME <= largest <= 2.0**_EXTREME else math.frexp(largest)[1]
    return np.ldexp(values, -power), power


def _proven(hist: SizeHistogram, values: np.ndarray, most_worth: float) -> int:
    """The whole packs the duals ``values`` prove when no pack is worth more than ``most_worth``."""
    return proven_ceiling(farley_bound(hist.counts, values, most_worth))


def verify_certificate(hist: SizeHistogram, limits: PackLimits, duals: list[float], claimed: int | None = None) -> int:
    """The bound that ``duals`` (one value >= 0 per histogram row, from
    :meth:`LPBound.certificate`) prove, recomputed: first with the bound that needs no
    table (:meth:`PackPricer.linear_bound`), then, unless that already proves ``claimed``,
    with one knapsack. Any positive multiple of the duals proves the same bound.

    >>> hist = SizeHistogram.from_counts([15, 3], [20, 2], [7, 20])
    >>> verify_certificate(hist, PackLimits(29, 100, 256), [0.0, 1.0])  # one per (15, 20): 7 of them
    7
    >>> verify_certificate(hist, PackLimits(29, 100, 256), [0.0, 1e308])
    7
    """
    values = _duals(hist, duals)[0]
    pricer = PackPricer(hist, limits)
    proven = _proven(hist, values, pricer.linear_bound(values))
    if claimed is not None and proven >= claimed:
        return proven
    return _proven(hist, values, pricer.price(values).upper_bound)


def _scaled_back(value: float, power: int) -> float:
    """``value * 2**power``, infinity where that is more than a float holds."""
    try:
        return math.ldexp(value, power)
    except OverflowError:
        return math.inf


def lp_bound_from_certificate(hist: SizeHistogram, limits: PackLimits, data: object) -> LPBound:
    """An :class:`LPBound` read back from :meth:`LPBound.certificate` output, verified: the
    most a pack is worth under the duals is recomputed (the bound without a table when the
    stored ``pricing_bound`` is that one, else one knapsack) and must be the stored
    ``pricing_bound``; the bound those prove must be the stored ``bound``. Anything else is
    a ``ValueError`` naming the field. ``converged`` and ``stopped`` describe the run and
    are kept as given.

    >>> hist, limits = SizeHistogram.from_counts([15, 3], [20, 2], [7, 20]), PackLimits(29, 100, 256)
    >>> lp_bound_from_certificate(hist, limits, lp_bound(hist, limits).certificate()).bound
    7
    """
    if not isinstance(data, dict):
        raise ValueError(f"bounds.lp_certificate must be an object with duals, pricing_bound, bound, converged and "
                         f"stopped; {_AGAIN}.")
    claimed, converged, stopped, stored = (data.get(key) for key in ("bound", "converged", "stopped", "pricing_bound"))
    if isinstance(claimed, bool) or not isinstance(claimed, int) or not isinstance(converged, bool) \
            or not isinstance(stopped, str):
        raise ValueError(f"bounds.lp_certificate needs bound (an integer), converged (true or false) and stopped "
                         f"(text); {_AGAIN}.")
    values, power = _duals(hist, data.get("duals"))
    if isinstance(stored, bool) or not isinstance(stored, (int, float)) or not math.isfinite(stored) or stored <= 0:
        raise ValueError(f"bounds.lp_certificate.pricing_bound must be a positive number, got {stored!r}; {_AGAIN}.")
    pricer = PackPricer(hist, limits)
    most = pricer.linear_bound(values)
    if not math.isclose(stored, _scaled_back(most, power), rel_tol=1e-9):
        most = pricer.price(values).upper_bound
    proven = _proven(hist, values, most)
    if proven != claimed:
        raise ValueError(f"bounds.lp_certificate.bound ({claimed:,}) is not what its certificate proves ({proven:,}); "
                         f"{_AGAIN}.")
    true_most = _scaled_back(most, power)
    if not math.isclose(stored, true_most, rel_tol=1e-9):
        worth = "more than a float holds" if math.isinf(true_most) else repr(true_most)
        raise ValueError(f"bounds.lp_certificate.pricing_bound is {stored!r}, but the most a pack is worth under its "
                         f"duals is {worth}; {_AGAIN}.")
    return LPBound(claimed, farley_bound(hist.counts, values, most), math.nan, converged, stopped, 0, 0, 0.0, 0.0,
                   tuple(float(v) for v in data["duals"]), true_most)
