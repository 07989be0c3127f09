"""The packing engine: size histograms, pack limits and shapes, plans and their metrics,
the packing algorithms, proven lower bounds, sweeps, recommendations and the configuration
as a value. It returns values, never sentences, and reads and writes no file.

The library's surfaces: this module (the engine's names below), :mod:`packing.batching`
(the batching simulator), :mod:`packing.io` (reading and writing files: size tables, the
configuration), :mod:`packing.words` (the engine's values in words) and
:mod:`packing.cli_args` (the arguments the command lines share). Code above the engine
(data_loaders, throughput, figures, pages) imports from these only.

>>> from packing import PackLimits, SizeHistogram, pack
>>> plan = pack(SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2]), PackLimits(5, 6, 4))
>>> plan.num_packs
2
"""
from .api import best_plan, pack
from .bounds import Bounds, lower_bounds
from .column_generation import DEFAULT_TIME_BUDGET
from .compare import compare, published_table
from .export import config_histogram, export_config
from .heuristics import HEURISTICS
from .histogram import SizeHistogram
from .limits import DEFAULT_MAX_GRAPHS, MAX_LIMIT, MAX_PACK_LIMIT, PackLimits, whole_number
from .method import ALGORITHMS, TUPLE_ALGORITHMS, PackMethod
from .plan import PackingPlan
from .recommend import Recommendation, StepCost, price_sweep, recommend
from .shape import BatchShape
from .sweep import default_limits, limit_grid, smallest_limits, sweep
from .version import __version__

__all__ = [
    "ALGORITHMS",
    "DEFAULT_MAX_GRAPHS",
    "DEFAULT_TIME_BUDGET",
    "HEURISTICS",
    "MAX_LIMIT",
    "MAX_PACK_LIMIT",
    "TUPLE_ALGORITHMS",
    "BatchShape",
    "Bounds",
    "PackLimits",
    "PackMethod",
    "PackingPlan",
    "Recommendation",
    "SizeHistogram",
    "StepCost",
    "__version__",
    "best_plan",
    "compare",
    "config_histogram",
    "default_limits",
    "export_config",
    "limit_grid",
    "lower_bounds",
    "pack",
    "price_sweep",
    "published_table",
    "recommend",
    "smallest_limits",
    "sweep",
    "whole_number",
]
