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

import io
import json
import time
from pathlib import Path
from typing import Any, BinaryIO

import pandas as pd

from packing import SizeHistogram
from packing.io import (MAX_BYTES, TABLE_SUFFIXES, decompress, histogram_from_table, lower_columns, numbered_rows,
                        read_file_bytes, read_table)
from packing.words import size_limit_words

from .aflow import DEFAULT_K, aflow_frame_sizes
from .registry import get_spec
from .smiles import Progress, invalid_example, smiles_sizes

_SMILES = {".smi", ".smiles", ".txt"}
_PICKLES = {".pt", ".pth", ".pkl", ".pickle"}
_EXAMPLES = 5


def _read_bytes(source: str | Path | BinaryIO, filename: str | None, max_bytes: int) -> tuple[bytes, str]:
    """The file's bytes and name, refusing missing, oversized and nameless input."""
    if isinstance(source, (str, Path)):
        return read_file_bytes(source, max_bytes), filename or Path(source).name
    name = filename or getattr(source, "name", None)
    if not name:
        raise ValueError("Give the file name (filename=...) so the file type is known.")
    data = source.getvalue() if hasattr(source, "getvalue") else source.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ValueError(f"{name} is larger than the limit of {size_limit_words(max_bytes)}.")
    return bytes(data), str(name)


def _text(suffix: str, data: bytes, name: str) -> str:
    """The UTF-8 text of a decompressed file; a clear message for binary or empty files."""
    if not data.strip():
        raise ValueError(f"{name} is empty.")
    try:
        return data.decode("utf-8-sig")  # a byte-order mark (files saved on Windows) is not text
    except UnicodeDecodeError:
        raise ValueError(f"{name} is not a text file (it holds bytes that are not UTF-8); expected "
                         f"{'one SMILES per line' if suffix in _SMILES else 'JSON text'}.") from None


def _smiles_lines(text: str) -> tuple[list[str], list[str]]:
    """The first token of every non-blank line (a ``smiles`` header skipped) and where each
    is (``line N`` of the file)."""
    numbered = [(number, line.split()[0]) for number, line in enumerate(text.splitlines(), 1) if line.split()]
    if numbered and numbered[0][1].lower() == "smiles":
        numbered = numbered[1:]
    return [token for _, token in numbered], [f"line {number}" for number, _ in numbered]


def _from_smiles(smiles: list[Any], places: list[str], name: str, hydrogens: bool,
                 progress: Progress | None = None) -> tuple[SizeHistogram, dict[str, Any]]:
    """The histogram of the SMILES that RDKit parses; those it cannot are counted and
    reported by their ``places`` (``line 7``, ``row 3``)."""
    if not smiles:
        raise ValueError(f"{name} holds no SMILES (only a header or blank lines).")
    nodes, edges, invalid = smiles_sizes(smiles, hydrogens=hydrogens, progress=progress)
    if nodes.size == 0:
        raise ValueError(f"{name}: none of the {len(smiles)} SMILES could be parsed by RDKit.")
    atoms = "atoms with hydrogens" if hydrogens else "heavy atoms"
    note = f"{name}: {nodes.size} molecules from SMILES via RDKit ({atoms}, 2 x bonds)"
    if invalid:
        note += f"; {len(invalid)} SMILES could not be parsed and are not counted"
    extra = {"invalid": len(invalid), "invalid_entries": [int(places[i].split()[-1]) for i in invalid],
             "invalid_examples": [invalid_example(places[i], smiles[i]) for i in invalid[:_EXAMPLES]]}
    return SizeHistogram.from_sizes(nodes, edges), {"provenance": note + ".", **extra}


