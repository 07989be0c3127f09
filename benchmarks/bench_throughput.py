"""Predicted against measured training runs: does a calibration's estimate hold for real
training, over a whole run of several epochs?

First the calibration is checked on this machine (:func:`throughput.check_calibration`:
measured / predicted step time at 4 of its own shapes). Then, for QM9 (bond graphs,
130,831 molecules) and ogbg-molhiv's training split (32,901 graphs), a dataset with the
real graph sizes and random features of OGB's widths (``data_loaders.random_mol_dataset``)
is trained for a run of ``--epochs`` epochs with the calibration's own model (GIN, hidden
64, 3 layers by default: forward, mean squared error, backward, Adam) through

* PyG's ``DataLoader(batch_size=128, shuffle=True)``, and
* the packed loader (``data_loaders.PackedLoader``) with the plan ``throughput.estimate``
  uses when given none: best fit into the dynamic padding target of batch size 128,

each with no worker processes and with 2 (``num_workers=2``, started anew each epoch as
PyG's default is). Each of the four runs reads its own copy of the dataset (PyG keeps
every graph it reads, and workers forked later would inherit them), and the model is
warmed up on another copy.

The model trains on the calibration's device. In eager mode a few warm-up steps come first
and the loaders take turns epoch by epoch, so that load from other work hits them alike.
For a compile-mode calibration the model is compiled as the calibration compiled it
(``dynamic=False``, eager past the recompile limit), each loader's run starts cold (dynamo
reset, FX graph cache off), and the run pays its compilations as the estimate prices them.

Measured: the training time of the run (every step timed on its own, as the calibration
times steps; the loader's work between steps is not part of it) and its wall time (loader
included). Predicted: ``throughput.estimate(..., epochs=N, workers=W)`` on the dataset's
histogram (simulated batches, no training data needed): the whole run's model time
(``run_s``, every compilation once), the steady epoch, and the whole run's wall time
(``wall_run_s``: model and loading, priced with the calibration's loader timings; a
calibration without them has its loaders timed on this machine first, for
``--loader-budget`` seconds a shape). Both are compared within 15 %.

    .venv/bin/python -m benchmarks.bench_throughput [--calibration FILE] [--epochs 3] [--datasets molhiv]
        [--graphs N] [--out DIR] [--no-check]

Prints the check and the table, and writes throughput.csv and throughput_check.csv into
``--out`` (default benchmarks/results); ``--no-check`` skips the check. ``--graphs N`` trains on each dataset's first N
graphs only (a quick run: ``benchmarks.gpu_run``'s dry run).
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
from torch._inductor import config as inductor_config
from torch_geometric.loader import DataLoader

from benchmarks.timing import save_results
from data_loaders import PackedLoader, graph_sizes, load_histogram, random_mol_dataset
from packing import PackingPlan, SizeHistogram, pack
from packing.batching import default_requests
from throughput import Calibration, check_calibration, estimate, load_calibration
from throughput.check import shipped_for_this_cpu
from throughput.loader_cost import calibrate_loaders, loader_shapes
from throughput.loader_kinds import TIMED_DATA
from throughput.measure import TrainStep
from throughput.models import model_spec

BATCH_SIZE = 128
DATASETS = {"QM9 (bonds)": ("qm9", {"graph": "bonds"}), "ogbg-molhiv train": ("ogbg-molhiv", {})}
#: ``--datasets`` names of :data:`DATASETS`.
SHORT_NAMES = {"qm9": "QM9 (bonds)", "molhiv": "ogbg-molhiv train"}
#: Loader worker processes of the measured runs.
WORKERS = (0, 2)
WARMUP_STEPS = 10
TOLERANCE = 0.15


def this_cpu_calibration() -> Path:
    """The shipped GIN calibration of this machine's CPU (``throughput.check.shipped_for_this_cpu``)."""
    found = shipped_for_this_cpu()
    if found is None:
        raise SystemExit("No shipped calibration of this CPU; run python -m throughput calibrate --threads 1 "
                         "--out throughput/calibrations/ --force first, or pass --calibration.")
    return found[0]


def packed_plan(hist: SizeHistogram) -> PackingPlan:
    """The plan ``throughput.estimate`` packs when given none (best fit into the dynamic target)."""
    return pack(hist, default_requests(hist, BATCH_SIZE, None, 0)["packing"]["limits"])


