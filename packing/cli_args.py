"""What the command lines of every package share: the output file check, the option names
in messages, the arguments of a limit sweep (``python -m packing sweep`` and ``python -m
data_loaders sweep`` on a Dask cluster) and of a recommendation (``python -m packing
recommend`` and ``python -m throughput recommend``), and the progress bar on stderr
(:class:`ProgressBar`, from ``tqdm``).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple, Sequence, TextIO

import pandas as pd
from tqdm import tqdm

from .heuristics import HEURISTICS
from .histogram import SizeHistogram
from .io import write_frame, write_replacing
from .limits import DEFAULT_MAX_GRAPHS
from .method import ALL_ALGORITHMS, BEST_FIT, ONE_DIM_ALGORITHMS, PUBLISHED, TUPLE_ALGORITHMS, WEIGHTED, PackMethod
from .published import PAPER_MIN
from .recommend_cli import add_recommend_arguments, run_recommend
from .sweep import default_limits, limit_grid, smallest_limits, sweep_cells

__all__ = ["HISTOGRAM_HELP", "OPTION_FLAGS", "ProgressBar", "SweepRequest", "add_recommend_arguments", "add_sweep_arguments",
           "check_out", "flag_named", "method_of", "method_options", "report_sweep", "run_recommend", "sweep_request",
           "write_table"]


class SweepRequest(NamedTuple):
    """The positional arguments of :func:`packing.sweep` after the histogram."""

    node_limits: list[int]
    edge_limits: list[int]
    max_graphs: int
    method: PackMethod


class ProgressBar:
    """A ``tqdm`` bar on stderr (one line updated in place), fed by the progress callbacks of
    the engine, the Dask builder and the calibration: :meth:`count` for ``done`` of
    ``total``, :meth:`fraction` for a share done. Nothing shows before ``delay`` seconds (a
    quicker run prints nothing); the bar ends when ``done`` reaches ``total``.

    >>> import io
    >>> log = io.StringIO()
    >>> bar = ProgressBar("sweeping", "pairs", file=log)
    >>> for done in (256, 512, 600):
    ...     bar.count(done, 600, "limit pairs packed")
    >>> log.getvalue().rstrip().rsplit("\\r", 1)[-1].split("|")[0]
    'sweeping: 100%'
    """

    def __init__(self, what: str, unit: str = "it", delay: float = 0.0, file: TextIO | None = None) -> None:
        self.what, self.unit, self.delay, self.file = what, unit, delay, file
        self._bar: tqdm | None = None
        self._format: str | None = None  # tqdm's own: done/total, elapsed and rate

    def count(self, done: int, total: int, note: str = "") -> None:
        """``done`` of ``total`` done; ``note`` is shown after the bar."""
        if self._bar is None:
            self._bar = tqdm(total=total, desc=self.what, unit=self.unit, delay=self.delay,
                             file=self.file or sys.stderr, dynamic_ncols=True, bar_format=self._format)
        if note:
            self._bar.set_postfix_str(note, refresh=False)
        self._bar.update(done - self._bar.n)
        if done >= total:
            self._bar.close()

    def fraction(self, share: float, note: str = "") -> None:
        """``share`` (0 to 1) done, shown as a percentage and the time so far."""
        self._format = "{l_bar}{bar}| {elapsed}{postfix}"
        self.count(round(1000 * min(max(share, 0.0), 1.0)), 1000, note)


HISTOGRAM_HELP = (
    "size table (.csv, .tsv or .parquet, .gz allowed) with columns num_nodes,num_edges,count "
    "(or num_nodes,num_edges with one row per graph)"
)


def check_out(path: str | Path | None, suffixes: tuple[str, ...] = (".csv", ".json"), flag: str = "--out",
              inputs: Sequence[str | Path | None] = ()) -> None:
    """Check an output file before any work is done: it ends in one of ``suffixes``, its
    folder exists and can be written, and it is none of the command's ``inputs`` (writing
    would replace the user's data); the command lines of every package use this.

    Args:
        path: the file asked for, or None when none was.
        suffixes: the file types the command writes.
        flag: the option that named the file, for the message.
        inputs: the files the command reads (None for one not given).

    Raises:
        ValueError: another file type, a folder, a folder that does not exist or cannot be
            written, or an input file.

    >>> check_out("table.csv"), check_out(None)
    (None, None)
    >>> check_out("table.txt")
    Traceback (most recent call last):
    ...
    ValueError: --out must end in .csv or .json, got 'table.txt'.
    >>> check_out("no/such/folder/report.html", (".html", ".pdf"))
    Traceback (most recent call last):
    ...
    ValueError: --out no/such/folder/report.html: the folder no/such/folder does not exist; create it or choose another.
    """
    if path is None:
        return
    path = Path(path)
    if path.suffix not in suffixes:
        raise ValueError(f"{flag} must end in {' or '.join(suffixes)}, got {path.name!r}.")
    if path.is_dir():
        raise ValueError(f"{flag} {path} is a folder; give a file name in it, e.g. {path / ('out' + suffixes[0])}.")
    if not path.parent.is_dir():
        raise ValueError(f"{flag} {path}: the folder {path.parent} does not exist; create it or choose another.")
    try:
        with tempfile.TemporaryFile(dir=path.parent):  # the folder takes a new file (os.access trusts /proc)
            pass
    except OSError as error:
        raise ValueError(f"{flag} {path}: the folder {path.parent} takes no new file ({error.strerror or error}); "
                         "choose another.") from None
    if any(source is not None and Path(source).exists() and Path(source).resolve() == path.resolve()
           for source in inputs):
        raise ValueError(f"{flag} {path} is a file this command reads; writing it would replace it. Choose another "
                         "path.")


#: the API's argument names that the command lines' options set, for their messages
OPTION_FLAGS = {"num_shapes": "--buckets", "time_budget": "--prove-seconds", "batch_size": "--batch-size",
                "steps": "--steps", "epochs": "--epochs", "devices": "--devices", "seed": "--seed",
                "packs_per_batch": "--packs-per-batch", "workers": "--workers", "seconds": "--seconds",
                "max_nodes": "--max-nodes", "max_edges": "--max-edges", "max_graphs": "--max-graphs",
                "weights": "--weights", "baseline": "--baseline"}


def flag_named(error: Exception, flags: dict[str, str], given: argparse.Namespace) -> Exception:
    """``error`` with the argument its message starts with (``num_shapes must ...``) named
    by the command line's option for it (``--buckets must ...``), where that option was
    given (``given``: the parsed command line; a value from elsewhere, e.g. a configuration
    file, keeps the argument's name); other errors as they are.

    >>> error = ValueError("num_shapes must lie between 1 and 16, got 0.")
    >>> str(flag_named(error, {"num_shapes": "--buckets"}, argparse.Namespace(buckets=0)))
    '--buckets must lie between 1 and 16, got 0.'
    >>> str(flag_named(error, {"num_shapes": "--buckets"}, argparse.Namespace(buckets=None)))
    'num_shapes must lie between 1 and 16, got 0.'
    """
    name, _, rest = str(error).partition(" ")
    flag = flags.get(name) if isinstance(error, ValueError) else None
    if flag is None or getattr(given, flag.removeprefix("--").replace("-", "_"), None) is None:
        return error
    return ValueError(f"{flag} {rest}")


def _int_list(text: str) -> list[int]:
    """Parse ``"100,200,300"`` or a range ``"100:420:50"`` (start:stop:step; stop always
    included, by the same rule as the dashboard: :func:`packing.limit_grid`)."""
    if ":" in text:
        try:
            start, stop, step = (int(v) for v in text.split(":"))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a range start:stop:step like 100:400:50") from None
        try:
            return limit_grid(start, stop, step)
        except ValueError as error:
            raise argparse.ArgumentTypeError(f"{text!r}: {error}") from None
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        values = []
    if not values:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list like 100,200,300 or a range like 100:400:50")
    return values


def method_options(parser: argparse.ArgumentParser, algorithms: tuple[str, ...], max_graphs: bool = True,
                   what: str = "") -> None:
    """The options that choose a packing method (and, unless ``max_graphs`` is False, the
    graph limit with its default); with every algorithm, also the baselines' 1D algorithm
    and exact fill. ``what`` starts every help text (``"packing row: "``)."""
    if max_graphs:
        parser.add_argument("--max-graphs", type=int, default=DEFAULT_MAX_GRAPHS,
                            help=f"graphs per pack at most (default {DEFAULT_MAX_GRAPHS})")
    parser.add_argument("--algorithm", default=BEST_FIT, choices=algorithms,
                        help=what + "best_fit | worst_fit | first_fit tuple packing, published: the algorithm of Krell "
                             "et al. (2022) as published" + (
                            ", a baseline (none, node_only, edge_only), best: every heuristic and algorithm, "
                            "fewest packs wins, then exact fill, or lp_rounding: the LP relaxation (column "
                            "generation) rounded, the rest by best" if len(algorithms) > len(TUPLE_ALGORITHMS) + 1
                            else "")
                        + " (default best_fit)")
    parser.add_argument("--heuristic", choices=[*HEURISTICS, WEIGHTED, PAPER_MIN],
                        help=what + "order of the graphs for tuple packing, largest first (default product); worst_fit "
                             "and published also rank open packs by the heuristic of their room, best_fit by the "
                             "room on their tighter side; paper_min: "
                             "the published code's min, which computes the maximum (published only)")
    parser.add_argument("--weights", type=float, nargs=2, metavar=("NODE_W", "EDGE_W"),
                        help=what + "weights for --heuristic weighted: NODE_W*nodes + EDGE_W*edges")
    if algorithms == ALL_ALGORITHMS:
        parser.add_argument("--one-dim", choices=ONE_DIM_ALGORITHMS,
                            help=what + "1D algorithm of the node_only / edge_only baselines (default lpfhp)")
        parser.add_argument("--improve", action="store_true",
                            help=what + "re-pack the packs greedy packing left with slack by exact fill (tuple packing)")


def add_sweep_arguments(grid: argparse.ArgumentParser) -> None:
    """The arguments of a limit sweep (size table, grid, method, report), which
    ``python -m packing sweep`` and ``python -m data_loaders sweep`` (on a Dask cluster) share.

    >>> parser = argparse.ArgumentParser()
    >>> add_sweep_arguments(parser)
    >>> parser.parse_args(["hist.csv", "--nodes", "10:30:10"]).nodes
    [10, 20, 30]
    """
    grid.add_argument("histogram", type=Path, help=HISTOGRAM_HELP)
    grid.add_argument("--nodes", type=_int_list,
                      help="node limits: 100,200 or start:stop:step, stop included "
                           "(default: largest graph to 4x, 12 steps)")
    grid.add_argument("--edges", type=_int_list, help="edge limits, same forms as --nodes")
    method_options(grid, (*TUPLE_ALGORITHMS, PUBLISHED))
    grid.add_argument("--min-efficiency", type=float, default=0.95,
                      help="report the smallest limits whose node and edge efficiency both reach this fraction "
                           "(default 0.95)")
    grid.add_argument("--out", type=Path, help="write the sweep table as .csv or .json")


def _plain(value: object) -> object:
    """A numpy scalar as its Python number, anything else JSON does not know as text."""
    return value.item() if hasattr(value, "item") else str(value)


def write_table(frame: pd.DataFrame, path: Path) -> None:
    """Write a table to ``path`` (checked first, :func:`check_out`): ``.json`` as a list of
    rows (NaN and infinity as null, every digit kept), else as :func:`packing.io.write_frame` writes it."""
    check_out(path)
    if path.suffix == ".json":
        finite = frame.replace([float("inf"), float("-inf")], float("nan"))
        rows = finite.astype(object).where(finite.notna(), None).to_dict(orient="records")  # NaN, inf: null
        write_replacing(path, json.dumps(rows, indent=1, default=_plain) + "\n")  # every digit, as the CSV
    else:
        write_frame(frame, path)


def method_of(args: argparse.Namespace) -> PackMethod:
    """The packing method that :func:`method_options`' arguments ask for."""
    return PackMethod(args.algorithm, args.heuristic, getattr(args, "one_dim", None),
                      tuple(args.weights) if args.weights else None, getattr(args, "improve", False) or None)


def sweep_request(args: argparse.Namespace, hist: SizeHistogram) -> SweepRequest:
    """The sweep that :func:`add_sweep_arguments`' arguments ask for on ``hist``, checked
    (``ValueError`` for a bad grid or method), so a cluster need not start for a bad one.

    >>> parser = argparse.ArgumentParser()
    >>> add_sweep_arguments(parser)
    >>> request = sweep_request(parser.parse_args(["h.csv", "--nodes", "8,4"]), SizeHistogram.from_sizes([3], [4]))
    >>> request.node_limits, request.edge_limits[:3], request.method.algorithm
    ([8, 4], [4, 5, 6], 'best_fit')
    >>> sweep_request(parser.parse_args(["h.csv", "--nodes", "2"]), SizeHistogram.from_sizes([3], [4]))
    Traceback (most recent call last):
    ...
    ValueError: No limit pair of the grid holds the largest graph (3 nodes, 4 edges), so no cell could be packed: \
raise --nodes to at least 3.
    """
    if not 0 < args.min_efficiency <= 1:
        raise ValueError(f"--min-efficiency is a fraction above 0 and at most 1 (0.95 means 95 %), "
                         f"got {args.min_efficiency:g}.")
    nodes, edges = default_limits(hist)
    request = SweepRequest(nodes if args.nodes is None else args.nodes, edges if args.edges is None else args.edges,
                           args.max_graphs, method_of(args))
    sweep_cells(*request)
    short = [f"raise --{flag} to at least {largest:,}" for flag, limits, largest in
             (("nodes", request.node_limits, hist.largest_nodes), ("edges", request.edge_limits, hist.largest_edges))
             if max(limits) < largest]
    if short:
        raise ValueError(f"No limit pair of the grid holds the largest graph ({hist.largest_nodes:,} nodes, "
                         f"{hist.largest_edges:,} edges), so no cell could be packed: {' and '.join(short)}.")
    return request


def report_sweep(args: argparse.Namespace, frame: pd.DataFrame) -> None:
    """Print the sweep's best and smallest-efficient cells as JSON; write the table to ``--out``.

    >>> from packing import sweep
    >>> frame = sweep(SizeHistogram.from_sizes([3], [4]), [4], [4], workers=1)
    >>> report_sweep(argparse.Namespace(min_efficiency=0.7, out=None), frame)  # doctest: +ELLIPSIS
    {
     "pairs": 1,
     "best_harmonic_mean": {
      "max_nodes": 4,...
    """
    best = frame.loc[frame["harmonic_mean"].idxmax()] if frame["feasible"].any() else None
    smallest = smallest_limits(frame, args.min_efficiency)
    report = {
        "pairs": len(frame),
        "best_harmonic_mean": None if best is None else best.to_dict(),
        f"smallest_limits_at_{args.min_efficiency:g}": None if smallest is None else smallest.to_dict(),
    }
    print(json.dumps(report, indent=1, default=float))
    if args.out is not None:
        write_table(frame, args.out)
