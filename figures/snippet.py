"""The PyG training snippet for an exported configuration: the Export page shows it and the
README runs it (``tests/test_packed_models.py``), so both are this one text. Its CUDA
variant (:func:`cuda_training_snippet`) keeps the dataset on the GPU, builds every batch
there (``PackedLoader(..., device=device)``) and replays one captured training step
(``data_loaders.CapturedStep``); the README's "Training on a GPU" runs it.

The head and the loss follow the dataset's prediction task (``data_loaders`` registry's
``DatasetSpec.task``): 0/1 labels (the OGB molecule sets, several tasks with missing labels
as NaN), regression targets (QM9, PCQM4Mv2, AFLOW), one class of many (ogbg-ppa), or a
token sequence (ogbg-code2, whose decoder and loss are the user's).
"""
from __future__ import annotations

import json
import textwrap

#: The line where the user puts their own dataset on the Export page (only they have it).
DATASET_LINE = "dataset = ...  # the PyG dataset (or view) of the graphs this file packs, {what}"

_HEADER = '''import torch
import torch.nn.functional as F
from torch_geometric.nn import GIN, global_add_pool

from data_loaders import PackedLoader

{dataset}
loader = PackedLoader.from_config(dataset, {config_file}, shuffle=True, seed=0)  # verified on load
print(len(loader), "steps of", loader.shape)

'''

_LOOP = '''optimizer = torch.optim.Adam([*gin.parameters(), *head.parameters()], lr=1e-3)
for epoch in range(2):
    loader.set_epoch(epoch)  # deal the graphs into the packs anew
    for batch in loader:  # one shape for the whole run: padding masked out
        nodes = gin(batch.x.float(), batch.edge_index)
        out = head(global_add_pool(nodes, batch.batch, size=batch.num_graphs))  # a row per graph slot
{loss}
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {{epoch}}: loss {{loss.item():.3f}}")
'''

_PER_LABEL = '''        y = batch.y.view(batch.num_graphs, -1).float()
        known = batch.graph_mask[:, None] & ~y.isnan()  # real graphs' labels (OGB marks missing ones NaN)
        # {other}
        per_label = {function}(out, y.nan_to_num(), reduction="none")
        loss = per_label.where(known, 0).sum() / known.sum().clamp(min=1)'''

#: Per task: the head's outputs and the loss lines of the loop.
_TASKS = {
    "binary": ("dataset[0].y.numel()", _PER_LABEL.format(
        function="F.binary_cross_entropy_with_logits", other="0/1 labels (for regression targets: F.mse_loss)")),
    "regression": ("dataset[0].y.numel()", _PER_LABEL.format(
        function="F.mse_loss", other="regression targets (for 0/1 labels: F.binary_cross_entropy_with_logits)")),
    "multiclass": ("dataset.num_classes", '''        per_graph = F.cross_entropy(out, batch.y.view(-1).long(), reduction="none")  # one class per graph
        loss = per_graph.where(batch.graph_mask, 0).sum() / batch.graph_mask.sum().clamp(min=1)'''),
    "sequence": ("64", '''        loss = ...  # the token sequence each graph predicts: your decoder's loss over batch.graph_mask's rows'''),
}
TASKS = tuple(_TASKS)


_CUDA_HEADER = '''import torch
import torch.nn.functional as F
from torch_geometric.nn import GIN, global_add_pool

from data_loaders import CapturedStep, PackedLoader

{dataset}
device = torch.device("cuda")
# the dataset is copied to the GPU once and every batch is gathered and padded there
loader = PackedLoader.from_config(dataset, {config_file}, shuffle=True, seed=0, device=device)  # verified on load
print(len(loader), "steps of", loader.shape)

'''

