"""Histograms from files users bring: size tables, histograms, SMILES, AFLOW exports.

Accepted (by file name suffix, ``.gz`` allowed on text formats):

- ``.csv`` / ``.tsv`` / ``.parquet`` with ``num_nodes,num_edges`` (one row per graph) or
  ``num_nodes,num_edges,count`` (a histogram); with a ``smiles`` column (molecules); or with
  a ``compound`` column (an AFLOW export);
- ``.smi`` / ``.smiles`` / ``.txt``: one SMILES per line (first token; a ``smiles`` header is
  skipped);
- ``.json``: an AFLOW export (a list of entries, or a dict of entries).

Saved PyG data sets are pickles and are refused here: they load only from a local path
with :func:`data_loaders.load_pyg_dataset`. Malformed input raises ``ValueError`` with a
message for the user; SMILES RDKit cannot parse are counted and reported in ``info``.
"""
from __future__ import annotations

import gzip
import io
import json
import time
from pathlib import Path
from typing import Any, BinaryIO

import pandas as pd
import pyarrow.parquet as pq
from pyarrow.lib import ArrowException

from packing import SizeHistogram

from .aflow import DEFAULT_K, aflow_frame_sizes
from .smiles import smiles_sizes

MAX_BYTES = 512 * 1024 * 1024
_TABLE = {".csv", ".tsv", ".parquet", ".pq"}
_SMILES = {".smi", ".smiles", ".txt"}
_PICKLES = {".pt", ".pth", ".pkl", ".pickle"}
_EXAMPLES = 5


def _limit(max_bytes: int) -> str:
    """The size limit in words: whole MB where it is, else bytes.

    >>> _limit(512 * 2**20), _limit(100_000)
    ('512 MB', '100,000 bytes')
    """
    return f"{max_bytes // 2**20} MB" if max_bytes >= 2**20 and max_bytes % 2**20 == 0 else f"{max_bytes:,} bytes"


def _read_bytes(source: str | Path | BinaryIO, filename: str | None, max_bytes: int) -> tuple[bytes, str]:
    """The file's bytes and name, refusing missing, oversized and nameless input."""
    if isinstance(source, (str, Path)):
        path = Path(source).expanduser()
        if not path.is_file():
            raise ValueError(f"No file at {path}.")
        if path.stat().st_size > max_bytes:
            raise ValueError(f"{path.name} is larger than the limit of {_limit(max_bytes)}.")
        return path.read_bytes(), filename or path.name
    name = filename or getattr(source, "name", None)
    if not name:
        raise ValueError("Give the file name (filename=...) so the file type is known.")
    data = source.getvalue() if hasattr(source, "getvalue") else source.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ValueError(f"{name} is larger than the limit of {_limit(max_bytes)}.")
    return bytes(data), str(name)


def _format(name: str, data: bytes, max_bytes: int) -> tuple[str, bytes]:
    """Format suffix and uncompressed bytes (``data.csv.gz`` -> ``".csv"``, gunzipped).

    Gzip is decompressed as a stream and never past ``max_bytes``, so a small file that
    expands to gigabytes (a gzip bomb) is refused without being expanded.
    """
    path = Path(name.lower())
    if path.suffix != ".gz":
        return path.suffix, data
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            plain = stream.read(max_bytes + 1)
    except (OSError, EOFError) as error:
        raise ValueError(f"{name} is not a valid gzip file: {error}") from None
    if len(plain) > max_bytes:
        raise ValueError(f"{name} is larger than the limit of {_limit(max_bytes)} once decompressed; "
                         "upload a smaller file or a histogram (num_nodes,num_edges,count) instead.")
    return Path(path.stem).suffix, plain


def _read_parquet(buffer: io.BytesIO, name: str, max_bytes: int) -> pd.DataFrame:
    """A Parquet table, refused when its decoded data (at least 8 bytes a cell) is larger
    than ``max_bytes``: Parquet encodings can pack millions of rows into a few kilobytes."""
    metadata = pq.ParquetFile(buffer).metadata
    encoded = sum(metadata.row_group(i).total_byte_size for i in range(metadata.num_row_groups))
    if max(encoded, 8 * metadata.num_rows * metadata.num_columns) > max_bytes:
        raise ValueError(f"{name} ({metadata.num_rows:,} rows) is larger than the limit of {_limit(max_bytes)} "
                         "once decoded; upload a smaller file or a histogram (num_nodes,num_edges,count) instead.")
    buffer.seek(0)
    return pd.read_parquet(buffer)


def _smiles_lines(text: str) -> list[str]:
    tokens = [line.split()[0] if line.split() else "" for line in text.splitlines()]
    if tokens and tokens[0].lower() == "smiles":
        tokens = tokens[1:]
    return [token for token in tokens if token]


