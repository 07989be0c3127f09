"""Reading and writing the engine's files, for the command lines, the loaders and the pages:

* files are written whole (:func:`replacing`): under a temporary name next to the file and
  only then renamed over the old one, so a full disk, a file-size limit or an error leaves
  the earlier file as it was. A process killed while writing may leave the temporary file
  (hidden, ``.NAME.<random>.part``) behind, never a half-written ``NAME``;
* a JSON object a user hands over (a path, JSON text, bytes or an already parsed dict) is
  read with one set of clear errors: no file, too large, not JSON, nested too deeply, not an
  object (:func:`read_json_object`; the configuration and throughput calibrations);
* size tables (CSV, TSV, Parquet; gzip allowed) are read and written by one set of rules,
  shared by the command lines, the loaders and the dashboard's uploads:

  - column names are compared without case or surrounding spaces (``Count`` is ``count``);
  - ``num_nodes,num_edges`` is one row per graph, ``num_nodes,num_edges,count`` a histogram;
  - every row has as many fields as the header (a row ``3,4,2`` under a two-column header
    is refused, never read with its first field as an index), and no value may be missing;
  - at most :data:`MAX_COLUMNS` columns and :data:`MAX_BYTES` bytes, checked before parsing;
  - values are whole numbers, kept exact (see :class:`packing.SizeHistogram`);
* the configuration file (schema: :mod:`packing.export`) is saved and loaded, verified
  (:func:`load_config`). A ``throughput`` section is kept as given (an object); the
  ``throughput`` package checks it.

>>> from packing import PackLimits, SizeHistogram, export_config, pack
>>> hist = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2])
>>> config, plan = load_config(config_json(export_config(pack(hist, PackLimits(5, 6, 4)), hist, {})))
>>> plan.num_packs, config["schema_version"] == SCHEMA_VERSION
(2, True)
"""
from __future__ import annotations

import csv
import errno
import gzip
import io
import json
import os
import secrets
import stat
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pandas as pd
from pyarrow.lib import ArrowException

from .export import SCHEMA_VERSION, check_config
from .histogram import SizeHistogram
from .plan import PackingPlan
from .words import size_limit_words

__all__ = [
    "MAX_BYTES",
    "SCHEMA_VERSION",
    "TABLE_SUFFIXES",
    "WHOLE_TABLE",
    "config_json",
    "decompress",
    "histogram_from_table",
    "load_config",
    "load_size_table",
    "lower_columns",
    "numbered_rows",
    "read_file_bytes",
    "read_json_object",
    "read_table",
    "replacing",
    "save_config",
    "save_histogram",
    "write_frame",
    "write_replacing",
]

#: The split of a configuration made from a size table, which does not say (``python -m packing pack --out``).
WHOLE_TABLE = "whole table"
MAX_CONFIG_BYTES = 256 * 2**20
#: The most bytes and columns of a size table, and its file types.
MAX_BYTES = 512 * 2**20
MAX_COLUMNS = 64
TABLE_SUFFIXES = (".csv", ".tsv", ".parquet", ".pq")


def _new_part(target: Path) -> Path:
    """A new, empty temporary file next to ``target``, with the permissions a new file
    gets here (the kernel applies the umask)."""
    while True:
        part = target.with_name(f".{target.name}.{secrets.token_hex(4)}.part")
        try:
            os.close(os.open(part, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
            return part
        except FileExistsError:
            continue


@contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """A path to write ``path``'s new content to; when the block ends without an error it
    replaces ``path`` in one step, otherwise it is removed and ``path`` is left as it was.

    A link is followed (its target is replaced), an existing file keeps its permissions
    and a read-only one is refused, as writing it in place would; a device or pipe (e.g.
    ``/dev/stdout``) is written in place.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> (folder / "a.txt").write_text("old")
    3
    >>> try:
    ...     with replacing(folder / "a.txt") as part:
    ...         _ = part.write_text("ne")
    ...         raise OSError("disk full")
    ... except OSError:
    ...     pass
    >>> (folder / "a.txt").read_text(), sorted(p.name for p in folder.iterdir())
    ('old', ['a.txt'])
    >>> with replacing(folder / "a.txt") as part:
    ...     _ = part.write_text("new")
    >>> (folder / "a.txt").read_text()
    'new'
    """
    target = Path(os.path.realpath(path))
    if target.exists() and not target.is_file():
        yield target
        return
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else None
    if mode is not None and not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))
    part = _new_part(target)
    try:
        if mode is not None:
            os.chmod(part, mode)
        yield part
        os.replace(part, target)
    except BaseException:
        part.unlink(missing_ok=True)
        raise


