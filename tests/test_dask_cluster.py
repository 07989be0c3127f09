"""Sharded histograms on a real Dask LocalCluster of two worker processes: equal to the
single-process result (real molhiv sizes, QM9 SMILES), bad rows counted per shard, failing
shards named, dead workers survived or reported, unreachable schedulers refused in time,
sweeps on the cluster's executor and the command line (``histogram --input`` and ``sweep``)."""
import io
import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import dask
import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster

from common_helpers import Finished, run_main, stop_process

from data_loaders import ShardError, dask_client, sharded_histogram
from data_loaders.__main__ import main
from data_loaders.dask_cluster import CONNECT_TIMEOUT, cluster_sweep, default_workers, local_cluster
from data_loaders.ogb_layout import read_raw_sizes
from data_loaders.paths import shared_data_root
from data_loaders.qm9 import read_qm9
from data_loaders.smiles import smiles_sizes
from packing import PackMethod, SizeHistogram, limit_grid, sweep
from packing.io import load_size_table, save_histogram

ROOT = Path(__file__).resolve().parents[1]
BAD_ROWS = {0: [5, 17], 2: [0], 3: [1499]}  # QM9 shard -> rows replaced by unparsable SMILES
NO_WORKERS_WAIT = 3.0  # the watchdog's NO_WORKERS_TIMEOUT (20 s) in the tests that wait for it


@pytest.fixture(scope="module")
def scheduler():
    """A LocalCluster of two single-threaded worker processes, shared by the tests of this
    module. It runs in a child process as the product's local clusters do: AppTest leaves
    its script as ``__main__``, which workers spawned from this process would re-run."""
    with local_cluster(2) as address:
        yield address


@pytest.fixture(scope="module")
def client(scheduler):
    with Client(scheduler, set_as_default=False) as connected:
        yield connected


@pytest.fixture(scope="module")
def molhiv_shards(tmp_path_factory):
    """All 41,127 real ogbg-molhiv graph sizes in 8 shards of three formats, and their histogram."""
    root = shared_data_root() / "ogbg_molhiv"
    if not root.exists():
        pytest.skip(f"real data folder {root} is absent")
    nodes, edges = read_raw_sizes(root, edge_factor=2)
    folder = tmp_path_factory.mktemp("molhiv_shards")
    for index, (part_nodes, part_edges) in enumerate(zip(np.array_split(nodes, 8), np.array_split(edges, 8))):
        frame = pd.DataFrame({"num_nodes": part_nodes, "num_edges": part_edges})
        if index < 5:
            frame.to_parquet(folder / f"part-{index}.parquet", index=False)
        else:
            frame.to_csv(folder / f"part-{index}.csv{'.gz' if index == 7 else ''}", index=False)
    return folder, SizeHistogram.from_sizes(nodes, edges)


@pytest.fixture(scope="module")
def qm9_shards(tmp_path_factory):
    """8,000 real QM9 SMILES in 4 CSV shards, with unparsable SMILES at known rows."""
    smiles = read_qm9()["SMILES"].tolist()[:8000]
    folder = tmp_path_factory.mktemp("qm9_shards")
    shards = []
    for index, part in enumerate(np.array_split(np.array(smiles, dtype=object), 4)):
        part = part.tolist()
        for row in BAD_ROWS.get(index, []):
            part[row] = f"C1CC(bad{row}"
        pd.DataFrame({"SMILES": part}).to_csv(folder / f"mols-{index}.csv", index=False)
        shards.append(part)
    return folder, shards


def single_process_smiles(shards: list[list[str]], hydrogens: bool) -> SizeHistogram:
    nodes, edges, _ = smiles_sizes([text for part in shards for text in part], hydrogens=hydrogens)
    return SizeHistogram.from_sizes(nodes, edges)


def test_size_shards_on_two_workers_equal_the_single_process_histogram(client, molhiv_shards):
    folder, expected = molhiv_shards
    calls = []
    hist, info = sharded_histogram(str(folder / "part-*"), client=client,
                                   progress=lambda done, total: calls.append((done, total)))
    assert hist == expected and hist.num_graphs == 41127
    assert hist == SizeHistogram.merge([load_size_table(path) for path in sorted(folder.iterdir())])
    assert calls == [(done, 8) for done in range(1, 9)]
    assert [Path(shard["shard"]).name for shard in info["shards"]] == \
        [f"part-{i}.parquet" for i in range(5)] + ["part-5.csv", "part-6.csv", "part-7.csv.gz"]
    assert sum(shard["graphs"] for shard in info["shards"]) == 41127 and info["invalid"] == 0
    assert info["workers"] == 2 and info["dashboard"].startswith("http")


