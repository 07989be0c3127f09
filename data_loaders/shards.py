"""One shard of a sharded collection to a partial size histogram, and partials merged.

A shard is one file of a collection too large for one machine: per-graph sizes or a
histogram (``num_nodes,num_edges[,count]``, read by the rules of
:mod:`packing.io`), or molecules as SMILES in a named column, sized with RDKit.
The shard is the unit of work, as the chunks of DGL's distributed partitioning pipeline
(DGL user guide, section 7.1, "Chunked Graph Format": every chunk fits in one machine's memory and is
processed on its own): a worker holds one shard at a time, so its memory does not grow
with the collection. Partial histograms merge exactly (:meth:`SizeHistogram.merge`), in
any order and grouping, so they reduce to one without moving rows between workers.

Nothing here imports Dask: these functions run on Dask workers
(:mod:`data_loaders.dask_histogram`) and in a single process alike.
"""
from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from typing import Iterable, Sequence

import pandas as pd

from packing import SizeHistogram
from packing.io import MAX_BYTES, histogram_from_table, read_file_bytes, read_table

from .smiles import invalid_example, smiles_sizes

EXAMPLES = 5  # unparsable SMILES quoted per shard


@dataclass(frozen=True)
class ShardFormat:
    """What every shard holds: sizes (``column=None``) or SMILES in ``column``.

    ``column`` is compared without case or surrounding spaces, as size-table columns are;
    ``hydrogens`` counts hydrogen atoms as nodes (SMILES only).

    >>> ShardFormat(" SMILES ").column, ShardFormat().describe()
    ('smiles', 'per-graph sizes or histograms (num_nodes, num_edges[, count])')
    >>> ShardFormat(hydrogens=True)
    Traceback (most recent call last):
    ...
    ValueError: hydrogens applies to SMILES: name the column that holds them.
    """

    column: str | None = None
    hydrogens: bool = False

    def __post_init__(self) -> None:
        if self.column is not None:
            if not isinstance(self.column, str) or not self.column.strip():
                raise ValueError(f"The SMILES column must be a column name, got {self.column!r}.")
            object.__setattr__(self, "column", self.column.strip().lower())
        elif self.hydrogens:
            raise ValueError("hydrogens applies to SMILES: name the column that holds them.")

    def describe(self) -> str:
        """The shards' content in words, for provenance lines."""
        if self.column is None:
            return "per-graph sizes or histograms (num_nodes, num_edges[, count])"
        atoms = "atoms with hydrogens" if self.hydrogens else "heavy atoms"
        return f"SMILES in column {self.column!r}, sized with RDKit ({atoms}, 2 x bonds)"


@dataclass(frozen=True)
class ShardReport:
    """What one shard held: rows read, graphs counted, SMILES that could not be parsed
    (with up to :data:`EXAMPLES` of them quoted as ``"row N: 'text'"``, N counting data rows
    from 1)."""

    shard: str
    rows: int
    graphs: int
    invalid: int = 0
    invalid_examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class PartialHistogram:
    """The histogram of some shards (None when none of their rows is a graph) and their reports.

    >>> from packing.io import numbered_rows
    >>> frame = numbered_rows(pd.DataFrame({"smiles": ["CCO", "C1CC"]}))
    >>> part = read_shard_frame(frame, "a.csv", ShardFormat("smiles"))
    >>> part.histogram.num_graphs, part.shards[0].invalid_examples
    (1, ("row 2: 'C1CC'",))
    """

    histogram: SizeHistogram | None
    shards: tuple[ShardReport, ...]


