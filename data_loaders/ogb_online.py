"""Downloads through ``ogb`` and PyG, made safe for a dashboard.

- ``import ogb`` normally starts a background thread that asks PyPI whether ogb is out of
  date. ogb 1.3.6 skips that check when ``from outdated import check_outdated`` fails, so
  :func:`import_ogb` imports ogb while ``outdated`` is hidden (no environment variable
  switches the check off in this version).
- ogb asks questions with ``input()``: before a download over 1 GB, and when a data set
  folder exists without its release file (which a failed download leaves behind). We
  answer the size question "yes" (the user asked for that data set, whose size the
  registry shows) and refuse any other question, so ``input()`` itself never runs.
- Every download happens in a fresh staging folder that is moved into place only after
  it succeeded and is removed whatever happens, so a failed download leaves nothing that
  would make ogb prompt next time.
"""
from __future__ import annotations

import errno
import importlib
import shutil
import socket
import ssl
import sys
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator
from http.client import HTTPException
from urllib.error import HTTPError, URLError

import numpy as np

from .errors import DatasetUnavailableError
from .pyg_sizes import dataset_sizes
from .torch_safe import pyg_safe_globals

_LOCK = threading.Lock()
_PROMPTING_MODULES = ("ogb.utils.url", "ogb.graphproppred.dataset_pyg", "ogb.lsc.pcqm4mv2_pyg")

#: What a builder returns: nodes, edges, split indices and the folder it filled.
Built = tuple[np.ndarray, np.ndarray, dict[str, np.ndarray], Path]


def import_ogb(module: str = "ogb") -> ModuleType:
    """Import an ogb module without starting ogb's network version check.

    >>> import_ogb("ogb.graphproppred").__name__
    'ogb.graphproppred'
    """
    if "ogb" not in sys.modules:
        missing = object()
        saved = sys.modules.get("outdated", missing)
        sys.modules["outdated"] = None  # type: ignore[assignment]  # import fails -> no check
        try:
            importlib.import_module("ogb")
        finally:
            if saved is missing:
                del sys.modules["outdated"]
            else:
                sys.modules["outdated"] = saved  # type: ignore[assignment]
    return importlib.import_module(module)


def _answer(prompt: str = "") -> str:
    """Stands in for ``input()`` inside ogb: confirms the download size, refuses the rest."""
    if prompt.startswith("This will download"):
        return "y"
    raise RuntimeError(f"ogb asked an unexpected question: {prompt.strip()!r}")


@contextmanager
def no_prompts() -> Iterator[None]:
    """Within this block ogb's modules call :func:`_answer` instead of ``input()``.

    >>> with no_prompts():
    ...     import_ogb("ogb.utils.url").input("This will download 1.40GB. Will you proceed?")
    'y'
    """
    modules = [import_ogb(name) for name in _PROMPTING_MODULES]
    for module in modules:
        module.input = _answer  # module globals shadow the builtin
    try:
        yield
    finally:
        for module in modules:
            del module.input


