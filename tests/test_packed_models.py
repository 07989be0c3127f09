"""Models on packed batches: a GIN with global add pooling gives the same per-graph outputs
as on the graphs one by one, a compiled model sees one shape for a whole epoch (PyG's
DataLoader makes it recompile), and the README's training examples run (the GPU one as shown
on a GPU, with the plain step in place of the captured one on a CPU)."""
from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from torch._dynamo.utils import counters
from torch_geometric.loader import DataLoader
from torch_geometric.nn import GIN, global_add_pool

from data_loaders import PackedLoader
from packed_helpers import mixed_dataset, plan_for, real_ids

ROOT = Path(__file__).resolve().parent.parent
NODES = [(5 * i) % 9 + 1 for i in range(60)]
EDGES = [2 * (n - 1) + i % 3 for i, n in enumerate(NODES)]


class GraphRegressor(torch.nn.Module):
    """PyG's GIN, then a sum over each graph's nodes (``global_add_pool``)."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.gin = GIN(5, 16, 3, 4)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor, batch: torch.Tensor, num_graphs: int):
        return global_add_pool(self.gin(x, edge_index), batch, size=num_graphs)


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny tensors: one thread is faster, and steady on a shared machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def dataset():
    return mixed_dataset(NODES, EDGES, seed=4)


def test_gin_on_packed_batches_equals_gin_on_each_graph(dataset):
    model = GraphRegressor().eval()
    loader = PackedLoader(dataset, plan_for(dataset, max_nodes=20, max_edges=40, max_graphs=5), seed=1)
    checked = 0
    with torch.no_grad():
        for batch in loader:
            packed = model(batch.x, batch.edge_index, batch.batch, batch.num_graphs)
            assert packed.shape == (6, 4)
            nodes = model.gin(batch.x, batch.edge_index)[batch.node_mask]
            alone = [dataset[gid] for gid in real_ids(batch)]
            expected = torch.cat([model(g.x, g.edge_index, torch.zeros(g.num_nodes, dtype=torch.long), 1)
                                  for g in alone])
            torch.testing.assert_close(packed[batch.graph_mask], expected, rtol=1e-5, atol=1e-5)
            torch.testing.assert_close(nodes, torch.cat([model.gin(g.x, g.edge_index) for g in alone]),
                                       rtol=1e-5, atol=1e-5)
            checked += len(alone)
    assert checked == len(dataset)


def compile_counts(batches) -> tuple[int, int]:
    """Graphs dynamo compiled and frames it compiled while a fresh compiled model ran
    forward and backward over ``batches``. The 'eager' backend keeps this test fast on a
    small CPU: recompilation is decided by dynamo's guards, whatever the backend."""
    torch._dynamo.reset()
    counters.clear()
    model = GraphRegressor()
    compiled = torch.compile(model, backend="eager")
    for batch in batches:
        out = compiled(batch.x, batch.edge_index, batch.batch, batch.num_graphs)
        out.square().mean().backward()
    return counters["stats"]["unique_graphs"], counters["frames"]["total"]


def test_a_compiled_model_sees_one_shape_per_epoch_of_packs(dataset):
    loader = PackedLoader(dataset, plan_for(dataset, max_nodes=40, max_edges=80, max_graphs=10))
    assert len(loader) >= 8
    with torch._dynamo.config.patch(error_on_recompile=True):
        assert compile_counts(loader) == (1, 1)
    dynamic = DataLoader(dataset, batch_size=8, shuffle=True)
    graphs, frames = compile_counts(dynamic)
    assert graphs >= 2 and frames >= 2  # new batch shapes made dynamo recompile


