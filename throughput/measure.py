"""Timing one training step (forward, backward, optimizer step) of a model at a padded
batch shape, eagerly or compiled with ``torch.compile``, on CPU or CUDA, or captured as a
CUDA graph and replayed (CUDA only).

Each step is timed on its own: the device is synchronised before the clock is read at
both ends (``torch.cuda.synchronize``; CPU work is synchronous), after warm-up steps that
are not timed. A shape is repeated at least ``min_repeats`` times and at most
``repeats`` times, stopping once ``budget`` seconds were timed; the median and the 25th
and 75th percentiles are kept.

Compiled mode uses ``torch.compile(model, dynamic=False)``: one compiled graph per
shape, as with static padded batches. The first step at a shape compiles it; its time
minus the median step is the cost of one compilation. Compiled code is cleared
(``torch._dynamo.reset``) before each shape, so every shape is a fresh compilation and
``recompile_limit`` never falls back to eager; the on-disk FX graph cache is off, so an
earlier run of the same shape does not hide the cost. The timed steps are checked to
reuse the compiled graph (dynamo's ``unique_graphs`` counter must not move).

Cudagraph mode captures the step through :class:`data_loaders.captured.CapturedStep` (the
project's one implementation of capture; Adam made with ``capturable=True``), one capture
per shape, the random inputs and target held in a PyG ``Data``. The first call (the
capture's warm-up steps, the capture and one replay) minus the median replay is the cost of
one capture; the replays are timed as eager steps are, and the eager step at the shape too.
"""
from __future__ import annotations

import dataclasses
import statistics
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import torch

from torch_geometric.data import Data

from data_loaders.captured import CapturedStep, LossFunction
from packing import BatchShape

from .models import ModelSpec
from .records import ShapeTiming


class TrainStep:
    """Forward, mean squared error against a random target, backward and an Adam step."""

    def __init__(self, module: torch.nn.Module, device: str) -> None:
        self.device = device
        self.optimizer = torch.optim.Adam(module.parameters(), lr=1e-3)

    def __call__(self, forward: Callable[..., torch.Tensor], inputs: tuple[Any, ...], target: torch.Tensor) -> None:
        self.optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(forward(*inputs), target)
        loss.backward()
        self.optimizer.step()

    def synchronize(self) -> None:
        if self.device.startswith("cuda"):
            torch.cuda.synchronize(self.device)

    def timed(self, forward: Callable[..., torch.Tensor], inputs: tuple[Any, ...], target: torch.Tensor) -> float:
        """Seconds of one step, the device synchronised at both ends."""
        return self.timed_call(lambda: self(forward, inputs, target))

    def timed_call(self, call: Callable[[], Any]) -> float:
        """Seconds of ``call()``, the device synchronised at both ends."""
        self.synchronize()
        start = time.perf_counter()
        call()
        self.synchronize()
        return time.perf_counter() - start


@dataclass(frozen=True)
class TimingPlan:
    """How much to time per shape: untimed ``warmup`` steps, then between ``min_repeats``
    and ``repeats`` timed steps, stopping after ``budget`` timed seconds."""

    warmup: int = 3
    repeats: int = 15
    min_repeats: int = 3
    budget: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"warmup": self.warmup, "repeats": self.repeats, "min_repeats": self.min_repeats,
                "budget_seconds": self.budget}


def _repeat(step: TrainStep, forward: Callable, inputs: tuple, target: torch.Tensor, plan: TimingPlan) -> list[float]:
    return _repeat_call(step, lambda: step(forward, inputs, target), plan)


def _repeat_call(step: TrainStep, call: Callable[[], Any], plan: TimingPlan) -> list[float]:
    """``plan.warmup`` untimed calls, then the times of the timed ones (module docstring)."""
    for _ in range(plan.warmup):
        call()
    times: list[float] = []
    while len(times) < plan.repeats and (len(times) < plan.min_repeats or sum(times) < plan.budget):
        times.append(step.timed_call(call))
    return times


def captured_batch(inputs: tuple[Any, ...], target: torch.Tensor) -> tuple[Data, LossFunction]:
    """A PyG ``Data`` holding a model's inputs (tensors as ``input_0``, ``input_1``, ...) and
    its ``target``, and the ``loss_fn(model, batch)`` of a :class:`CapturedStep`: the mean
    squared error of the model called with them, as :class:`TrainStep` computes it (values
    that are not tensors, the number of graphs, are passed as given).

    >>> batch, loss_fn = captured_batch((torch.ones(4, 2), 3), torch.zeros(3, 1))
    >>> sorted(batch.keys()), float(loss_fn(lambda x, graphs: x.sum() * torch.ones(graphs, 1), batch))
    (['input_0', 'target'], 64.0)
    """
    tensors = {f"input_{i}": value for i, value in enumerate(inputs) if isinstance(value, torch.Tensor)}

    def loss_fn(model: Callable[..., torch.Tensor], batch: Data) -> torch.Tensor:
        args = [batch[f"input_{i}"] if f"input_{i}" in tensors else value for i, value in enumerate(inputs)]
        return torch.nn.functional.mse_loss(model(*args), batch.target)

    return Data(**tensors, target=target), loss_fn


