"""Training throughput: PyG's DataLoader (batch_size=128) against the packed loader.

Data: 32,901 graphs with the sizes of ogbg-molhiv's training split (bundled histogram) and
random integer features of OGB's widths (``x``: 9 atom features, ``edge_attr``: 3 bond
features, ``y``: one label per graph); see ``data_loaders.random_graphs``. Model: 9 atom
embeddings summed, PyG's GIN (hidden 128, 5 layers), global add pooling, a linear head;
binary cross-entropy (masked to real graphs on packed batches), backward, Adam. The GIN does
not read ``edge_attr``; both loaders still load it.

Loaders (``--loaders``): PyG's DataLoader; the packed loader at the dashboard's data
defaults, at packs of about 128 graphs, and at the configuration ``packing.recommend``
recommends for batch size 128 (its limits and packs per step). Packed batches are built on
the host (``--built host``, in worker processes with ``--workers``) or on the training
device (``--built device``: ``PackedLoader(..., device=...)`` keeps the dataset there and
gathers and pads each batch there; no workers, so only at 0 workers).

Per worker count and mode (eager, ``torch.compile``, and on CUDA ``cudagraph``: the packed
loaders' whole step captured once by ``data_loaders.CapturedStep`` and replayed) every
loader first runs ``--warmup`` untimed steps (compilation or capture happens there), then
``--rounds`` rounds of ``--steps`` timed steps, the loaders taking turns so that load from
other work on a shared machine hits them alike. The epoch time is extrapolated: the steps
of an epoch times the median time per step (loader + training). "loader" is the time to get
the next batch from the loader's iterator (sampling, fetching, collation and, for the
packed loader, padding; for batches built on a GPU, the launch of that work, which the
GPU finishes during "train"); "train" is the copy to ``--device``, forward, backward and
the optimiser step (on a GPU, until it has finished; for a captured step, the copy into its
inputs and the replay). The speed-up is against PyG's DataLoader in the same mode with the
same workers (``cudagraph``: its eager row).

    .venv/bin/python -m benchmarks.bench_loader [--steps 20] [--rounds 3] [--threads 1]
        [--modes eager,compile,cudagraph] [--device cuda] [--workers 0,4]
        [--loaders pyg,packed-defaults,packed-128,recommended] [--built host,device] [--out DIR]

Prints a table and writes benchmarks/results/loader.csv (``--out``: a folder, or a .csv file).
"""
from __future__ import annotations

import argparse
import functools
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch._dynamo.utils import counters
from torch_geometric.loader import DataLoader
from torch_geometric.nn import GIN, global_add_pool

from benchmarks.timing import save_results
from data_loaders import CapturedStep, PackedLoader, graph_sizes, load_histogram, plain_step, random_mol_dataset
from data_loaders.random_graphs import ATOM_FEATURE_DIMS
from packing import PackLimits, SizeHistogram, pack, recommend
from throughput.device import check_device

HIDDEN, LAYERS, BATCH_SIZE = 128, 5, 128
#: the dashboard's data defaults (largest graph, 256 graphs) and packs of about 128 graphs
#: (128 x the mean molhiv graph, rounded up to multiples of 64)
PACK_LIMITS = {"packed-defaults": ("dashboard defaults", PackLimits(222, 502, 256)),
               "packed-128": ("about 128 graphs", PackLimits(3264, 6976, 256))}
LOADERS = ("pyg", *PACK_LIMITS, "recommended")
BUILT = ("host", "device")
MODES = ("eager", "compile", "cudagraph")


class MolGIN(torch.nn.Module):
    """Atom embeddings (one table per OGB atom feature, summed), GIN, add pooling, head."""

    def __init__(self) -> None:
        super().__init__()
        self.atoms = torch.nn.ModuleList(torch.nn.Embedding(size, HIDDEN) for size in ATOM_FEATURE_DIMS)
        self.gin = GIN(HIDDEN, HIDDEN, LAYERS)
        self.head = torch.nn.Linear(HIDDEN, 1)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor, batch: torch.Tensor, num_graphs: int):
        nodes = sum(table(x[:, column]) for column, table in enumerate(self.atoms))
        nodes = self.gin(nodes, edge_index)
        return self.head(global_add_pool(nodes, batch, size=num_graphs)).squeeze(-1)


