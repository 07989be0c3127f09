"""Data sets to size histograms: OGB, PCQM4Mv2, QM9 (four graph types), AFLOW, user files,
and sharded collections too large for one machine (on a Dask cluster: ``sharded_histogram``).

Packing needs only the (nodes, edges) of every graph, so every loader returns a
:class:`packing.SizeHistogram` plus an ``info`` dict saying where the numbers came from.
Nothing here imports Streamlit.

>>> from data_loaders import list_datasets, load_histogram
>>> "qm9" in [spec.name for spec in list_datasets()]
True
>>> hist, info = load_histogram("qm9", graph="bonds")
>>> hist.num_graphs, hist.largest_nodes, info["source"]
(130831, 29, 'bundled profile')
"""
from importlib import import_module
from typing import Any

from packing import BatchShape

from .api import load_histogram
from .dask_cluster import cluster_sweep, dask_client
from .dask_histogram import ShardError, sharded_histogram
from .errors import DatasetUnavailableError
from .pyg_sizes import dataset_sizes, load_pyg_dataset
from .registry import DatasetSpec, get_spec, list_datasets
from .user_files import load_user_file

#: Names that need torch and PyG, imported on first use so the dashboard starts without them.
_TORCH_EXPORTS = {"CapturedStep": ".captured", "plain_step": ".captured", "PackedBatchSampler": ".packed", "PackedLoader": ".packed", "graph_sizes": ".packed",
                  "random_mol_dataset": ".random_graphs"}


def __getattr__(name: str) -> Any:
    if name in _TORCH_EXPORTS:
        return getattr(import_module(_TORCH_EXPORTS[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BatchShape",
    "CapturedStep",
    "DatasetSpec",
    "DatasetUnavailableError",
    "ShardError",
    "cluster_sweep",
    "dask_client",
    "dataset_sizes",
    "get_spec",
    "graph_sizes",
    "list_datasets",
    "load_histogram",
    "load_pyg_dataset",
    "load_user_file",
    "PackedBatchSampler",
    "PackedLoader",
    "plain_step",
    "random_mol_dataset",
    "sharded_histogram",
]
