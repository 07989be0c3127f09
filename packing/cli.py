"""Command line: ``python -m packing stats|pack|sweep`` on a histogram CSV or Parquet file."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .api import ALGORITHMS, BASELINES, BEST, pack
from .export import export_config, save_config
from .heuristics import HEURISTICS
from .histogram import SizeHistogram
from .one_dim import ONE_DIM_ALGORITHMS
from .sweep import default_limits, smallest_limits, sweep

HISTOGRAM_HELP = (
    "histogram file (.csv or .parquet) with columns num_nodes,num_edges,count "
    "(or num_nodes,num_edges with one row per graph)"
)


def _int_list(text: str) -> list[int]:
    """Parse ``"100,200,300"`` or a range ``"100:400:50"`` (start:stop:step, stop included)."""
    try:
        if ":" in text:
            start, stop, step = (int(v) for v in text.split(":"))
            values = list(range(start, stop + 1, step)) if step > 0 else []
        else:
            values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        values = []
    if not values:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a list like 100,200,300 or a non-empty range like 100:400:50"
        )
    return values


def _limit_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-graphs", type=int, default=256, help="graphs per pack at most (default 256)")
    parser.add_argument("--heuristic", default="product", choices=[*HEURISTICS, "weighted"],
                        help="priority of bins and open packs (default product)")
    parser.add_argument("--weights", type=float, nargs=2, metavar=("NODE_W", "EDGE_W"),
                        help="weights for --heuristic weighted: NODE_W*nodes + EDGE_W*edges")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m packing",
        description="Pack small graphs into fixed-size packs by their (nodes, edges) histogram.",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    stats = commands.add_parser("stats", help="dataset statistics (Table 1 of the tuple packing paper)")
    stats.add_argument("histogram", type=Path, help=HISTOGRAM_HELP)

    one = commands.add_parser("pack", help="pack once and print or write the plan")
    one.add_argument("histogram", type=Path, help=HISTOGRAM_HELP)
    one.add_argument("--max-nodes", type=int, help="nodes per pack at most (default: largest graph)")
    one.add_argument("--max-edges", type=int, help="edges per pack at most (default: largest graph)")
    _limit_options(one)
    one.add_argument("--algorithm", default="best_fit", choices=[*ALGORITHMS, *BASELINES, BEST],
                     help="best_fit | worst_fit | first_fit tuple packing, a baseline (none, node_only, "
                          "edge_only), or best: every heuristic and algorithm, fewest packs wins")
    one.add_argument("--one-dim", default="lpfhp", choices=ONE_DIM_ALGORITHMS,
                     help="1D algorithm of the node_only / edge_only baselines (default lpfhp)")
    one.add_argument("--out", type=Path,
                     help="write the full plan: .json (the configuration the dashboard exports, schema in "
                          "packing/export.py) or .csv (one row per distinct pack); without it a summary is "
                          "printed as JSON")

    grid = commands.add_parser("sweep", help="pack for every (max nodes, max edges) pair of a grid")
    grid.add_argument("histogram", type=Path, help=HISTOGRAM_HELP)
    grid.add_argument("--nodes", type=_int_list,
                      help="node limits: 100,200 or start:stop:step (default: largest graph to 4x, 12 steps)")
    grid.add_argument("--edges", type=_int_list, help="edge limits, same forms as --nodes")
    _limit_options(grid)
    grid.add_argument("--algorithm", default="best_fit", choices=ALGORITHMS, help="tuple packing fit")
    grid.add_argument("--workers", type=int, help="processes (default: all cores for large grids)")
    grid.add_argument("--min-efficiency", type=float, default=0.95,
                      help="report the smallest limits whose node and edge efficiency both reach this")
    grid.add_argument("--out", type=Path, help="write the sweep table as .csv or .json")
    return parser


def _write_table(frame, path: Path) -> None:
    if path.suffix == ".json":
        frame.to_json(path, orient="records", indent=1)
    elif path.suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        raise ValueError(f"Unknown output type {path.suffix!r}; use .csv or .json.")


def run(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 2 bad input).

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "h.csv")
    >>> _ = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2]).save(path)
    >>> run(["stats", path])  # doctest: +ELLIPSIS
    {
     "graphs": 4,...
    0
    """
    args = build_parser().parse_args(argv)
    try:
        hist = SizeHistogram.load(args.histogram)
        weights = tuple(args.weights) if getattr(args, "weights", None) else None
        if args.command == "stats":
            print(json.dumps(hist.stats(), indent=1))
        elif args.command == "pack":
            plan = pack(hist, args.max_nodes, args.max_edges, args.max_graphs, heuristic=args.heuristic,
                        algorithm=args.algorithm, weights=weights, one_dim=args.one_dim)
            plan.check(hist)
            if args.out is None:
                print(json.dumps(plan.summary(), indent=1))
            elif args.out.suffix == ".json":
                info = {"source": "user file", "provenance": f"Histogram file {args.histogram}."}
                config = export_config(plan, hist, dataset=args.histogram.stem, info=info,
                                       requested_algorithm=args.algorithm)
                save_config(config, args.out)
            else:
                _write_table(plan.to_frame(), args.out)
        else:
            nodes, edges = default_limits(hist)
            frame = sweep(hist, nodes if args.nodes is None else args.nodes,
                          edges if args.edges is None else args.edges, args.max_graphs,
                          args.heuristic, args.algorithm, weights, workers=args.workers)
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
    except (ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0
