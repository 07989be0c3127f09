"""Every use of a private PyG field by this project, each behind one small named function.

Checked against PyG 2.8.0 (``torch_geometric.__version__ == "2.8.0.post1"``);
``tests/test_pyg_internals.py`` fails, naming the field, if a PyG release renames one or
changes what it holds. Why each is needed (what the public API lacks):

* ``InMemoryDataset._data``: the concatenated graphs of a dataset, shared by every subset
  view. The public ``dataset.data`` property returns the same object but warns on every
  read and drops the dataset's cache of materialised graphs; PyG's own warning points to
  ``_data``. Read by :func:`collated_storage` (with the public ``slices``).
* ``_num_nodes`` of a collated storage: the node count of every graph, kept by
  ``InMemoryDataset.collate`` (and by ``to_dict()``, so saved files hold it) for graphs that
  carry ``num_nodes`` instead of node features. No public field gives per-graph node counts
  of such graphs without materialising each one. Read by :func:`collated_node_counts`.
* ``Batch._slice_dict`` and ``Batch._inc_dict``: where each graph's rows start, per
  attribute, and how far its indices were shifted. ``Batch.get_example``, ``to_data_list``
  and ``index_select`` read them; ``Batch.from_data_list`` is the only public way to set
  them, and the packed loader builds batches faster than it (gathering from storage) and
  pads them afterwards. Read and written by :func:`separation_tables` and
  :func:`set_separation_tables`.
* ``Batch._num_nodes``: per-graph node counts, read by ``get_example`` for graphs without a
  node-level tensor (set by ``from_data_list`` for graphs that carry ``num_nodes``).
  Written by :func:`set_graph_node_counts`, read by :func:`graph_node_counts`.
* ``Batch._num_graphs``: ``Batch.num_graphs`` returns it before looking at ``ptr``; the
  property has no setter. A padded batch counts its padding graphs. Written by
  :func:`set_graph_count`.
* ``Batch(_base_cls=Data)``: the only way to make a ``Batch`` of ``Data`` with no graph
  (``from_data_list`` needs at least one). Used by :func:`empty_data_batch`.

PyG stores ``Batch``'s underscored fields on the batch's storage (``Data.__setattr__``
forwards them there), so they travel with ``copy.copy`` and pickling like any attribute.

Only :func:`empty_data_batch` needs PyG at run time and imports it itself: the size
readers (:mod:`data_loaders.pyg_sizes`) use this module too, and the dashboard imports
them without loading torch.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    import torch
    from torch_geometric.data import Batch, InMemoryDataset

#: The PyG release these functions were checked against (see the module docstring).
CHECKED_PYG_VERSION = "2.8.0.post1"


def collated_storage(dataset: InMemoryDataset) -> tuple[Any, Any]:
    """The concatenated graphs of ``dataset`` and their ``slices``, without PyG's warning.

    For a subset view (``dataset[[2, 0]]``) this is still the whole storage; the view's
    positions in it are ``dataset.indices()``.

    Args:
        dataset: a PyG ``InMemoryDataset`` (or a subset view of one).

    Returns:
        ``(data, slices)``: one ``Data`` holding every graph's rows, and per attribute the
        offsets where each graph starts (``None`` for a dataset of one graph).

    >>> import torch
    >>> from torch_geometric.data import Data, InMemoryDataset
    >>> class Tiny(InMemoryDataset):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.data, self.slices = self.collate([Data(x=torch.ones(n, 1)) for n in (2, 3)])
    >>> data, slices = collated_storage(Tiny()[[1]])
    >>> data.x.shape[0], slices["x"].tolist()
    (5, [0, 2, 5])
    """
    return dataset._data, dataset.slices


def collated_node_counts(data: Any) -> Any | None:
    """Per-graph node counts that ``InMemoryDataset.collate`` keeps for graphs carrying
    ``num_nodes``, from the collated ``Data`` or its ``to_dict()`` form; None if absent.

    >>> from torch_geometric.data import Data, InMemoryDataset
    >>> data, _ = InMemoryDataset.collate([Data(num_nodes=n) for n in (4, 1)])
    >>> collated_node_counts(data), collated_node_counts(data.to_dict())
    ([4, 1], [4, 1])
    """
    if isinstance(data, Mapping):
        return data.get("_num_nodes")
    return getattr(data, "_num_nodes", None)


def separation_tables(batch: Batch) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
    """The tables ``batch.get_example`` splits ``batch`` with: per attribute key, the slice
    table (where each graph's rows start, a leading 0 and the end included) and the
    increment table (how much each graph's values were shifted, e.g. ``edge_index`` by the
    nodes before it). The dicts are the batch's own: changing them changes the batch.

    >>> import torch
    >>> from torch_geometric.data import Batch, Data
    >>> graph = Data(x=torch.ones(2, 1), edge_index=torch.tensor([[0], [1]]))
    >>> slices, increments = separation_tables(Batch.from_data_list([graph, graph]))
    >>> slices["x"].tolist(), increments["edge_index"].tolist()
    ([0, 2, 4], [0, 2])
    """
    return batch._slice_dict, batch._inc_dict


def set_separation_tables(batch: Batch, slices: dict[str, torch.Tensor],
                          increments: dict[str, torch.Tensor]) -> None:
    """Give ``batch`` the slice and increment tables :func:`separation_tables` describes,
    so ``get_example`` and ``to_data_list`` work on a batch not made by ``from_data_list``.

    >>> import torch
    >>> from torch_geometric.data import Batch, Data
    >>> batch = Batch.from_data_list([Data(x=torch.ones(3, 1))])
    >>> set_separation_tables(batch, {"x": torch.tensor([0, 1, 3])}, {"x": torch.zeros(2, dtype=torch.long)})
    >>> batch.get_example(1).x.shape
    torch.Size([2, 1])
    """
    batch._slice_dict = slices
    batch._inc_dict = increments


def graph_node_counts(batch: Batch) -> list[int]:
    """Per-graph node counts of a batch whose graphs carry ``num_nodes``.

    >>> from torch_geometric.data import Batch, Data
    >>> graph_node_counts(Batch.from_data_list([Data(num_nodes=3), Data(num_nodes=1)]))
    [3, 1]
    """
    return batch._num_nodes


def set_graph_node_counts(batch: Batch, counts: list[int]) -> None:
    """Set the per-graph node counts ``get_example`` gives graphs that carry ``num_nodes``.

    >>> from torch_geometric.data import Batch, Data
    >>> batch = Batch.from_data_list([Data(num_nodes=3), Data(num_nodes=1)])
    >>> set_graph_node_counts(batch, [2, 2])
    >>> batch.get_example(0).num_nodes
    2
    """
    batch._num_nodes = counts


def set_graph_count(batch: Batch, graphs: int) -> None:
    """Make ``batch.num_graphs`` (and ``len(batch)``) say ``graphs``.

    >>> from torch_geometric.data import Batch, Data
    >>> batch = Batch.from_data_list([Data(num_nodes=3)])
    >>> set_graph_count(batch, 4)
    >>> batch.num_graphs
    4
    """
    batch._num_graphs = graphs


def empty_data_batch() -> Batch:
    """A ``Batch`` of ``Data`` holding no graph and no attribute.

    >>> empty_data_batch()
    DataBatch()
    """
    from torch_geometric.data import Batch, Data  # here, not at the top: see the module docstring
    return Batch(_base_cls=Data)

