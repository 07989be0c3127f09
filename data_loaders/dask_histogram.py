"""The size histogram of a sharded collection, computed on a Dask cluster.

Each shard file is read by one Dask task on a worker (:func:`data_loaders.shards.read_shard`:
size tables by the rules of :mod:`packing.io`, SMILES sized with RDKit), giving a
partial histogram a few kilobytes large. Partials merge on the workers in a tree of
``FAN_IN`` (exact integer counts), so no row ever moves between machines and the client
receives one histogram. Progress is counted from the shard futures as they finish.

A shard that fails stops the run with a :class:`ShardError` naming it. A worker that dies
is replaced by Dask and its tasks are run again (``distributed.scheduler.allowed-failures``
times); past that the shard fails with a clear error, never a smaller histogram: the merged
result is checked to hold every shard exactly once.
"""
from __future__ import annotations

import os
import time
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, Callable, Sequence

from packing import SizeHistogram

from .dask_cluster import task_failure_words
from .shards import PartialHistogram, ShardFormat, ShardReport, merge_partials, read_shard, shard_paths

if TYPE_CHECKING:
    from distributed import Client, Future

#: ``progress(done, total)``: shards read so far, of all shards.
Progress = Callable[[int, int], None]
FAN_IN = 16  # partial histograms merged by one task
_EXAMPLES = 5


class ShardError(ValueError):
    """A shard could not be turned into a histogram; ``shard`` is its path.

    >>> str(ShardError("/data/part-7.csv", "/data/part-7.csv: row 3 has no value for num_edges."))
    'Shard /data/part-7.csv failed: row 3 has no value for num_edges.'
    """

    def __init__(self, shard: str, detail: str) -> None:
        self.shard = shard
        super().__init__(f"Shard {shard} failed: {detail.removeprefix(shard + ': ')}")


class _TreeMerge:
    """Partial histograms merged on the workers as they arrive, ``FAN_IN`` at a time per level."""

    def __init__(self, client: "Client") -> None:
        self.client = client
        self.levels: list[list["Future"]] = []

    def add(self, future: "Future", level: int = 0) -> None:
        if level == len(self.levels):
            self.levels.append([])
        self.levels[level].append(future)
        if len(self.levels[level]) == FAN_IN:
            batch, self.levels[level] = self.levels[level], []
            self.add(self.client.submit(merge_partials, batch, pure=False), level + 1)

    def result(self) -> PartialHistogram:
        rest = [future for level in self.levels for future in level]
        final = rest[0] if len(rest) == 1 else self.client.submit(merge_partials, rest, pure=False)
        try:
            return final.result()
        except Exception as error:
            raise ValueError(f"Merging the partial histograms failed: {task_failure_words(error)}") from None


def _failure(future: "Future") -> BaseException:
    """Why a future did not finish (its exception, or why asking for it failed)."""
    try:
        return future.exception()
    except BaseException as error:  # a cancelled future raises instead of returning its exception
        return error


def _patterns(shards: str | Sequence[str]) -> tuple[list[str], str]:
    """The patterns as absolute paths (relative ones against this process's folder) and
    a label for them (the first as given, and how many more)."""
    given = [shards] if isinstance(shards, (str, os.PathLike)) else list(shards)
    if not given or not all(isinstance(p, (str, os.PathLike)) and str(p).strip() for p in given):
        raise ValueError("Give the shards as a path or a glob such as 'shards/*.parquet'.")
    label = str(given[0]) + (f" and {len(given) - 1:,} more" if len(given) > 1 else "")
    return [os.path.abspath(os.path.expanduser(str(pattern).strip())) for pattern in given], label


def _check_complete(merged: PartialHistogram, paths: list[str]) -> None:
    """Every shard counted exactly once and the graphs adding up, or an error."""
    counted = sorted(report.shard for report in merged.shards)
    graphs = sum(report.graphs for report in merged.shards)
    held = merged.histogram.num_graphs if merged.histogram is not None else 0
    if counted != sorted(paths) or graphs != held:
        raise RuntimeError(f"The merged histogram does not hold every shard exactly once ({len(counted)} shard "
                           f"reports for {len(paths)} shards, {held:,} graphs for {graphs:,} counted); "
                           "the result was discarded.")


