"""Loading PyTorch pickles as safely as torch allows (``weights_only`` with an allow-list).

torch >= 2.6 loads with ``weights_only=True`` by default, which refuses PyG's ``Data``
classes: ogb 1.3.6 then fails with "Weights only load failed". Instead of falling back to
full unpickling (arbitrary code execution), we allow exactly PyG's data containers and the
numpy array pieces that OGB split files hold.
"""
from __future__ import annotations

import pickle
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import numpy as np


def _allowed_globals() -> list[Any]:
    """PyG data containers plus numpy array reconstruction (for ``split_dict.pt`` files)."""
    from torch_geometric.data.data import Data, DataEdgeAttr, DataTensorAttr
    from torch_geometric.data.storage import EdgeStorage, GlobalStorage, NodeStorage

    numpy_pieces = [np.ndarray, np.dtype, np._core.multiarray._reconstruct]
    numpy_pieces += [type(np.dtype(kind)) for kind in ("int64", "int32", "float32", "float64", "bool")]
    return [Data, DataEdgeAttr, DataTensorAttr, GlobalStorage, NodeStorage, EdgeStorage,
            *numpy_pieces]


@contextmanager
def pyg_safe_globals() -> Iterator[None]:
    """Within this block ``torch.load(..., weights_only=True)`` accepts PyG data files.

    >>> import io, torch
    >>> from torch_geometric.data import Data
    >>> buffer = io.BytesIO(); torch.save(Data(num_nodes=3), buffer); _ = buffer.seek(0)
    >>> with pyg_safe_globals():
    ...     torch.load(buffer, weights_only=True).num_nodes
    3
    """
    import torch

    with torch.serialization.safe_globals(_allowed_globals()):
        yield


def _refusal_cause(text: str) -> str:
    """The sentence of torch's refusal that names its cause: the refused ``GLOBAL``, else
    the unpickler's complaint (the other lines are generic advice).

    >>> _refusal_cause("Weights only load failed. ...\\n\\tWeightsUnpickler error: Unsupported global: GLOBAL "
    ...                "getattr was not an allowed global by default. Please use ...\\nCheck the docs")
    'Unsupported global: GLOBAL getattr was not an allowed global by default'
    """
    generic = ("Weights only load failed", "Check the documentation", "Please file an issue", "(")
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    cause = next((line for line in lines if "GLOBAL" in line), None) or \
        next((line for line in lines if not line.startswith(generic)), lines[0] if lines else "")
    return cause.removeprefix("WeightsUnpickler error: ").split(". ")[0].rstrip(".")[:300]


def safe_torch_load(path: str | Path) -> Any:
    """``torch.load`` with ``weights_only=True`` and only PyG's data classes allowed.

    A file that needs any other Python object is refused with a ``ValueError`` instead of
    being unpickled.

    >>> import tempfile, torch
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     torch.save({"x": torch.ones(2)}, Path(folder) / "tensors.pt")
    ...     safe_torch_load(Path(folder) / "tensors.pt")
    {'x': tensor([1., 1.])}
    """
    import torch

    try:
        with pyg_safe_globals():
            return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as error:
        text = str(error)
        if "GLOBAL" not in text:  # no object refused: not a pickle torch can read at all
            raise ValueError(_unreadable(path, _refusal_cause(text))) from None
        raise ValueError(
            f"{Path(path).name} contains Python objects other than PyG data and tensors; "
            f"it was not loaded, for safety ({_refusal_cause(text)})."
        ) from None
    except Exception as error:  # torch raises many types (KeyError, RuntimeError...) on junk
        raise ValueError(_unreadable(path, f"{type(error).__name__}: {error}")) from None


def _unreadable(path: str | Path, cause: str) -> str:
    """The message for a file torch cannot read at all, with what to do.

    >>> _unreadable("/data/qm9/processed/data_v3.pt", "KeyError: 1748")[:78]
    '/data/qm9/processed/data_v3.pt is not a readable PyTorch file (KeyError: 1748)'
    """
    return (f"{path} is not a readable PyTorch file ({cause}): it is damaged, cut short or of another kind. If a "
            "download or processing step made it, delete it so that the next run makes it again.")
