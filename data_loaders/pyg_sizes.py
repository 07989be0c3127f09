"""Per-graph sizes of PyG ``InMemoryDataset`` objects, vectorised from ``slices``.

An ``InMemoryDataset`` stores all graphs concatenated plus ``slices``: for every attribute
the offsets where each graph starts. ``np.diff`` of the ``edge_index`` offsets gives the
edges of every graph at once, and of a node-level attribute (``x``, ``pos``, ``z``) the
nodes; graphs stored without node features keep their node counts in a private PyG field
(read in :mod:`data_loaders.pyg_internals`).
This replaces the per-graph loop of Krell et al. (tuple packing paper, Listing 1). Edges
that leave their graph's nodes are found the same way, in one pass (:func:`first_stray_edge`).
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import torch
from torch_geometric.data import Data, InMemoryDataset

from packing import SizeHistogram

from .pyg_internals import collated_node_counts, collated_storage
from .torch_safe import safe_torch_load

#: Node-level attributes whose slices give node counts, in order of preference.
NODE_KEYS = ("x", "pos", "z", "batch")


def _as_numpy(values: Any) -> np.ndarray:
    if hasattr(values, "numpy"):
        return values.detach().cpu().numpy().astype(np.int64)
    return np.asarray(values, dtype=np.int64)


def _field(data: Any, key: str) -> Any:
    """Attribute ``key`` of a collated ``Data`` object or of its ``to_dict()`` form."""
    if isinstance(data, Mapping):
        return data.get(key)
    return getattr(data, key, None)


def sizes_from_collated(data: Any, slices: Mapping[str, Any] | None) -> tuple[np.ndarray, np.ndarray]:
    """Node and edge counts of every graph in collated ``(data, slices)`` storage.

    Args:
        data: the collated graphs, a ``Data`` or its ``to_dict()`` form.
        slices: per attribute, where each graph starts; None for storage of one graph.

    Returns:
        ``(nodes, edges)``: two integer arrays, one entry per graph.

    Raises:
        ValueError: no ``edge_index``, or no node count for the graphs.

    >>> import torch
    >>> from torch_geometric.data import Data, InMemoryDataset
    >>> graphs = [Data(x=torch.ones(n, 1), edge_index=torch.zeros(2, 2 * n, dtype=torch.long))
    ...           for n in (3, 1, 4)]
    >>> nodes, edges = sizes_from_collated(*InMemoryDataset.collate(graphs))
    >>> nodes.tolist(), edges.tolist()
    ([3, 1, 4], [6, 2, 8])
    >>> [a.tolist() for a in sizes_from_collated({"x": torch.ones(5, 2), "edge_index": torch.zeros(2, 4)}, None)]
    [[5], [4]]
    """
    if slices is None:  # a single graph: PyG stores no slices
        edge_index = _field(data, "edge_index")
        edges = 0 if edge_index is None else int(edge_index.shape[1])
        num_nodes = _field(data, "num_nodes")
        if num_nodes is None:  # PyG's own save keeps no count: a node attribute's rows give it
            present = (_field(data, key) for key in NODE_KEYS)
            rows = next((values.shape[0] for values in present if values is not None), None)
            if rows is None:
                raise ValueError("The data set holds one graph without a node count or a node attribute "
                                 f"({', '.join(NODE_KEYS)}).")
            num_nodes = rows
        return np.array([int(num_nodes)]), np.array([edges])
    if "edge_index" not in slices:
        raise ValueError(
            f"The data set has no edge_index (attributes: {', '.join(map(str, slices))}); "
            "cannot count edges."
        )
    edges = np.diff(_as_numpy(slices["edge_index"]))
    per_graph_nodes = collated_node_counts(data)
    if per_graph_nodes is not None and len(per_graph_nodes) == len(edges):
        return _as_numpy(per_graph_nodes), edges
    for key in NODE_KEYS:
        if key in slices:
            return np.diff(_as_numpy(slices[key])), edges
    raise ValueError(
        "Cannot tell how many nodes each graph has: no per-graph num_nodes and none of the "
        f"node attributes {', '.join(NODE_KEYS)} (attributes: {', '.join(map(str, slices))})."
    )


def reads_as_stored(dataset: Any) -> bool:
    """Whether ``dataset[i]`` is exactly graph ``i`` of a PyG ``InMemoryDataset``'s collated
    storage, so sizes and graphs can be read from ``slices`` without materialising them: an
    ``InMemoryDataset`` (or a view) with no ``transform``, PyG's own ``get``, ``len`` and
    ``indices`` (a subclass that overrides them returns other graphs), and homogeneous
    storage. Anything else is read graph by graph, as PyG's ``DataLoader`` reads it.

    >>> import torch
    >>> from torch_geometric.data import Data, InMemoryDataset
    >>> class Tiny(InMemoryDataset):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.data, self.slices = self.collate([Data(x=torch.ones(n, 1)) for n in (2, 5)])
    >>> class Doubled(Tiny):
    ...     def get(self, idx):
    ...         return Data(x=torch.ones(4, 1))
    >>> reads_as_stored(Tiny()), reads_as_stored(Tiny()[[1]]), reads_as_stored(Doubled()), reads_as_stored([1])
    (True, True, False, False)
    """
    if not isinstance(dataset, InMemoryDataset) or dataset.transform is not None:
        return False
    if any(getattr(type(dataset), name) is not getattr(InMemoryDataset, name)
           for name in ("get", "len", "indices", "__getitem__", "__len__")):
        return False
    storage, slices = collated_storage(dataset)
    return type(storage) is Data and (slices is None or isinstance(slices, Mapping))


def dataset_sizes(dataset: Any) -> tuple[np.ndarray, np.ndarray]:
    """Node and edge counts of every graph of an ``InMemoryDataset``, honouring subset views,
    as stored (a ``transform`` is not applied; :func:`data_loaders.graph_sizes` gives the
    sizes the packed loader sees).

    Args:
        dataset: a PyG ``InMemoryDataset`` or a view of one (``dataset[idx]``).

    Returns:
        ``(nodes, edges)``: two integer arrays, one entry per graph in the view's order.

    Raises:
        ValueError: the graphs have no ``edge_index``, or no node counts can be read (neither
            a per-graph ``num_nodes`` nor a node-level attribute).

    >>> import torch
    >>> from torch_geometric.data import Data, InMemoryDataset
    >>> class Tiny(InMemoryDataset):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.data, self.slices = self.collate(
    ...             [Data(num_nodes=n, edge_index=torch.zeros(2, n, dtype=torch.long)) for n in (2, 5, 7)])
    >>> [a.tolist() for a in dataset_sizes(Tiny()[[2, 0]])]
    [[7, 2], [7, 2]]
    """
    nodes, edges = sizes_from_collated(*collated_storage(dataset))
    positions = storage_positions(dataset)
    return nodes[positions], edges[positions]


def stray_edge(edge_index: Any, num_nodes: int) -> int | None:
    """An entry of one graph's ``edge_index`` outside its nodes ``0 .. num_nodes - 1`` (the
    lowest if one is negative, else the highest), or None when every entry is a node.

    >>> stray_edge(torch.tensor([[0, 1], [1, 0]]), 2), stray_edge(torch.tensor([[0, -1], [5, 0]]), 2)
    (None, -1)
    """
    if not isinstance(edge_index, torch.Tensor) or edge_index.numel() == 0:
        return None
    low, high = (int(bound) for bound in torch.aminmax(edge_index))
    if low < 0:
        return low
    return high if high >= num_nodes else None


def first_stray_edge(dataset: Any) -> tuple[int, int, int] | None:
    """The first graph of an ``InMemoryDataset`` (its position in a subset view) whose
    ``edge_index`` has an entry outside its nodes, as ``(position, entry, num_nodes)``; None
    when every edge joins two nodes of its graph. One vectorised pass over the storage.

    >>> from torch_geometric.data import Data, InMemoryDataset
    >>> class Tiny(InMemoryDataset):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.data, self.slices = self.collate(
    ...             [Data(num_nodes=2, edge_index=torch.tensor([[0], [n]])) for n in (1, 2, 1)])
    >>> first_stray_edge(Tiny()), first_stray_edge(Tiny()[[2, 1]]), first_stray_edge(Tiny()[[0, 2]])
    ((1, 2, 2), (1, 2, 2), None)
    """
    storage, slices = collated_storage(dataset)
    nodes, edges = sizes_from_collated(storage, slices)
    edge_index = _field(storage, "edge_index")
    if edge_index is None:  # one graph without edge_index: the packed loader names it
        return None
    positions = storage_positions(dataset)
    flagged = np.flatnonzero(_has_stray_edge(edge_index, nodes, edges)[positions])
    if flagged.size == 0:
        return None
    stored = int(positions[flagged[0]])
    start = int(edges[:stored].sum())
    entry = stray_edge(edge_index[:, start:start + int(edges[stored])], int(nodes[stored]))
    return int(flagged[0]), entry, int(nodes[stored])


def _has_stray_edge(edge_index: torch.Tensor, nodes: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Per stored graph, whether its part of the collated ``edge_index`` (which PyG keeps in
    each graph's own node numbers) has an entry outside ``0 .. nodes - 1``."""
    owner = np.repeat(np.arange(nodes.size), edges)
    # read as unsigned, a negative entry wraps past every node count: one comparison finds both
    values = np.asarray(edge_index.detach().cpu().numpy(), dtype=np.int64).view(np.uint64)
    stray = (values >= nodes[owner].astype(np.uint64)).any(axis=0)
    has_stray = np.zeros(nodes.size, dtype=bool)
    has_stray[owner[stray]] = True
    return has_stray


