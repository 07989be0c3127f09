"""The CUDA-graph training step that benchmarks/bench_loader.py times (``--modes
cudagraph``) trains on every batch it is given: each replay computes the gradients that an
eager step computes on that batch and updates the model. Needs a CUDA device; skipped on a
machine without one (CI has none).

Parameters are not compared after several steps: two eager runs of this model already
differ by about the learning rate after three Adam steps (scatter sums in another order
change near-zero gradients' signs, and Adam turns a sign into a step of the learning rate)."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from benchmarks.bench_loader import CapturedSetup, train_step
from data_loaders import PackedLoader, random_mol_dataset
from packing import PackLimits, SizeHistogram, pack

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="a CUDA graph records GPU kernels: this machine has no CUDA device")


def test_each_replay_trains_on_its_own_batch():
    rng = np.random.default_rng(0)
    nodes = rng.integers(2, 30, 300)
    hist = SizeHistogram.from_sizes(nodes, 2 * (nodes + rng.integers(0, 4, 300)))
    loader = PackedLoader(random_mol_dataset(hist), pack(hist, PackLimits(256, 640, 32)), seed=0)
    batches = list(loader)[:5]
    device = torch.device("cuda")
    captured = CapturedSetup("packed", "", loader, "", mode="cudagraph", device=device)
    captured.batches = iter(batches)
    captured.step()  # captures on the first batch, then replays it
    assert captured.graph is not None

    for batch in batches[1:]:
        before = copy.deepcopy(captured.model)
        captured.step()
        train_step(before, torch.optim.SGD(before.parameters(), lr=0.0), batch.to(device))  # its gradients only
        for replayed, eager in zip(captured.model.parameters(), before.parameters()):
            torch.testing.assert_close(replayed.grad, eager.grad, rtol=1e-4, atol=1e-5 * float(eager.grad.abs().max()))
        assert any(not torch.equal(after, old) for after, old in zip(captured.model.parameters(), before.parameters()))
