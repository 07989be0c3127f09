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
# Public for the packages above the engine (data_loaders, figures, throughput, pages):
from .export import SCHEMA_VERSION, config_histogram, config_json, export_config, load_config, save_config
from .json_file import read_json_object
from .limits import MAX_LIMIT, whole_number
from .plan import describe
from .shape import BatchShape
from .size_table import (
    MAX_BYTES,
    TABLE_SUFFIXES,
    decompress,
    histogram_from_table,
    lower_columns,
    numbered_rows,
    read_file_bytes,
    read_table,
    size_limit_words,
)
from .version import __version__

__all__ = [
    "ALL_ALGORITHMS",
    "BALANCED",
    "BASELINES",
    "BEST",
    "BOUND_LABELS",
    "BOUND_NAMES",
    "BatchShape",
    "Bounds",
    "DEFAULT_MAX_GRAPHS",
    "DEFAULT_TIME_BUDGET",
    "HEURISTICS",
    "LPBound",
    "LP_ROUNDING",
    "MAX_BYTES",
    "MAX_LIMIT",
    "ONE_DIM_ALGORITHMS",
    "PAPER_MIN",
    "PAPER_TABLE2",
    "PUBLISHED",
    "PUBLISHED_HEURISTICS",
    "PackLimits",
    "PackMethod",
    "PackingPlan",
    "SCHEMA_VERSION",
    "SizeHistogram",
    "TABLE_SUFFIXES",
    "TUPLE_ALGORITHMS",
    "as_limits",
    "as_method",
    "best_plan",
    "compare",
    "config_histogram",
    "config_json",
    "decompress",
    "default_limits",
    "describe",
    "export_config",
    "histogram_from_table",
    "limit_grid",
    "load_config",
    "lower_bound",
    "lower_bounds",
    "lower_columns",
    "lp_bound",
    "numbered_rows",
    "pack",
    "published_table",
    "read_file_bytes",
    "read_json_object",
    "read_table",
    "save_config",
    "size_limit_words",
    "smallest_limits",
    "sweep",
    "weighted_sum",
    "whole_number",
]
