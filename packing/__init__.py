"""The packing engine: size histograms, tuple packing, the published algorithm, baselines,
proven lower bounds and sweeps. This module and :mod:`packing.batching` are its whole
public surface: code above the engine (data_loaders, figures, throughput, pages) imports
from these two only.

>>> from packing import PackLimits, SizeHistogram, pack
>>> plan = pack(SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2]), PackLimits(5, 6, 4))
>>> plan.num_packs
2
"""
from .api import as_limits, as_method, best_plan, pack
from .bounds import BOUND_LABELS, BOUND_NAMES, Bounds, lower_bounds
from .column_generation import DEFAULT_TIME_BUDGET, LPBound, lp_bound
from .compare import compare, published_table
from .export import SCHEMA_VERSION, WHOLE_TABLE, config_histogram, config_json, export_config, load_config, save_config
from .files import replacing, write_frame, write_replacing
from .heuristics import HEURISTICS, weighted_sum
from .histogram import SizeHistogram
from .json_file import read_json_object
from .limits import DEFAULT_MAX_GRAPHS, MAX_LIMIT, MAX_PACK_LIMIT, PackLimits, whole_number
from .method import (
    ALGORITHMS, ALL_ALGORITHMS, BALANCED, BASELINES, BEST, BEST_FIT, EDGE_ONLY, FIRST_FIT, LP_ROUNDING, NODE_ONLY, NONE,
    ONE_DIM_ALGORITHMS, PUBLISHED, TUPLE_ALGORITHMS, WEIGHTED, WORST_FIT, Algorithm, PackMethod,
)
from .packs import items_of, pack_of, row_index
from .plan import PackingPlan, describe_pack
from .published import PAPER_MIN, PAPER_TABLE2, PUBLISHED_HEURISTICS
from .recommend import Recommendation, StepCost, price_sweep, recommend
from .shape import BatchShape
from .simple_bounds import lower_bound
from .sides import EDGES, NODES
from .size_table import (
    MAX_BYTES, TABLE_SUFFIXES, decompress, histogram_from_table, load_size_table, lower_columns, numbered_rows,
    read_file_bytes, read_table, save_histogram, size_limit_words,
)
from .sweep import default_limits, limit_grid, smallest_limits, sweep
from .throughput_section import devices_note, estimate_notes, extrapolation_note, one_off_note, three_digits
from .version import __version__

__all__ = [
    "ALGORITHMS",
    "ALL_ALGORITHMS",
    "Algorithm",
    "BALANCED",
    "BASELINES",
    "BEST",
    "BEST_FIT",
    "BOUND_LABELS",
    "BOUND_NAMES",
    "BatchShape",
    "Bounds",
    "DEFAULT_MAX_GRAPHS",
    "DEFAULT_TIME_BUDGET",
    "EDGES",
    "EDGE_ONLY",
    "FIRST_FIT",
    "HEURISTICS",
    "LPBound",
    "LP_ROUNDING",
    "MAX_BYTES",
    "MAX_LIMIT",
    "MAX_PACK_LIMIT",
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
    "Recommendation",
    "SCHEMA_VERSION",
    "SizeHistogram",
    "StepCost",
    "TABLE_SUFFIXES",
    "TUPLE_ALGORITHMS",
    "WHOLE_TABLE",
    "WEIGHTED",
    "WORST_FIT",
    "as_limits",
    "as_method",
    "best_plan",
    "compare",
    "config_histogram",
    "config_json",
    "decompress",
    "default_limits",
    "describe_pack",
    "devices_note",
    "estimate_notes",
    "export_config",
    "extrapolation_note",
    "histogram_from_table",
    "items_of",
    "limit_grid",
    "load_config",
    "load_size_table",
    "lower_bound",
    "lower_bounds",
    "lower_columns",
    "lp_bound",
    "numbered_rows",
    "one_off_note",
    "pack",
    "pack_of",
    "price_sweep",
    "published_table",
    "read_file_bytes",
    "read_json_object",
    "read_table",
    "recommend",
    "replacing",
    "row_index",
    "save_config",
    "save_histogram",
    "size_limit_words",
    "smallest_limits",
    "sweep",
    "three_digits",
    "weighted_sum",
    "whole_number",
    "write_frame",
    "write_replacing",
]
