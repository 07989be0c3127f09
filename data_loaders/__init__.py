"""Data sets to size histograms: OGB, PCQM4Mv2, QM9 (four graph types), AFLOW, user files,
and sharded collections too large for one machine (on a Dask cluster: ``sharded_histogram``).

Packing needs only the (nodes, edges) of every graph, so every loader returns a
:class:`packing.SizeHistogram` plus an ``info`` dict saying where the numbers came from.
Nothing here imports Streamlit.

>>> from data_loaders import list_datasets, load_histogram
>>> "qm9" in [spec.name for spec in list_datasets()]
True
>>> hist, info = load_histogram("qm9", graph="bonds")
>>> hist.num_graphs, hist.max_nodes, info["source"]
(130831, 29, 'bundled profile')
"""
from .api import load_histogram
from .dask_cluster import dask_client
from .dask_histogram import ShardError, sharded_histogram
from .errors import DatasetUnavailableError
from .pyg_sizes import dataset_sizes, load_pyg_dataset
from .registry import DatasetSpec, get_spec, list_datasets
from .user_files import load_user_file

__all__ = [
    "DatasetSpec",
    "DatasetUnavailableError",
    "ShardError",
    "dask_client",
    "dataset_sizes",
    "get_spec",
    "list_datasets",
    "load_histogram",
    "load_pyg_dataset",
    "load_user_file",
    "sharded_histogram",
]
