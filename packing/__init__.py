"""The packing engine: size histograms, tuple packing, baselines, bounds and sweeps.

>>> from packing import PackLimits, SizeHistogram, pack
>>> plan = pack(SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2]), PackLimits(5, 6, 4))
>>> plan.num_packs
2
"""
from .api import as_limits, as_method, best_plan, pack
from .bounds import lower_bound
from .compare import compare
from .heuristics import HEURISTICS, weighted_sum
from .histogram import SizeHistogram
from .limits import DEFAULT_MAX_GRAPHS, PackLimits
from .method import ALL_ALGORITHMS, BASELINES, BEST, ONE_DIM_ALGORITHMS, TUPLE_ALGORITHMS, PackMethod
from .plan import PackingPlan
from .sweep import default_limits, limit_grid, smallest_limits, sweep

__version__ = "0.2.0"

__all__ = [
    "ALL_ALGORITHMS",
    "BASELINES",
    "BEST",
    "DEFAULT_MAX_GRAPHS",
    "HEURISTICS",
    "ONE_DIM_ALGORITHMS",
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
    "pack",
    "smallest_limits",
    "sweep",
    "weighted_sum",
]
