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
    ALGORITHMS, ALL_ALGORITHMS, BALANCED, BASELINES, BEST, BEST_FIT, EDGE_ONLY, FIRST_FIT, LP_ROUNDING, NODE_ONLY, NONE,
    ONE_DIM_ALGORITHMS, PUBLISHED, TUPLE_ALGORITHMS, WEIGHTED, WORST_FIT, Algorithm, PackMethod,
)
from .plan import PackingPlan
from .published import PAPER_MIN, PAPER_TABLE2, PUBLISHED_HEURISTICS
from .sides import EDGES, NODES
from .size_table import histogram_from_table, load_size_table, save_histogram
from .sweep import default_limits, limit_grid, smallest_limits, sweep
from .version import __version__


__all__ = [
    "ALGORITHMS",
    "ALL_ALGORITHMS",
    "BALANCED",
    "BASELINES",
    "BEST",
    "BEST_FIT",
    "BOUND_LABELS",
    "BOUND_NAMES",
    "Bounds",
    "DEFAULT_MAX_GRAPHS",
    "DEFAULT_TIME_BUDGET",
    "EDGES",
    "EDGE_ONLY",
    "FIRST_FIT",
    "HEURISTICS",
    "LPBound",
    "LP_ROUNDING",
    "NODES",
    "NODE_ONLY",
    "NONE",
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
    "WEIGHTED",
    "WORST_FIT",
    "Algorithm",
    "as_limits",
    "as_method",
    "best_plan",
    "compare",
    "default_limits",
    "histogram_from_table",
    "limit_grid",
    "load_size_table",
    "lower_bound",
    "lower_bounds",
    "lp_bound",
    "pack",
    "published_table",
    "save_histogram",
    "smallest_limits",
    "sweep",
    "weighted_sum",
]
