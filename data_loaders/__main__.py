"""Command line: ``python -m data_loaders list | histogram NAME ... | histogram --input GLOB ... | sweep TABLE ...
| file PATH ...``.

Examples::

    python -m data_loaders list
    python -m data_loaders histogram ogbg-molhiv --split train --out molhiv_train.csv
    python -m data_loaders histogram qm9 --option graph=radius --option cutoff=4 --out qm9.parquet
    python -m data_loaders histogram --input 'shards/*.parquet' --out hist.parquet
    python -m data_loaders histogram --input 'mols/*.csv' --column smiles --workers 2 --out hist.parquet
    python -m data_loaders histogram --input '/shared/shards/*.parquet' --scheduler tcp://host:8786 --out hist.parquet
    python -m data_loaders sweep hist.parquet --nodes 64:1024:16 --edges 128:2048:32 --scheduler tcp://host:8786 --out sweep.csv
    python -m data_loaders file my_molecules.smi --out mine.csv
    python -m data_loaders file /data/my_pyg_root --pyg --out mine.csv
"""
from __future__ import annotations

import argparse
import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator

import pandas as pd

from packing.io import load_size_table, save_histogram, write_frame
from packing.cli_args import (OPTION_FLAGS, ProgressBar, add_sweep_arguments, check_out, flag_named, report_sweep,
                               sweep_request)

from .aflow import DEFAULT_K
from .api import load_histogram
from .dask_cluster import cluster_sweep, dask_client, task_failure_words
from .dask_histogram import sharded_histogram
from .errors import DatasetUnavailableError
from .pyg_sizes import load_pyg_dataset
from .registry import list_datasets
from .shards import ShardFormat, shard_paths
from .user_files import load_user_file

if TYPE_CHECKING:
    from distributed import Client