def _from_smiles(smiles: list[str], name: str, hydrogens: bool) -> tuple[SizeHistogram, dict[str, Any]]:
    nodes, edges, invalid = smiles_sizes(smiles, hydrogens=hydrogens)
    if nodes.size == 0:
        raise ValueError(f"{name}: none of the {len(smiles)} SMILES could be parsed by RDKit.")
    atoms = "atoms with hydrogens" if hydrogens else "heavy atoms"
    note = f"{name}: {nodes.size} molecules from SMILES via RDKit ({atoms}, 2 x bonds)"
    if invalid:
        note += f"; {len(invalid)} SMILES could not be parsed and are not counted"
    extra = {"invalid": len(invalid), "invalid_entries": [i + 1 for i in invalid],
             "invalid_examples": [f"entry {i + 1}: {smiles[i]!r}" for i in invalid[:_EXAMPLES]]}
    return SizeHistogram.from_sizes(nodes, edges), {"provenance": note + ".", **extra}


def _from_table(frame: pd.DataFrame, name: str, hydrogens: bool, k: int) -> tuple[SizeHistogram, dict[str, Any]]:
    frame = frame.rename(columns=lambda column: str(column).strip().lower())
    if len(frame) == 0:
        raise ValueError(f"{name} has a header but no rows.")
    if {"num_nodes", "num_edges"} <= set(frame.columns):
        try:
            hist = SizeHistogram.from_frame(frame)
        except ValueError as error:
            raise ValueError(f"{name}: {error}") from None
        kind = "a histogram (num_nodes, num_edges, count)" if "count" in frame.columns else \
            f"per-graph sizes ({len(frame)} rows)"
        return hist, {"provenance": f"{name}: {kind}."}
    if "compound" in frame.columns:
        atoms, edges = aflow_frame_sizes(frame, k=k)
        note = f"{name}: AFLOW export, {atoms.size} crystals, k-NN graphs with k = {k}."
        return SizeHistogram.from_sizes(atoms, edges), {"provenance": note}
    if "smiles" in frame.columns:
        return _from_smiles(frame["smiles"].astype(str).tolist(), name, hydrogens)
    raise ValueError(
        f"{name} has columns {list(frame.columns)}; expected num_nodes,num_edges[,count], "
        "a smiles column or an AFLOW compound column."
    )


def load_user_file(
    path_or_buffer: str | Path | BinaryIO,
    filename: str | None = None,
    *,
    hydrogens: bool = False,
    k: int = DEFAULT_K,
    max_bytes: int = MAX_BYTES,
) -> tuple[SizeHistogram, dict[str, Any]]:
    """Histogram of a user's file (a local path, or a file-like object such as an upload).

    ``hydrogens`` adds hydrogens to SMILES molecules, ``k`` sets the neighbours per atom of
    AFLOW crystals.

    >>> hist, info = load_user_file(io.BytesIO(b"num_nodes,num_edges\\n3,4\\n3,4\\n5,8\\n"), "s.csv")
    >>> hist.num_graphs, hist.num_tuples, info["source"]
    (3, 2, 'user file')
    >>> load_user_file(io.BytesIO(b"CCO\\nnot-a-smiles\\n"), "m.smi")[1]["invalid"]
    1
    """
    start = time.perf_counter()
    data, name = _read_bytes(path_or_buffer, filename, max_bytes)
    suffix, data = _format(name, data, max_bytes)
    if suffix in _PICKLES:
        raise ValueError(
            f"{name} looks like a saved PyTorch/PyG file, which is a pickle and is never read "
            "from an upload; load it from a local path with load_pyg_dataset(path) or the CLI."
        )
    if not data.strip():
        raise ValueError(f"{name} is empty.")
    buffer = io.BytesIO(data)
    try:
        if suffix in (".parquet", ".pq"):
            hist, extra = _from_table(_read_parquet(buffer, name, max_bytes), name, hydrogens, k)
        elif suffix in _TABLE:
            frame = pd.read_csv(buffer, sep="\t" if suffix == ".tsv" else ",")
            hist, extra = _from_table(frame, name, hydrogens, k)
        elif suffix in _SMILES:
            hist, extra = _from_smiles(_smiles_lines(data.decode("utf-8")), name, hydrogens)
        elif suffix == ".json":
            content = json.loads(data.decode("utf-8"))
            entries = list(content.values()) if isinstance(content, dict) else content
            hist, extra = _from_table(pd.DataFrame(entries), name, hydrogens, k)
        else:
            raise ValueError(
                f"{name}: unknown file type {suffix or '(none)'}; use .csv, .tsv, .parquet, "
                ".smi/.smiles/.txt or .json."
            )
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError,
            json.JSONDecodeError, OSError, ArrowException) as error:
        raise ValueError(f"{name} could not be read: {error}") from None
    options = {"hydrogens": hydrogens, "k": k}
    return hist, {
        "dataset": name, "split": "all", "options": options, "source": "user file",
        "graphs": hist.num_graphs, "seconds": time.perf_counter() - start, **extra,
    }
