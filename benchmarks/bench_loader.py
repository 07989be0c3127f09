"""Training throughput: PyG's DataLoader (batch_size=128) against the packed loader.

Data: 32,901 graphs with the sizes of ogbg-molhiv's training split (bundled histogram) and
random integer features of OGB's widths (``x``: 9 atom features, ``edge_attr``: 3 bond
features, ``y``: one label per graph); see ``data_loaders.random_graphs``. Model: 9 atom
embeddings summed, PyG's GIN (hidden 128, 5 layers), global add pooling, a linear head;
binary cross-entropy (masked to real graphs on packed batches), backward, Adam. The GIN does
not read ``edge_attr``; both loaders still load it.

Per mode (eager, ``torch.compile``, and on CUDA ``cudagraph``: the packed loaders' whole
step captured once as a CUDA graph and replayed, :class:`CapturedSetup`) every loader first
runs ``--warmup`` untimed steps (compilation or capture happens there), then ``--rounds``
rounds of ``--steps`` timed steps, the loaders taking turns so that load from other work on
a shared machine hits them alike. The epoch time is extrapolated: the steps of an epoch
times the median time per step (loader + training). "loader" is the time to get the next
batch from the loader's iterator (sampling, fetching, collation and, for the packed loader,
padding), on the CPU; "train" is the copy to ``--device``, forward, backward and the
optimiser step (on a GPU, until it has finished; for a captured step, the copy into its
inputs and the replay). The speed-up is against PyG's DataLoader in the same mode
(``cudagraph``: its eager row).

    .venv/bin/python -m benchmarks.bench_loader [--steps 20] [--rounds 3] [--threads 1]
        [--modes eager,compile,cudagraph] [--device cuda] [--workers 4]

Prints a table and writes benchmarks/results/loader.csv.
"""
from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch._dynamo.utils import counters
from torch_geometric.loader import DataLoader
from torch_geometric.nn import GIN, global_add_pool

from benchmarks.timing import save_results
from data_loaders import PackedLoader, load_histogram, random_mol_dataset
from data_loaders.random_graphs import ATOM_FEATURE_DIMS
from packing import PackLimits, pack
from throughput.device import check_device

HIDDEN, LAYERS, BATCH_SIZE = 128, 5, 128
#: the dashboard's data defaults (largest graph, 256 graphs) and packs of about 128 graphs
#: (128 x the mean molhiv graph, rounded up to multiples of 64)
PACK_LIMITS = {"dashboard defaults": PackLimits(222, 502, 256), "about 128 graphs": PackLimits(3264, 6976, 256)}
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


def train_step(model: Callable, optimizer: torch.optim.Optimizer, batch: Any) -> None:
    logits = model(batch.x, batch.edge_index, batch.batch, batch.num_graphs)
    per_graph = F.binary_cross_entropy_with_logits(logits, batch.y.view(-1).float(), reduction="none")
    if "graph_mask" in batch:
        loss = per_graph.where(batch.graph_mask, 0).sum() / batch.graph_mask.sum().clamp(min=1)
    else:
        loss = per_graph.mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


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
    """One loader in one mode: its model, optimiser and per-step timings."""

    name: str
    limits: str
    loader: Any
    node_slots: str
    mode: str  # eager, compile or cudagraph (CapturedSetup)
    device: torch.device
    loader_seconds: list[float] = field(default_factory=list)
    train_seconds: list[float] = field(default_factory=list)
    real_graphs: list[int] = field(default_factory=list)
    real_nodes: list[float] = field(default_factory=list)
    warmup_seconds: float = 0.0
    compiled_graphs: int = 0

    def __post_init__(self) -> None:
        torch.manual_seed(0)
        model = MolGIN().to(self.device)
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        # One shape: compiled static (dynamo's automatic dynamic shapes would otherwise carry
        # over from the other loaders, which share MolGIN.forward's code object).
        static = {"dynamic": False} if self.name == "packed" else {}
        self.forward = torch.compile(model, **static) if self.mode == "compile" else model
        self.batches = endless(self.loader)

    def step(self) -> tuple[float, float, Any]:
        """One training step: seconds to get the batch, seconds to train on it, the batch."""
        before = counters["stats"]["unique_graphs"]
        start = time.perf_counter()
        batch = next(self.batches)
        loaded = time.perf_counter()
        train_step(self.forward, self.optimizer, batch.to(self.device, non_blocking=True))
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
            "loader": self.name, "limits": self.limits, "mode": self.mode,
            "steps/epoch": len(self.loader), "timed steps": len(self.train_seconds),
            "graphs/step": np.mean(self.real_graphs), "nodes/step": self.node_slots,
            "real nodes %": 100 * np.mean(self.real_nodes),
            "loader ms/step": loader_ms, "train ms/step": train_ms, "loader % of train": 100 * loader_ms / train_ms,
            "epoch s": epoch, "graphs/s": graphs / epoch, "warm-up s": self.warmup_seconds,
            "compiled graphs": self.compiled_graphs if self.mode == "compile" else None,
        }


