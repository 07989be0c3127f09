"""Command line: ``python -m packing stats|pack|compare|sweep|batching|recommend`` on a size table (CSV, TSV or
Parquet).

Errors in the input end with ``error: ...`` on stderr and exit status 2, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, NamedTuple, Sequence

import pandas as pd

from .api import as_limits, pack
from .compare import compare
from .batching import (DEFAULT_BUCKETS, add_packs_per_batch, batching_section, compare_batching, default_requests,
                       packs_per_batch, short_run_note)
from .bounds import Bounds, lower_bounds
from .column_generation import DEFAULT_TIME_BUDGET, MAX_TIME_BUDGET
from .export import WHOLE_TABLE, export_config, save_config
from .files import write_frame, write_replacing
from .heuristics import HEURISTICS
from .histogram import SizeHistogram
from .limits import DEFAULT_MAX_GRAPHS, PackLimits
from .packs import Items
from .plan import PackingPlan
from .recommend_cli import add_recommend_arguments, run_recommend
from .method import ALL_ALGORITHMS, BEST_FIT, ONE_DIM_ALGORITHMS, PUBLISHED, TUPLE_ALGORITHMS, WEIGHTED, PackMethod
from .published import PAPER_MIN
from .size_table import load_size_table
from .sweep import MAX_WORKERS, default_limits, limit_grid, smallest_limits, sweep, sweep_cells


class SweepRequest(NamedTuple):
    """The positional arguments of :func:`packing.sweep` after the histogram."""

    node_limits: list[int]
    edge_limits: list[int]
    max_graphs: int
    method: PackMethod


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


def _method_options(parser: argparse.ArgumentParser, algorithms: tuple[str, ...], max_graphs: bool = True,
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


def _limit_options(parser: argparse.ArgumentParser) -> None:
    """The size table and the node and edge limits of one packing (the graph limit comes
    with :func:`_method_options`)."""
    parser.add_argument("histogram", type=Path, help=HISTOGRAM_HELP)
    parser.add_argument("--max-nodes", type=int, help="nodes per pack at most (default: largest graph)")
    parser.add_argument("--max-edges", type=int, help="edges per pack at most (default: largest graph)")


def _prove_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--prove", action="store_true",
                        help="also compute the LP lower bound by column generation (seconds; progress on stderr), "
                             "so the gap is measured against the best proven bound")
    parser.add_argument("--prove-seconds", type=float, metavar="SECONDS",
                        help=f"time budget of --prove (default {DEFAULT_TIME_BUDGET:g}, at most "
                             f"{MAX_TIME_BUDGET:g}); the bound is valid when the budget stops it early")


def _check_prove(args: argparse.Namespace) -> None:
    if args.prove_seconds is not None and not args.prove:
        raise ValueError("--prove-seconds is the time budget of --prove; add --prove, or leave it out.")


def _proved_bounds(args: argparse.Namespace, hist: SizeHistogram, limits: PackLimits,
                   packs: Sequence[tuple[Items, int]] | None = None) -> Bounds | None:
    """The bounds ``--prove`` asks for (None without it; ``packs``, a plan's, seed the LP),
    the LP's progress on stderr."""
    if not args.prove:
        return None
    return lower_bounds(hist, limits, prove=True, time_budget=args.prove_seconds, progress=_progress_on_stderr(),
                        packs=packs)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m packing",
        description="Pack small graphs into fixed-size packs by their (nodes, edges) histogram.",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    stats = commands.add_parser("stats", help="dataset statistics (Table 1 of the tuple packing paper)")
    stats.add_argument("histogram", type=Path, help=HISTOGRAM_HELP)

    one = commands.add_parser("pack", help="pack once and print or write the plan")
    _limit_options(one)
    _method_options(one, ALL_ALGORITHMS)
    _prove_options(one)
    one.add_argument("--out", type=Path,
                     help="write the full plan: .json (the configuration the dashboard exports, schema in "
                          "packing/export.py) or .csv (one row per distinct pack); without it a summary is "
                          "printed as JSON")
    one.add_argument("--dataset", help="with --out .json: the dataset the size table holds, as the configuration, "
                                       "its report and its training snippet name it (a registered name such as "
                                       "ogbg-molhiv picks the snippet's loss; default: the table's file name)")
    one.add_argument("--split", help=f"with --out .json: the split the size table holds (default: {WHOLE_TABLE})")

    table = commands.add_parser("compare", help="every heuristic x algorithm, the published algorithm, best of all "
                                                "and the baselines at one set of limits (Table 2 layout)")
    _limit_options(table)
    _method_options(table, ALL_ALGORITHMS, what="the chosen method, a last row where no row above is it: ")
    _prove_options(table)
    table.add_argument("--out", type=Path, help="write the table as .csv or .json")

    grid = commands.add_parser("sweep", help="pack for every (max nodes, max edges) pair of a grid")
    add_sweep_arguments(grid)
    grid.add_argument("--workers", type=int,
                      help=f"processes, 1 to {MAX_WORKERS} (default: up to 4 cores for large grids)")
    _add_batching(commands)
    add_recommend_arguments(commands.add_parser(
        "recommend", help="the pack limits and packs per step with the highest real share of the padded steps at "
                          "your batch size (python -m throughput recommend prices them on a device instead)"),
        HISTOGRAM_HELP)
    return parser


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
    _method_options(grid, (*TUPLE_ALGORITHMS, PUBLISHED))
    grid.add_argument("--min-efficiency", type=float, default=0.95,
                      help="report the smallest limits whose node and edge efficiency both reach this fraction "
                           "(default 0.95)")
    grid.add_argument("--out", type=Path, help="write the sweep table as .csv or .json")


def _plain(value: object) -> object:
    """A numpy scalar as its Python number, anything else JSON does not know as text."""
    return value.item() if hasattr(value, "item") else str(value)


def _write_table(frame, path: Path) -> None:
    check_out(path)
    if path.suffix == ".json":
        finite = frame.replace([float("inf"), float("-inf")], float("nan"))
        rows = finite.astype(object).where(finite.notna(), None).to_dict(orient="records")  # NaN, inf: null
        write_replacing(path, json.dumps(rows, indent=1, default=_plain) + "\n")  # every digit, as the CSV
    else:
        write_frame(frame, path)


def _method(args: argparse.Namespace) -> PackMethod:
    return PackMethod(args.algorithm, args.heuristic, getattr(args, "one_dim", None),
                      tuple(args.weights) if args.weights else None, getattr(args, "improve", False) or None)


#: Seconds between progress lines on stderr, and that packing and sweeps run silent first:
#: a run that ends sooner prints none (a person notices a pause from about 2 s).
PROGRESS_EVERY_S = 2.0


def _progress_on_stderr(what: str = "proving", silent_first: bool = False) -> Callable[[float, str], None]:
    """Report progress on stderr as ``what: 42% message``, at most every
    ``PROGRESS_EVERY_S`` seconds and once at the end; with ``silent_first``, nothing
    before ``PROGRESS_EVERY_S`` seconds (so quick runs print nothing at all)."""
    start = time.perf_counter()
    last = [start]

    def report(fraction: float, message: str) -> None:
        now = time.perf_counter()
        if silent_first and now - start < PROGRESS_EVERY_S:
            return
        if fraction >= 1.0 or now - last[0] >= PROGRESS_EVERY_S:
            print(f"{what}: {fraction:4.0%} {message}", file=sys.stderr, flush=True)
            last[0] = now
    return report


def _sweep_progress_on_stderr() -> Callable[[int, int], None]:
    """:func:`_progress_on_stderr` for :func:`packing.sweep`'s ``progress(done, total)``."""
    report = _progress_on_stderr("sweeping", silent_first=True)
    return lambda done, total: report(done / total, f"{done:,} of {total:,} limit pairs packed")


def _pack(args: argparse.Namespace, hist: SizeHistogram) -> None:
    _check_prove(args)
    named = [flag for flag, value in (("--dataset", args.dataset), ("--split", args.split)) if value is not None]
    if named and (args.out is None or args.out.suffix != ".json"):
        raise ValueError(f"{' and '.join(named)} name{'s' if len(named) == 1 else ''} the dataset of a .json "
                         "configuration; add --out plan.json, "
                         "or leave them out.")
    limits = as_limits(hist, max_nodes=args.max_nodes, max_edges=args.max_edges, max_graphs=args.max_graphs)
    plan = pack(hist, limits, _method(args), progress=_progress_on_stderr("packing", silent_first=True))
    plan.check(hist)
    if args.prove:
        if not plan.method.keeps_limits:
            raise ValueError(f"--prove bounds plans that keep every limit; {plan.method.label} breaks one.")
        plan = plan.with_bounds(_proved_bounds(args, hist, limits, plan.packs))
    if args.out is None:
        print(json.dumps(plan.summary(), indent=1))
    elif args.out.suffix == ".json":
        info = {"dataset": args.dataset or args.histogram.stem, "split": args.split or WHOLE_TABLE,
                "source": "user file", "provenance": f"Size table {args.histogram}."}
        save_config(export_config(plan, hist, info), args.out)
    else:
        _write_table(plan.to_frame(), args.out)
    if args.out is not None:
        print(f"wrote {args.out}: {plan_words(plan)}")


def plan_words(plan: PackingPlan) -> str:
    """A plan in one line: packs, method, limits, efficiencies, bound and gap.

    >>> from packing import PackLimits, SizeHistogram, pack
    >>> plan_words(pack(SizeHistogram.from_sizes([3, 2, 3], [4, 2, 4]), PackLimits(5, 6, 4)))
    '2 packs (best fit, product heuristic; 5 nodes, 6 edges, 4 graphs): node efficiency 80.00%, edge efficiency 83.33%, harmonic mean 81.63%; lower bound 2 (volume bound), gap 0.00%'
    """
    limits = plan.limits
    return (f"{plan.num_packs:,} packs ({plan.label}; {limits.max_nodes:,} nodes, {limits.max_edges:,} edges, "
            f"{limits.max_graphs:,} graphs): node efficiency {plan.node_efficiency:.2%}, edge efficiency "
            f"{plan.edge_efficiency:.2%}, harmonic mean {plan.harmonic_mean:.2%}; lower bound {plan.lower_bound:,} "
            f"({plan.bounds.label}), gap {plan.gap:.2%}")


def _compare(args: argparse.Namespace, hist: SizeHistogram) -> None:
    """Print the Table 2 layout of :func:`packing.compare` (the chosen method last, where no
    row above is it); write it to ``--out``."""
    _check_prove(args)
    limits = as_limits(hist, max_nodes=args.max_nodes, max_edges=args.max_edges, max_graphs=args.max_graphs)
    bounds = _proved_bounds(args, hist, limits)
    method = _method(args)
    table = compare(hist, limits, one_dim=method.one_dim or "lpfhp", bounds=bounds, chosen=pack(hist, limits, method))
    print(table.drop(columns=["heuristic", "algorithm"]).to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    if args.out is not None:
        _write_table(table, args.out)


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
                           args.max_graphs, _method(args))
    sweep_cells(*request)
    short = [f"raise --{flag} to at least {largest:,}" for flag, limits, largest in
             (("nodes", request.node_limits, hist.max_nodes), ("edges", request.edge_limits, hist.max_edges))
             if max(limits) < largest]
    if short:
        raise ValueError(f"No limit pair of the grid holds the largest graph ({hist.max_nodes:,} nodes, "
                         f"{hist.max_edges:,} edges), so no cell could be packed: {' and '.join(short)}.")
    return request


def report_sweep(args: argparse.Namespace, frame: pd.DataFrame) -> None:
    """Print the sweep's best and smallest-efficient cells as JSON; write the table to ``--out``.

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
        _write_table(frame, args.out)


def _add_batching(commands) -> None:
    """The ``batching`` subcommand: :func:`packing.batching.compare_batching` on a size table."""
    compare = commands.add_parser(
        "batching", help="static, dynamic, PyG-style and bucket batching next to packing (padding, batches, shapes)")
    compare.add_argument("histogram", type=Path, help=HISTOGRAM_HELP)
    compare.add_argument("--batch-size", type=int, required=True, help="graphs per batch of the batching strategies")
    length = compare.add_mutually_exclusive_group()
    length.add_argument("--steps", type=int, help="optimizer steps to simulate (default: one epoch)")
    length.add_argument("--epochs", type=int, default=1, help="whole epochs to simulate when --steps is not given")
    compare.add_argument("--seed", type=int, default=0, help="seed of the epoch orders and of the dynamic sample")
    compare.add_argument("--devices", type=int, default=1, help="data-parallel devices, one batch each per step")
    compare.add_argument("--buckets", type=int, default=DEFAULT_BUCKETS,
                         help=f"shapes of the buckets strategy, 1 to 16 (default {DEFAULT_BUCKETS})")
    compare.add_argument("--max-nodes", type=int,
                         help="packing row: nodes per pack (default: the real room of the dynamic batching target "
                              "of Algorithm 1, its nodes less the padding node, so packs get the same padded shape "
                              "as dynamic batches)")
    compare.add_argument("--max-edges", type=int, help="packing row: edges per pack (default: the dynamic target)")
    compare.add_argument("--max-graphs", type=int,
                         help="packing row: graphs per pack (default: the batch size less the padding graph, B - 1)")
    _method_options(compare, ALL_ALGORITHMS, max_graphs=False, what="packing row: ")
    add_packs_per_batch(compare)
    compare.add_argument("--out", type=Path,
                         help="write the table: .csv (one row per strategy) or .json (the export's batching section: "
                              "the table with the run and each strategy's settings)")


def _batching(args: argparse.Namespace, hist: SizeHistogram) -> None:
    plan = None
    limit_flags = (args.max_nodes, args.max_edges, args.max_graphs)
    method = _method(args)
    if limit_flags != (None, None, None) or method != PackMethod():
        target = default_requests(hist, args.batch_size, None, args.seed)["packing"]["limits"]  # fits every graph
        limits = PackLimits(*(default if value is None else value
                              for value, default in zip(limit_flags, (target.max_nodes, target.max_edges, target.max_graphs))))
        plan = pack(hist, limits, method)
    table = compare_batching(hist, args.batch_size, plan, args.steps, args.seed, epochs=args.epochs,
                             devices=args.devices, num_shapes=args.buckets,
                             packs_per_batch=packs_per_batch(args, plan, args.batch_size))
    print(table.drop(columns="settings").to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    if short_run_note(table):
        print(f"\nnote: {short_run_note(table)}")
    if args.out is None:
        return
    if args.out.suffix == ".json":
        write_replacing(args.out, json.dumps(batching_section(table), indent=1) + "\n")
    else:
        _write_table(table, args.out)


def run(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 2 bad input).

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "h.csv")
    >>> from packing.size_table import save_histogram
    >>> _ = save_histogram(SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2]), path)
    >>> run(["stats", path])  # doctest: +ELLIPSIS
    {
     "graphs": 4,...
    0
    """
    args = build_parser().parse_args(argv)
    try:
        check_out(getattr(args, "out", None), inputs=[args.histogram])
        hist = load_size_table(args.histogram)
        if args.command == "stats":
            print(json.dumps(hist.stats(), indent=1))
        elif args.command == "pack":
            _pack(args, hist)
        elif args.command == "batching":
            _batching(args, hist)
        elif args.command == "compare":
            _compare(args, hist)
        elif args.command == "recommend":
            run_recommend(args, hist)
        else:
            report_sweep(args, sweep(hist, *sweep_request(args, hist), workers=args.workers,
                                     progress=_sweep_progress_on_stderr()))
    except (ValueError, OSError) as error:
        print(f"error: {flag_named(error, OPTION_FLAGS, args)}", file=sys.stderr)
        return 2
    return 0
