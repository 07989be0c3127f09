"""The ``recommend`` command of ``python -m packing`` (by real share of the padded steps) and
``python -m throughput`` (by a calibration's estimated steady epoch): the arguments, the
printed reasoning and the files written.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from .export import export_config
from .histogram import SizeHistogram
from .io import WHOLE_TABLE, save_config, write_frame
from .recommend import Recommendation, StepCost, recommend
from .words import bound_words

SHOWN_CANDIDATES = 8


def add_recommend_arguments(parser: argparse.ArgumentParser, histogram_help: str) -> None:
    """The size table, batch size and output of a recommendation.

    >>> parser = argparse.ArgumentParser()
    >>> add_recommend_arguments(parser, "sizes")
    >>> parser.parse_args(["h.csv", "--batch-size", "128"]).batch_size
    128
    """
    parser.add_argument("histogram", type=Path, help=histogram_help)
    parser.add_argument("--batch-size", type=int, required=True, help="graphs per step you train with")
    parser.add_argument("--out", type=Path,
                        help="write .json: the configuration to train with (as the dashboard exports it, with a "
                             "'recommendation' section), or .csv: every candidate packed")
    parser.add_argument("--dataset", help="with --out .json: the dataset the size table holds (default: the table's "
                                          "file name)")
    parser.add_argument("--split", help=f"with --out .json: the split the size table holds (default: {WHOLE_TABLE})")


def chosen_by(cost: StepCost | None) -> str:
    """What the recommendation minimised or maximised, in words.

    >>> chosen_by(None)
    'the highest real share of the padded steps (harmonic mean of nodes and edges)'
    """
    if cost is None:
        return "the highest real share of the padded steps (harmonic mean of nodes and edges)"
    return f"the shortest estimated steady epoch on {cost.device} ({cost.mode}), from {cost.source}"


def describe(chosen: Recommendation) -> list[str]:
    """The recommendation in lines of text: what to train with, its numbers, what priced it,
    the runner-up and the best candidates.

    >>> lines = describe(recommend(SizeHistogram.from_counts([3, 8], [4, 14], [400, 100]), 8))
    >>> lines[0]
    'recommended for batch size 8: the highest real share of the padded steps (harmonic mean of nodes and edges)'
    """
    plan, shape = chosen.plan, chosen.shape
    lines = [
        f"recommended for batch size {chosen.batch_size:,}: {chosen_by(chosen.cost)}",
        f"limits: {chosen.limits}, {plan.method.label}; {chosen.packs_per_step:,} pack(s) a step",
        f"padded step: {shape}; {chosen.graphs_per_step:.1f} graphs a step on average, "
        f"{chosen.steps_per_epoch:,.1f} steps an epoch",
        f"real share of the padded steps: nodes {100 * chosen.node_share:.2f} %, edges {100 * chosen.edge_share:.2f} %"
        f" (harmonic mean {100 * chosen.harmonic_mean:.2f} %), graph slots {100 * chosen.graph_share:.1f} %",
        f"packs: {plan.num_packs:,} (lower bound {plan.lower_bound:,}, {bound_words(plan.bounds)})",
    ]
    if chosen.cost is not None:
        once = f"; once per run: {chosen.cost.one_off_s:.3g} s to compile the shape" if chosen.cost.one_off_s else ""
        lines.append(f"estimated steady epoch: {chosen.steady_epoch_s:.3f} s ({1e3 * chosen.step_s:.3f} ms a step){once}")
    runner = chosen.runner_up
    if runner is not None:
        value = (f"{runner['steady_epoch_s']:.3f} s an epoch" if chosen.cost is not None
                 else f"harmonic mean {100 * runner['harmonic_mean']:.2f} %")
        lines.append(f"runner-up: {int(runner['max_nodes']):,} nodes, {int(runner['max_edges']):,} edges, "
                     f"{int(runner['max_graphs']):,} graphs, {int(runner['packs_per_step']):,} pack(s) a step "
                     f"({runner['method']}): {value}")
    lines.append(f"{len(chosen.candidates):,} candidates packed after counting {chosen.screened:,} limit pairs "
                 f"with best fit; the best {min(SHOWN_CANDIDATES, len(chosen.candidates))}:")
    shown = chosen.candidates.head(SHOWN_CANDIDATES).drop(columns=["lower_bound", "steps_per_epoch"])
    if chosen.cost is None:
        shown = shown.drop(columns=["step_s", "steady_epoch_s"])
    lines.append(shown.to_string(index=False, float_format=lambda value: f"{value:.4f}"))
    return lines


def run_recommend(args: argparse.Namespace, hist: SizeHistogram, cost: StepCost | None = None) -> None:
    """Recommend for ``hist`` at ``--batch-size``, print the reasoning, write ``--out``."""
    named = [flag for flag, value in (("--dataset", args.dataset), ("--split", args.split)) if value is not None]
    if named and (args.out is None or args.out.suffix != ".json"):
        raise ValueError(f"{' and '.join(named)} name the dataset of a .json configuration; add --out config.json, "
                         "or leave them out.")
    chosen = recommend(hist, args.batch_size, cost)
    print("\n".join(describe(chosen)))
    if args.out is None:
        return
    if args.out.suffix == ".json":
        info = {"dataset": args.dataset or args.histogram.stem, "split": args.split or WHOLE_TABLE,
                "source": "user file", "provenance": f"Size table {args.histogram}."}
        save_config(export_config(chosen.plan, hist, info, {"recommendation": chosen.to_dict()}), args.out)
    else:
        write_frame(chosen.candidates, args.out)
    print(f"wrote {args.out}")