def storage_positions(dataset: Any) -> np.ndarray:
    """Where each graph of an ``InMemoryDataset`` (a subset view or not) sits in its storage.

    >>> import torch
    >>> from torch_geometric.data import Data, InMemoryDataset
    >>> class Tiny(InMemoryDataset):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.data, self.slices = self.collate([Data(x=torch.ones(n, 1)) for n in (2, 5, 7)])
    >>> storage_positions(Tiny()[[2, 0]]).tolist(), storage_positions(Tiny()[1:]).tolist()
    ([2, 0], [1, 2])
    """
    indices = dataset.indices()
    if isinstance(indices, range):
        return np.arange(indices.start, indices.stop, indices.step, dtype=np.int64)
    return _as_numpy(indices)


def loop_sizes(dataset: Any) -> tuple[np.ndarray, np.ndarray]:
    """Reference: sizes by materialising every graph (slow, ~0.5 ms per graph).

    >>> import torch
    >>> from torch_geometric.data import Data, InMemoryDataset
    >>> class Tiny(InMemoryDataset):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.data, self.slices = self.collate(
    ...             [Data(x=torch.ones(n, 1), edge_index=torch.zeros(2, n, dtype=torch.long)) for n in (2, 5)])
    >>> [a.tolist() for a in loop_sizes(Tiny())]
    [[2, 5], [2, 5]]
    """
    sizes = [(graph.num_nodes, graph.num_edges) for graph in dataset]
    array = np.array(sizes, dtype=np.int64).reshape(-1, 2)
    return array[:, 0], array[:, 1]


