"""A training step captured once as a CUDA graph and replayed for every batch of one shape.

Every batch of a :class:`~data_loaders.packed.PackedLoader` has one shape, so the whole
training step (forward, loss, backward, optimiser step) can be recorded once as a CUDA graph
and replayed: one launch instead of hundreds of kernel launches from Python, which is what a
small GNN's step on a GPU mostly waits for. The recipe follows PyTorch's notes on
whole-network capture (CUDA semantics, "CUDA Graphs"): warm-up steps on a side stream,
gradients set to None before the capture, an optimiser made with ``capturable=True``, and
each new batch copied into the tensors the capture reads.

>>> import torch
>>> model = torch.nn.Linear(3, 1)
>>> optimizer = torch.optim.Adam(model.parameters(), capturable=True)
>>> CapturedStep(model, optimizer, lambda model, batch: model(batch.x).mean())
Traceback (most recent call last):
...
ValueError: A CapturedStep records CUDA kernels, but the model's parameters are on cpu. \
On this device train with the plain step, data_loaders.captured.plain_step(model, optimizer, loss_fn, batch), \
or move the model to a CUDA device first.
"""
from __future__ import annotations

from typing import Any, Callable

import torch

#: ``loss_fn(model, batch)``: the step's loss, a scalar tensor.
LossFunction = Callable[[torch.nn.Module, Any], torch.Tensor]
#: untimed steps run on a side stream before the capture (their updates are undone)
WARMUP_STEPS = 3


def plain_step(model: torch.nn.Module, optimizer: torch.optim.Optimizer, loss_fn: LossFunction,
               batch: Any) -> torch.Tensor:
    """One eager training step: gradients cleared, the loss, backward, the optimiser's step;
    returns the loss (detached).

    >>> model = torch.nn.Linear(2, 1)
    >>> optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    >>> from torch_geometric.data import Data
    >>> loss = plain_step(model, optimizer, lambda m, b: m(b.x).pow(2).mean(), Data(x=torch.ones(4, 2)))
    >>> loss.shape
    torch.Size([])
    """
    optimizer.zero_grad(set_to_none=True)
    loss = loss_fn(model, batch)
    loss.backward()
    optimizer.step()
    return loss.detach()


def tensor_signature(batch: Any) -> tuple[tuple[str, tuple[int, ...], torch.dtype], ...]:
    """The name, shape and dtype of every tensor attribute of a PyG batch, sorted by name:
    what a captured step needs to stay the same from batch to batch.

    >>> from torch_geometric.data import Data
    >>> tensor_signature(Data(x=torch.ones(4, 2), y=torch.zeros(1, dtype=torch.long)))
    (('x', (4, 2), torch.float32), ('y', (1,), torch.int64))
    """
    return tuple(sorted((key, tuple(value.shape), value.dtype) for key, value in batch.items()
                        if isinstance(value, torch.Tensor)))


def check_same_signature(captured: tuple, batch: Any) -> None:
    """``ValueError`` naming the first attribute whose shape or dtype differs from the
    captured batch's (a CUDA graph replays fixed shapes).

    >>> from torch_geometric.data import Data
    >>> check_same_signature(tensor_signature(Data(x=torch.ones(4, 2))), Data(x=torch.ones(5, 2)))
    Traceback (most recent call last):
    ...
    ValueError: This batch's x is (5, 2) torch.float32 but the step was captured for (4, 2) torch.float32: \
a captured step replays one shape. Give every batch one shape (all of a PackedLoader's batches have loader.shape), \
or make one CapturedStep per shape.
    """
    found = tensor_signature(batch)
    if found == captured:
        return
    was = {key: (shape, dtype) for key, shape, dtype in captured}
    now = {key: (shape, dtype) for key, shape, dtype in found}
    for key in sorted(was.keys() | now.keys()):
        if key not in now or key not in was:
            raise ValueError(
                f"This batch {'lacks' if key not in now else 'adds'} the tensor {key!r} "
                f"{'that the step was captured with' if key not in now else 'the captured batch did not have'}: "
                "a captured step copies the same attributes into its inputs every time.")
        if was[key] != now[key]:
            (shape, dtype), (old_shape, old_dtype) = now[key], was[key]
            raise ValueError(
                f"This batch's {key} is {shape} {dtype} but the step was captured for {old_shape} {old_dtype}: a "
                "captured step replays one shape. Give every batch one shape (all of a PackedLoader's batches "
                "have loader.shape), or make one CapturedStep per shape.")


def _check_capturable(optimizer: torch.optim.Optimizer) -> None:
    if not all(group.get("capturable") is True for group in optimizer.param_groups):
        raise ValueError(
            f"The optimizer ({type(optimizer).__name__}) was not made with capturable=True: its step counts on the "
            "host, which a replayed CUDA graph would not update. Make it with capturable=True (Adam, AdamW, "
            "RMSprop and others accept it), e.g. torch.optim.Adam(model.parameters(), lr=1e-3, capturable=True).")


