"""On-disk cache of computed histograms: one Parquet file per key, written atomically.

The key is the data set, split, effective options and :data:`CACHE_VERSION`; the file
stores the key, the provenance and a SHA-256 fingerprint of the histogram's content in its
Parquet metadata. A file that cannot be read, has the wrong key or whose content does not
match its fingerprint (a flipped byte, say) is treated as missing and removed, so a corrupt
entry is recomputed, never returned and never crashes the caller. A cache that cannot be
written (a read-only folder, a path that is a folder) costs only the caching: the caller
gets its result and a warning.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from packing import SizeHistogram
from packing.io import histogram_from_table, replacing

from .paths import cache_root

#: Bump when the way any histogram is computed changes; old entries are then ignored.
CACHE_VERSION = 2

_META_KEY = b"graph_packing"


def cache_key(dataset: str, split: str, options: dict[str, Any]) -> dict[str, Any]:
    """The cache key of one histogram (a JSON-able dict).

    >>> cache_key("qm9", "all", {"graph": "bonds"})["version"] == CACHE_VERSION
    True
    """
    return {"dataset": dataset, "split": split, "options": dict(sorted(options.items())),
            "version": CACHE_VERSION}


def cache_path(key: dict[str, Any]) -> Path:
    """File of ``key`` under :func:`cache_root` (readable name plus a digest of the key).

    >>> cache_path(cache_key("qm9", "all", {})).suffix
    '.parquet'
    """
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    return cache_root() / f"{key['dataset']}__{key['split']}__{digest}.parquet"


def save_cached(key: dict[str, Any], hist: SizeHistogram, provenance: str) -> Path:
    """Write ``hist`` for ``key`` atomically (temporary file, then rename); return the path.
    Raises ``OSError`` when the cache folder cannot be written.

    >>> import os, tempfile; os.environ["GRAPH_PACKING_CACHE"] = tempfile.mkdtemp()
    >>> key = cache_key("demo", "all", {})
    >>> _ = save_cached(key, SizeHistogram.from_sizes([2], [2]), "a demo")
    >>> load_cached(key)[0].num_graphs
    1
    >>> del os.environ["GRAPH_PACKING_CACHE"]
    """
    path = cache_path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"key": key, "provenance": provenance, "graphs": hist.num_graphs, "sha256": hist.fingerprint()}
    table = pa.Table.from_pandas(hist.to_frame(), preserve_index=False)
    table = table.replace_schema_metadata({_META_KEY: json.dumps(meta).encode()})
    with replacing(path) as part:
        pq.write_table(table, part)
    return path


def try_save_cached(key: dict[str, Any], hist: SizeHistogram, provenance: str) -> str | None:
    """:func:`save_cached`, turning a cache folder that cannot be written into a warning
    (returned: :func:`data_loaders.load_histogram` puts it in ``info["warning"]``, which the
    page and the command line show) instead of losing the computed result."""
    try:
        save_cached(key, hist, provenance)
    except OSError as error:
        return (f"The histogram was computed but not cached ({type(error).__name__}: {error}); it will be "
                f"computed again next time. Set GRAPH_PACKING_CACHE to a writable folder.")
    return None


def load_cached(key: dict[str, Any]) -> tuple[SizeHistogram, str] | None:
    """The cached histogram and provenance for ``key``, or ``None`` if absent or corrupt.

    A corrupt or mismatching file is deleted so the next write replaces it cleanly; a
    cache path that is not a file is left alone and counts as absent.

    >>> import os, tempfile; os.environ["GRAPH_PACKING_CACHE"] = tempfile.mkdtemp()
    >>> load_cached(cache_key("demo", "all", {})) is None
    True
    >>> del os.environ["GRAPH_PACKING_CACHE"]
    """
    path = cache_path(key)
    if not path.is_file():
        return None
    try:
        table = pq.read_table(path, use_threads=False)  # see packing.io._read_parquet
        meta = json.loads((table.schema.metadata or {})[_META_KEY])
        if meta["key"] != key:
            raise ValueError("cache key mismatch")
        hist = histogram_from_table(table.to_pandas(), path.name)
        if hist.num_graphs != meta["graphs"] or hist.fingerprint() != meta["sha256"]:
            raise ValueError("content does not match its checksum")
        return hist, str(meta["provenance"])
    except Exception:  # any unreadable or damaged entry is a cache miss, never a crash or a wrong answer
        try:
            path.unlink(missing_ok=True)
        except OSError:
            pass
        return None