@pytest.mark.parametrize("hydrogens", [False, True])
def test_smiles_shards_equal_the_single_process_histogram_and_count_bad_rows(client, qm9_shards, hydrogens):
    folder, shards = qm9_shards
    hist, info = sharded_histogram(str(folder / "*.csv"), column="smiles", hydrogens=hydrogens, client=client)
    assert hist == single_process_smiles(shards, hydrogens)
    assert hist.num_graphs == 8000 - 4
    reports = {Path(shard["shard"]).name: shard for shard in info["shards"]}
    for index, part in enumerate(shards):
        report = reports[f"mols-{index}.csv"]
        bad = BAD_ROWS.get(index, [])
        assert (report["rows"], report["graphs"], report["invalid"]) == (len(part), len(part) - len(bad), len(bad))
        assert report["invalid_examples"] == [f"row {row + 1}: 'C1CC(bad{row}'" for row in bad]
    assert info["invalid"] == 4 and "4 SMILES in 3 shards could not be parsed" in info["provenance"]
    if hydrogens:  # nodes are all atoms: QM9's own atom counts of the parsable rows
        atoms = read_qm9()["N_atoms"].to_numpy()[:8000].reshape(4, 2000)
        kept = np.concatenate([np.delete(atoms[index], BAD_ROWS.get(index, [])) for index in range(4)])
        assert np.array_equal(hist.marginal("nodes")[0], np.unique(kept))
        assert hist.total_nodes == int(kept.sum())


def test_a_failing_shard_is_named_and_nothing_is_returned(client, molhiv_shards, tmp_path):
    folder, _ = molhiv_shards
    for path in folder.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    broken = tmp_path / "part-6.csv"
    broken.write_text("num_nodes,num_edges\n3,4\n5,\n")
    with pytest.raises(ShardError, match=r"row 2 has no value for num_edges") as error:
        sharded_histogram(str(tmp_path / "part-*"), client=client)
    assert error.value.shard == str(broken) and str(error.value).startswith(f"Shard {broken} failed: ")
    assert sharded_histogram(str(folder / "part-*"), client=client)[0].num_graphs == 41127  # cluster still fine


def test_missing_files_and_all_bad_smiles_are_refused(client, tmp_path):
    with pytest.raises(ValueError, match="No files match"):
        sharded_histogram(str(tmp_path / "*.parquet"), client=client)
    (tmp_path / "bad.csv").write_text("smiles\nC1CC\nQQ\n")
    with pytest.raises(ValueError, match="none of the 2 SMILES in 1 shard"):
        sharded_histogram(str(tmp_path / "bad.csv"), column="smiles", client=client)
    for index in range(2):
        (tmp_path / f"empty-{index}.csv").write_text("num_nodes,num_edges\n")
    with pytest.raises(ValueError, match="all 2 shards are empty"):
        sharded_histogram(str(tmp_path / "empty-*.csv"), client=client)


def test_without_a_client_a_local_cluster_of_one_worker_per_core_is_made(molhiv_shards):
    folder, expected = molhiv_shards
    hist, info = sharded_histogram(str(folder / "part-*"))
    assert hist == expected and info["workers"] == default_workers()


def test_a_client_by_scheduler_address(scheduler, molhiv_shards):
    folder, expected = molhiv_shards
    with dask_client(scheduler) as connected:
        hist, info = sharded_histogram([str(folder / "part-[0-4].parquet"), str(folder / "part-*.csv*")],
                                       client=connected)
    assert hist == expected and info["source"] == f"Dask cluster of 2 workers at {scheduler}"


def test_an_unreachable_scheduler_fails_clearly_within_10_seconds():
    start = time.perf_counter()  # 192.0.2.1 is reserved for documentation: packets to it go nowhere
    with pytest.raises(ValueError, match="Could not reach a Dask scheduler at tcp://192.0.2.1:8786 within 5 s"):
        with dask_client("192.0.2.1:8786"):
            pass
    assert time.perf_counter() - start < 10