def read_shard_frame(frame: pd.DataFrame, name: str, shard_format: ShardFormat) -> PartialHistogram:
    """The partial histogram of one shard's table (columns lower-cased, rows numbered as in
    the file: :func:`packing.io.read_table`). A shard with the right header and no
    rows holds no graphs (Spark and Dask write empty partitions): it is counted as empty,
    not refused.

    >>> read_shard_frame(pd.DataFrame({"num_nodes": [], "num_edges": []}), "part-9.csv", ShardFormat()).shards
    (ShardReport(shard='part-9.csv', rows=0, graphs=0, invalid=0, invalid_examples=()),)
    """
    wanted = ["num_nodes", "num_edges"] if shard_format.column is None else [shard_format.column]
    if len(frame) == 0 and set(wanted) <= set(frame.columns):
        return PartialHistogram(None, (ShardReport(name, 0, 0),))
    if shard_format.column is None:
        hist = histogram_from_table(frame, name)
        return PartialHistogram(hist, (ShardReport(name, len(frame), hist.num_graphs),))
    if shard_format.column not in frame.columns:
        raise ValueError(f"{name}: no column {shard_format.column!r} holding SMILES; its columns are "
                         f"{list(frame.columns)[:20]}.")
    smiles = frame[shard_format.column].tolist()
    nodes, edges, invalid = smiles_sizes(smiles, hydrogens=shard_format.hydrogens)
    examples = tuple(invalid_example(f"row {frame.index[position]}", smiles[position]) for position in invalid[:EXAMPLES])
    report = ShardReport(name, len(smiles), int(nodes.size), len(invalid), examples)
    return PartialHistogram(SizeHistogram.from_sizes(nodes, edges) if nodes.size else None, (report,))


def read_shard(path: str, shard_format: ShardFormat, max_bytes: int = MAX_BYTES) -> PartialHistogram:
    """The partial histogram of the shard file at ``path`` (CSV, TSV or Parquet, ``.gz``
    allowed); errors name the shard by its full path.

    >>> import tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "part-0.csv")
    >>> _ = open(path, "w").write("num_nodes,num_edges\\n3,4\\n3,4\\n")
    >>> read_shard(path, ShardFormat()).histogram.num_graphs
    2
    """
    return read_shard_frame(read_table(read_file_bytes(path, max_bytes), path, max_bytes), path, shard_format)


def merge_partials(parts: Iterable[PartialHistogram]) -> PartialHistogram:
    """One partial holding the graphs and shard reports of ``parts`` (exact counts).

    >>> one = PartialHistogram(SizeHistogram.from_sizes([3], [4]), (ShardReport("a", 1, 1),))
    >>> empty = PartialHistogram(None, (ShardReport("b", 2, 0, 2),))
    >>> merged = merge_partials([one, empty, one])
    >>> merged.histogram.counts.tolist(), [report.shard for report in merged.shards]
    ([2], ['a', 'b', 'a'])
    """
    parts = list(parts)
    histograms = [part.histogram for part in parts if part.histogram is not None]
    return PartialHistogram(SizeHistogram.merge(histograms) if histograms else None,
                            tuple(report for part in parts for report in part.shards))


def shard_paths(patterns: Sequence[str]) -> list[str]:
    """The files that ``patterns`` (paths or globs, ``**`` allowed) name, in sorted order
    per pattern, each file once even when two patterns match it.

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> for name in ("b.csv", "a.csv"):
    ...     _ = open(os.path.join(folder, name), "w").write("num_nodes,num_edges\\n1,0\\n")
    >>> [os.path.basename(p) for p in shard_paths([os.path.join(folder, "*.csv"), os.path.join(folder, "a.csv")])]
    ['a.csv', 'b.csv']
    """
    paths: dict[str, None] = {}
    for pattern in patterns:
        if os.path.isdir(pattern):
            raise ValueError(f"{pattern} is a folder; give its shards as a glob, e.g. "
                             f"{os.path.join(pattern, '*.parquet')!r}.")
        if glob.has_magic(pattern):
            matches = sorted(path for path in glob.glob(pattern, recursive=True) if os.path.isfile(path))
            if not matches:
                raise ValueError(f"No files match {pattern!r} (as the Dask workers see the file system).")
        else:
            matches = [pattern]
        paths.update((os.path.normpath(path), None) for path in matches)
    if not paths:
        raise ValueError("No shards given: pass a path or a glob such as 'shards/*.parquet'.")
    return list(paths)
