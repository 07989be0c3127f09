"""The packing engine: size histograms, tuple packing, the published algorithm, baselines,
proven lower bounds and sweeps.

>>> from packing import PackLimits, SizeHistogram, pack
>>> plan = pack(SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2]), PackLimits(5, 6, 4))
>>> plan.num_packs
2
"""
from .api import as_limits, as_method, best_plan, pack
from .bounds import BOUND_LABELS, BOUND_NAMES, Bounds, lower_bound, lower_bounds
from .compare import compare, published_table
from .heuristics import HEURISTICS, weighted_sum
from .histogram import SizeHistogram
from .limits import DEFAULT_MAX_GRAPHS, PackLimits
from .column_generation import DEFAULT_TIME_BUDGET, LPBound, lp_bound
from .method import (
    ALL_ALGORITHMS, BALANCED, BASELINES, BEST, LP_ROUNDING, ONE_DIM_ALGORITHMS, PUBLISHED, TUPLE_ALGORITHMS, PackMethod,
)
from .plan import PackingPlan
from .published import PAPER_MIN, PAPER_TABLE2, PUBLISHED_HEURISTICS
from .sweep import default_limits, limit_grid, smallest_limits, sweep

__version__ = "0.3.0"

__all__ = [
    "ALL_ALGORITHMS",
    "BALANCED",
    "BASELINES",
    "BEST",
    "BOUND_LABELS",
    "BOUND_NAMES",
    "Bounds",
    "DEFAULT_MAX_GRAPHS",
    "DEFAULT_TIME_BUDGET",
    "HEURISTICS",
    "LPBound",
    "LP_ROUNDING",
    "ONE_DIM_ALGORITHMS",
    "PAPER_MIN",
    "PAPER_TABLE2",
    "PUBLISHED",
    "PUBLISHED_HEURISTICS",
    "PackLimits",
    "PackMethod",
    "PackingPlan",
    "SizeHistogram",
    "TUPLE_ALGORITHMS",
    "as_limits",
    "as_method",
    "best_plan",
    "compare",
    "default_limits",
    "limit_grid",
    "lower_bound",
    "lower_bounds",
    "lp_bound",
    "pack",
    "published_table",
    "smallest_limits",
    "sweep",
    "weighted_sum",
]
