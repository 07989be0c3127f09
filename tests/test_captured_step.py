"""The captured training step (``data_loaders.CapturedStep``): on CPU it refuses in words
(no CUDA device, an optimiser that cannot be captured, a batch of another shape) and the
plain step it points to trains; on a CUDA device (skipped here; ``benchmarks/gpu_run.py``
runs them on a lent GPU) each replay computes the gradients an eager step computes on its
batch, the first call trains exactly one step (the warm-up is undone), a batch of another
shape is refused, and the device-resident loader feeds it.

Parameters are not compared after several steps: two eager runs of a GIN already differ by
about the learning rate after three Adam steps (scatter sums in another order change
near-zero gradients' signs, and Adam turns a sign into a step of the learning rate)."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch_geometric.nn import GIN, global_add_pool

from data_loaders import CapturedStep, PackedLoader, plain_step, random_mol_dataset
from data_loaders.captured import check_same_signature, tensor_signature
from packing import PackLimits, SizeHistogram, pack

def needs_cuda(test):
    """A GPU test: marked ``gpu`` and skipped without a CUDA device."""
    skip = pytest.mark.skipif(not torch.cuda.is_available(),
                              reason="a CUDA graph records GPU kernels: this machine has no CUDA device")
    return pytest.mark.gpu(skip(test))


class MolGIN(torch.nn.Module):
    """An atom-type embedding, PyG's GIN, add pooling over each graph slot, a linear head."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.atoms = torch.nn.Embedding(119, 32)
        self.gin = GIN(32, 32, 3)
        self.head = torch.nn.Linear(32, 1)

    def forward(self, batch) -> torch.Tensor:
        nodes = self.gin(self.atoms(batch.x[:, 0]), batch.edge_index)
        return self.head(global_add_pool(nodes, batch.batch, size=batch.num_graphs)).squeeze(-1)


def masked_loss(model, batch) -> torch.Tensor:
    """Binary cross-entropy over the real graphs of a padded batch."""
    per_graph = F.binary_cross_entropy_with_logits(model(batch), batch.y.view(-1).float(), reduction="none")
    return per_graph.where(batch.graph_mask, 0).sum() / batch.graph_mask.sum().clamp(min=1)


def loader(device=None) -> PackedLoader:
    rng = np.random.default_rng(0)
    nodes = rng.integers(2, 30, 300)
    hist = SizeHistogram.from_sizes(nodes, 2 * (nodes + rng.integers(0, 4, 300)))
    return PackedLoader(random_mol_dataset(hist), pack(hist, PackLimits(256, 640, 32)), seed=0, device=device)


def test_a_cpu_model_is_refused_with_the_plain_step_named():
    model = MolGIN()
    with pytest.raises(ValueError, match=r"records CUDA kernels, but the model's parameters are on cpu.*plain_step"):
        CapturedStep(model, torch.optim.Adam(model.parameters(), capturable=True), masked_loss)


@pytest.mark.parametrize("optimizer", [
    lambda p: torch.optim.Adam(p), lambda p: torch.optim.SGD(p, lr=0.1), lambda p: torch.optim.AdamW(p, capturable=False),
])
def test_an_optimizer_without_capturable_is_refused_naming_it(optimizer):
    model = MolGIN()
    made = optimizer(model.parameters())
    with pytest.raises(ValueError, match=rf"optimizer \({type(made).__name__}\) was not made with capturable=True"):
        CapturedStep(model, made, masked_loss)


def test_a_model_on_two_devices_is_refused():
    model = MolGIN()
    model.register_buffer("elsewhere", torch.zeros(1, device="meta"))
    with pytest.raises(ValueError, match="must all be on one device.*cpu, meta"):
        CapturedStep(model, torch.optim.Adam(model.parameters(), capturable=True), masked_loss)


def test_a_batch_of_another_shape_or_attributes_is_named():
    batches = list(loader())
    captured = tensor_signature(batches[0])
    check_same_signature(captured, batches[1])  # a packed loader's batches share one shape
    other = batches[1].clone()
    other.x = other.x[:-1]
    with pytest.raises(ValueError, match=r"This batch's x is \(256, 9\) torch.int64 but the step was captured for "
                                         r"\(257, 9\) torch.int64"):
        check_same_signature(captured, other)
    other = batches[1].clone()
    other.extra = torch.zeros(3)
    with pytest.raises(ValueError, match="adds the tensor 'extra'"):
        check_same_signature(captured, other)
    del other.extra, other.y
    with pytest.raises(ValueError, match="lacks the tensor 'y'"):
        check_same_signature(captured, other)


def test_the_plain_step_trains_on_a_padded_batch():
    model = MolGIN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    batch = next(iter(loader(device="cpu")))
    before = copy.deepcopy(model)
    first = plain_step(model, optimizer, masked_loss, batch)
    assert first.shape == () and any(not torch.equal(a, b) for a, b in zip(model.parameters(), before.parameters()))
    for _ in range(20):
        last = plain_step(model, optimizer, masked_loss, batch)
    assert float(last) < float(first)


@needs_cuda
@pytest.mark.parametrize("resident", [False, True], ids=["host-built batches", "device-resident batches"])
def test_each_replay_trains_on_its_own_batch(resident):
    device = torch.device("cuda")
    batches = list(loader(device=device if resident else None))[:5]
    model = MolGIN().to(device)
    step = CapturedStep(model, torch.optim.Adam(model.parameters(), lr=1e-3, capturable=True), masked_loss)
    for batch in batches:
        before = copy.deepcopy(model)
        loss = step(batch)
        eager_loss = masked_loss(before, batch.to(device))
        eager_loss.backward()
        torch.testing.assert_close(loss, eager_loss.detach(), rtol=1e-4, atol=1e-5)
        for replayed, reference in zip(model.parameters(), before.parameters()):
            torch.testing.assert_close(replayed.grad, reference.grad, rtol=1e-4,
                                       atol=1e-5 * float(reference.grad.abs().max()))
        assert any(not torch.equal(after, old) for after, old in zip(model.parameters(), before.parameters()))


@needs_cuda
def test_the_first_call_trains_one_step_like_the_plain_step():
    device = torch.device("cuda")
    batch = next(iter(loader(device=device)))
    captured_model, plain_model = MolGIN().to(device), MolGIN().to(device)
    step = CapturedStep(captured_model, torch.optim.Adam(captured_model.parameters(), lr=1e-3, capturable=True),
                        masked_loss)
    step(batch)
    plain_step(plain_model, torch.optim.Adam(plain_model.parameters(), lr=1e-3, capturable=True), masked_loss, batch)
    # Adam's first step moves every parameter by about the learning rate (1e-3): had the three
    # warm-up steps stayed, the parameters would differ by about 3e-3 on average
    difference = torch.cat([(c - p).abs().flatten() for c, p in zip(captured_model.parameters(),
                                                                    plain_model.parameters())])
    assert float(difference.mean()) < 2e-4


@needs_cuda
def test_a_batch_of_another_shape_is_refused_on_the_gpu():
    device = torch.device("cuda")
    model = MolGIN().to(device)
    step = CapturedStep(model, torch.optim.Adam(model.parameters(), capturable=True), masked_loss)
    batches = list(loader(device=device))
    step(batches[0])
    other = batches[1].clone()
    other.x = other.x[:-1]
    with pytest.raises(ValueError, match="captured step replays one shape"):
        step(other)
