"""A Dask client: to a running scheduler given by address, or to a fresh local cluster.

A local cluster is a ``distributed.LocalCluster`` of one single-threaded worker process per
core (RDKit holds the GIL while it parses, so processes, not threads, run SMILES in
parallel). It lives in a child Python process for the ``with`` block: worker processes
are started with multiprocessing's *spawn*, which re-runs the parent's ``__main__`` script
in every worker, and in the dashboard ``__main__`` is the Streamlit app script itself (no
``__main__`` guard possible). The child is started with ``python -c``, which has no main
script to re-run, so workers start cleanly whatever program asked for the cluster. Its workers log
nothing: a task that fails comes back through its future with the error (a dead worker is
replaced and its tasks rerun by Dask), so the caller reports it once, without tracebacks.

A scheduler address connects to a cluster started elsewhere with Dask's own commands
(``dask scheduler``, ``dask worker``); an address nobody answers at, or where something
else answers (a web server, Dask's dashboard), gives a ``ValueError`` within ``timeout``
seconds: the scheduler is asked for its identity first, with one deadline for connecting,
Dask's handshake and the answer (``distributed.Client``'s own timeout covers the connection
only, and it waits for ever on a server that accepts and says nothing). Dask is imported only when a client is made.
"""
from __future__ import annotations

import asyncio
import logging
import os
import queue
import subprocess
import sys
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

import pandas as pd

from packing import whole_number

if TYPE_CHECKING:
    from distributed import Client

    from packing import SizeHistogram

CONNECT_TIMEOUT = 5.0  # seconds to reach a scheduler, and to wait for its first worker
LOCAL_START_TIMEOUT = 120.0  # seconds for a local cluster to start (a busy machine is slow)
NO_WORKERS_TIMEOUT = 20.0  # seconds a cluster may be without workers (a dead local worker is back in a few)
WATCH_SECONDS = 1.0  # how often the client asks how many workers there are
MAX_LOCAL_WORKERS = 512
_READY = "local Dask scheduler at "  # the child's line announcing its scheduler
_ROOT = Path(__file__).resolve().parents[1]


def default_workers() -> int:
    """Workers of a local cluster when none is asked for: one per core this process may use.

    >>> default_workers() >= 1
    True
    """
    from dask.system import CPU_COUNT

    return CPU_COUNT


def scheduler_address(text: str) -> str:
    """A scheduler address as Dask expects it (``tcp://host:port``), or a ``ValueError``
    saying what a scheduler address looks like.

    >>> scheduler_address(" 10.0.0.5:8786 ")
    'tcp://10.0.0.5:8786'
    >>> scheduler_address("http://10.0.0.5:8787/status")
    Traceback (most recent call last):
    ...
    ValueError: http://10.0.0.5:8787/status is a web address (Dask's dashboard?); the scheduler's address looks like tcp://host:8786.
    """
    from distributed.comm import parse_address

    address = text.strip() if isinstance(text, str) else ""
    if not address:
        raise ValueError(f"The scheduler address must look like tcp://host:8786, got {text!r}.")
    if address.startswith(("http://", "https://")):
        raise ValueError(f"{address} is a web address (Dask's dashboard?); the scheduler's address looks like "
                         "tcp://host:8786.")
    if "://" not in address:
        address = "tcp://" + address
    try:
        scheme, location = parse_address(address)
        host, _, port = location.rpartition(":")
        if scheme in ("tcp", "tls") and not (host and port.isdigit()):
            raise ValueError("it needs a host and a port")
    except ValueError as error:
        raise ValueError(f"{text!r} is not a Dask scheduler address ({error}); it looks like tcp://host:8786.") from None
    return address


