"""Shared fixtures: every test gets its own empty data and cache folders; real OGB
training histograms read from ../shared/data."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from browser_helpers import CHROMIUM, FLAGS, serve_dashboard

from data_loaders.ogb_layout import read_raw_sizes, read_split_files, split_histograms
from data_loaders.paths import shared_data_root
from packing import SizeHistogram


@pytest.fixture(autouse=True)
def isolated_roots(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Point the download folder and the histogram cache at fresh temporary folders."""
    roots = {"data": tmp_path_factory.mktemp("datasets"), "cache": tmp_path_factory.mktemp("histograms")}
    monkeypatch.setenv("GRAPH_PACKING_DATA", str(roots["data"]))
    monkeypatch.setenv("GRAPH_PACKING_CACHE", str(roots["cache"]))
    return roots


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Share the run between workers (``bash run.sh test`` runs ``pytest -n auto --dist
    loadgroup``) by file, so a module's fixtures (a Dask cluster, the GPU dry run) are made
    once; every test on the served dashboard runs on one worker, sharing one server and one
    chromium."""
    for item in items:
        on_the_dashboard = {"server", "browser"} & set(getattr(item, "fixturenames", ()))
        item.add_marker(pytest.mark.xdist_group("dashboard" if on_the_dashboard else item.path.stem))


def ogb_train_histogram(folder: str) -> SizeHistogram:
    """The scaffold training split, edges doubled to directed edges (OGB convention)."""
    root = shared_data_root() / folder
    if not root.exists():
        pytest.skip(f"real data folder {root} is absent")
    nodes, edges = read_raw_sizes(root, edge_factor=2)
    return split_histograms(nodes, edges, read_split_files(root, "scaffold"))["train"]


@pytest.fixture(scope="session")
def molhiv() -> SizeHistogram:
    return ogb_train_histogram("ogbg_molhiv")


@pytest.fixture(scope="session")
def molpcba() -> SizeHistogram:
    return ogb_train_histogram("ogbg_molpcba")


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The dashboard served on localhost for every browser test of the session."""
    yield from serve_dashboard(tmp_path_factory.mktemp("browser"))


@pytest.fixture(scope="session")
def browser():
    """Debian chromium driven by playwright (``bash run.sh test`` installs chromium)."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian chromium is missing: apt-get install -y chromium (bash run.sh test does this)")
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()