#: The batch attributes a training step reads: copied into the captured step's inputs.
STEP_INPUTS = ("x", "edge_index", "batch", "y", "graph_mask")


class CapturedSetup(Setup):
    """The packed loader's whole training step (forward, backward, Adam) captured once as
    a CUDA graph and replayed for every batch, as PyTorch's notes on whole-network capture
    describe: a few steps on a side stream first, gradients set to None before the capture,
    Adam with ``capturable=True``. Every pack has one shape, so one capture serves the run;
    each batch is copied into the tensors the capture reads. The first step captures (its
    time is the warm-up)."""

    def __post_init__(self) -> None:
        torch.manual_seed(0)
        self.model = MolGIN().to(self.device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3, capturable=True)
        self.batches = endless(self.loader)
        self.graph: torch.cuda.CUDAGraph | None = None
        self.inputs: Any = None

    def capture(self, batch: Any) -> None:
        self.inputs = batch.to(self.device)
        side = torch.cuda.Stream(self.device)
        side.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(side):
            for _ in range(3):
                train_step(self.model, self.optimizer, self.inputs)
        torch.cuda.current_stream(self.device).wait_stream(side)
        self.optimizer.zero_grad(set_to_none=True)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            train_step(self.model, self.optimizer, self.inputs)

    def step(self) -> tuple[float, float, Any]:
        start = time.perf_counter()
        batch = next(self.batches)
        loaded = time.perf_counter()
        if self.graph is None:
            self.capture(batch)
        for name in STEP_INPUTS:
            self.inputs[name].copy_(batch[name], non_blocking=True)
        self.graph.replay()
        torch.cuda.synchronize(self.device)
        return loaded - start, time.perf_counter() - loaded, batch


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20, help="timed steps per loader and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; each times every loader in turn")
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps first (compilation or capture happens here)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1: steady on a shared machine)")
    parser.add_argument("--modes", default="eager,compile",
                        help="comma-separated: eager, compile, cudagraph (CUDA only; the packed loaders alone)")
    parser.add_argument("--device", default="cpu", help="where the model trains: cpu, cuda, cuda:1, ...")
    parser.add_argument("--workers", type=int, default=0,
                        help="loader worker processes for every loader (default 0: batches are made in the training "
                             "process); with workers the loader time is the wait for a prefetched batch")
    args = parser.parse_args(argv)
    try:
        device = torch.device(check_device(args.device))
    except ValueError as error:
        parser.error(str(error))
    modes = args.modes.split(",")
    if set(modes) - set(MODES):
        parser.error(f"--modes takes {', '.join(MODES)}; got {args.modes!r}")
    if "cudagraph" in modes and device.type != "cuda":
        parser.error("--modes cudagraph needs --device cuda: a CUDA graph records GPU kernels")
    torch.set_num_threads(args.threads)
    hist, _ = load_histogram("ogbg-molhiv", split="train")
    dataset = random_mol_dataset(hist)
    workers = {"num_workers": args.workers, "persistent_workers": args.workers > 0,
               "pin_memory": device.type == "cuda" and args.workers > 0}
    loaders = [("PyG DataLoader", f"batch_size={BATCH_SIZE}",
                DataLoader(dataset, batch_size=BATCH_SIZE, shuffle=True, **workers),
                f"{hist.total_nodes / hist.num_graphs * BATCH_SIZE:,.0f} (mean, varies)")]
    for label, limits in PACK_LIMITS.items():
        loader = PackedLoader(dataset, pack(hist, limits, algorithm="best"), seed=0, **workers)
        loaders.append(("packed", f"{label}: {limits}", loader, f"{loader.shape.num_nodes:,} (fixed)"))
    rows = []
    for mode in modes:
        torch._dynamo.reset()
        counters.clear()
        # PyG's batches change shape every step: no one captured graph replays them
        setups = [CapturedSetup(*loader, mode=mode, device=device) for loader in loaders if loader[0] == "packed"] \
            if mode == "cudagraph" else [Setup(*loader, mode=mode, device=device) for loader in loaders]
        for setup in setups:
            setup.warm_up(args.warmup)
        for _ in range(args.rounds):  # interleaved, so load from other work hits every loader alike
            for setup in setups:
                setup.measure(args.steps)
        for setup in setups:
            rows.append(setup.row(hist.num_graphs))
            print(f"{mode:8s} {setup.name:15s} {setup.limits:55s} {rows[-1]['graphs/s']:9,.0f} graphs/s", flush=True)
    table = pd.DataFrame(rows)
    baseline = table[table["loader"] == "PyG DataLoader"].set_index("mode")["epoch s"]
    table["speed-up"] = table["mode"].replace({"cudagraph": "eager"}).map(baseline) / table["epoch s"]
    table["threads"] = args.threads
    table["workers"] = args.workers
    table["torch"] = torch.__version__
    table["device"] = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    with pd.option_context("display.width", 250, "display.max_columns", 30, "display.precision", 2):
        print(table.drop(columns=["threads", "workers", "torch", "device"]).to_string(index=False))
    save_results(table, "loader")
    return table


if __name__ == "__main__":
    main()