def _identity(address: str, timeout: float) -> dict:
    """The scheduler's answer to Dask's ``identity`` call, within ``timeout`` seconds in all
    (connecting, Dask's handshake and the answer): ``TimeoutError`` when something accepts
    the connection but does not answer as Dask does (a web server, Dask's own dashboard),
    ``OSError`` when nothing accepts it. Run on a thread of its own, so that no event loop
    of the caller's is in the way."""
    from distributed.core import rpc
    from distributed.security import Security

    async def ask() -> dict:  # connecting gets most of the time: a refused address is an OSError
        # the TLS settings of Dask's configuration, as Client uses them
        scheduler = rpc(address, timeout=0.8 * timeout, connection_args=Security().get_connection_args("client"))
        try:
            return await scheduler.identity()
        finally:
            await scheduler.close_rpc()

    with ThreadPoolExecutor(1, thread_name_prefix="dask-probe") as pool:
        return pool.submit(asyncio.run, asyncio.wait_for(ask(), timeout)).result()


def _connect(address: str, timeout: float) -> "Client":
    """A client of the scheduler at ``address``, or a ``ValueError`` within ``timeout`` s."""
    from distributed import Client

    advice = (f"Start a scheduler there with `dask scheduler` and workers with `dask worker {address}`, check "
              "the address and the firewall, or leave the scheduler out to run on this machine.")
    try:
        _identity(address, timeout)
    except TimeoutError:
        raise ValueError(f"Something accepts connections at {address} but did not answer as a Dask scheduler within "
                         f"{timeout:g} s (a web server? Dask's dashboard is usually on port 8787, the scheduler on "
                         f"8786). {advice}") from None
    except OSError as error:
        raise ValueError(f"Could not reach a Dask scheduler at {address} within {timeout:g} s ({error}). "
                         f"{advice}") from None
    except Exception as error:  # something answered, but not as a Dask scheduler (e.g. garbage framing)
        # read as Dask's framing, another protocol's bytes can announce a message of exabytes
        why = "its answer is not in Dask's protocol" if isinstance(error, MemoryError) else \
            f"{type(error).__name__}: {str(error)[:200]}"
        raise ValueError(f"Something answers at {address}, but not as a Dask scheduler ({why}). {advice}") from None
    try:
        return Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as error:
        raise ValueError(f"Could not reach a Dask scheduler at {address} within {timeout:g} s ({error}). "
                         f"{advice}") from None


@contextmanager
def _client(address: str, timeout: float) -> Iterator["Client"]:
    """A client of the scheduler at ``address`` once it has a worker, closed at the end;
    its futures are cancelled by :func:`_watch_workers` when the cluster is left without
    workers, and what the waiting call then raises becomes a ``ValueError`` saying why."""
    client = _connect(address, timeout)
    lost: list[str] = []
    stop = threading.Event()
    try:
        try:
            client.wait_for_workers(1, timeout=timeout)
        except TimeoutError:
            paused = _worker_counts(client)[1]
            if paused:
                raise ValueError(_paused_words(address, paused)) from None
            raise ValueError(f"The Dask scheduler at {address} has no workers (waited {timeout:g} s); start some "
                             f"with `dask worker {address}`.") from None
        threading.Thread(target=_watch_workers, args=(client, address, stop, lost), daemon=True).start()
        try:
            yield client
        except Exception:
            if lost:  # whatever the waiting call raised once its futures were cancelled
                raise ValueError(lost[0]) from None
            raise
    finally:
        stop.set()
        client.close()


def task_failure_words(error: BaseException | None) -> str:
    """Why a Dask task or the call waiting on it failed, in words with what to do (None:
    the future has no exception, as when the connection to the scheduler went first).

    >>> task_failure_words(RuntimeError("Error during deserialization of the task graph"))[:60]
    'RuntimeError: Error during deserialization of the task graph'
    >>> task_failure_words(None)[:44]
    'the connection to the Dask scheduler was los'
    """
    from distributed import CancelledError, KilledWorker
    from distributed.comm import CommClosedError

    if error is None or isinstance(error, CommClosedError):
        return ("the connection to the Dask scheduler was lost (it stopped, or the network dropped): start it again "
                "(and its workers) and run the command again.")
    if isinstance(error, KilledWorker):
        return ("the Dask workers running it died each time it was tried (KilledWorker). A shard must fit in "
                "one worker's memory: check the worker logs, give workers more memory or split the shard.")
    if isinstance(error, CancelledError):
        return f"it was cancelled ({error}); the cluster may have restarted or lost its workers."
    if "deserializ" in str(error):  # the scheduler or a worker cannot import this project
        return (f"{type(error).__name__}: {error} The scheduler and every worker must import this project: start "
                "`dask scheduler` and `dask worker` with PYTHONPATH set to its folder, in an environment with "
                "the versions pinned in requirements.txt.")
    if isinstance(error, (ValueError, OSError)):
        return str(error)
    return f"{type(error).__name__}: {error}"


