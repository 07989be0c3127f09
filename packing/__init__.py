"""The packing engine: size histograms, tuple packing, baselines, bounds and sweeps.

>>> from packing import SizeHistogram, pack
>>> plan = pack(SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2]), 5, 6, 4)
>>> plan.num_packs
2
"""
from .api import ALGORITHMS, BASELINES, BEST, best_plan, pack, resolve_limits
from .bounds import lower_bound
from .heuristics import HEURISTICS, weighted_sum
from .histogram import SizeHistogram
from .one_dim import ONE_DIM_ALGORITHMS
from .plan import PackingPlan

__all__ = [
    "ALGORITHMS",
    "BASELINES",
    "BEST",
    "HEURISTICS",
    "ONE_DIM_ALGORITHMS",
    "PackingPlan",
    "SizeHistogram",
    "best_plan",
    "lower_bound",
    "pack",
    "resolve_limits",
    "weighted_sum",
]