_CUDA_LOOP = '''

def loss_fn(model, batch):  # recorded as a CUDA graph: no .item(), .cpu() or x[mask] in here
    nodes = model["gin"](batch.x.float(), batch.edge_index)
    out = model["head"](global_add_pool(nodes, batch.batch, size=batch.num_graphs))  # a row per graph slot
{loss}
    return loss


optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, capturable=True)  # its step runs inside the graph
step = CapturedStep(model, optimizer, loss_fn)  # captures on the first batch, replays on every batch after
for epoch in range(2):
    loader.set_epoch(epoch)  # deal the graphs into the packs anew
    for batch in loader:  # one shape for the whole run: one capture
        loss = step(batch)  # forward, backward and Adam in one replay
    print(f"epoch {{epoch}}: loss {{loss.item():.3f}}")
'''


def _dataset_code(dataset: str | None, what: str) -> str:
    """The code that makes ``dataset``, or the line the user completes (one comment line:
    a name with a line break must not become code)."""
    return (dataset if dataset is not None else DATASET_LINE.format(what=" ".join(what.split()))).strip("\n")


def _task(task: str) -> tuple[str, str]:
    if task not in _TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}, got {task!r}.")
    return _TASKS[task]


def training_snippet(config_file: str, dataset: str | None = None, what: str = "e.g. "
                     "PygGraphPropPredDataset(name)[split_idx['train']]", task: str = "binary") -> str:
    """A PyG training loop over ``PackedLoader.from_config(dataset, config_file)`` with the
    masked loss of ``task`` (one of ``TASKS``) and ``set_epoch``; ``dataset`` is the code
    that makes ``dataset`` (default: ``DATASET_LINE``, for the user to complete with their
    dataset, naming ``what`` it holds, on one line). A file name with a quote stays a string.

    >>> text = training_snippet("qm9-29n-56e-256g.json", what="qm9 (all)", task="regression")
    >>> 'PackedLoader.from_config(dataset, "qm9-29n-56e-256g.json"' in text, "F.mse_loss(out" in text
    (True, True)
    >>> text.splitlines()[6]
    'dataset = ...  # the PyG dataset (or view) of the graphs this file packs, qm9 (all)'
    >>> training_snippet('a".json', what="x\\nimport os").splitlines()[6:8]
    ['dataset = ...  # the PyG dataset (or view) of the graphs this file packs, x import os', 'loader = PackedLoader.from_config(dataset, "a\\\\".json", shuffle=True, seed=0)  # verified on load']
    """
    outputs, loss = _task(task)
    # a name with a line break or a quote must not become code: one comment line, one string literal
    model = f"gin, head = GIN(dataset.num_node_features, 64, 3), torch.nn.Linear(64, {outputs})\n"
    return (_HEADER.format(dataset=_dataset_code(dataset, what), config_file=json.dumps(config_file)) + model
            + _LOOP.format(loss=loss))


def cuda_training_snippet(config_file: str, dataset: str | None = None, what: str = "e.g. "
                          "PygGraphPropPredDataset(name)[split_idx['train']]", task: str = "binary") -> str:
    """:func:`training_snippet` for a CUDA device: the loader keeps the dataset on the GPU
    and builds every batch there (``device=device``), and the whole training step (the
    same masked loss, backward, Adam made with ``capturable=True``) is captured once as a
    CUDA graph by ``data_loaders.CapturedStep`` and replayed for every batch, which all
    have one shape. Arguments as :func:`training_snippet`.

    >>> text = cuda_training_snippet("qm9-29n-56e-256g.json", what="qm9 (all)", task="regression")
    >>> "device=device)" in text, "capturable=True" in text, "    loss = per_label.where(known, 0)" in text
    (True, True, True)
    >>> cuda_training_snippet('a".json', what="x\\nimport os").splitlines()[6]
    'dataset = ...  # the PyG dataset (or view) of the graphs this file packs, x import os'
    """
    outputs, loss = _task(task)
    model = (f"gin, head = GIN(dataset.num_node_features, 64, 3), torch.nn.Linear(64, {outputs})\n"
             'model = torch.nn.ModuleDict({"gin": gin, "head": head}).to(device)  # one module, on the GPU\n')
    return (_CUDA_HEADER.format(dataset=_dataset_code(dataset, what), config_file=json.dumps(config_file)) + model
            + _CUDA_LOOP.format(loss=textwrap.indent(textwrap.dedent(loss), "    ")))