def _summary(shape: BatchShape, times: list[float], **extra: Any) -> ShapeTiming:
    p25, p75 = np.quantile(times, [0.25, 0.75]).tolist()
    return ShapeTiming(shape, statistics.median(times), p25, p75, min(times), len(times), **extra)


class ShapeTimer:
    """Times ``spec``'s model at shapes on ``device`` in ``mode`` (module docstring)."""

    def __init__(self, spec: ModelSpec, device: str, mode: str, plan: TimingPlan, seed: int = 0) -> None:
        torch.manual_seed(seed)
        self.spec, self.device, self.mode, self.plan = spec, device, mode, plan
        self.module = spec.build().to(device)
        self.step = TrainStep(self.module, device)
        self.generator = torch.Generator().manual_seed(seed)

    @property
    def recompile_limit(self) -> int:
        """torch's ``recompile_limit``: compiled shapes per function before new ones run eagerly."""
        return int(torch._dynamo.config.recompile_limit)

    def inputs(self, shape: BatchShape) -> tuple[tuple[Any, ...], torch.Tensor]:
        inputs = self.spec.random_inputs(shape, self.generator, self.device)
        target = torch.randn(shape[2], 1, generator=self.generator).to(self.device)
        return inputs, target

    def time(self, shape: BatchShape) -> ShapeTiming:
        """The step times at ``shape``; ``ValueError`` naming the shape when the step fails
        (the device runs out of memory, torch.compile fails or recompiles while timed, the
        capture fails)."""
        try:
            inputs, target = self.inputs(shape)
            if self.mode == "eager":
                return _summary(shape, _repeat(self.step, self.module, inputs, target, self.plan))
            if self.mode == "cudagraph":
                return self._time_captured(shape, inputs, target)
            return self._time_compiled(shape, inputs, target)
        except torch.cuda.OutOfMemoryError:
            raise ValueError(f"The device ran out of memory at shape {shape}; give smaller shapes.") from None
        except RuntimeError as error:  # a CPU allocation, a compiler or capture failure: torch raises RuntimeError
            first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
            advice = "give smaller shapes if memory ran out" + {
                "compile": ", or use mode='eager' if compilation failed",
                "cudagraph": ", or use mode='eager' if the CUDA graph capture failed"}.get(self.mode, "")
            raise ValueError(f"Timing a step at shape {shape} on {self.device} ({self.mode}) failed: {first_line} "
                             f"({advice}).") from None

    def _time_compiled(self, shape: BatchShape, inputs: tuple, target: torch.Tensor) -> ShapeTiming:
        from torch._dynamo.utils import counters
        from torch._inductor import config as inductor_config

        eager = _repeat(self.step, self.module, inputs, target, self.plan)
        torch._dynamo.reset()
        compiled = torch.compile(self.module, dynamic=False)
        with inductor_config.patch(fx_graph_cache=False):
            first = self.step.timed(compiled, inputs, target)
            graphs = counters["stats"]["unique_graphs"]
            times = _repeat(self.step, compiled, inputs, target, self.plan)
        if counters["stats"]["unique_graphs"] != graphs:
            raise RuntimeError(f"torch.compile recompiled during the timed steps at shape {shape}; the "
                               "model's forward must not depend on values that change between steps.")
        summary = _summary(shape, times)
        return _summary(shape, times, compile_seconds=max(0.0, first - summary.median),
                        eager_median=statistics.median(eager))

    def _time_captured(self, shape: BatchShape, inputs: tuple, target: torch.Tensor) -> ShapeTiming:
        eager = _repeat(self.step, self.module, inputs, target, self.plan)
        batch, loss_fn = captured_batch(inputs, target)
        optimizer = torch.optim.Adam(self.module.parameters(), lr=1e-3, capturable=True)
        captured = CapturedStep(self.module, optimizer, loss_fn)
        first = self.step.timed_call(lambda: captured(batch))
        summary = _summary(shape, _repeat_call(self.step, lambda: captured(batch), self.plan))
        return dataclasses.replace(summary, capture_seconds=max(0.0, first - summary.median),
                                   eager_median=statistics.median(eager))