class Trainer:
    """The calibration's model, optimiser and step, fed by a loader's batches."""

    def __init__(self, cal: Calibration) -> None:
        torch.manual_seed(0)
        self.spec = model_spec(cal.model, cal.hidden, cal.layers, cal.model_info["in_channels"])
        self.device = cal.device
        self.module = self.spec.build().to(self.device)
        self.step = TrainStep(self.module, self.device)
        # compile mode as the calibration timed it: one static graph per shape, eager past the recompile limit
        self.forward = torch.compile(self.module, dynamic=False) if cal.mode == "compile" else self.module

    def run(self, batch: Any) -> float:
        """The timed training step on the calibration's device (the batch is moved there first)."""
        inputs = self.spec.batch_inputs(batch, self.device)
        return self.step.timed(self.forward, inputs, batch.y.float().view(-1, 1).to(self.device))

    def epoch(self, loader: Any, epoch: int) -> dict[str, Any]:
        """One whole epoch: training seconds, wall seconds and the padded shape of every step."""
        if hasattr(loader, "set_epoch"):
            loader.set_epoch(epoch)
        shapes, train = [], 0.0
        start = time.perf_counter()
        for batch in loader:
            train += self.run(batch)
            shapes.append((batch.num_nodes, batch.num_edges, batch.num_graphs))
        return {"train": train, "wall": time.perf_counter() - start, "shapes": np.array(shapes)}

    def warm_up(self, loader: Any) -> None:
        for step, batch in enumerate(loader):
            if step == WARMUP_STEPS:
                break
            self.run(batch)


def with_loader_timings(cal: Calibration, budget: float) -> Calibration:
    """``cal`` if it has loader timings, else ``cal`` with its loaders timed on this machine
    now (:func:`throughput.loader_cost.calibrate_loaders`, ``budget`` seconds a shape)."""
    if cal.loaders is not None:
        return cal
    print(f"{cal.source or cal.label} has no loader timings: timing the loaders on this machine now "
          f"({budget} s a shape)", flush=True)
    grid = loader_shapes()
    costs = calibrate_loaders(cal.device, grid, budget=budget)
    info = {"grid": [list(row) for row in grid], "threads": torch.get_num_threads(), "budget_seconds": budget,
            "device": cal.device, "data": dict(TIMED_DATA)}
    return dataclasses.replace(cal, loaders=costs, loader_info=info)


def runs_to_measure(hist: SizeHistogram, plan: PackingPlan) -> dict[str, tuple[str, int, Any]]:
    """Label: (estimate row, workers, loader) of every measured run, each on its own copy
    of the dataset (a graph PyG read once is kept, and workers forked later inherit it)."""
    runs = {}
    for workers in WORKERS:
        runs[f"PyG DataLoader (batch_size=128), {workers} workers"] = (
            "pyg_dataloader", workers,
            DataLoader(random_mol_dataset(hist), BATCH_SIZE, shuffle=True, num_workers=workers))
        runs[f"packed loader ({plan.limits.max_nodes} nodes, {plan.limits.max_edges} edges, "
             f"{plan.limits.max_graphs} graphs), {workers} workers"] = (
            "packing", workers, PackedLoader(random_mol_dataset(hist), plan, num_workers=workers))
    return runs


def _row(dataset_name: str, label: str, workers: int, epochs: int, row: pd.Series, runs: list[dict]) -> dict:
    """The measured run against its prediction: model time and wall time."""
    measured = sum(run["train"] for run in runs)
    wall = sum(run["wall"] for run in runs)
    predicted, predicted_wall = float(row["run_s"]), float(row["wall_run_s"])
    return {
        "dataset": dataset_name, "loader": label, "workers": workers, "epochs": epochs,
        "steps": sum(len(run["shapes"]) for run in runs),
        "predicted_steps": round(float(row["steps_per_epoch"]) * epochs, 1),
        "predicted_run_s": round(predicted, 2),
        "band_s": f"{row['run_low']:.2f}-{row['run_high']:.2f}",
        "measured_run_s": round(measured, 2),
        "error_pct": round(100 * (predicted / measured - 1), 1),
        "within_15pct": abs(predicted / measured - 1) <= TOLERANCE,
        "predicted_steady_epoch_s": round(float(row["steady_epoch_s"]), 2),
        "measured_epochs_s": " / ".join(f"{run['train']:.2f}" for run in runs),
        "run_wall_s": round(wall, 2),
        "loading_s": round(wall - measured, 2),
        "predicted_wall_s": round(predicted_wall, 2),
        "wall_band_s": f"{row['wall_run_low']:.2f}-{row['wall_run_high']:.2f}",
        "wall_ratio": round(wall / predicted_wall, 3),
        "wall_error_pct": round(100 * (predicted_wall / wall - 1), 1),
        "wall_within_15pct": abs(predicted_wall / wall - 1) <= TOLERANCE,
        "bound_by": row["bound_by"],
        "measured_wall_epochs_s": " / ".join(f"{run['wall']:.2f}" for run in runs),
    }