def test_a_scheduler_without_workers_is_refused():
    with LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as empty:
        start = time.perf_counter()
        with pytest.raises(ValueError, match=r"has no workers \(waited 1 s\); start some with `dask worker"):
            with dask_client(empty.scheduler_address, timeout=1):
                pass
        assert time.perf_counter() - start < 10


def test_a_sweep_on_the_cluster_equals_the_local_sweep(client, molhiv_shards):
    _, hist = molhiv_shards
    grid = ([222, 300, 400, 500], [502, 700, 1000])
    on_cluster = sweep(hist, *grid, executor=client.get_executor(), workers=2)
    pd.testing.assert_frame_equal(on_cluster, sweep(hist, *grid, workers=1))
    assert on_cluster["feasible"].all() and on_cluster["packs"].min() > 0


def test_a_large_sweep_on_the_cluster_prints_no_warning_of_dask(client, molhiv_shards, recwarn):
    # Dask warns of graphs past 10 MB (a sweep of ~400,000 pairs): here past 1 kB, 3 pairs
    _, hist = molhiv_shards
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": "1kB"}):
        table = cluster_sweep(hist, [222, 300, 400], [502], client=client)
    assert table["feasible"].all()
    assert not [w for w in recwarn if "large graph" in str(w.message)]


def _kill_all_workers(client: Client) -> list[int]:
    pids = list(client.run(os.getpid).values())
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    return pids


def test_a_worker_killed_mid_run_does_not_change_the_result(client, qm9_shards):
    folder, shards = qm9_shards
    before = client.run(os.getpid)
    killed = []

    def kill_once(done: int, total: int) -> None:
        if not killed:  # after the first shard, while the others are being read
            victim = sorted(before)[0]
            os.kill(before[victim], signal.SIGKILL)
            killed.append(before[victim])

    hist, info = sharded_histogram(str(folder / "*.csv"), column="smiles", client=client, progress=kill_once)
    assert killed and hist == single_process_smiles(shards, hydrogens=False) and info["invalid"] == 4
    client.wait_for_workers(2, timeout=30)
    assert killed[0] not in client.run(os.getpid).values()  # the nanny started a new worker


def test_workers_that_keep_dying_give_a_clear_error_never_a_smaller_histogram(qm9_shards, monkeypatch):
    folder, _ = qm9_shards
    monkeypatch.setenv("DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES", "0")  # read by the child's scheduler
    with local_cluster(2) as fragile, Client(fragile, set_as_default=False) as client:
        killed = []

        def kill_at_first_shard(done: int, total: int) -> None:
            if not killed:
                killed.extend(_kill_all_workers(client))

        with pytest.raises(ShardError, match=r"died each time it was tried \(KilledWorker\)") as error:
            sharded_histogram(str(folder / "*.csv"), column="smiles", client=client, progress=kill_at_first_shard)
        assert killed and Path(error.value.shard).parent == folder


def cli(*args: str) -> Finished:
    """``python -m data_loaders histogram ARGS`` run in this process."""
    return run_main(main, "histogram", *args)


@contextmanager
def cluster_of_commands(folder: Path, workers: int, project_on_workers: bool = True) -> Iterator[str]:
    """A scheduler and ``workers`` workers started with Dask's own commands, as on a real
    cluster; the scheduler can import the project (README: through PYTHONPATH), the workers
    too unless ``project_on_workers`` is False (then they start outside it, without it)."""
    bin_dir, scheduler_file = Path(sys.executable).parent, folder / "scheduler.json"
    outside = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    inside = {**outside, "PYTHONPATH": str(ROOT)}
    started = [subprocess.Popen([bin_dir / "dask", "scheduler", "--port", "0", "--dashboard-address", ":0",
                                 "--scheduler-file", scheduler_file], env=inside, stderr=subprocess.DEVNULL)]
    try:
        started.append(subprocess.Popen([bin_dir / "dask", "worker", "--scheduler-file", scheduler_file,
                                         "--nworkers", str(workers), "--nthreads", "1"],
                                        env=inside if project_on_workers else outside, cwd=folder,
                                        stderr=subprocess.DEVNULL))
        with Client(scheduler_file=str(scheduler_file), timeout=60, set_as_default=False) as client:
            client.wait_for_workers(workers, timeout=60)
            yield client.scheduler.address
    finally:
        for process in reversed(started):
            stop_process(process, timeout=30)


