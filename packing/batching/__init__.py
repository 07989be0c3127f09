"""The batching simulator: static, dynamic, PyG-style and bucket batching next to packing,
simulated exactly on a dataset's graph sizes (Speckhard et al., "Training Speedups via
Batching for Geometric Learning"). This module is the package's whole public surface.

The modules inside, one job each:

- :mod:`.simulate`: the strategies and a run of them (:func:`simulate`,
  :func:`compare_batching`);
- :mod:`.stream`: the stream of graphs, epoch after epoch, and the two ways of cutting it
  into batches (a fixed count, a greedy fill);
- :mod:`.pack_stream`: the packs of a plan as batches;
- :mod:`.padding`: the padding rules (static-64, static-2^N, static-constant, the dynamic
  target);
- :mod:`.buckets`: K fixed shapes chosen for a run's batches;
- :mod:`.summary`: what a run costs (padding, batches, distinct shapes);
- :mod:`.report`: the comparison table and the export's ``batching`` section;
- :mod:`.cli_options`: command-line options shared by the commands that compare strategies.

>>> from packing import SizeHistogram
>>> table = compare_batching(SizeHistogram.from_counts([3, 8], [4, 14], [20, 4]), batch_size=4)
>>> table["strategy"].tolist() == list(STRATEGIES)
True
"""
from .buckets import MAX_SHAPES, BucketFit, fit_bucket_shapes
from .cli_options import add_packs_per_batch, packs_per_batch
from .padding import constant_shape, target_from_sample
from .report import (
    STRATEGIES,
    batching_section,
    check_batching_section,
    comparison_table,
    json_rows,
)
from .simulate import (
    DEFAULT_BUCKETS,
    DEFAULT_SAMPLE_SIZE,
    BatchingResult,
    RunSpec,
    compare_batching,
    default_requests,
    dynamic_target,
    estimate_target,
    packs_matching_batch_size,
    run_strategies,
    sample_graphs,
    simulate,
)
from .stream import GraphSizes, ShareDone
from .summary import PaddedBatches, first_appearances, summarize

__all__ = [
    "DEFAULT_BUCKETS",
    "DEFAULT_SAMPLE_SIZE",
    "MAX_SHAPES",
    "STRATEGIES",
    "BatchingResult",
    "BucketFit",
    "GraphSizes",
    "PaddedBatches",
    "RunSpec",
    "ShareDone",
    "add_packs_per_batch",
    "batching_section",
    "check_batching_section",
    "compare_batching",
    "comparison_table",
    "constant_shape",
    "default_requests",
    "dynamic_target",
    "estimate_target",
    "first_appearances",
    "fit_bucket_shapes",
    "json_rows",
    "packs_matching_batch_size",
    "packs_per_batch",
    "run_strategies",
    "sample_graphs",
    "simulate",
    "summarize",
    "target_from_sample",
]