def masked_bce(model: Callable, batch: Any) -> torch.Tensor:
    """The step's loss: binary cross-entropy per graph, over the real graphs of a packed
    batch (its ``graph_mask``; no host synchronisation, so a CUDA graph can record it).

    >>> from torch_geometric.data import Data
    >>> batch = Data(y=torch.tensor([1, 0]), graph_mask=torch.tensor([True, False]), num_graphs=2)
    >>> round(float(masked_bce(lambda x, edges, graph, graphs: torch.zeros(graphs), batch)), 4)
    0.6931
    """
    logits = model(batch.x, batch.edge_index, batch.batch, batch.num_graphs)
    per_graph = F.binary_cross_entropy_with_logits(logits, batch.y.view(-1).float(), reduction="none")
    if "graph_mask" in batch:
        return per_graph.where(batch.graph_mask, 0).sum() / batch.graph_mask.sum().clamp(min=1)
    return per_graph.mean()


def endless(loader: Any) -> Iterator[Any]:
    """Batches epoch after epoch (with set_epoch where the loader has it)."""
    epoch = 0
    while True:
        if hasattr(loader, "set_epoch"):
            loader.set_epoch(epoch)
        yield from loader
        epoch += 1


@dataclass
class Setup:
    """One loader in one mode: its model, optimiser, training step and per-step timings."""

    name: str
    limits: str
    loader: Any
    node_slots: str
    mode: str  # eager, compile or cudagraph (the step captured by data_loaders.CapturedStep)
    device: torch.device
    workers: int = 0
    loader_seconds: list[float] = field(default_factory=list)
    train_seconds: list[float] = field(default_factory=list)
    real_graphs: list[int] = field(default_factory=list)
    real_nodes: list[float] = field(default_factory=list)
    warmup_seconds: float = 0.0
    compiled_graphs: int = 0

    def __post_init__(self) -> None:
        torch.manual_seed(0)
        model = MolGIN().to(self.device)
        captured = self.mode == "cudagraph"
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, capturable=captured)
        if captured:  # the batch is copied into the capture's inputs: from the host or the device
            self.train: Callable[[Any], Any] = CapturedStep(model, optimizer, masked_bce)
        else:
            # One shape: compiled static (dynamo's automatic dynamic shapes would otherwise carry
            # over from the other loaders, which share MolGIN.forward's code object).
            static = {"dynamic": False} if self.name.startswith("packed") else {}
            forward = torch.compile(model, **static) if self.mode == "compile" else model
            step = functools.partial(plain_step, forward, optimizer, masked_bce)
            self.train = lambda batch: step(batch.to(self.device, non_blocking=True))
        self.batches = endless(self.loader)

    def step(self) -> tuple[float, float, Any]:
        """One training step: seconds to get the batch, seconds to train on it, the batch."""
        before = counters["stats"]["unique_graphs"]
        start = time.perf_counter()
        batch = next(self.batches)
        loaded = time.perf_counter()
        self.train(batch)
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)  # the step is done only when the GPU is
        done = time.perf_counter()
        self.compiled_graphs += counters["stats"]["unique_graphs"] - before
        return loaded - start, done - loaded, batch

    def warm_up(self, steps: int) -> None:
        self.warmup_seconds = sum(sum(self.step()[:2]) for _ in range(steps))

    def measure(self, steps: int) -> None:
        for _ in range(steps):
            loading, training, batch = self.step()
            self.loader_seconds.append(loading)
            self.train_seconds.append(training)
            padded = "graph_mask" in batch
            self.real_graphs.append(int(batch.graph_mask.sum()) if padded else batch.num_graphs)
            self.real_nodes.append(float(batch.node_mask.float().mean()) if padded else 1.0)

    def row(self, graphs: int) -> dict[str, Any]:
        loader_ms, train_ms = 1e3 * np.median(self.loader_seconds), 1e3 * np.median(self.train_seconds)
        epoch = len(self.loader) * (loader_ms + train_ms) / 1e3
        return {
            "loader": self.name, "limits": self.limits, "mode": self.mode, "workers": self.workers,
            "steps/epoch": len(self.loader), "timed steps": len(self.train_seconds),
            "graphs/step": np.mean(self.real_graphs), "nodes/step": self.node_slots,
            "real nodes %": 100 * np.mean(self.real_nodes),
            "loader ms/step": loader_ms, "train ms/step": train_ms, "loader % of train": 100 * loader_ms / train_ms,
            "epoch s": epoch, "graphs/s": graphs / epoch, "warm-up s": self.warmup_seconds,
            "compiled graphs": self.compiled_graphs if self.mode == "compile" else None,
        }