def readme_example(title: str) -> str:
    """The first Python block of the README's section ``title``."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split(f"## {title}", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def run_example(code: str, cwd: Path) -> subprocess.CompletedProcess:
    """``python -c code`` in ``cwd`` with the project on the path and one CPU thread."""
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"})


def epoch_losses(stdout: str) -> list[float]:
    """The losses the examples print, one line per epoch."""
    return [float(line.split()[-1]) for line in stdout.splitlines() if line.startswith("epoch")]


def test_readme_training_example_runs(tmp_path):
    from figures.snippet import training_snippet

    code = readme_example("Training with the packed loader")
    dataset = code.split("from data_loaders import PackedLoader\n\n", 1)[1].split("\nloader = ", 1)[0]
    assert code == training_snippet("molhiv-2000.json", dataset)  # the Export page's snippet, with a dataset
    result = run_example(code, tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.strip().splitlines()
    assert re.fullmatch(r"\d+ steps of 1,025 nodes, 2,304 edges, 83 graphs", lines[0]), lines[0]
    losses = [float(line.split()[-1]) for line in lines[1:]]
    # finite and positive: labels NaN or padding let through would make it NaN, nothing masked in would make it 0;
    # its size is not asserted (the model's random start and the raw integer features give 0.70-10.4 in runs here)
    assert len(losses) == 2 and all(math.isfinite(loss) and loss > 0 for loss in losses), losses


def cuda_example() -> str:
    """The README's GPU example, checked to be the Export page's CUDA snippet with a dataset."""
    from figures.snippet import cuda_training_snippet

    code = readme_example("Training on a GPU")
    dataset = code.split("from data_loaders import CapturedStep, PackedLoader\n\n", 1)[1].split("\ndevice = ", 1)[0]
    assert code == cuda_training_snippet("molhiv-2000.json", dataset)
    return code


def test_readme_gpu_example_refuses_in_words_on_a_cpu_and_trains_with_the_plain_step(tmp_path):
    """On this CPU the GPU example, with its device set to the CPU, builds its batches on
    the CPU and stops at CapturedStep's refusal naming the plain step; with the plain step
    (and an Adam that is not capturable) in place of the captured one the same loop
    (loss_fn, device-resident loader) trains."""
    on_cpu = cuda_example().replace('torch.device("cuda")', 'torch.device("cpu")', 1)
    captured = "step = CapturedStep(model, optimizer, loss_fn)"
    assert on_cpu.count(captured) == 1
    plain = "from functools import partial\nfrom data_loaders import plain_step\n" + on_cpu.replace(
        captured, "step = partial(plain_step, model, optimizer, loss_fn)").replace(
        "lr=1e-3, capturable=True)", "lr=1e-3)")  # a capturable Adam steps CUDA tensors only
    runner = (f"try:\n    exec({on_cpu!r}, {{}})\nexcept ValueError as error:\n    print('refused:', error)\n"
              f"exec({plain!r}, {{}})")
    result = run_example(runner, tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    refusals = [line for line in result.stdout.splitlines() if line.startswith("refused:")]
    assert refusals == ["refused: A CapturedStep records CUDA kernels, but the model's parameters are on cpu. On this "
                        "device train with the plain step, data_loaders.captured.plain_step(model, optimizer, loss_fn, "
                        "batch), or move the model to a CUDA device first."]
    losses = epoch_losses(result.stdout)
    assert len(losses) == 2 and all(math.isfinite(loss) and loss > 0 for loss in losses), result.stdout


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="the example trains on a CUDA device")
def test_readme_gpu_example_trains_as_shown_on_a_gpu(tmp_path):
    result = run_example(cuda_example(), tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    losses = epoch_losses(result.stdout)
    assert len(losses) == 2 and all(math.isfinite(loss) and loss > 0 for loss in losses), result.stdout


LABELS = {  # per task of figures.snippet: a label per graph i, as the datasets of that task store them
    "regression": "torch.randn(1, 3)",  # QM9 / AFLOW: several targets per graph
    "binary": "torch.tensor([[i % 2, float('nan') if i % 3 else 1.0]])",  # molpcba: tasks, missing labels NaN
    "multiclass": "torch.tensor([i % 5])",  # ogbg-ppa: one class per graph
}


def test_the_export_snippet_trains_for_each_task_of_the_registry(tmp_path):
    """The Export page's snippet for each labelled task runs as shown, on graphs labelled
    as that task's datasets are, with a loss that stays finite (NaN labels masked out)."""
    from figures.snippet import TASKS, training_snippet

    assert set(LABELS) | {"sequence"} == set(TASKS)
    scripts = []
    for task, label in LABELS.items():
        dataset = f'''from data_loaders import graph_sizes, load_histogram, random_mol_dataset
from data_loaders.random_graphs import RandomGraphs
from packing import SizeHistogram, export_config, pack
from packing.io import save_config

hist, info = load_histogram("ogbg-molhiv", split="train")
graphs = list(random_mol_dataset(hist)[:300])
for i, graph in enumerate(graphs):
    graph.y = {label}
dataset = RandomGraphs(*RandomGraphs.collate(graphs))
sizes = SizeHistogram.from_sizes(*graph_sizes(dataset))
save_config(export_config(pack(sizes, max_nodes=512, max_edges=1152), sizes, info), "{task}.json")'''
        scripts.append(training_snippet(f"{task}.json", dataset, task=task))
    runner = "\n".join(f"exec({script!r}, {{}})\nprint('done')" for script in scripts)
    result = subprocess.run([sys.executable, "-c", runner], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"})
    assert result.returncode == 0, result.stderr[-3000:]
    losses = [float(line.split()[-1]) for line in result.stdout.splitlines() if line.startswith("epoch")]
    assert result.stdout.count("done") == 3 and len(losses) == 6
    assert all(math.isfinite(loss) and loss > 0 for loss in losses), result.stdout
