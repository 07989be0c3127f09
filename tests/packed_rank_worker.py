"""One rank of the distributed packed-loader test (run by tests/test_packed_distributed.py).

Joins a gloo process group from the environment (RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT), trains a small GIN wrapped in DistributedDataParallel on the packed loader
for two epochs, once with remainder='pad' and once with 'drop' (every backward all-reduces
gradients, so unequal step counts would hang until the timeout), and rank 0 writes what
every rank saw to the JSON file named by argv[1].
"""
from __future__ import annotations

import json
import sys
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch_geometric.nn import GIN, global_add_pool

from data_loaders.packed import PackedLoader
from packed_helpers import mixed_dataset, plan_for, real_ids

GRAPHS = 151  # 41 packs: neither 2 nor 3 divides them, so the remainder is exercised


def train(dataset, plan, remainder: str) -> dict:
    """Two epochs of DDP training on the packed loader; what this rank saw."""
    torch.manual_seed(0)
    loader = PackedLoader(dataset, plan, seed=3, remainder=remainder)  # rank and world size from dist
    model = DistributedDataParallel(GIN(5, 8, 2, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    seen, shapes, steps = {}, set(), {}
    for epoch in range(2):
        loader.set_epoch(epoch)
        seen[epoch], steps[epoch] = [], 0
        for batch in loader:
            out = global_add_pool(model(batch.x, batch.edge_index), batch.batch, size=batch.num_graphs)
            error = (out.squeeze(-1) - batch.y[:, 0]).square().where(batch.graph_mask, 0)
            loss = error.sum() / batch.graph_mask.sum().clamp(min=1)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            seen[epoch].extend(real_ids(batch))
            shapes.add((tuple(batch.x.shape), tuple(batch.edge_index.shape), batch.num_graphs))
            steps[epoch] += 1
    weights = torch.cat([p.detach().view(-1) for p in model.parameters()]).tolist()
    return {"seen": seen, "steps": steps, "shapes": sorted(shapes), "len": len(loader), "weights": weights}


def main(output: str) -> None:
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    nodes = [(7 * i) % 11 + 1 for i in range(GRAPHS)]
    dataset = mixed_dataset(nodes, [2 * (n - 1) for n in nodes], seed=1)
    plan = plan_for(dataset, max_nodes=24, max_edges=48, max_graphs=6)
    report = {"rank": dist.get_rank(), "num_packs": plan.num_packs,
              **{remainder: train(dataset, plan, remainder) for remainder in ("pad", "drop")}}
    gathered = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, report)
    if report["rank"] == 0:
        with open(output, "w", encoding="utf-8") as file:
            json.dump(gathered, file)
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1])
