"""Command line: ``python -m packing stats|pack|compare|sweep|batching|recommend`` on a size table (CSV, TSV or
Parquet).

Errors in the input end with ``error: ...`` on stderr and exit status 2, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from .api import as_limits, pack
from .compare import compare
from .batching import (DEFAULT_BUCKETS, add_packs_per_batch, batching_section, compare_batching, default_requests,
                       packs_per_batch)
from .bounds import Bounds, lower_bounds
from .cli_args import (HISTOGRAM_HELP, OPTION_FLAGS, ProgressBar, add_recommend_arguments, add_sweep_arguments,
                       check_out, flag_named, method_of, method_options, report_sweep, run_recommend, sweep_request,
                       write_table)
from .column_generation import DEFAULT_TIME_BUDGET, MAX_TIME_BUDGET
from .export import export_config
from .histogram import SizeHistogram
from .io import WHOLE_TABLE, load_size_table, save_config, write_replacing
from .limits import PackLimits
from .method import ALL_ALGORITHMS, PackMethod
from .packs import Items
from .plan import PackingPlan
from .sweep import MAX_WORKERS, sweep
from .words import bound_words, describe_settings, short_run_note


def _limit_options(parser: argparse.ArgumentParser) -> None:
    """The size table and the node and edge limits of one packing (the graph limit comes
    with :func:`method_options`)."""
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
    return lower_bounds(hist, limits, prove=True, time_budget=args.prove_seconds,
                        progress=ProgressBar("proving").fraction, packs=packs)


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
    method_options(one, ALL_ALGORITHMS)
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
    method_options(table, ALL_ALGORITHMS, what="the chosen method, a last row where no row above is it: ")
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


#: Seconds a packing or a sweep runs before its progress bar shows: a run that ends sooner
#: prints none (a person notices a pause from about 2 s).
QUIET_FOR_S = 2.0


def _pack(args: argparse.Namespace, hist: SizeHistogram) -> None:
    _check_prove(args)
    named = [flag for flag, value in (("--dataset", args.dataset), ("--split", args.split)) if value is not None]
    if named and (args.out is None or args.out.suffix != ".json"):
        raise ValueError(f"{' and '.join(named)} name{'s' if len(named) == 1 else ''} the dataset of a .json "
                         "configuration; add --out plan.json, "
                         "or leave them out.")
    limits = as_limits(hist, max_nodes=args.max_nodes, max_edges=args.max_edges, max_graphs=args.max_graphs)
    plan = pack(hist, limits, method_of(args), progress=ProgressBar("packing", delay=QUIET_FOR_S).fraction)
    plan.check(hist)
    if args.prove:
        if not plan.method.keeps_limits:
            raise ValueError(f"--prove bounds plans that keep every limit; {plan.method.label} breaks one.")
        plan = plan.with_bounds(_proved_bounds(args, hist, limits, plan.packs))
    if args.out is None:
        print(json.dumps({**plan.summary(), "bound_label": bound_words(plan.bounds)}, indent=1))
    elif args.out.suffix == ".json":
        info = {"dataset": args.dataset or args.histogram.stem, "split": args.split or WHOLE_TABLE,
                "source": "user file", "provenance": f"Size table {args.histogram}."}
        save_config(export_config(plan, hist, info), args.out)
    else:
        write_table(plan.to_frame(), args.out)
    if args.out is not None:
        print(f"wrote {args.out}: {plan_words(plan)}")


def plan_words(plan: PackingPlan) -> str:
    """A plan in one line: packs, method, limits, efficiencies, bound and gap.

    >>> from packing import PackLimits, SizeHistogram, pack
    >>> plan_words(pack(SizeHistogram.from_sizes([3, 2, 3], [4, 2, 4]), PackLimits(5, 6, 4)))
    '2 packs (best fit, product heuristic; 5 nodes, 6 edges, 4 graphs): node efficiency 80.00%, edge efficiency 83.33%, harmonic mean 81.63%; lower bound 2 (volume bound), gap 0.00%'
    """
    return (f"{plan.num_packs:,} packs ({plan.label}; {plan.limits}): node efficiency {plan.node_efficiency:.2%}, "
            f"edge efficiency {plan.edge_efficiency:.2%}, harmonic mean {plan.harmonic_mean:.2%}; "
            f"lower bound {plan.lower_bound:,} ({bound_words(plan.bounds)}), gap {plan.gap:.2%}")


def _compare(args: argparse.Namespace, hist: SizeHistogram) -> None:
    """Print the Table 2 layout of :func:`packing.compare` (the chosen method last, where no
    row above is it); write it to ``--out``."""
    _check_prove(args)
    limits = as_limits(hist, max_nodes=args.max_nodes, max_edges=args.max_edges, max_graphs=args.max_graphs)
    bounds = _proved_bounds(args, hist, limits)
    method = method_of(args)
    table = compare(hist, limits, one_dim=method.one_dim or "lpfhp", bounds=bounds, chosen=pack(hist, limits, method))
    print(table.drop(columns=["heuristic", "algorithm"]).to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    if args.out is not None:
        write_table(table, args.out)


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
    method_options(compare, ALL_ALGORITHMS, max_graphs=False, what="packing row: ")
    add_packs_per_batch(compare)
    compare.add_argument("--out", type=Path,
                         help="write the table: .csv (one row per strategy) or .json (the export's batching section: "
                              "the table with the run and each strategy's settings)")


def _batching(args: argparse.Namespace, hist: SizeHistogram) -> None:
    plan = None
    limit_flags = (args.max_nodes, args.max_edges, args.max_graphs)
    method = method_of(args)
    if limit_flags != (None, None, None) or method != PackMethod():
        target = default_requests(hist, args.batch_size, None, args.seed)["packing"]["limits"]  # fits every graph
        limits = PackLimits(*(default if value is None else value
                              for value, default in zip(limit_flags, (target.max_nodes, target.max_edges, target.max_graphs))))
        plan = pack(hist, limits, method)
    table = compare_batching(hist, args.batch_size, plan, args.steps, args.seed, epochs=args.epochs,
                             devices=args.devices, num_shapes=args.buckets,
                             packs_per_batch=packs_per_batch(args, plan, args.batch_size))
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    if short_run_note(table):
        print(f"\nnote: {short_run_note(table)}")
    if args.out is None:
        return
    if args.out.suffix == ".json":
        write_replacing(args.out, json.dumps(batching_section(table), indent=1) + "\n")
    else:
        settings = table.attrs["settings"]
        write_table(table.assign(settings=[describe_settings(name, settings[name]) for name in table["strategy"]]),
                    args.out)


def run(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 2 bad input).

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "h.csv")
    >>> from packing.io import save_histogram
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
                                     progress=ProgressBar("sweeping", "limit pairs", delay=QUIET_FOR_S).count))
    except (ValueError, OSError) as error:
        print(f"error: {flag_named(error, OPTION_FLAGS, args)}", file=sys.stderr)
        return 2
    return 0
