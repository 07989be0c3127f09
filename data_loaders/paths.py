"""Where data lives: downloads, the histogram cache, the shared test data, bundled profiles.

Environment variables override the defaults:

- ``GRAPH_PACKING_DATA``: downloaded and local data set folders
  (default ``~/.cache/graph-packing/datasets``);
- ``GRAPH_PACKING_CACHE``: the Parquet cache of computed histograms
  (default ``~/.cache/graph-packing/histograms``);
- ``GRAPH_PACKING_SHARED_DATA``: the project's ``shared/data`` folder of real data used by
  tests and by the profile script (default: ``../shared/data`` next to the repository).
"""
from __future__ import annotations

import os
from pathlib import Path

PROFILES_DIR = Path(__file__).resolve().with_name("profiles")


def _env_path(variable: str, default: Path) -> Path:
    value = os.environ.get(variable)
    return Path(value).expanduser() if value else default


def data_root() -> Path:
    """Folder for downloaded and local data set folders (OGB layout, PyG roots).

    >>> import os; os.environ["GRAPH_PACKING_DATA"] = "/tmp/gp-data"
    >>> str(data_root())
    '/tmp/gp-data'
    >>> del os.environ["GRAPH_PACKING_DATA"]
    """
    return _env_path("GRAPH_PACKING_DATA", Path.home() / ".cache" / "graph-packing" / "datasets")


def cache_root() -> Path:
    """Folder of the on-disk histogram cache (Parquet files).

    >>> isinstance(cache_root(), Path)
    True
    """
    return _env_path("GRAPH_PACKING_CACHE", Path.home() / ".cache" / "graph-packing" / "histograms")


def shared_data_root() -> Path:
    """The ``shared/data`` folder next to the repository (real OGB-layout and AFLOW files).

    >>> shared_data_root().name
    'data'
    """
    default = Path(__file__).resolve().parents[1].parent / "shared" / "data"
    return _env_path("GRAPH_PACKING_SHARED_DATA", default)
