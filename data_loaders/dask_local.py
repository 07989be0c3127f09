"""The child process that hosts a local Dask cluster: ``python -m data_loaders.dask_local N``.

:func:`data_loaders.dask_cluster.local_cluster` starts it. It runs a ``LocalCluster`` of
``N`` single-threaded worker processes, prints the scheduler's address and keeps the
cluster up until its standard input closes (the parent is done, or gone). Nothing imports
this module: run as ``__main__`` behind its guard, it is what every spawned worker
re-imports, so workers start cleanly whatever program (a Streamlit page, a notebook, a
script without a ``__main__`` guard) asked for the cluster.
"""
from __future__ import annotations

import logging
import sys

from data_loaders.dask_cluster import READY


def serve(workers: int) -> None:
    """Run a local cluster of ``workers`` processes until standard input closes."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=logging.CRITICAL) as cluster:
        print(READY + cluster.scheduler_address, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    serve(int(sys.argv[1]))