def dataset_sizes(name: str, options: dict[str, Any], graphs: int | None) -> SizeHistogram:
    """The histogram of a dataset of :data:`DATASETS` (of its first ``graphs`` graphs when given)."""
    hist, _ = load_histogram(name, **options)
    if graphs is None:
        return hist
    return SizeHistogram.from_sizes(*graph_sizes(random_mol_dataset(hist)[:graphs]))


def measure(dataset_name: str, hist: SizeHistogram, cal: Calibration, epochs: int) -> list[dict]:
    plan = packed_plan(hist)
    tables = {workers: estimate(hist, BATCH_SIZE, cal, plan, epochs=epochs, workers=workers).set_index("strategy")
              for workers in WORKERS}
    loaders = runs_to_measure(hist, plan)
    trainers = {label: Trainer(cal) for label in loaders}
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label in loaders}
    if cal.mode == "compile":  # each run cold, as the estimate prices it: the run pays for its compilations
        for label, (_, _, loader) in loaders.items():
            torch._dynamo.reset()  # the loaders' models share forward's code, and so its recompile limit
            with inductor_config.patch(fx_graph_cache=False):
                runs[label] = [trainers[label].epoch(loader, epoch) for epoch in range(epochs)]
    else:
        warm_up = DataLoader(random_mol_dataset(hist, seed=1), BATCH_SIZE, shuffle=True)  # not the runs' graphs
        for trainer in trainers.values():
            trainer.warm_up(warm_up)
        for epoch in range(epochs):
            for label, (_, _, loader) in loaders.items():
                runs[label].append(trainers[label].epoch(loader, epoch))
    rows = []
    for label, (strategy, workers, _) in loaders.items():
        rows.append(_row(dataset_name, label, workers, epochs, tables[workers].loc[strategy], runs[label]))
        row = rows[-1]
        print(f"{dataset_name:<18} {label:<64} model: predicted {row['predicted_run_s']:7.2f} s, measured "
              f"{row['measured_run_s']:7.2f} s ({row['error_pct']:+.1f} %); wall: predicted "
              f"{row['predicted_wall_s']:7.2f} s, measured {row['run_wall_s']:7.2f} s (measured / predicted "
              f"{row['wall_ratio']:.3f}, {'within' if row['wall_within_15pct'] else 'NOT within'} 15 %, "
              f"{row['bound_by']}-bound)", flush=True)
    return rows


def check_here(cal: Calibration) -> pd.DataFrame:
    """The calibration's check on this machine, one row per shape."""
    check = check_calibration(cal)
    print(check.describe())
    return pd.DataFrame([shape.to_dict() for shape in check.shapes]).assign(
        band=check.band, within_band=check.within_band, device=check.device["name"], checked=check.checked)


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calibration", type=Path, help="calibration JSON (default: this CPU's shipped one)")
    parser.add_argument("--epochs", type=int, default=3, help="epochs of each measured run (default 3)")
    parser.add_argument("--datasets", nargs="+", choices=list(SHORT_NAMES), default=list(SHORT_NAMES),
                        help="the datasets measured (default: both)")
    parser.add_argument("--loader-budget", type=float, default=0.2,
                        help="seconds per shape to time the loaders when the calibration has no loader timings")
    parser.add_argument("--graphs", type=int, help="train on each dataset's first N graphs only (a quick run)")
    parser.add_argument("--out", type=Path, help="folder for the two CSV files (default benchmarks/results)")
    parser.add_argument("--no-check", dest="check", action="store_false",
                        help="skip the calibration's check (for a calibration made minutes before on this machine)")
    args = parser.parse_args(argv)
    cal = load_calibration(args.calibration or this_cpu_calibration())
    torch.set_num_threads(int(cal.device_info["threads"]))
    cal = with_loader_timings(cal, args.loader_budget)
    print(f"calibration: {cal.label}; {cal.fit.describe()}; held-out error p90 {100 * cal.error_band:.1f} %")
    print(f"torch threads {torch.get_num_threads()}, load average {os.getloadavg()[0]:.2f} at start")
    if args.check:
        save_results(check_here(cal), "throughput_check", None if args.out is None else args.out / "throughput_check.csv")
    rows = []
    for short in args.datasets:
        name, options = DATASETS[SHORT_NAMES[short]]
        rows.extend(measure(SHORT_NAMES[short], dataset_sizes(name, options, args.graphs), cal, args.epochs))
    table = pd.DataFrame(rows).assign(calibration=cal.source, load_average_end=round(os.getloadavg()[0], 2))
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(table.drop(columns=["calibration"]).to_string(index=False))
    save_results(table, "throughput", None if args.out is None else args.out / "throughput.csv")
    return table


if __name__ == "__main__":
    main()