def _model_device(model: torch.nn.Module) -> torch.device:
    devices = {tensor.device for tensor in [*model.parameters(), *model.buffers()]}
    if len(devices) != 1:
        raise ValueError(f"The model's parameters must all be on one device to capture its step; found "
                         f"{', '.join(sorted(map(str, devices))) or 'no parameters'}.")
    return devices.pop()


class CapturedStep:
    """``step = CapturedStep(model, optimizer, loss_fn)``, then ``loss = step(batch)`` for
    every batch: one training step (``loss_fn(model, batch)``, backward, the optimiser's
    step) recorded as a CUDA graph on the first call and replayed on every call.

    The first call runs :data:`WARMUP_STEPS` steps on a side stream (so the optimiser
    makes its state and libraries pick their kernels), puts the parameters, buffers and
    optimiser state back as they were, captures the step, and replays it on the first
    batch: every call trains exactly one step, as :func:`plain_step` would. Each later
    call copies the batch's tensors into the captured inputs (from the host or from the
    device) and replays. Values that are not tensors (``batch.num_graphs``) are read
    once, at the capture: a PackedLoader's are the same for every batch.

    Args:
        model: a module whose parameters are on one CUDA device.
        optimizer: an optimiser over the model's parameters made with ``capturable=True``.
        loss_fn: ``loss_fn(model, batch)``, the step's loss as a scalar tensor; it may read
            any tensor attribute of the batch.

    Returns (each call): the step's loss, a tensor on the device (a copy: the next replay
    does not overwrite it).

    Raises:
        ValueError: the optimiser was not made with ``capturable=True``; the model is not on
            a CUDA device (use :func:`plain_step` there); a batch whose tensors differ in
            name, shape or dtype from the first batch's.

    >>> model = torch.nn.Linear(3, 1)
    >>> CapturedStep(model, torch.optim.Adam(model.parameters()), lambda model, batch: model(batch.x).mean())
    Traceback (most recent call last):
    ...
    ValueError: The optimizer (Adam) was not made with capturable=True: its step counts on the host, which a \
replayed CUDA graph would not update. Make it with capturable=True (Adam, AdamW, RMSprop and others accept it), \
e.g. torch.optim.Adam(model.parameters(), lr=1e-3, capturable=True).
    """

    def __init__(self, model: torch.nn.Module, optimizer: torch.optim.Optimizer, loss_fn: LossFunction) -> None:
        _check_capturable(optimizer)
        self.device = _model_device(model)
        if self.device.type != "cuda":
            raise ValueError(
                f"A CapturedStep records CUDA kernels, but the model's parameters are on {self.device}. On this "
                "device train with the plain step, data_loaders.captured.plain_step(model, optimizer, loss_fn, batch), "
                "or move the model to a CUDA device first.")
        self.model, self.optimizer, self.loss_fn = model, optimizer, loss_fn
        self.graph: torch.cuda.CUDAGraph | None = None
        self.inputs: Any = None
        self.signature: tuple = ()
        self.loss: torch.Tensor | None = None

    def __call__(self, batch: Any) -> torch.Tensor:
        if self.graph is None:
            self._capture(batch)
        else:
            check_same_signature(self.signature, batch)
        for key, _, _ in self.signature:
            self.inputs[key].copy_(batch[key], non_blocking=True)
        self.graph.replay()
        return self.loss.detach().clone()

    def _capture(self, batch: Any) -> None:
        self.signature = tensor_signature(batch)
        self.inputs = batch.to(self.device).clone()
        saved = self._state()
        side = torch.cuda.Stream(self.device)
        side.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(side):
            for _ in range(WARMUP_STEPS):
                plain_step(self.model, self.optimizer, self.loss_fn, self.inputs)
        torch.cuda.current_stream(self.device).wait_stream(side)
        self._restore(saved)
        self.optimizer.zero_grad(set_to_none=True)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            self.loss = self._step_in_capture()

    def _step_in_capture(self) -> torch.Tensor:
        """The step as recorded: no ``zero_grad`` (the gradients made in the capture are
        overwritten, not added to, on every replay)."""
        loss = self.loss_fn(self.model, self.inputs)
        loss.backward()
        self.optimizer.step()
        return loss

    def _state(self) -> dict[int, torch.Tensor]:
        """Copies of the parameters, buffers and optimiser state tensors, by identity."""
        tensors = [*self.model.parameters(), *self.model.buffers(), *self._optimizer_tensors()]
        return {id(tensor): tensor.detach().clone() for tensor in tensors}

    def _optimizer_tensors(self) -> list[torch.Tensor]:
        return [value for state in self.optimizer.state.values() for value in state.values()
                if isinstance(value, torch.Tensor)]

    @torch.no_grad()
    def _restore(self, saved: dict[int, torch.Tensor]) -> None:
        """Undo the warm-up: tensors that existed are copied back in place (the capture
        reads their addresses); optimiser state the warm-up made starts from zero, as a
        fresh optimiser's does."""
        for tensor in [*self.model.parameters(), *self.model.buffers(), *self._optimizer_tensors()]:
            if id(tensor) in saved:
                tensor.copy_(saved[id(tensor)])
            else:
                tensor.zero_()
