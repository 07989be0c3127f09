"""The packed loader across real processes (torch.distributed, gloo on CPU): every rank
runs the same number of equal-shaped steps, no graph goes to two ranks, and with
remainder='pad' the union over ranks is the dataset, once per epoch."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from packed_rank_worker import GRAPHS

ROOT = Path(__file__).resolve().parent.parent
WORKER = Path(__file__).resolve().parent / "packed_rank_worker.py"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run_ranks(world_size: int, output: Path) -> list[dict]:
    environment = {**os.environ, "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(free_port()),
                   "WORLD_SIZE": str(world_size), "OMP_NUM_THREADS": "1",
                   "PYTHONPATH": os.pathsep.join([str(ROOT), str(WORKER.parent)])}
    processes = [subprocess.Popen([sys.executable, str(WORKER), str(output)],
                                  env={**environment, "RANK": str(rank)}, cwd=ROOT,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for rank in range(world_size)]
    logs = []
    try:
        for process in processes:
            logs.append(process.communicate(timeout=400)[0])
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
    for rank, (process, log) in enumerate(zip(processes, logs)):
        assert process.returncode == 0, f"rank {rank} failed:\n{log[-3000:]}"
    return json.loads(output.read_text())


@pytest.mark.parametrize("world_size", [2, 3])
def test_ranks_share_the_dataset_with_equal_steps(tmp_path, world_size):
    reports = run_ranks(world_size, tmp_path / "ranks.json")
    assert [report["rank"] for report in reports] == list(range(world_size))
    num_packs = reports[0]["num_packs"]
    assert num_packs % world_size  # the remainder case is exercised
    for remainder, steps in (("pad", -(-num_packs // world_size)), ("drop", num_packs // world_size)):
        runs = [report[remainder] for report in reports]
        for epoch in ("0", "1"):
            assert {run["steps"][epoch] for run in runs} == {run["len"] for run in runs} == {steps}
            union = [gid for run in runs for gid in run["seen"][epoch]]
            assert len(union) == len(set(union))  # no graph on two ranks
            if remainder == "pad":
                assert sorted(union) == list(range(GRAPHS))  # every graph once per epoch
            else:
                assert len(union) < GRAPHS  # only the packs of the incomplete round are left out
        assert runs[0]["seen"]["0"] != runs[0]["seen"]["1"]  # set_epoch reshuffled
        assert len({json.dumps(run["shapes"]) for run in runs}) == 1 and len(runs[0]["shapes"]) == 1
        # DistributedDataParallel kept the replicas equal: every rank took part in every step
        assert all(run["weights"] == runs[0]["weights"] for run in runs)
