"""The packing engine: size histograms, tuple packing, baselines, bounds and sweeps.

>>> from packing import SizeHistogram, pack
>>> plan = pack(SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2]), 5, 6, 4)
>>> plan.num_packs
2
"""
from .api import ALGORITHMS, BASELINES, BEST, best_plan, pack, resolve_limits
from .bounds import lower_bound
from .compare import compare
from .heuristics import HEURISTICS, weighted_sum
from .histogram import SizeHistogram
from .one_dim import ONE_DIM_ALGORITHMS
from .plan import PackingPlan
from .sweep import default_limits, smallest_limits, sweep

__version__ = "0.1.0"

__all__ = [
    "ALGORITHMS",
    "BASELINES",
    "BEST",
    "HEURISTICS",
    "ONE_DIM_ALGORITHMS",
    "PackingPlan",
    "SizeHistogram",
    "best_plan",
    "compare",
    "default_limits",
    "lower_bound",
    "pack",
    "resolve_limits",
    "smallest_limits",
    "sweep",
    "weighted_sum",
]