#: One loader to time: its name, its limits in words, the loader, its node slots in words.
LoaderEntry = tuple[str, str, Any, str]


def packed_plans(hist: SizeHistogram, keys: list[str]) -> list[tuple[str, Any, int]]:
    """(limits in words, plan, packs per step) of each packed loader named in ``keys``; the
    recommended one is :func:`packing.recommend`'s choice for batch size 128.

    >>> hist = SizeHistogram.from_counts([10, 20], [20, 44], [600, 200])
    >>> [(words.split(":")[0], per_step) for words, _, per_step in packed_plans(hist, ["recommended"])]
    [('recommended for batch size 128', 16)]
    """
    plans = []
    for key in keys:
        if key == "recommended":
            chosen = recommend(hist, BATCH_SIZE)
            words = f"recommended for batch size {BATCH_SIZE}: {chosen.limits}, {chosen.packs_per_step} pack(s)/step"
            plans.append((words, chosen.plan, chosen.packs_per_step))
        elif key in PACK_LIMITS:
            label, limits = PACK_LIMITS[key]
            plans.append((f"{label}: {limits}", pack(hist, limits, algorithm="best"), 1))
    return plans


def make_loaders(dataset: Any, hist: SizeHistogram, keys: list[str], built: list[str], workers: int,
                 device: torch.device) -> list[LoaderEntry]:
    """The loaders named in ``keys`` with ``workers`` worker processes; packed ones built
    where ``built`` says (on the device only at 0 workers)."""
    options = {"num_workers": workers, "persistent_workers": workers > 0,
               "pin_memory": device.type == "cuda" and workers > 0}
    loaders: list[LoaderEntry] = []
    if "pyg" in keys:
        loaders.append(("PyG DataLoader", f"batch_size={BATCH_SIZE}",
                        DataLoader(dataset, batch_size=BATCH_SIZE, shuffle=True, **options),
                        f"{hist.total_nodes / hist.num_graphs * BATCH_SIZE:,.0f} (mean, varies)"))
    for words, plan, per_step in packed_plans(hist, keys):
        if "host" in built:
            loader = PackedLoader(dataset, plan, seed=0, packs_per_step=per_step, **options)
            loaders.append(("packed", words, loader, f"{loader.shape.num_nodes:,} (fixed)"))
        if "device" in built and workers == 0:
            loader = PackedLoader(dataset, plan, seed=0, packs_per_step=per_step, device=device)
            loaders.append(("packed, on device", words, loader, f"{loader.shape.num_nodes:,} (fixed)"))
    return loaders


def time_mode(loaders: list[LoaderEntry], mode: str, device: torch.device, workers: int,
              args: argparse.Namespace) -> list[Setup]:
    """Warm up, then time every loader in ``mode``, in interleaved rounds (PyG's batches
    change shape every step: no one captured graph replays them, so cudagraph times the
    packed loaders alone)."""
    torch._dynamo.reset()
    counters.clear()
    setups = [Setup(*entry, mode=mode, device=device, workers=workers) for entry in loaders
              if mode != "cudagraph" or entry[0].startswith("packed")]
    for setup in setups:
        setup.warm_up(args.warmup)
    for _ in range(args.rounds):  # interleaved, so load from other work hits every loader alike
        for setup in setups:
            setup.measure(args.steps)
    return setups


def csv_path(out: Path | None) -> Path | None:
    """Where the table goes: None for benchmarks/results/loader.csv, else ``out`` (a .csv
    file) or ``out``/loader.csv (a folder)."""
    if out is None or out.suffix == ".csv":
        return out
    return out / "loader.csv"


def write_table(table: pd.DataFrame, out: Path | None) -> Path:
    """Write the table with the machine it ran on (see :func:`csv_path`)."""
    return save_results(table, "loader", csv_path(out))