@pytest.fixture()
def dask_commands(tmp_path):
    with cluster_of_commands(tmp_path, workers=2) as address:
        yield address


@pytest.fixture()
def workers_without_the_project(tmp_path):
    """One worker that cannot import the project: it dies on the first task it is sent."""
    with cluster_of_commands(tmp_path, workers=1, project_on_workers=False) as address:
        yield address


@pytest.mark.parametrize("command", ["histogram", "sweep"])
def test_a_cluster_left_without_workers_ends_with_a_message_not_a_hang(command, workers_without_the_project,
                                                                        molhiv_shards, molhiv_table, tmp_path, capsys,
                                                                        monkeypatch):
    monkeypatch.setattr("data_loaders.dask_cluster.NO_WORKERS_TIMEOUT", NO_WORKERS_WAIT)
    folder, _ = molhiv_shards
    out = tmp_path / "out.csv"
    args = {"histogram": ["histogram", "--input", str(folder / "*.csv")],
            "sweep": ["sweep", str(molhiv_table), "--nodes", "222,444", "--edges", "502,1004"]}[command]
    start = time.monotonic()
    assert main([*args, "--scheduler", workers_without_the_project, "--out", str(out)]) == 2
    error = capsys.readouterr().err.splitlines()[-1]
    assert error.startswith("error: The Dask cluster at ") and "has had no workers for 3 s" in error, error
    assert "every worker must be able to import this project" in error and time.monotonic() - start < 60
    assert not out.exists()


def test_cli_on_dask_scheduler_and_worker_commands_with_a_shard_report(dask_commands, qm9_shards, tmp_path):
    folder, shards = qm9_shards
    out, report = tmp_path / "hist.parquet", tmp_path / "shards.csv"
    result = cli("--input", str(folder / "*.csv"), "--column", "smiles", "--scheduler", dask_commands,
                 "--out", str(out), "--shard-report", str(report))
    assert result.returncode == 0, result.stderr
    assert load_size_table(out) == single_process_smiles(shards, hydrogens=False)
    assert "Dask dashboard: http" in result.stderr
    assert "reading shards: 100%|" in result.stderr and " 4/4 " in result.stderr  # tqdm's last update
    assert f"{folder / 'mols-0.csv'}: 2 of 2,000 SMILES could not be parsed (row 6: 'C1CC(bad5'" in result.stdout
    table = pd.read_csv(report)
    assert table["invalid"].tolist() == [2, 0, 1, 1] and table["rows"].sum() == 8000


