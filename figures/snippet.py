"""The PyG training snippet for an exported configuration: the Export page shows it and the
README runs it (``tests/test_packed_models.py``), so both are this one text."""
from __future__ import annotations

#: The line where the user puts their own dataset on the Export page (only they have it).
DATASET_LINE = "dataset = ...  # the PyG dataset (or view) of the graphs this file packs, {what}"

_TEMPLATE = '''import torch
import torch.nn.functional as F
from torch_geometric.nn import GIN, global_add_pool

from data_loaders import PackedLoader

{dataset}
loader = PackedLoader.from_config(dataset, "{config_file}", shuffle=True, seed=0)  # verified on load
print(len(loader), "steps of", loader.shape)

gin, head = GIN(dataset.num_node_features, 64, 3), torch.nn.Linear(64, 1)
optimizer = torch.optim.Adam([*gin.parameters(), *head.parameters()], lr=1e-3)
for epoch in range(2):
    loader.set_epoch(epoch)  # deal the graphs into the packs anew
    for batch in loader:  # one shape for the whole run: padding masked out
        nodes = gin(batch.x.float(), batch.edge_index)
        logits = head(global_add_pool(nodes, batch.batch, size=batch.num_graphs)).squeeze(-1)
        per_graph = F.binary_cross_entropy_with_logits(logits, batch.y.squeeze(-1).float(), reduction="none")
        loss = per_graph.where(batch.graph_mask, 0).sum() / batch.graph_mask.sum().clamp(min=1)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {{epoch}}: loss {{loss.item():.3f}}")
'''


def training_snippet(config_file: str, dataset: str | None = None, what: str = "e.g. "
                     "PygGraphPropPredDataset(name)[split_idx['train']]") -> str:
    """A PyG training loop over ``PackedLoader.from_config(dataset, config_file)`` with the
    masked loss and ``set_epoch``; ``dataset`` is the code that makes ``dataset`` (default:
    ``DATASET_LINE``, for the user to complete with their dataset, naming ``what`` it holds).

    >>> text = training_snippet("qm9-29n-56e-256g.json", what="qm9 (all)")
    >>> 'PackedLoader.from_config(dataset, "qm9-29n-56e-256g.json"' in text, "loader.set_epoch(epoch)" in text
    (True, True)
    >>> text.splitlines()[6]
    'dataset = ...  # the PyG dataset (or view) of the graphs this file packs, qm9 (all)'
    """
    code = dataset if dataset is not None else DATASET_LINE.format(what=what)
    return _TEMPLATE.format(dataset=code.strip("\n"), config_file=config_file)
