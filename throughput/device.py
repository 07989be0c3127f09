"""The device a calibration runs on: checking a device string, describing the device
precisely enough to tell two machines apart, and torch's CPU threads.

A CPU is described by its model name, its vendor, the cores this process may use, the
logical CPUs of the machine, torch's thread count, the clock (MHz, as ``/proc/cpuinfo``
reports it) and the vector instruction sets that PyTorch's kernels dispatch on (AVX2,
AVX-512, AMX, ...). Two CPUs with one model name can still differ in all of these (a
cloud "Intel(R) Xeon(R) Processor" names no generation); :func:`same_device` compares
every field both descriptions have. A GPU is described by CUDA's name, compute capability
and memory.

>>> info = cpu_description(threads=2)
>>> info["type"], info["threads"], same_device(info, dict(info))
('cpu', 2, True)
>>> same_device(info, {**info, "cores": info["cores"] + 1})
False
"""
from __future__ import annotations

import os
import platform
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

#: CPU flags that decide which kernels PyTorch runs (``/proc/cpuinfo`` names).
VECTOR_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16", "avx512_fp16",
                "amx_tile", "amx_bf16", "amx_int8", "asimd", "sve")
#: Fields of a CPU description that must agree for two descriptions to be one device.
CPU_FIELDS = ("name", "vendor", "cores", "logical_cpus", "threads", "vector_flags")
#: Fields of a CUDA description that must agree.
CUDA_FIELDS = ("name", "capability", "memory_gib")


def _cpuinfo() -> dict[str, str]:
    """The first processor's fields of ``/proc/cpuinfo`` (empty where there is none)."""
    fields: dict[str, str] = {}
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return fields
    for line in text.splitlines():
        if not line.strip():
            if fields:
                break
            continue
        if ":" in line:
            key, value = line.split(":", 1)
            fields.setdefault(key.strip().lower(), value.strip())
    return fields


def cpu_name() -> str:
    """The CPU's model name (``/proc/cpuinfo``, else ``platform.processor()``).

    >>> cpu_name() == cpu_description(1)["name"] != ""
    True
    """
    return _cpuinfo().get("model name") or platform.processor() or platform.machine() or "unknown CPU"


def usable_cores() -> int:
    """CPUs this process may run on (its affinity mask; all of them where there is none).

    >>> 1 <= usable_cores() <= (os.cpu_count() or 1)
    True
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def cpu_description(threads: int) -> dict[str, Any]:
    """This machine's CPU as a calibration records it (module docstring), with torch
    running ``threads`` threads."""
    info = _cpuinfo()
    flags = set((info.get("flags") or info.get("features") or "").split())
    try:
        mhz = round(float(info.get("cpu mhz", "")))
    except ValueError:
        mhz = None
    return {"device": "cpu", "type": "cpu", "name": cpu_name(), "vendor": info.get("vendor_id") or platform.machine(),
            "cores": usable_cores(), "logical_cpus": os.cpu_count() or 1, "threads": int(threads), "mhz": mhz,
            "vector_flags": [flag for flag in VECTOR_FLAGS if flag in flags], "platform": platform.platform(),
            "cuda": None}


def same_device(recorded: dict[str, Any], here: dict[str, Any]) -> bool:
    """Whether two device descriptions name one kind of device: same type and every field
    of ``CPU_FIELDS`` (CPU) or of CUDA's name, capability and memory (GPU) that both have.

    >>> same_device({"type": "cpu", "name": "A"}, {"type": "cpu", "name": "A", "cores": 4})
    True
    >>> same_device({"type": "cpu", "name": "A"}, {"type": "cuda", "name": "A"})
    False
    """
    if recorded.get("type") != here.get("type"):
        return False
    if here.get("type") == "cuda":
        first, second = recorded.get("cuda") or {}, here.get("cuda") or {}
        fields = CUDA_FIELDS
    else:
        first, second, fields = recorded, here, CPU_FIELDS
    return all(first[name] == second[name] for name in fields if name in first and name in second)


def check_device(device: Any) -> str:
    """``device`` when it is ``"cpu"``, ``"cuda"`` or ``"cuda:<index>"`` and exists here;
    ``ValueError`` saying what to do otherwise.

    >>> check_device("cpu")
    'cpu'
    >>> check_device("gpu")
    Traceback (most recent call last):
    ...
    ValueError: device must be 'cpu', 'cuda' or 'cuda:<index>', got 'gpu'.
    """
    import torch

    if not isinstance(device, str) or not (device == "cpu" or device == "cuda" or
                                           (device.startswith("cuda:") and device[5:].isdigit())):
        raise ValueError(f"device must be 'cpu', 'cuda' or 'cuda:<index>', got {device!r}.")
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ValueError(f"CUDA is not available here (torch {torch.__version__}); use device='cpu' "
                             "or run this on a machine with an NVIDIA GPU and a CUDA build of torch.")
        if device != "cuda" and int(device[5:]) >= torch.cuda.device_count():
            raise ValueError(f"{device} does not exist: this machine has {torch.cuda.device_count()} CUDA device(s).")
    return device


def device_description(device: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The device (:func:`cpu_description`, or CUDA's name, capability and memory) with
    torch's current thread count, and the software versions.

    >>> info, versions = device_description("cpu")
    >>> info["type"], info["name"] == cpu_name(), sorted(versions)
    ('cpu', True, ['cuda', 'numpy', 'python', 'torch', 'torch_geometric'])
    """
    import numpy as np
    import torch
    import torch_geometric

    info = cpu_description(torch.get_num_threads())
    if device.startswith("cuda"):
        properties = torch.cuda.get_device_properties(torch.device(device))
        cuda = {"name": properties.name, "capability": f"{properties.major}.{properties.minor}",
                "memory_gib": round(properties.total_memory / 2**30, 1)}
        info = {**info, "device": device, "type": "cuda", "name": cuda["name"], "cuda": cuda, "host": info["name"]}
    versions = {"torch": torch.__version__, "torch_geometric": torch_geometric.__version__,
                "cuda": torch.version.cuda, "python": platform.python_version(), "numpy": np.__version__}
    return info, versions


@contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """Run the block with ``threads`` CPU threads in torch (None: unchanged), then restore.

    >>> import torch
    >>> before = torch.get_num_threads()
    >>> with torch_threads(1):
    ...     inside = torch.get_num_threads()
    >>> inside, torch.get_num_threads() == before
    (1, True)
    """
    import torch

    before = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)
