"""The cold compilation: the first ``torch.compile`` of a fresh process, which also
imports and sets up the compiler, timed in a child process so that nothing the
calibration already compiled makes it look cheaper.

:func:`cold_compile_seconds` starts ``python -m throughput.cold_compile '<json>'``; the
child builds the named model, runs eager warm-up steps, compiles it at one shape
(``torch.compile(dynamic=False)``, FX graph cache off) and prints the compilation's
seconds (first compiled step minus the median compiled step) as JSON.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from packing import BatchShape

_ROOT = Path(__file__).resolve().parents[1]
#: A cold compilation taking longer than this is reported as an error, not waited for.
TIMEOUT_SECONDS = 900


def _child_env() -> dict[str, str]:
    """This process's environment with the project importable wherever the caller runs."""
    path = os.pathsep.join([str(_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    return {**os.environ, "PYTHONPATH": path}


def cold_compile_seconds(model: str, hidden: int, layers: int, in_channels: int, device: str, shape: BatchShape,
                         threads: int, seed: int = 0) -> float:
    """Seconds of the first compilation in a fresh process of ``model`` (``"gin"`` or
    ``"schnet"``) at ``shape`` on ``device`` with ``threads`` torch threads.

    Args:
        model: ``"gin"`` or ``"schnet"`` (a factory cannot be sent to another process).
        hidden: hidden channels.
        layers: message-passing layers.
        in_channels: node features of the random inputs.
        device: the device the child compiles for.
        shape: the padded shape compiled.
        threads: torch CPU threads in the child.
        seed: seed of the random inputs and weights.

    Returns:
        The first compiled step's time minus the median compiled step's, in seconds.

    Raises:
        ValueError: the child fails (its last error line is quoted) or takes longer than
            ``TIMEOUT_SECONDS``.
    """
    request = {"model": model, "hidden": hidden, "layers": layers, "in_channels": in_channels, "device": device,
               "shape": list(shape), "threads": threads, "seed": seed}
    try:
        done = subprocess.run([sys.executable, "-m", "throughput.cold_compile", json.dumps(request)],
                              capture_output=True, text=True, timeout=TIMEOUT_SECONDS, check=False, env=_child_env())
    except subprocess.TimeoutExpired:
        raise ValueError(f"A cold compilation took more than {TIMEOUT_SECONDS} s; calibrate with smaller shapes.") \
            from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ValueError(f"Timing a cold compilation in a fresh process failed: {last}")
    return float(json.loads(done.stdout.strip().splitlines()[-1])["compile_seconds"])


def _main(argument: str) -> dict[str, Any]:
    from .device import torch_threads
    from .measure import ShapeTimer, TimingPlan
    from .models import model_spec

    request = json.loads(argument)
    spec = model_spec(request["model"], request["hidden"], request["layers"], request["in_channels"])
    with torch_threads(request["threads"]):
        timer = ShapeTimer(spec, request["device"], "compile", TimingPlan(warmup=2, repeats=5, budget=1.0),
                           request["seed"])
        timing = timer.time(BatchShape(*request["shape"]))
    return {"compile_seconds": timing.compile_seconds}


if __name__ == "__main__":
    print(json.dumps(_main(sys.argv[1])))
