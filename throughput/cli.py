"""Command line: ``python -m throughput calibrate|check|estimate|recommend``.

    python -m throughput calibrate --model gin --device cuda --out my_gpu.json
    python -m throughput calibrate --model gin --device cuda --mode cudagraph --out my_gpu_captured.json
    python -m throughput check my_cpu.json            # does it hold on this machine?
    python -m throughput check                        # this machine's calibration (as the page starts)
    python -m throughput estimate config.json --calibration my_gpu.json --epochs 10 --check --workers 4
    python -m throughput recommend sizes.csv --batch-size 128 --calibration my_gpu.json --workers 4

``calibrate`` times the model at the default grid of shapes (progress on stderr, about a
minute), then the loaders (PyG's collate, the packed loader, the hand-off from worker
processes: 15-20 s; ``--no-loaders`` leaves them out, ``--loader-budget`` sets the seconds per
kind and row) and writes the calibration JSON: never over an existing file, nor into the shipped
``throughput/calibrations`` folder, unless ``--force`` is given. ``check`` times a few of a
calibration's shapes (and of its loaders' grid) on this machine and says whether its predictions hold here (without a
file: the shipped calibration of this CPU, checked, else one measured now). ``estimate`` reads an exported configuration
(``packing.export``: the dataset's histogram and the chosen plan) and prints the time per
step and per epoch of every batching strategy on the calibrated device, in model time and, where
the calibration timed its loaders, in wall time with ``--workers`` loader workers (default 0).
``recommend`` searches the pack limits and packs per step whose estimated steady epoch on the
calibrated device is shortest at your batch size (:func:`packing.recommend`): in wall time with
the packed loader and ``--workers`` loader workers where the calibration timed its loaders, else
in model time. Errors end with
``error: ...`` on stderr and exit status 2, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

from packing import BatchShape, config_histogram, whole_number
from packing.io import load_size_table, write_frame, write_replacing
from packing.batching import add_packs_per_batch, packs_per_batch
from packing.cli_args import (HISTOGRAM_HELP, OPTION_FLAGS, ProgressBar, add_recommend_arguments, check_out, flag_named,
                               run_recommend)

from .calibration import (CALIBRATIONS_ENV, MAX_COLD_RUNS, MAX_LOADER_BUDGET, MAX_THREADS, MODES, SHIPPED,
                          Calibration, calibrate, calibration_filename, check_mode, load_calibration)
from .check import ShapeCheck, calibration_for_this_machine, check_calibration, noise_note
from .device import check_device, device_description
from .estimate import estimate
from .model_names import MODELS
from .report import format_table, settings_words, throughput_section
from .section import load_checked_config
from .shapes import DEFAULT_COUNT, GRID_MAX_EDGES, GRID_MAX_GRAPHS, GRID_MAX_NODES, default_shapes
from .step_cost import step_cost


def add_workers_argument(parser: argparse.ArgumentParser, priced: str) -> None:
    """``--workers``: the loader worker processes that ``priced`` (what the command prices, in
    words) is priced with; 0 by default, as on the Throughput page.

    >>> parser = argparse.ArgumentParser()
    >>> add_workers_argument(parser, "the wall time")
    >>> parser.parse_args([]).workers, parser.parse_args(["--workers", "4"]).workers
    (0, 4)
    """
    parser.add_argument("--workers", type=int, default=0,
                        help=f"loader worker processes (DataLoader num_workers) of {priced}; as many build batches at "
                             "once as the calibrated machine has free cores (default 0: batches built in the training "
                             "process). A calibration without loader timings prices model time only.")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m throughput", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    cal = commands.add_parser("calibrate", help="time a PyG model on this machine's device and fit the cost model")
    cal.add_argument("--model", default="gin", choices=MODELS, help="model to time (default gin)")
    cal.add_argument("--hidden", type=int, default=64, help="hidden channels (default 64)")
    cal.add_argument("--layers", type=int, default=3, help="message-passing layers (default 3)")
    cal.add_argument("--device", default="cpu", help="cpu, cuda or cuda:<index> (default cpu)")
    cal.add_argument("--mode", default="eager", choices=MODES,
                     help="eager, or compile: torch.compile(dynamic=False), one compilation per shape (slow: "
                          "each shape compiles, 10-60 s), or cudagraph: the step captured as a CUDA graph and "
                          "replayed, one capture per shape (a CUDA device only)")
    cal.add_argument("--shapes", type=int, default=DEFAULT_COUNT, help=f"shapes to time (default {DEFAULT_COUNT})")
    cal.add_argument("--max-nodes", type=int, default=GRID_MAX_NODES,
                     help=f"largest padded nodes timed (default {GRID_MAX_NODES})")
    cal.add_argument("--max-edges", type=int, default=GRID_MAX_EDGES,
                     help=f"largest padded edges timed (default {GRID_MAX_EDGES})")
    cal.add_argument("--max-graphs", type=int, default=GRID_MAX_GRAPHS,
                     help=f"largest graphs per batch timed (default {GRID_MAX_GRAPHS})")
    cal.add_argument("--threads", type=int, help="torch CPU threads while timing (default: torch's)")
    cal.add_argument("--cold-runs", type=int,
                     help="compile mode: fresh processes timing a process's first compilation (default 2)")
    cal.add_argument("--no-loaders", dest="loaders", action="store_false",
                     help="time the model only, not the loaders (PyG's collate, the packed loader, the hand-off from "
                          "worker processes; 15-20 s on a 2-core CPU): estimates are then model time only")
    cal.add_argument("--loader-budget", type=float,
                     help="seconds of timed batches per loader kind and grid row (default 0.2)")
    cal.add_argument("--out", type=Path, help="output JSON file or folder (default: the current folder, named "
                                               "<device>__<model>-h<hidden>-l<layers>__<mode>.json)")
    cal.add_argument("--force", action="store_true",
                     help="replace an existing file, or write into the shipped calibrations folder")
    chk = commands.add_parser("check", help="check a calibration's predictions on this machine")
    chk.add_argument("calibration", nargs="?", help="calibration JSON (default: this machine's, as the page starts)")
    chk.add_argument("--seconds", type=float, default=2.0, help="time spent on timed steps (default 2)")
    chk.add_argument("--out", type=Path, help="write the check as JSON")
    est = commands.add_parser("estimate", help="time per step and per epoch of every batching strategy")
    est.add_argument("config", type=Path, help="configuration JSON exported by the dashboard or python -m packing")
    est.add_argument("--calibration", required=True, help="calibration JSON (python -m throughput calibrate)")
    est.add_argument("--batch-size", type=int,
                     help="graphs per batch for the batching strategies (default: the configuration's batching "
                          "section)")
    est.add_argument("--devices", type=int, default=1, help="data-parallel devices (default 1)")
    run = est.add_mutually_exclusive_group()
    run.add_argument("--epochs", type=int, default=1, help="epochs of the training run priced (default 1)")
    run.add_argument("--steps", type=int, help="optimizer steps of the training run priced, instead of epochs")
    est.add_argument("--check", action="store_true",
                     help="check the calibration on this machine first and put the check in the output")
    est.add_argument("--baseline", default="pyg_dataloader", help="your current batching, for the speed-up "
                                                                  "(default pyg_dataloader)")
    add_packs_per_batch(est)
    add_workers_argument(est, "the wall time")
    est.add_argument("--out", type=Path, help="write the table: .csv, or .json (the export's throughput section)")
    rec = commands.add_parser("recommend", help="the pack limits and packs per step that train fastest at your batch "
                                                "size on the calibrated device: the shortest steady epoch in wall "
                                                "time with the packed loader where the calibration timed its "
                                                "loaders, else in model time")
    add_recommend_arguments(rec, HISTOGRAM_HELP)
    add_workers_argument(rec, "the wall time minimised")
    rec.add_argument("--calibration", required=True, help="calibration JSON (python -m throughput calibrate, or a "
                                                          "shipped one)")
    return parser


def _shape_progress() -> Callable[[int, int, tuple[int, int, int]], None]:
    """``progress(done, total, shape)`` of a calibration: a bar on stderr naming the shape timed."""
    bar = ProgressBar("timing steps", "shapes")
    return lambda done, total, shape: bar.count(done, total, str(BatchShape(*shape)))


#: the calibration's settings and the flags that give them
_FLAGS = {"count": "--shapes", "max_nodes": "--max-nodes", "max_edges": "--max-edges", "max_graphs": "--max-graphs",
          "hidden": "--hidden", "layers": "--layers", "threads": "--threads", "cold_runs": "--cold-runs"}


def _calibrate(args: argparse.Namespace) -> None:
    check_mode(args.mode, check_device(args.device))
    if args.cold_runs is not None and args.mode != "compile":
        raise ValueError("--cold-runs times first compilations: it applies to --mode compile only.")
    if not args.loaders and args.loader_budget is not None:
        raise ValueError("--loader-budget times the loaders: it does not go with --no-loaders.")
    loader_budget = 0.2 if args.loader_budget is None else args.loader_budget
    if not 0 < loader_budget <= MAX_LOADER_BUDGET:
        raise ValueError(f"--loader-budget must be above 0 and at most {MAX_LOADER_BUDGET:g} seconds, got "
                         f"{loader_budget:g}.")
    try:  # every setting checked before the timing starts
        from .models import model_spec  # imports torch: only once a calibration is asked for

        model_spec(args.model, args.hidden, args.layers)
        if args.threads is not None:
            whole_number(args.threads, "threads", 1, MAX_THREADS)
        cold_runs = whole_number(2 if args.cold_runs is None else args.cold_runs, "cold_runs", 0, MAX_COLD_RUNS)
        shapes = default_shapes(args.shapes, max_nodes=args.max_nodes, max_edges=args.max_edges,
                                max_graphs=args.max_graphs)
    except ValueError as error:  # "count must lie between ..." names the flag instead: "--shapes must ..."
        raise flag_named(error, _FLAGS, args) from None
    out = _calibration_out(args)
    print(f"timing {args.model} (hidden {args.hidden}, {args.layers} layers, {args.mode}) on {args.device} at "
          f"{len(shapes)} shapes", file=sys.stderr)
    start = time.perf_counter()
    cal = calibrate(args.model, args.hidden, args.layers, args.device, shapes, args.mode, threads=args.threads,
                    cold_runs=cold_runs, progress=_shape_progress(), loaders=args.loaders,
                    loader_budget=loader_budget, loader_progress=ProgressBar("timing loaders", "rows").count)
    path = cal.save(out)  # out's name is cal.filename where a folder was given
    held_out = cal.fit.held_out
    lines = [f"{cal.label}: {len(cal.timings)} shapes in {time.perf_counter() - start:.0f} s", cal.fit.describe(),
             f"held-out error: median {100 * held_out['median']:.1f} %, 90th percentile {100 * held_out['p90']:.1f} %"]
    if cal.compile is not None:
        cost = cal.compile
        lines.append(f"compilations (torch.compile, a new shape): a process's first {cost['first_seconds']:.3g} s "
                     f"({cal.cold_words}), later ones {cost['seconds']:.3g} s "
                     f"(warm, quartiles {cost['p25']:.3g}-{cost['p75']:.3g} s)")
    if cal.capture is not None:
        cost = cal.capture
        lines.append(f"CUDA graph captures (a new shape): {cost['seconds']:.3g} s (quartiles {cost['p25']:.3g}-"
                     f"{cost['p75']:.3g} s, {cost['low']:.3g}-{cost['high']:.3g} s at the {len(cal.timings)} shapes)")
    lines.extend(_loader_lines(cal))
    noisy = noise_note(cal).strip()
    print("\n".join([*lines, f"wrote {path}", *([f"note: {noisy}"] if noisy else [])]))


def _loader_lines(cal: Calibration) -> list[str]:
    """The loader fits of a calibration, one line each (a line saying there are none)."""
    if cal.loaders is None:
        return ["loaders: not timed (--no-loaders): estimates with this calibration are model time only"]
    return [f"loader {kind}: {cost.describe()} (held-out error median {100 * cost.fit.held_out['median']:.1f} %, "
            f"90th percentile {100 * cost.fit.held_out['p90']:.1f} %)" for kind, cost in cal.loaders.items()]


def _calibration_out(args: argparse.Namespace) -> Path:
    """The file ``calibrate`` writes (``--out``, a folder: the calibration's file name in
    it), checked before any timing: an existing file or the shipped folder is refused
    without ``--force``."""
    out = Path.cwd() if args.out is None else args.out
    if not out.is_dir() and out.suffix == "":
        raise ValueError(f"--out {out}: no such folder; create it, or give a .json file name.")
    if out.is_dir():
        device_name = device_description(args.device)[0]["name"]
        out = out / calibration_filename(device_name, args.model, args.hidden, args.layers, args.mode)
    check_out(out, (".json",))
    if args.force:
        return out
    if SHIPPED in out.resolve().parents:
        raise ValueError(f"--out {out} is in the folder of the calibrations shipped with the tool ({SHIPPED}); "
                         f"write yours elsewhere (e.g. --out my_cpu.json, or your team's folder named by "
                         f"${CALIBRATIONS_ENV}), or add --force to write there.")
    if out.exists():
        raise ValueError(f"--out {out} exists; choose another file or folder, or add --force to replace it.")
    return out


def _check(args: argparse.Namespace) -> int:
    """Exit status 1 when the named calibration's predictions do not hold here (without a
    file, a failing shipped calibration is replaced by one measured now: 0)."""
    check_out(args.out, (".json",), inputs=[args.calibration])
    if args.calibration is None:
        found = calibration_for_this_machine(_shape_progress(), args.seconds)
        check, text = found.check, " ".join(filter(None, [found.reason, found.unchecked]))
        print(f"this machine's calibration: {found.calibration.label}\n{found.calibration.fit.describe()}\n{text}")
    else:
        cal = load_calibration(args.calibration)
        check = check_calibration(cal, seconds=args.seconds)
        text = check.describe()
        print(f"{cal.label}\n{text}")
    if check is not None:
        for shape in check.shapes:
            _print_shape(shape)
        for kind in check.loaders or ():
            print(f"loader {kind.describe()}")
            for shape in kind.shapes:
                _print_shape(shape)
    if args.out is not None:
        write_replacing(args.out, json.dumps({"check": None if check is None else check.to_dict(), "note": text},
                                             indent=1) + "\n")
        print(f"wrote {args.out}")
    return 1 if args.calibration is not None and not check.within_band else 0


def _print_shape(shape: ShapeCheck) -> None:
    nodes, edges, graphs = shape.shape
    print(f"  {nodes:>7,} nodes {edges:>9,} edges {graphs:>4} graphs: predicted {1e3 * shape.predicted:8.3f} "
          f"ms, measured {1e3 * shape.measured:8.3f} ms, ratio {shape.ratio:.2f}")


def _batch_size(args: argparse.Namespace, config: dict[str, Any]) -> int:
    if args.batch_size is not None:
        return args.batch_size
    batching = config.get("batching")
    if isinstance(batching, dict) and isinstance(batching.get("run"), dict) and \
            isinstance(batching["run"].get("batch_size"), int):
        return batching["run"]["batch_size"]
    raise ValueError("The configuration has no batching section with a batch size; give --batch-size.")


def _estimate(args: argparse.Namespace) -> None:
    check_out(args.out, inputs=[args.config, args.calibration])
    config, plan = load_checked_config(args.config)
    cal = load_calibration(args.calibration)
    batch_size = _batch_size(args, config)
    check, check_note = None, ""
    if args.check:
        try:
            check = check_calibration(cal)
        except ValueError as error:  # a GPU calibration on a CPU machine: priced all the same, said so
            check_note = f"not checked on this machine: {error}"
    table = estimate(config_histogram(config), batch_size, cal, plan, baseline=args.baseline, devices=args.devices,
                     epochs=args.epochs, steps=args.steps, packs_per_batch=packs_per_batch(args, plan, batch_size),
                     workers=args.workers)
    print(format_table(table))
    if args.check:
        print(f"\ncalibration check: {check.describe() if check is not None else check_note}")
    else:
        print(f"\ncalibration check: not run, so these are the numbers of {cal.device_name}, not necessarily of "
              "this machine; add --check to time a few shapes here.")
    if args.out is not None:
        if args.out.suffix == ".json":
            write_replacing(args.out, json.dumps(throughput_section(table, check, check_note), indent=1) + "\n")
        else:
            write_frame(table.assign(settings=settings_words(table)), args.out)
        print(f"wrote {args.out}")


def _recommend(args: argparse.Namespace) -> None:
    """``recommend``: the configuration whose steady epoch is shortest in wall time with the
    packed loader and ``--workers`` workers (model time for a calibration without loaders)."""
    check_out(args.out, inputs=[args.histogram, args.calibration])
    hist = load_size_table(args.histogram)
    run_recommend(args, hist, step_cost(load_calibration(args.calibration), args.workers))


def run(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 a calibration that ``check`` found not
    to hold here, 2 bad input).

    >>> run(["estimate", "missing.json", "--calibration", "missing.json"])
    2
    """
    args = build_parser().parse_args(argv)
    try:
        status = {"calibrate": _calibrate, "check": _check, "estimate": _estimate,
                  "recommend": _recommend}[args.command](args)
    except (ValueError, OSError) as error:
        print(f"error: {flag_named(error, OPTION_FLAGS, args)}", file=sys.stderr)
        return 2
    return status or 0