def write_replacing(path: str | Path, data: str | bytes) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` whole (:func:`replacing`); returns ``path``.

    >>> import tempfile
    >>> write_replacing(Path(tempfile.mkdtemp()) / "b.json", "{}").read_text()
    '{}'
    """
    path = Path(path)
    with replacing(path) as part:
        if isinstance(data, bytes):
            part.write_bytes(data)
        else:
            part.write_text(data, encoding="utf-8")
    return path


def write_frame(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write a table whole (:func:`replacing`): Parquet for a ``.parquet`` path, else CSV,
    without the index; returns ``path``.

    >>> import tempfile
    >>> path = write_frame(pd.DataFrame({"a": [1, 2]}), Path(tempfile.mkdtemp()) / "t.csv")
    >>> path.read_text()
    'a\\n1\\n2\\n'
    """
    path = Path(path)
    with replacing(path) as part:
        if path.suffix == ".parquet":
            frame.to_parquet(part, index=False)
        else:
            frame.to_csv(part, index=False)
    return path


def _file_text(path: Path, kind: str, max_bytes: int) -> str:
    try:
        if not path.is_file():
            raise ValueError(f"No {kind} file at {path}" + (" (it is a folder)." if path.is_dir() else "."))
        if path.stat().st_size > max_bytes:
            raise ValueError(f"{path.name} is larger than {max_bytes // 2**20} MB; not a {kind} file.")
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise ValueError(f"The {kind} file {path} could not be read: {error.strerror or error}.") from None


def read_json_object(source: Any, kind: str, max_bytes: int) -> tuple[dict[str, Any], str]:
    """The JSON object in ``source`` and a name for it in messages; ``kind`` names what the
    file should be (``"configuration"``). A ``ValueError`` says what is wrong otherwise.

    >>> read_json_object('{"a": 1}', "configuration", 2**20)
    ({'a': 1}, 'the configuration text')
    >>> read_json_object(b"[1]", "calibration", 2**20)
    Traceback (most recent call last):
    ...
    ValueError: the uploaded calibration is not a calibration file: the JSON is not an object.
    """
    if isinstance(source, dict):
        return source, f"the {kind}"
    if isinstance(source, bytes):
        text, name = source.decode("utf-8", errors="replace"), f"the uploaded {kind}"
    elif isinstance(source, str) and source.lstrip()[:1] in ("{", "["):
        text, name = source, f"the {kind} text"
    elif isinstance(source, (str, Path)) and str(source).strip():
        text, name = _file_text(Path(source), kind, max_bytes), Path(source).name
    else:
        raise ValueError(f"Give a {kind} file path, JSON text, bytes or a dict; got {str(source)[:80]!r}.")
    if len(text) > max_bytes:
        raise ValueError(f"{name} is larger than {max_bytes // 2**20} MB; not a {kind} file.")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{name} is not a {kind} file: invalid JSON ({error.msg} at line {error.lineno}).") from None
    except RecursionError:
        raise ValueError(f"{name} is not a {kind} file: the JSON is nested too deeply.") from None
    if not isinstance(data, dict):
        raise ValueError(f"{name} is not a {kind} file: the JSON is not an object.")
    return data, name


def read_file_bytes(path: str | Path, max_bytes: int = MAX_BYTES) -> bytes:
    """A local file's bytes, refusing missing, non-file and oversized paths before reading.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "sizes.csv").write_bytes(b"num_nodes,num_edges")
    ...     read_file_bytes(Path(folder) / "sizes.csv")
    b'num_nodes,num_edges'
    """
    path = Path(path).expanduser()
    if not path.is_file():
        kind = " (it is a folder)" if path.is_dir() else " (it is not a regular file)" if path.exists() else ""
        raise ValueError(f"No file at {path}{kind}.")
    if path.stat().st_size > max_bytes:
        raise ValueError(f"{path.name} is larger than the limit of {size_limit_words(max_bytes)}.")
    return path.read_bytes()


def decompress(name: str, data: bytes, max_bytes: int = MAX_BYTES) -> tuple[str, bytes]:
    """Format suffix and plain bytes (``data.csv.gz`` -> ``".csv"``, gunzipped).

    Gzip is decompressed as a stream and never past ``max_bytes``, so a small file that
    expands to gigabytes (a gzip bomb) is refused without being expanded.

    >>> decompress("sizes.csv.gz", gzip.compress(b"num_nodes,num_edges"))
    ('.csv', b'num_nodes,num_edges')
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
        raise ValueError(f"{name} is larger than the limit of {size_limit_words(max_bytes)} once decompressed; "
                         "use a smaller file or a histogram (num_nodes,num_edges,count) instead.")
    return Path(path.stem).suffix, plain


def _read_parquet(data: bytes, name: str, max_bytes: int) -> pd.DataFrame:
    """A Parquet table, refused when its decoded data (at least 8 bytes a cell) is larger
    than ``max_bytes``: Parquet encodings can pack millions of rows into a few kilobytes."""
    import pyarrow.parquet as pq

    metadata = pq.ParquetFile(io.BytesIO(data)).metadata
    if metadata.num_columns > MAX_COLUMNS:
        raise ValueError(f"{name} has {metadata.num_columns:,} columns; a size table has at most {MAX_COLUMNS}.")
    encoded = sum(metadata.row_group(i).total_byte_size for i in range(metadata.num_row_groups))
    if max(encoded, 8 * metadata.num_rows * metadata.num_columns) > max_bytes:
        raise ValueError(f"{name} ({metadata.num_rows:,} rows) is larger than the limit of {size_limit_words(max_bytes)} "
                         "once decoded; use a smaller file or a histogram (num_nodes,num_edges,count) instead.")
    # one thread: pyarrow's thread pool sometimes aborts the interpreter at exit (apache/arrow#34314)
    return numbered_rows(pq.read_table(io.BytesIO(data), use_threads=False).to_pandas())


def _read_text_table(data: bytes, name: str, separator: str) -> pd.DataFrame:
    header = data[: 1 << 16].split(b"\n", 1)[0]
    if header.count(separator.encode()) + 1 > MAX_COLUMNS:
        raise ValueError(f"{name} has {header.count(separator.encode()) + 1:,} columns in its header; a size table "
                         f"has at most {MAX_COLUMNS}.")
    names = next(csv.reader([header.decode("utf-8", "replace").rstrip("\r")], delimiter=separator), [])
    lowered = [column.strip().lower() for column in names]
    twice = next((column for column in lowered if column and lowered.count(column) > 1), None)  # '' : a spreadsheet
    if twice is not None:  # pandas would read the second as 'num_nodes.1' and the table as if it were not there
        raise ValueError(f"{name} has the column {twice!r} twice in its header; keep one of them.")
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.ParserWarning)
        try:
            frame = pd.read_csv(io.BytesIO(data), sep=separator, index_col=False, encoding="utf-8",
                                skip_blank_lines=False)
        except UnicodeDecodeError:
            raise ValueError(f"{name} is not a text table: it holds bytes that are not UTF-8 text. Expected a "
                             "CSV/TSV with a header such as num_nodes,num_edges[,count] (or use .parquet for "
                             "Parquet).") from None
        except pd.errors.ParserWarning:
            raise ValueError(f"{name}: some rows have more fields than the header; every row needs exactly one "
                             "value per column.") from None
    return numbered_rows(frame).dropna(how="all")  # blank lines keep their numbers, then go


def numbered_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` indexed by its rows' numbers in the file (1 for the first row under the
    header), so that a message can name a row after blank rows were dropped.

    >>> numbered_rows(pd.DataFrame({"num_nodes": [3, 5], "num_edges": [4, 8]}))
       num_nodes  num_edges
    1          3          4
    2          5          8
    """
    return frame.set_axis(pd.RangeIndex(1, len(frame) + 1), axis=0)


def read_table(data: bytes, name: str, max_bytes: int = MAX_BYTES) -> pd.DataFrame:
    """A table from a file's bytes (format by ``name``'s suffix, ``.gz`` allowed) with
    column names lower-cased and stripped; a ``ValueError`` says what is wrong otherwise.

    >>> read_table(b"Num_Nodes, Count\\n3,2\\n", "t.csv").columns.tolist()
    ['num_nodes', 'count']
    """
    suffix, data = decompress(name, data, max_bytes)
    if suffix not in TABLE_SUFFIXES:
        raise ValueError(f"{name}: not a table file ({suffix or 'no suffix'}); use {', '.join(TABLE_SUFFIXES)}.")
    if not data.strip():
        raise ValueError(f"{name} is empty.")
    try:
        if suffix in (".parquet", ".pq"):
            frame = _read_parquet(data, name, max_bytes)
        else:
            frame = _read_text_table(data, name, "\t" if suffix == ".tsv" else ",")
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise ValueError(f"{name} could not be read as a table: {str(error).strip()}") from None
    except (OSError, ArrowException) as error:  # pyarrow's errors on bytes that are not Parquet
        raise ValueError(f"{name} is not a Parquet file ({error}).") from None
    return lower_columns(frame, name)


def lower_columns(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """``frame`` with its column names stripped and lower-cased; a ``ValueError`` naming the
    columns that then collide (``SMILES`` and ``smiles``: one column read twice).

    >>> lower_columns(pd.DataFrame({"SMILES": ["C"], "smiles": ["O"]}), "m.csv")
    Traceback (most recent call last):
    ...
    ValueError: m.csv has the column 'smiles' twice ('SMILES', 'smiles'): column names are read without case and spaces; keep one of them.
    """
    lowered = [str(column).strip().lower() for column in frame.columns]
    for column in dict.fromkeys(lowered):
        same = [str(original) for original, low in zip(frame.columns, lowered) if low == column]
        if len(same) > 1:
            raise ValueError(f"{name} has the column {column!r} twice ({', '.join(map(repr, same))}): column names "
                             "are read without case and spaces; keep one of them.")
    return frame.set_axis(lowered, axis=1)


#: column names that would hold a size's graph count under another name: read as one graph
#: per row they would undercount silently, so a table carrying one is refused
COUNT_LOOKALIKES = ("counts", "num_graphs", "n_graphs", "frequency", "freq", "multiplicity")


def histogram_from_table(frame: pd.DataFrame, name: str) -> SizeHistogram:
    """The histogram of a size table (``num_nodes,num_edges`` per graph, or with ``count``).

    >>> histogram_from_table(pd.DataFrame({"num_nodes": [3, 3], "num_edges": [4, 4]}), "t").num_graphs
    2
    >>> histogram_from_table(pd.DataFrame({"num_nodes": [3], "num_edges": [4], "counts": [1000]}), "t.csv")
    Traceback (most recent call last):
    ...
    ValueError: t.csv has a column 'counts' but no 'count': its graph counts would be read as one graph per row. Name the column count (or drop it when every row is one graph).
    """
    lookalike = next((column for column in COUNT_LOOKALIKES if column in frame.columns), None)
    if lookalike is not None and "count" not in frame.columns:
        raise ValueError(f"{name} has a column {lookalike!r} but no 'count': its graph counts would be read as one "
                         "graph per row. Name the column count (or drop it when every row is one graph).")
    columns = ["num_nodes", "num_edges"] + (["count"] if "count" in frame.columns else [])
    missing = [column for column in columns if column not in frame.columns]
    if missing:
        raise ValueError(f"{name}: missing column(s) {missing}; expected num_nodes,num_edges[,count] but found "
                         f"{list(frame.columns)[:MAX_COLUMNS]}.")
    if len(frame) == 0:
        raise ValueError(f"{name} has a header but no rows: a size histogram needs at least one graph.")
    for column in columns:
        empty = frame[column].isna().to_numpy()
        if empty.any():
            raise ValueError(f"{name}: row {frame.index[int(empty.argmax())]} has no value for {column}; every row needs "
                             "one value per column.")
        if frame[column].dtype == object:  # a value that is not a number turned the column into text
            text = pd.to_numeric(frame[column], errors="coerce").isna().to_numpy()
            if text.any():
                row = int(text.argmax())
                raise ValueError(f"{name}: row {frame.index[row]} has {frame[column].iloc[row]!r} for {column}; every "
                                 "value must be a whole number.")
    try:
        if "count" in columns:
            return SizeHistogram.from_counts(frame["num_nodes"], frame["num_edges"], frame["count"])
        return SizeHistogram.from_sizes(frame["num_nodes"], frame["num_edges"])
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None


def load_size_table(path: str | Path, max_bytes: int = MAX_BYTES) -> SizeHistogram:
    """The histogram of a size-table file (the rules above).

    Raises:
        ValueError: naming the file and the problem (missing, too large, not a table,
            wrong columns, a value that is not a whole number).

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "h.csv")
    >>> _ = open(path, "w").write("num_nodes,num_edges,Count\\n3,4,1000\\n")
    >>> load_size_table(path).num_graphs
    1000
    """
    path = Path(path)
    return histogram_from_table(read_table(read_file_bytes(path, max_bytes), path.name, max_bytes), path.name)


def save_histogram(hist: SizeHistogram, path: str | Path) -> Path:
    """Write ``hist`` as a ``num_nodes,num_edges,count`` table, CSV or Parquet by the file
    suffix; :func:`load_size_table` reads it back.

    >>> import tempfile, os
    >>> hist = SizeHistogram.from_sizes([3, 5], [4, 8])
    >>> load_size_table(save_histogram(hist, os.path.join(tempfile.mkdtemp(), "h.parquet"))) == hist
    True

    Raises:
        ValueError: for a suffix other than ``.csv`` or ``.parquet``.
    """
    path = Path(path)
    if path.suffix not in (".csv", ".parquet"):
        raise ValueError(f"Unknown histogram file type {path.suffix!r}; use .csv or .parquet.")
    return write_frame(hist.to_frame(), path)


def config_json(config: dict[str, Any]) -> str:
    """The configuration as indented JSON text.

    >>> print(config_json({"schema": "graph-packing-config", "limits": {"max_nodes": 5}}))
    {
      "schema": "graph-packing-config",
      "limits": {
        "max_nodes": 5
      }
    }
    """
    return json.dumps(config, indent=2)


def save_config(config: dict[str, Any], path: str | Path) -> Path:
    """Write ``config`` (from :func:`packing.export_config`) as JSON to ``path``.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = save_config({"schema": "graph-packing-config"}, Path(folder) / "config.json")
    ...     print(path.name, json.loads(path.read_text()))
    config.json {'schema': 'graph-packing-config'}
    """
    return write_replacing(path, config_json(config) + "\n")


def _read_config(source: str | Path | bytes | dict[str, Any]) -> dict[str, Any]:
    """The configuration object from a dict, JSON text or bytes, or a file path."""
    return read_json_object(source, "configuration", MAX_CONFIG_BYTES)[0]


def load_config(source: str | Path | bytes | dict[str, Any]) -> tuple[dict[str, Any], PackingPlan]:
    """Read a configuration (a path, JSON text or bytes, or the dict) and rebuild its plan.

    Verified by :func:`packing.export.check_config`: the schema, every field's type, that
    the plan packs the stored histogram exactly within the limits, that the stored bounds
    hold and that the stored metrics are those of the plan; any problem is one
    ``ValueError`` naming the field. Work grows with the file's size, plus one knapsack for
    an LP bound. The plan returned carries the stored bounds (``plan.bounds``). A
    ``throughput`` section is kept as given (checked to be an object): the ``throughput``
    package checks its fields.

    >>> from packing import PackLimits, export_config, pack
    >>> hist = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2])
    >>> config, plan = load_config(config_json(export_config(pack(hist, PackLimits(5, 6, 4)), hist, {})))
    >>> plan.num_packs, str(plan.limits), config["dataset"]["graphs"]
    (2, '5 nodes, 6 edges, 4 graphs', 4)
    """
    config = _read_config(source)
    return config, check_config(config)