def test_cli_on_a_local_cluster_of_two_workers(molhiv_shards, tmp_path):
    folder, expected = molhiv_shards
    out = tmp_path / "hist.csv"
    result = cli("--input", str(folder / "part-*"), "--workers", "2", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert load_size_table(out) == expected
    assert "(Dask cluster of 2 workers" in result.stdout and "Traceback" not in result.stderr


def test_cli_with_an_unreachable_scheduler_fails_clearly_within_10_seconds(tmp_path, capsys):
    start = time.perf_counter()  # nothing listens on port 9 (discard) here: connections are refused
    assert main(["histogram", "--input", "x/*.csv", "--scheduler", "tcp://127.0.0.1:9",
                 "--out", str(tmp_path / "h.csv")]) == 2
    assert time.perf_counter() - start < 10
    assert capsys.readouterr().err.startswith("error: Could not reach a Dask scheduler at tcp://127.0.0.1:9 within 5 s")


@pytest.mark.parametrize("args, message", [
    (["--input", "x/*.csv", "--scheduler", "tcp://127.0.0.1:9", "--workers", "2"], "workers sets the size of a local"),
    (["--input", "x/*.csv", "--scheduler", "http://127.0.0.1:8787"], "is a web address (Dask's dashboard?)"),
    (["qm9", "--input", "x/*.csv"], "not both"),
    ([], "give a data set NAME"),
    (["--input", "x/*.csv", "--split", "train"], "--split only applies to a data set NAME"),
    (["qm9", "--column", "smiles", "--scheduler", "tcp://h:1"], "--column, --scheduler only apply to --input"),
    (["--input", "x/*.csv", "--hydrogens"], "hydrogens applies to SMILES"),
    (["--input", "x/*.csv", "--shard-report", "r.txt"], "--shard-report must end in .csv, got 'r.txt'"),
    (["--input", "{out}"], "is a file this command reads; writing it would replace it"),
])
def test_cli_refuses_bad_arguments_before_starting_a_cluster(args, message, tmp_path, capsys):
    out = tmp_path / "h.csv"
    out.write_text("num_nodes,num_edges\n3,4\n")  # a shard, for the case that names it as --out too
    assert main(["histogram", *(arg.format(out=out) for arg in args), "--out", str(out)]) == 2
    assert out.read_text() == "num_nodes,num_edges\n3,4\n"
    error = capsys.readouterr().err
    assert error.startswith("error: ") and message in error and "Dask dashboard" not in error


@pytest.fixture(scope="module")
def molhiv_table(molhiv_shards, tmp_path_factory):
    """The real molhiv histogram as a size table, for the sweep command."""
    path = tmp_path_factory.mktemp("molhiv_table") / "molhiv.csv"
    save_histogram(molhiv_shards[1], path)
    return path


def test_cli_sweep_on_a_local_cluster_writes_the_table_of_the_local_sweep(molhiv_table, tmp_path):
    out = tmp_path / "sweep.csv"
    grid = ("--nodes", "222:888:20", "--edges", "502:1004:50")  # 35 x 12 = 420 pairs: two lockstep chunks
    result = run_main(main, "sweep", str(molhiv_table), *grid, "--heuristic", "sum", "--workers", "2",
                      "--out", str(out))
    assert result.returncode == 0, result.stderr
    local = sweep(load_size_table(molhiv_table), limit_grid(222, 888, 20), limit_grid(502, 1004, 50),
                  method=PackMethod("best_fit", "sum"), workers=1)
    pd.testing.assert_frame_equal(pd.read_csv(out), pd.read_csv(io.StringIO(local.to_csv(index=False))))
    assert "Dask dashboard: http" in result.stderr
    assert "sweeping: 100%|" in result.stderr and " 420/420 " in result.stderr  # tqdm's last update
    assert json.loads(result.stdout)["pairs"] == 420 and "Traceback" not in result.stderr


def test_cli_sweep_on_a_running_scheduler_reports_the_best_cell(scheduler, molhiv_table, capsys):
    args = ["sweep", str(molhiv_table), "--nodes", "222,444", "--edges", "502,1004", "--algorithm", "published"]
    assert main([*args, "--scheduler", scheduler]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["pairs"] == 4 and report["best_harmonic_mean"]["packs"] == min(
        sweep(load_size_table(molhiv_table), [222, 444], [502, 1004], method=PackMethod("published"))["packs"])


@pytest.mark.parametrize("args, message", [
    (["--scheduler", "tcp://127.0.0.1:9", "--workers", "2"], "workers sets the size of a local"),
    (["--nodes", "222:20222:10", "--edges", "502:100502:100"], "limit pairs is more than 1,000,000"),
    (["--max-graphs", "0"], "--max-graphs must lie between 1 and"),
    (["--out", "sweep.txt"], "--out must end in .csv or .json"),
])
def test_cli_sweep_refuses_bad_arguments_before_starting_a_cluster(args, message, molhiv_table, capsys):
    assert main(["sweep", str(molhiv_table), *args]) == 2
    error = capsys.readouterr().err
    assert error.startswith("error: ") and message in error and "Dask dashboard" not in error


def serve_forever(handler: str) -> tuple[subprocess.Popen, int]:
    """A local server in a child process that accepts connections and then ``handler``s:
    ``http`` (Python's web server), ``silent`` (reads and never answers), ``garbage`` (answers
    random bytes); its port."""
    code = f"""
import http.server, os, socket, sys
if {handler!r} == "http":
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    print(server.server_address[1], flush=True)
    server.serve_forever()
listener = socket.create_server(("127.0.0.1", 0))
print(listener.getsockname()[1], flush=True)
kept = []
while True:
    conn, _ = listener.accept()
    kept.append(conn)
    if {handler!r} == "garbage":
        conn.sendall(os.urandom(4096))
"""
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True)
    return process, int(process.stdout.readline())


@pytest.mark.parametrize("handler", ["http", "silent", "garbage"])
def test_something_else_answering_at_the_address_fails_clearly_within_the_connect_timeout(handler, tmp_path):
    """The command ends within the 5 s connect timeout (plus 3 s of slack) of the time the
    same command takes to start and refuse an argument, measured in the same test: the
    start alone is 2-5 s on this shared machine. Real processes: nothing may be printed at
    their exit either ("Exception ignored ...")."""
    def timed_command(*options: str) -> tuple[float, subprocess.CompletedProcess]:
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "data_loaders", "histogram", "--input", "x/*.csv", *options,
                               "--out", str(tmp_path / "h.csv")], capture_output=True, text=True, timeout=60,
                              cwd=Path(__file__).resolve().parents[1])
        return time.perf_counter() - start, done

    server, port = serve_forever(handler)
    try:
        took, result = timed_command("--scheduler", f"127.0.0.1:{port}")
        start_only, refused = timed_command("--scheduler", f"127.0.0.1:{port}", "--workers", "2")
    finally:
        stop_process(server, timeout=5)
    assert refused.returncode == 2 and "--workers" in refused.stderr, refused.stderr
    assert result.returncode == 2, result.stderr
    assert took - start_only < CONNECT_TIMEOUT + 3
    assert result.stderr.startswith("error: Something ") and f"tcp://127.0.0.1:{port}" in result.stderr
    assert "as a Dask scheduler" in result.stderr and "Traceback" not in result.stderr
    assert "Exception ignored" not in result.stderr
    assert not (tmp_path / "h.csv").exists()