def dataset_file(path: Path) -> Path:
    """The processed ``.pt`` file of a saved data set (a file, or a root with ``processed/``).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as root:
    ...     (Path(root) / "processed").mkdir()
    ...     for name in ("data.pt", "pre_transform.pt"):
    ...         (Path(root) / "processed" / name).touch()
    ...     dataset_file(Path(root)).name
    'data.pt'
    """
    if path.is_file():
        return path
    if not path.is_dir():
        raise ValueError(f"No file or folder at {path}.")
    folder = path / "processed" if (path / "processed").is_dir() else path
    skip = {"pre_transform.pt", "pre_filter.pt"}
    candidates = sorted(p for p in folder.glob("*.pt") if p.name not in skip)
    if len(candidates) != 1:
        found = ", ".join(p.name for p in candidates) or "none"
        raise ValueError(
            f"Expected exactly one processed .pt file in {folder}, found {found}; "
            "pass the file itself."
        )
    return candidates[0]


def load_pyg_dataset(path: str | Path) -> tuple[SizeHistogram, dict[str, Any]]:
    """Histogram of a saved PyG ``InMemoryDataset`` (a local ``.pt`` file or data set root).

    The file is a pickle, so only a local path the user names is accepted (never a browser
    upload), and it is loaded with ``weights_only=True`` and an allow-list of PyG classes.

    Args:
        path: the processed ``.pt`` file, or a data set root whose ``processed/`` folder
            holds exactly one.

    Returns:
        ``(histogram, info)``; ``info`` has ``dataset`` (the file name), ``split``
        (``"all"``), ``options``, ``source`` (``"user file"``), ``provenance``, ``graphs``
        and ``seconds``.

    Raises:
        ValueError: not a local path, no single ``.pt`` file, not a saved
            ``InMemoryDataset``, heterogeneous graphs, or no edge or node counts.

    >>> import tempfile, torch
    >>> from torch_geometric.data import Data, InMemoryDataset
    >>> path = tempfile.mkdtemp() + "/data.pt"
    >>> InMemoryDataset.save([Data(num_nodes=3, x=torch.ones(3, 1),
    ...     edge_index=torch.zeros(2, 4, dtype=torch.long))] * 2, path)
    >>> hist, info = load_pyg_dataset(path)
    >>> hist.num_graphs, info["source"]
    (2, 'user file')
    """
    if not isinstance(path, (str, Path)):
        raise ValueError(
            "A saved PyG data set is a pickle: give the path of a local file, not an upload."
        )
    start = time.perf_counter()
    file = dataset_file(Path(path).expanduser())
    content = safe_torch_load(file)
    if not isinstance(content, tuple) or len(content) not in (2, 3):
        raise ValueError(
            f"{file.name} is not a saved InMemoryDataset (expected (data, slices[, class]))."
        )
    data, slices = content[0], content[1]
    if _field(data, "node_types") is not None or (isinstance(slices, Mapping) and any(
            isinstance(value, Mapping) for value in slices.values())):
        raise ValueError(f"{file.name} holds heterogeneous graphs; only homogeneous Data is supported.")
    nodes, edges = sizes_from_collated(data, slices)
    hist = SizeHistogram.from_sizes(nodes, edges)
    return hist, {
        "dataset": file.name, "split": "all", "options": {}, "source": "user file",
        "provenance": f"Saved PyG InMemoryDataset {file} (sizes from its slices).",
        "graphs": hist.num_graphs, "seconds": time.perf_counter() - start,
    }
