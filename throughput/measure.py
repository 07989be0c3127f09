"""Timing one training step (forward, backward, optimizer step) of a model at a padded
batch shape, eagerly or compiled with ``torch.compile``, on CPU or CUDA.

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
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import torch

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
        self.synchronize()
        start = time.perf_counter()
        self(forward, inputs, target)
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
    for _ in range(plan.warmup):
        step(forward, inputs, target)
    times: list[float] = []
    while len(times) < plan.repeats and (len(times) < plan.min_repeats or sum(times) < plan.budget):
        times.append(step.timed(forward, inputs, target))
    return times


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
        (the device runs out of memory, torch.compile fails or recompiles while timed)."""
        try:
            inputs, target = self.inputs(shape)
            if self.mode == "eager":
                return _summary(shape, _repeat(self.step, self.module, inputs, target, self.plan))
            return self._time_compiled(shape, inputs, target)
        except torch.cuda.OutOfMemoryError:
            raise ValueError(f"The device ran out of memory at shape {shape}; give smaller shapes.") from None
        except RuntimeError as error:  # a CPU allocation, a compiler failure: torch raises RuntimeError
            first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
            advice = "give smaller shapes if memory ran out" + (
                ", or use mode='eager' if compilation failed" if self.mode == "compile" else "")
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