def _diagnosis(error: BaseException, folder: Path) -> tuple[str, str]:
    """What went wrong in a failed download, in words, and what to do about it: a network
    failure as what happened (not urllib's repr) with "connect"; a full or read-only disk
    with where to make room; anything else as Python names it, with "try again".

    >>> _diagnosis(URLError(socket.gaierror(-2, "Name or service not known")), Path("/data"))
    ("no network: the download server's name could not be looked up (Name or service not known)", 'Connect to the internet and try again')
    >>> _diagnosis(HTTPError("https://x", 404, "Not Found", None, None), Path("/data"))[0]
    'the download server answered HTTP 404 (Not Found)'
    >>> _diagnosis(URLError(ssl.SSLCertVerificationError(1, "certificate verify failed")), Path("/data"))[1]
    "Check this machine's certificates and proxy settings, and try again"
    >>> _diagnosis(OSError(28, "No space left on device"), Path("/data"))
    ('OSError: [Errno 28] No space left on device', 'Free disk space in /data or set GRAPH_PACKING_DATA to a folder with room, and try again')
    >>> _diagnosis(RuntimeError("bad archive"), Path("/data"))
    ('RuntimeError: bad archive', 'Try again (this failure is not a missing network connection)')
    """
    connect = "Connect to the internet and try again"
    retry = "Try again (this failure is not a missing network connection)"
    if isinstance(error, HTTPError):
        return (f"the download server answered HTTP {error.code} ({error.reason})",
                "Try again later (the server answered, so this machine is online)")
    cause = error.reason if isinstance(error, URLError) else error
    if isinstance(cause, socket.gaierror):
        return f"no network: the download server's name could not be looked up ({cause.strerror or cause})", connect
    if isinstance(cause, (TimeoutError, socket.timeout)):
        return "no network: the connection timed out", connect
    if isinstance(cause, ssl.SSLError):
        return (f"no secure connection to the download server ({cause})",
                "Check this machine's certificates and proxy settings, and try again")
    if isinstance(cause, OSError) and isinstance(error, (URLError, ConnectionError)):
        return f"no network: the connection failed ({cause.strerror or cause})", connect
    if isinstance(error, URLError):  # e.g. an address urllib cannot open
        return f"the download failed ({cause})", retry
    named = f"{type(error).__name__}: {error}".strip()
    if isinstance(error, HTTPException):
        return named, connect
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return named, f"Free disk space in {folder} or set GRAPH_PACKING_DATA to a folder with room, and try again"
    if isinstance(error, OSError) and error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return named, f"Set GRAPH_PACKING_DATA to a folder you can write ({folder} is not writable), and try again"
    if isinstance(error, ImportError):
        return named, "Install the pinned requirements (bash run.sh test sets them up) and try again"
    return named, retry


def staged_download(
    dataset: str, download_size: str | None, final_dir: Path, build: Callable[[Path], Built]
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Run ``build`` in a staging folder next to ``final_dir``; move its result into place.

    ``build(staging_root)`` constructs the data set (downloading it) and returns sizes,
    split indices and the folder it wrote. Any failure becomes a
    :class:`DatasetUnavailableError`; the staging folder never survives.
    """
    final_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".staging-{final_dir.name}-", dir=final_dir.parent))
    try:
        with _LOCK, pyg_safe_globals():
            nodes, edges, splits, built = build(staging)
        if not final_dir.exists():
            shutil.move(str(built), str(final_dir))
        return nodes, edges, splits
    except DatasetUnavailableError:
        raise
    except (Exception, SystemExit) as error:  # ogb raises URLError, RuntimeError or exits
        reason, advice = _diagnosis(error, final_dir.parent)
        raise DatasetUnavailableError(
            dataset, download_size, reason,
            f"place the prepared folder at {final_dir} (set GRAPH_PACKING_DATA to change where)",
            advice=advice,
        ) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def numpy_splits(split_dict: dict[str, Any]) -> dict[str, np.ndarray]:
    """Split name -> graph indices as int64 arrays (from lists or tensors).

    >>> numpy_splits({"train": [0, 2]})["train"].dtype
    dtype('int64')
    """
    return {name: np.asarray(index, dtype=np.int64) for name, index in split_dict.items()}


def build_graphprop(name: str) -> Callable[[Path], Built]:
    """Builder for an ``ogbg-*`` data set through ``PygGraphPropPredDataset``."""

    def build(root: Path) -> Built:
        module = import_ogb("ogb.graphproppred")
        with no_prompts():
            dataset = module.PygGraphPropPredDataset(name=name, root=str(root))
        nodes, edges = dataset_sizes(dataset)
        return nodes, edges, numpy_splits(dataset.get_idx_split()), Path(dataset.root)

    return build


def build_pcqm4mv2(root: Path) -> Built:
    """Builder for PCQM4Mv2 through ogb's ``PygPCQM4Mv2Dataset``."""
    module = import_ogb("ogb.lsc")
    with no_prompts():
        dataset = module.PygPCQM4Mv2Dataset(root=str(root))
    nodes, edges = dataset_sizes(dataset)
    return nodes, edges, numpy_splits(dataset.get_idx_split()), Path(dataset.folder)


def build_pyg_qm9(root: Path) -> Built:
    """Builder for ``torch_geometric.datasets.QM9`` (bonds with hydrogens, from the SDF)."""
    from torch_geometric.datasets import QM9

    dataset = QM9(str(root / "qm9-pyg"))
    nodes, edges = dataset_sizes(dataset)
    return nodes, edges, {}, Path(dataset.root)