def comma_list(text: str, allowed: tuple[str, ...], flag: str, parser: argparse.ArgumentParser) -> list[str]:
    """The comma-separated values of ``flag``, each one of ``allowed``."""
    values = [value.strip() for value in text.split(",") if value.strip()]
    unknown = [value for value in values if value not in allowed]
    if unknown or not values:
        parser.error(f"{flag} takes a comma-separated list of {', '.join(allowed)}; got {text!r}")
    return values


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20, help="timed steps per loader and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; each times every loader in turn")
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps first (compilation or capture happens here)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1: steady on a shared machine)")
    parser.add_argument("--modes", default="eager,compile",
                        help="comma-separated: eager, compile, cudagraph (CUDA only; the packed loaders alone)")
    parser.add_argument("--device", default="cpu", help="where the model trains: cpu, cuda, cuda:1, ...")
    parser.add_argument("--workers", default="0",
                        help="comma-separated loader worker counts, each timed in turn (default 0: batches are made "
                             "in the training process); with workers the loader time is the wait for a prefetched "
                             "batch; packed batches built on the device are timed at 0 workers only")
    parser.add_argument("--loaders", default="pyg,packed-defaults,packed-128",
                        help=f"comma-separated: {', '.join(LOADERS)} (the configuration packing.recommend chooses "
                             f"for batch size {BATCH_SIZE})")
    parser.add_argument("--built", default="host",
                        help="comma-separated: where packed batches are built: host (the loader, or its workers), "
                             "device (PackedLoader(..., device=--device): the dataset kept and batches built there)")
    parser.add_argument("--graphs", type=int, help="time on the first GRAPHS graphs only (default: all 32,901)")
    parser.add_argument("--out", type=Path, help="folder (writes loader.csv there) or .csv file "
                                                 "(default benchmarks/results/loader.csv)")
    return parser


def parse(argv: list[str] | None) -> tuple[argparse.Namespace, torch.device]:
    """The arguments, checked, and the training device."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        device = torch.device(check_device(args.device))
    except ValueError as error:
        parser.error(str(error))
    args.modes = comma_list(args.modes, MODES, "--modes", parser)
    args.loaders = comma_list(args.loaders, LOADERS, "--loaders", parser)
    args.built = comma_list(args.built, BUILT, "--built", parser)
    try:
        args.workers = [int(value) for value in args.workers.split(",")]
    except ValueError:
        parser.error(f"--workers takes comma-separated whole numbers; got {args.workers!r}")
    if any(count < 0 for count in args.workers):
        parser.error(f"--workers takes counts of 0 or more; got {args.workers}")
    if "cudagraph" in args.modes and device.type != "cuda":
        parser.error("--modes cudagraph needs --device cuda: a CUDA graph records GPU kernels")
    if args.graphs is not None and args.graphs < 2 * BATCH_SIZE:
        parser.error(f"--graphs must be at least {2 * BATCH_SIZE} (two batches of {BATCH_SIZE}); got {args.graphs}")
    return args, device


def load_dataset(graphs: int | None) -> tuple[Any, SizeHistogram]:
    """The molhiv-shaped dataset (its first ``graphs`` graphs when given) and its histogram."""
    hist, _ = load_histogram("ogbg-molhiv", split="train")
    dataset = random_mol_dataset(hist)
    if graphs is None:
        return dataset, hist
    dataset = dataset[:graphs]
    return dataset, SizeHistogram.from_sizes(*graph_sizes(dataset))


def main(argv: list[str] | None = None) -> pd.DataFrame:
    args, device = parse(argv)
    torch.set_num_threads(args.threads)
    dataset, hist = load_dataset(args.graphs)
    rows = []
    for workers in args.workers:
        loaders = make_loaders(dataset, hist, args.loaders, args.built, workers, device)
        for mode in args.modes:
            for setup in time_mode(loaders, mode, device, workers, args):
                rows.append(setup.row(hist.num_graphs))
                print(f"{mode:9s} {workers} workers {setup.name:17s} {setup.limits:70s} "
                      f"{rows[-1]['graphs/s']:9,.0f} graphs/s", flush=True)
    table = pd.DataFrame(rows)
    baseline = table[table["loader"] == "PyG DataLoader"].set_index(["mode", "workers"])["epoch s"]
    same = pd.MultiIndex.from_arrays([table["mode"].replace({"cudagraph": "eager"}), table["workers"]])
    table["speed-up"] = baseline.reindex(same).to_numpy() / table["epoch s"]
    table["threads"] = args.threads
    table["torch"] = torch.__version__
    table["device"] = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    with pd.option_context("display.width", 250, "display.max_columns", 30, "display.precision", 2):
        print(table.drop(columns=["threads", "torch", "device"]).to_string(index=False))
    write_table(table, args.out)
    return table


if __name__ == "__main__":
    main()