def _from_table(frame: pd.DataFrame, name: str, hydrogens: bool, k: int,
                progress: Progress | None = None) -> tuple[SizeHistogram, dict[str, Any]]:
    frame = lower_columns(frame, name)
    if len(frame) == 0:
        raise ValueError(f"{name} has a header but no rows.")
    if {"num_nodes", "num_edges"} <= set(frame.columns):
        hist = histogram_from_table(frame, name)
        kind = "a histogram (num_nodes, num_edges, count)" if "count" in frame.columns else \
            f"per-graph sizes ({len(frame):,} row{'s' if len(frame) != 1 else ''})"
        return hist, {"provenance": f"{name}: {kind}.", "options": {}}
    if "compound" in frame.columns:
        atoms, edges = aflow_frame_sizes(frame, k=k)
        note = f"{name}: AFLOW export, {atoms.size} crystals, k-NN graphs with k = {k}."
        return SizeHistogram.from_sizes(atoms, edges), {"provenance": note, "options": {"k": k}}
    if "smiles" in frame.columns:
        return _from_smiles(frame["smiles"].tolist(), [f"row {row}" for row in frame.index], name, hydrogens, progress)
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
    progress: Progress | None = None,
) -> tuple[SizeHistogram, dict[str, Any]]:
    """Histogram of a user's file (a local path, or a file-like object such as an upload).

    Args:
        path_or_buffer: a local path, or an open binary file (an upload).
        filename: the file's name, which gives its type (``.csv``, ``.tsv``, ``.parquet``,
            ``.smi``/``.smiles``/``.txt``, ``.json``, each optionally ``.gz``); needed for a
            file object without a ``name``.
        hydrogens: add hydrogens to SMILES molecules (they become nodes).
        k: neighbours per atom of AFLOW crystals (edges = k x atoms).
        max_bytes: the largest file (and decompressed content) accepted.
        progress: ``progress(stage, fraction)`` hears reading, parsing and counting.

    Returns:
        ``(histogram, info)``; ``info`` has ``dataset`` (the file name), ``split``
        (``"all"``), ``options``, ``source`` (``"user file"``), ``provenance``, ``graphs``,
        ``seconds`` and, for SMILES, ``invalid`` (how many could not be parsed),
        ``invalid_entries`` and ``invalid_examples``.

    Raises:
        ValueError: an unknown or pickled file type, a file too large, empty, not text or
            malformed, or SMILES none of which parse; the message names the file and the fix.

    >>> hist, info = load_user_file(io.BytesIO(b"num_nodes,num_edges\\n3,4\\n3,4\\n5,8\\n"), "s.csv")
    >>> hist.num_graphs, hist.num_tuples, info["source"]
    (3, 2, 'user file')
    >>> load_user_file(io.BytesIO(b"CCO\\nnot-a-smiles\\n"), "m.smi")[1]["invalid"]
    1
    """
    start = time.perf_counter()
    report = progress or (lambda stage, fraction: None)
    report("Reading the file", 0.0)
    k = get_spec("aflow").option("k").coerce(k)
    data, name = _read_bytes(path_or_buffer, filename, max_bytes)
    suffix = Path(name.lower()).suffix if not name.lower().endswith(".gz") else Path(name.lower()[:-3]).suffix
    if suffix in _PICKLES:
        raise ValueError(
            f"{name} looks like a saved PyTorch/PyG file, which is a pickle and is never read "
            "from an upload; load it from a local path with load_pyg_dataset(path) or the CLI."
        )
    try:
        if suffix in TABLE_SUFFIXES:
            report("Parsing the table", 0.2)
            hist, extra = _from_table(read_table(data, name, max_bytes), name, hydrogens, k, progress)
        elif suffix in _SMILES:
            hist, extra = _from_smiles(*_smiles_lines(_text(*decompress(name, data, max_bytes), name)), name,
                                       hydrogens, progress)
        elif suffix == ".json":
            content = json.loads(_text(*decompress(name, data, max_bytes), name))
            entries = list(content.values()) if isinstance(content, dict) else content
            if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
                raise ValueError(f"{name}: an AFLOW JSON export is a list (or object) of entries with a compound.")
            hist, extra = _from_table(numbered_rows(pd.DataFrame(entries)), name, hydrogens, k)
        else:
            raise ValueError(
                f"{name}: unknown file type {suffix or '(none)'}; use .csv, .tsv, .parquet, "
                ".smi/.smiles/.txt or .json."
            )
    except (json.JSONDecodeError, RecursionError) as error:
        raise ValueError(f"{name} is not valid JSON: {error}") from None
    return hist, {
        "dataset": name, "split": "all", "options": {"hydrogens": hydrogens}, "source": "user file",
        "graphs": hist.num_graphs, "seconds": time.perf_counter() - start, **extra,
    }  # SMILES use hydrogens; tables say which options they used (none for sizes, k for AFLOW)