def _many(count: int, noun: str) -> str:
    """``count`` and ``noun``, plural unless one: ``_many(1, "shard")`` is ``'1 shard'``."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def _info(label: str, shard_format: ShardFormat, reports: list[ShardReport], hist: SizeHistogram,
          client: "Client", seconds: float) -> dict[str, Any]:
    workers = len(client.nthreads())
    invalid = sum(report.invalid for report in reports)
    with_invalid = [report for report in reports if report.invalid]
    cluster = f"Dask cluster of {_many(workers, 'worker')}"
    note = (f"{label}: {_many(len(reports), 'shard')} of {shard_format.describe()}, {_many(hist.num_graphs, 'graph')}; "
            f"a partial histogram per shard computed on a {cluster} and merged (exact counts)")
    if invalid:
        note += (f"; {invalid:,} SMILES in {_many(len(with_invalid), 'shard')} could not be parsed and are not "
                 "counted (see the report per shard)")
    return {
        "dataset": label, "split": "all",
        "options": {"column": shard_format.column, "hydrogens": shard_format.hydrogens},
        "source": f"{cluster} at {client.scheduler.address}",
        "graphs": hist.num_graphs, "rows": sum(report.rows for report in reports), "seconds": seconds,
        "provenance": note + ".", "invalid": invalid,
        "invalid_examples": [f"{report.shard}, {example}" for report in with_invalid
                             for example in report.invalid_examples][:_EXAMPLES],
        "shards": [asdict(report) | {"invalid_examples": list(report.invalid_examples)} for report in reports],
        "workers": workers, "dashboard": client.dashboard_link,
    }


def _histogram(patterns: list[str], label: str, shard_format: ShardFormat, client: "Client",
               progress: Progress | None) -> tuple[SizeHistogram, dict[str, Any]]:
    from distributed import as_completed

    start = time.perf_counter()
    listing = client.submit(shard_paths, patterns, pure=False)  # globbed where the files are read
    try:
        paths = listing.result()
    except ValueError as error:  # no file matches: the worker's message as it is
        raise ValueError(str(error)) from None
    except Exception as error:
        raise ValueError(f"Listing the shards on a worker failed: {task_failure_words(error)}") from None
    futures = client.map(read_shard, paths, shard_format=shard_format, pure=False)
    shard_of = {future.key: path for future, path in zip(futures, paths)}
    merge = _TreeMerge(client)
    try:
        for done, future in enumerate(as_completed(futures, loop=client.loop), start=1):
            if future.status != "finished":
                failure = _failure(future)
                if failure is None or client.status != "running":  # the cluster went, not the shard
                    raise ValueError(f"Reading the shards stopped: {task_failure_words(failure)}")
                raise ShardError(shard_of[future.key], task_failure_words(failure))
            merge.add(future)
            if progress is not None:
                progress(done, len(paths))
        merged = merge.result()
    except BaseException:
        client.cancel(futures)
        raise
    _check_complete(merged, paths)
    if merged.histogram is None:
        rows = sum(r.rows for r in merged.shards)
        raise ValueError(f"{label}: none of the {rows:,} SMILES in {len(paths):,} shards could be parsed by RDKit; "
                         "check the SMILES column and the files." if rows else
                         f"{label}: all {len(paths):,} shards are empty (a header and no rows); there are no graphs "
                         "to count.")
    order = {path: index for index, path in enumerate(paths)}
    reports = sorted(merged.shards, key=lambda report: order[report.shard])
    return merged.histogram, _info(label, shard_format, reports, merged.histogram, client,
                                   time.perf_counter() - start)


def sharded_histogram(
    shards: str | Sequence[str],
    column: str | None = None,
    hydrogens: bool = False,
    client: "Client | None" = None,
    progress: Progress | None = None,
) -> tuple[SizeHistogram, dict[str, Any]]:
    """The size histogram of a collection of shard files, computed on Dask.

    Shards are CSV, TSV or Parquet files (``.gz`` allowed) of per-graph sizes or histograms
    (``num_nodes,num_edges[,count]``), or of SMILES sized with RDKit.

    Args:
        shards: paths or globs of the shard files, as the workers see them.
        column: the column of SMILES; None for size columns.
        hydrogens: hydrogen atoms of SMILES become nodes (needs ``column``).
        client: the Dask client whose cluster does the work; None makes a local cluster for
            the call.
        progress: ``progress(done, total)`` hears every finished shard.

    Returns:
        ``(histogram, info)``; ``info`` says where the numbers came from, with one report per
        shard (``info["shards"]``: rows, graphs, unparsable SMILES and examples) and the Dask
        dashboard's address.

    Raises:
        ShardError: a shard could not be read or sized (a ``ValueError`` naming the shard).
        ValueError: no shard matches, a bad option, no SMILES parses, or the cluster fails
            (see :func:`data_loaders.dask_client`).

    >>> sharded_histogram("shards/*.parquet", hydrogens=True)
    Traceback (most recent call last):
    ...
    ValueError: hydrogens applies to SMILES: name the column that holds them.
    """
    shard_format = ShardFormat(column, hydrogens)
    patterns, label = _patterns(shards)
    if client is None:
        from .dask_cluster import dask_client

        with dask_client() as local:
            return _histogram(patterns, label, shard_format, local, progress)
    return _histogram(patterns, label, shard_format, client, progress)