def test_the_dask_dashboard_port_is_named_as_not_a_scheduler():
    with LocalCluster(n_workers=0, processes=False, dashboard_address="127.0.0.1:0") as cluster:
        port = cluster.scheduler.http_server.port
        start = time.perf_counter()
        with pytest.raises(ValueError, match=r"did not answer as a Dask scheduler within 5 s \(a web server\? "):
            with dask_client(f"127.0.0.1:{port}"):
                pass
        assert time.perf_counter() - start < 10


def test_a_cluster_whose_workers_are_all_paused_says_so_instead_of_waiting(monkeypatch):
    """A worker pauses when its memory passes Dask's pause threshold and then runs nothing:
    connecting to such a cluster, or losing the last running worker to a pause mid-run,
    ends with the reason instead of a hang (the worker's memory monitor is off here, so
    the pause set by the test stays). The watchdog's and the connection's waits are
    shortened (NO_WORKERS_WAIT, 1 s)."""
    from distributed.core import Status

    monkeypatch.setattr("data_loaders.dask_cluster.NO_WORKERS_TIMEOUT", NO_WORKERS_WAIT)
    with LocalCluster(n_workers=1, processes=False, threads_per_worker=1, dashboard_address="127.0.0.1:0",
                      memory_limit=0) as cluster:
        worker = next(iter(cluster.workers.values()))
        with pytest.raises(ValueError, match=r"has 1 worker, all paused: a worker stops running tasks when its "
                                             r"memory passes Dask's pause threshold"):
            with dask_client(cluster.scheduler_address) as client:
                cluster.loop.add_callback(setattr, worker, "status", Status.paused)
                start = time.perf_counter()
                client.submit(sum, [1, 2]).result()  # waits until the watchdog closes the client
        assert time.perf_counter() - start < NO_WORKERS_WAIT + 10
        with pytest.raises(ValueError, match="all paused"):
            with dask_client(cluster.scheduler_address, timeout=1):
                pass


def test_progress_that_jumps_in_chunks_ends_at_the_total():
    """A sweep reports its cells in chunks of 256: the bar (tqdm, in a log as on a terminal,
    at most ten updates a second) ends at the total, on a line of its own."""
    from packing.cli_args import ProgressBar

    log = io.StringIO()
    bar = ProgressBar("sweeping", "limit pairs", file=log)
    for done in [*range(256, 3721, 256), 3721]:
        bar.count(done, 3721)
    updates = log.getvalue().rstrip("\n").split("\r")[1:]
    assert updates[-1].startswith("sweeping: 100%") and " 3721/3721 " in updates[-1]
    assert log.getvalue().endswith("\n") and len(updates) >= 2  # the bar shown at its start, then ended
