"""Command line: ``python -m data_loaders list | histogram NAME ... | file PATH ...``.

Examples::

    python -m data_loaders list
    python -m data_loaders histogram ogbg-molhiv --split train --out molhiv_train.csv
    python -m data_loaders histogram qm9 --option graph=radius --option cutoff=4 --out qm9.parquet
    python -m data_loaders file my_molecules.smi --out mine.csv
    python -m data_loaders file /data/my_pyg_root --pyg --out mine.csv
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from .api import load_histogram
from .errors import DatasetUnavailableError
from .pyg_sizes import load_pyg_dataset
from .registry import list_datasets
from .user_files import load_user_file


def _parse_options(pairs: list[str]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--option expects key=value, got {pair!r}.")
        options[key.strip()] = value.strip()
    return options


def _print_list() -> None:
    for spec in list_datasets():
        offline = "bundled" if spec.bundled else f"download {spec.download_size}"
        options = ", ".join(f"{k}={v}" for k, v in spec.options.items()) or "-"
        print(f"{spec.name:14s} {offline:26s} splits: {'/'.join(spec.splits):40s} options: {options}")
        print(f"{'':14s} {spec.title}")


def _report(hist: Any, info: dict[str, Any], out: str) -> None:
    hist.save(out)
    stats = hist.stats()
    print(f"{info['dataset']} [{info['split']}] from {info['source']}: {hist.num_graphs} graphs, "
          f"{hist.num_tuples} tuples, max {stats['max_nodes']} nodes / {stats['max_edges']} edges "
          f"({info['seconds']:.2f} s) -> {out}")
    print(info["provenance"])


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m data_loaders``."""
    parser = argparse.ArgumentParser(
        prog="python -m data_loaders", description="Size histograms of graph data sets.",
        epilog=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="list the data sets, their splits and options")
    hist = commands.add_parser("histogram", help="write the size histogram of a data set")
    hist.add_argument("name", help="data set name (see 'list')")
    hist.add_argument("--split", default="train", help="split (default: train, or 'all')")
    hist.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                      help="data set option, repeatable (e.g. graph=radius, cutoff=4.0, k=12)")
    hist.add_argument("--out", required=True, help="output file, .csv or .parquet")
    hist.add_argument("--no-bundled", action="store_true", help="ignore shipped profiles")
    hist.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    hist.add_argument("--no-download", action="store_true", help="fail instead of downloading")
    user = commands.add_parser("file", help="histogram of a local file (sizes, SMILES, AFLOW, PyG)")
    user.add_argument("path", help="CSV/TSV/Parquet/SMILES/JSON file, or a saved PyG data set with --pyg")
    user.add_argument("--pyg", action="store_true", help="PATH is a saved PyG InMemoryDataset (.pt or root)")
    user.add_argument("--hydrogens", action="store_true", help="count hydrogens of SMILES molecules")
    user.add_argument("--k", type=int, default=24, help="neighbours per atom for AFLOW crystals")
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
            if not args.out.endswith((".csv", ".parquet")):
                raise ValueError("--out must end with .csv or .parquet.")
            hist, info = load_histogram(
                args.name, args.split, use_bundled=not args.no_bundled, use_cache=not args.no_cache,
                allow_download=not args.no_download, **_parse_options(args.option))
            _report(hist, info, args.out)
        else:
            if not args.out.endswith((".csv", ".parquet")):
                raise ValueError("--out must end with .csv or .parquet.")
            hist, info = load_pyg_dataset(args.path) if args.pyg else \
                load_user_file(args.path, hydrogens=args.hydrogens, k=args.k)
            _report(hist, info, args.out)
    except DatasetUnavailableError as error:
        print(f"error: {error}", file=sys.stderr)
        return 3
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: {error}. Check that the input file is readable and that the output folder exists "
              "and is writable.", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