def cluster_sweep(hist: "SizeHistogram", *request: Any, client: "Client",
                  progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """``packing.sweep(hist, *request)`` with the cells packed by ``client``'s workers (the
    same table); a failure of the cluster is a ``ValueError`` saying what happened and what
    to do, as for the shards of a histogram.

    >>> from packing import SizeHistogram
    >>> from distributed import Client, LocalCluster
    >>> with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster, Client(cluster) as client:
    ...     table = cluster_sweep(SizeHistogram.from_sizes([3, 2], [4, 2]), [3, 5], [4, 6], client=client)
    >>> table["packs"].tolist()
    [2, 2, 2, 1]
    """
    from packing import sweep

    try:
        with warnings.catch_warnings():
            # the chunks carry their limit pairs, as they must: Dask's advice to load the data
            # on the workers does not apply, so its warning past 10 MB (~400,000 pairs) is noise
            warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
            return sweep(hist, *request, executor=client.get_executor(), progress=progress)
    except ValueError:
        raise
    except Exception as error:
        raise ValueError(f"The sweep on the Dask cluster failed: {task_failure_words(error)}") from None


def _worker_counts(client: "Client") -> tuple[int, int]:
    """Workers of the client's cluster that run tasks, and those paused (a worker pauses
    when its memory passes Dask's pause threshold, 80 % of its limit, and runs nothing
    until it falls again)."""
    statuses = [str(worker.get("status", "running")) for worker in client.scheduler_info()["workers"].values()]
    paused = sum(status.endswith("paused") for status in statuses)
    return len(statuses) - paused, paused


def _paused_words(address: str, paused: int) -> str:
    """Why nothing runs on a cluster whose workers are all paused, and what to do.

    >>> _paused_words("tcp://10.0.0.5:8786", 2)[:66]
    'The Dask cluster at tcp://10.0.0.5:8786 has 2 workers, all paused:'
    """
    return (f"The Dask cluster at {address} has {paused:,} worker{'s' if paused > 1 else ''}, all paused: a worker "
            "stops running tasks when its memory passes Dask's pause threshold (80 % of its --memory-limit). Start "
            "workers with more memory, or fewer threads per worker; the workers' logs say how much they hold.")


def _watch_workers(client: "Client", address: str, stop: threading.Event, lost: list[str]) -> None:
    """Cancel every future of ``client`` when its cluster has had no running worker for
    ``NO_WORKERS_TIMEOUT`` seconds (every worker died unpickling a task because it cannot
    import this project, or paused for memory), so that a call waiting on the cluster raises
    instead of waiting for ever; ``lost`` gets why. Futures submitted after that are
    cancelled too, until ``stop`` is set. The client is left open for its owner to close:
    closing it here, under a waiting call, can stop its event loop before the call returns,
    and that call (distributed's ``sync``) then waits for ever."""
    since = None
    while not stop.wait(WATCH_SECONDS):
        if lost:
            client.loop.add_callback(_cancel_every_future, client)
            continue
        try:
            running, paused = _worker_counts(client)
        except Exception:  # the client is closing
            return
        now = time.monotonic()
        since = None if running else (since or now)
        if since is not None and now - since >= NO_WORKERS_TIMEOUT:
            lost.append(_paused_words(address, paused) if paused else
                        f"The Dask cluster at {address} has had no workers for {NO_WORKERS_TIMEOUT:g} s, so the work "
                        "sent to it cannot finish. Its workers left or died: every worker must be able to import "
                        "this project (start `dask worker` from the project folder, or with PYTHONPATH set to "
                        "it) and have the packages of requirements.txt; the workers' logs say why they stopped.")
            client.loop.add_callback(_cancel_every_future, client)


def _cancel_every_future(client: "Client") -> None:
    """Mark every future ``client`` holds cancelled, so that whatever waits on one raises
    ``CancelledError``; runs on the client's event loop, which owns the futures' state."""
    for state in list(client.futures.values()):
        state.cancel(reason="the cluster has no workers")


def _ready_address(process: subprocess.Popen, timeout: float) -> str:
    """The scheduler address the child prints when its cluster is up, or a ``ValueError``."""
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:  # reads to the end, so that nothing the child prints can fill the pipe
        for line in process.stdout:
            if line.startswith(_READY):
                lines.put(line[len(_READY):].strip())
        lines.put("")

    threading.Thread(target=read, daemon=True, name="local-dask-cluster-ready").start()
    try:
        address = lines.get(timeout=timeout)
    except queue.Empty:
        raise ValueError(f"The local Dask cluster did not start within {timeout:g} s; the machine may be "
                         "overloaded, or ask for fewer workers.") from None
    if not address:
        raise ValueError(f"The local Dask cluster stopped before it was ready (exit status {process.wait()}); "
                         "its messages are above, on the standard error of this program.")
    return address


def serve_local_cluster(workers: int) -> None:
    """Run a ``LocalCluster`` of ``workers`` single-threaded processes, print its scheduler's
    address and keep it up until standard input closes (the parent is done, or gone): the
    child process of :func:`local_cluster`."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=logging.CRITICAL) as cluster:
        print(_READY + cluster.scheduler_address, flush=True)
        sys.stdin.read()


@contextmanager
def local_cluster(workers: int) -> Iterator[str]:
    """A ``LocalCluster`` of ``workers`` single-threaded processes, hosted by a child Python
    process, for the ``with`` block; yields its scheduler address."""
    path = os.pathsep.join([str(_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    code = f"from data_loaders.dask_cluster import serve_local_cluster; serve_local_cluster({int(workers)})"
    # a session of its own: Ctrl-C reaches this process alone, which then closes the cluster
    process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": path}, start_new_session=True)
    try:
        yield _ready_address(process, LOCAL_START_TIMEOUT)
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None,
                timeout: float = CONNECT_TIMEOUT) -> Iterator["Client"]:
    """A Dask client for the ``with`` block, closed at the end (with its local cluster).

    Args:
        scheduler: the address of a running scheduler (``tcp://host:8786``); None starts a
            local cluster for the block.
        workers: processes of the local cluster (default: one per core); refused with a
            scheduler, whose workers are the ones started there.
        timeout: seconds the cluster has to answer with at least one worker.

    Raises:
        ValueError: a malformed address, no scheduler (or no worker) answering within
            ``timeout``, a local cluster that does not start, or ``workers`` with a scheduler.

    >>> with dask_client("tcp://localhost:8786", workers=2):
    ...     pass
    Traceback (most recent call last):
    ...
    ValueError: workers sets the size of a local cluster; a running scheduler uses its own workers (start more with `dask worker tcp://localhost:8786`).
    """
    if scheduler is None:
        count = default_workers() if workers is None else whole_number(workers, "workers", 1, MAX_LOCAL_WORKERS)
        with local_cluster(count) as address, _client(address, timeout) as client:
            yield client
        return
    address = scheduler_address(scheduler)
    if workers is not None:
        raise ValueError("workers sets the size of a local cluster; a running scheduler uses its own workers "
                         f"(start more with `dask worker {address}`).")
    with _client(address, timeout) as client:
        yield client