def _parse_options(pairs: list[str]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--option expects key=value, got {pair!r}.")
        if key.strip() in options:
            raise ValueError(f"--option {key.strip()} is given twice ({options[key.strip()]!r} and {value.strip()!r}); "
                             "give it once.")
        options[key.strip()] = value.strip()
    return options


def _print_list() -> None:
    for spec in list_datasets():
        offline = "bundled" if spec.bundled else f"download {spec.download_size}"
        options = ", ".join(f"{k}={v}" for k, v in spec.options.items()) or "-"
        print(f"{spec.name:14s} {offline:26s} splits: {'/'.join(spec.splits):40s} options: {options}")
        print(f"{'':14s} {spec.title}")


def _report(hist: Any, info: dict[str, Any], out: str) -> None:
    save_histogram(hist, out)
    stats = hist.stats()
    print(f"{info['dataset']} [{info['split']}] ({info['source']}): {hist.num_graphs} graphs, "
          f"{hist.num_tuples} tuples, at most {stats['largest_nodes']} nodes / {stats['largest_edges']} edges "
          f"({info['seconds']:.2f} s) -> {out}")
    print(info["provenance"])
    if info.get("warning"):
        print(f"warning: {info['warning']}", file=sys.stderr)


_TABLE_OUT = (".csv", ".parquet")  # what a histogram is written as
_SHARD_LINES = 20  # shards with unparsable SMILES listed on the terminal
_NAME_ONLY = {"split": "--split", "option": "--option", "no_bundled": "--no-bundled", "no_cache": "--no-cache",
              "no_download": "--no-download"}
_INPUT_ONLY = {"column": "--column", "hydrogens": "--hydrogens", "scheduler": "--scheduler", "workers": "--workers",
               "shard_report": "--shard-report"}


def _check_histogram_args(args: argparse.Namespace) -> None:
    """``histogram`` takes a data set NAME or ``--input``, each with its own options."""
    if args.name and args.input:
        raise ValueError(f"give a data set NAME or --input GLOB, not both (got {args.name!r} and --input).")
    if not args.name and not args.input:
        raise ValueError("give a data set NAME (see 'python -m data_loaders list') or sharded files with "
                         "--input 'shards/*.parquet'.")
    wrong = _INPUT_ONLY if args.name else _NAME_ONLY
    given = [flag for field, flag in wrong.items() if getattr(args, field) not in (None, False, [])]
    if given:
        owner = "--input" if args.name else "a data set NAME"
        raise ValueError(f"{', '.join(given)} only {'applies' if len(given) == 1 else 'apply'} to {owner}.")
    check_out(args.out, _TABLE_OUT, inputs=args.input or [])  # literal paths; globs are expanded on the workers
    check_out(args.shard_report, (".csv",), "--shard-report", inputs=args.input or [])


def _check_file_flags(args: argparse.Namespace, info: dict[str, Any]) -> None:
    """``file``'s --k and --hydrogens apply to AFLOW exports and SMILES only: refused for a
    file they would not change (its ``info["options"]`` says what it used)."""
    given = {"k": ("--k", args.k is not None), "hydrogens": ("--hydrogens", args.hydrogens)}
    unused = [flag for option, (flag, set_) in given.items() if set_ and option not in info["options"]]
    if unused:
        raise ValueError(f"{' and '.join(unused)} {'does' if len(unused) == 1 else 'do'} not apply to "
                         f"{args.path} ({info['provenance'].split(': ', 1)[-1].rstrip('.')}): --k is for AFLOW "
                         "exports, --hydrogens for SMILES; leave it out.")


@contextmanager
def _cluster(args: argparse.Namespace) -> Iterator[Client]:
    """The Dask client that ``--scheduler`` / ``--workers`` ask for; its dashboard link on stderr."""
    with dask_client(args.scheduler, args.workers) as client:
        print(f"Dask dashboard: {client.dashboard_link}", file=sys.stderr, flush=True)
        yield client


def _cluster_sweep(args: argparse.Namespace) -> None:
    """``sweep``: ``python -m packing sweep`` with the cells packed by a Dask cluster's
    workers (the same table); the grid is checked before a cluster starts."""
    check_out(args.out, inputs=[args.histogram])
    hist = load_size_table(args.histogram)
    request = sweep_request(args, hist)
    with _cluster(args) as client:
        frame = cluster_sweep(hist, *request, client=client,
                              progress=ProgressBar("sweeping", "limit pairs").count)
    report_sweep(args, frame)


def _sharded(args: argparse.Namespace) -> None:
    """``histogram --input``: the histogram of the shards, computed on a Dask cluster."""
    ShardFormat(args.column, args.hydrogens)  # refuse bad options before a cluster starts
    if args.scheduler is None:  # a local cluster sees this file system: no match is said before it starts
        shard_paths(args.input)
    with _cluster(args) as client:
        hist, info = sharded_histogram(args.input, column=args.column, hydrogens=args.hydrogens, client=client,
                                       progress=ProgressBar("reading shards", "shards").count)
    _report(hist, info, args.out)
    with_invalid = [shard for shard in info["shards"] if shard["invalid"]]
    for shard in with_invalid[:_SHARD_LINES]:
        print(f"  {shard['shard']}: {shard['invalid']:,} of {shard['rows']:,} SMILES could not be parsed "
              f"({'; '.join(shard['invalid_examples'])})")
    if len(with_invalid) > _SHARD_LINES:
        print(f"  ... and {len(with_invalid) - _SHARD_LINES:,} more shards with unparsable SMILES"
              + ("" if args.shard_report else " (--shard-report lists them all)"))
    if args.shard_report:
        frame = pd.DataFrame(info["shards"])
        frame["invalid_examples"] = frame["invalid_examples"].map("; ".join)
        write_frame(frame, args.shard_report)
        print(f"report per shard -> {args.shard_report}")


def _cluster_arguments(group: argparse._ActionsContainer) -> None:
    group.add_argument("--scheduler", metavar="ADDRESS", help="a running Dask scheduler, e.g. tcp://host:8786 "
                       "(default: a local cluster on this machine)")
    group.add_argument("--workers", type=int, help="workers of the local cluster (default: one per core)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m data_loaders``."""
    parser = argparse.ArgumentParser(
        prog="python -m data_loaders", description="Size histograms of graph data sets.",
        epilog=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="list the data sets, their splits and options")
    hist = commands.add_parser("histogram", help="write the size histogram of a data set, or of sharded files "
                               "computed on a Dask cluster (--input)")
    hist.add_argument("name", nargs="?", help="data set name (see 'list'); or give --input instead")
    hist.add_argument("--split", help="split (default: train, or 'all')")
    hist.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                      help="data set option, repeatable (e.g. graph=radius, cutoff=4.0, k=12)")
    hist.add_argument("--out", required=True, help="output file, .csv or .parquet")
    hist.add_argument("--no-bundled", action="store_true", help="ignore shipped profiles")
    hist.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    hist.add_argument("--no-download", action="store_true", help="fail instead of downloading")
    shards = hist.add_argument_group("sharded files on a Dask cluster (instead of NAME)")
    shards.add_argument("--input", metavar="GLOB", nargs="+", help="shard files, e.g. 'shards/*.parquet' (quoted, the "
                        "glob is expanded where the workers run; paths the shell expanded are taken too): CSV, TSV "
                        "or Parquet (.gz allowed) with num_nodes,num_edges[,count], or SMILES with --column")
    shards.add_argument("--column", help="the column holding SMILES; sizes are computed per shard with RDKit")
    shards.add_argument("--hydrogens", action="store_true", help="count hydrogens of SMILES molecules as nodes")
    _cluster_arguments(shards)
    shards.add_argument("--shard-report", metavar="CSV", help="also write one row per shard: rows, graphs, "
                        "unparsable SMILES and examples")
    grid = commands.add_parser("sweep", help="a limit sweep, as 'python -m packing sweep', with its cells packed on "
                               "a Dask cluster")
    add_sweep_arguments(grid)
    _cluster_arguments(grid)
    user = commands.add_parser("file", help="histogram of a local file (sizes, SMILES, AFLOW, PyG)")
    user.add_argument("path", help="CSV/TSV/Parquet/SMILES/JSON file, or a saved PyG data set with --pyg")
    user.add_argument("--pyg", action="store_true", help="PATH is a saved PyG InMemoryDataset (.pt or root)")
    user.add_argument("--hydrogens", action="store_true", help="count hydrogens of SMILES molecules")
    user.add_argument("--k", type=int, help=f"neighbours per atom for AFLOW crystals (default {DEFAULT_K})")
    user.add_argument("--out", required=True, help="output file, .csv or .parquet")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (2: bad input or a file that cannot be
    read or written, 3: needs a download)."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "list":
            _print_list()
        elif args.command == "histogram":
            _check_histogram_args(args)
            if args.input:
                _sharded(args)
            else:
                hist, info = load_histogram(
                    args.name, args.split or "train", use_bundled=not args.no_bundled, use_cache=not args.no_cache,
                    allow_download=not args.no_download, **_parse_options(args.option))
                _report(hist, info, args.out)
        elif args.command == "sweep":
            _cluster_sweep(args)
        else:
            check_out(args.out, _TABLE_OUT, inputs=[args.path])
            hist, info = load_pyg_dataset(args.path) if args.pyg else \
                load_user_file(args.path, hydrogens=args.hydrogens, k=DEFAULT_K if args.k is None else args.k)
            _check_file_flags(args, info)
            _report(hist, info, args.out)
    except DatasetUnavailableError as error:
        print(f"error: {error}", file=sys.stderr)
        return 3
    except ValueError as error:
        print(f"error: {flag_named(error, OPTION_FLAGS, args)}", file=sys.stderr)
        return 2
    except OSError as error:
        if type(error).__module__.startswith("distributed"):  # the cluster's connection, not a file
            print(f"error: {task_failure_words(error)}", file=sys.stderr)
        else:
            print(f"error: {error}. Check that the input file is readable and that the output folder exists "
                  "and is writable.", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted (an output file is written whole or not at all)", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
