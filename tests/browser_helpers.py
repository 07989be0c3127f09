"""The dashboard in a real browser (Debian chromium driven by playwright-python): starting
the server, opening pages, waiting for Streamlit, screenshots.

The ``server`` and ``browser`` fixtures in ``conftest.py`` use these; browser test modules
(``test_browser*.py``) share one server per test session. Screenshots go to
tests/artifacts/ (git-ignored); with UPDATE_SCREENSHOTS=1 they are also copied to
docs/screenshots/ for the README.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator

from common_helpers import stop_process

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "tests" / "artifacts"
DOCS = ROOT / "docs" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
TIMEOUT_MS = 60_000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve_dashboard(tmp: Path, extra_env: dict[str, str] | None = None) -> Iterator[str]:
    """Run the dashboard as ``bash run.sh dashboard`` does (``dashboard.py``) on a free local
    port with empty data and cache folders under ``tmp`` (and ``extra_env``); yield its URL
    once healthy, stop it afterwards."""
    port = free_port()
    env = {
        **os.environ,
        "GRAPH_PACKING_DATA": str(tmp / "data"),
        "GRAPH_PACKING_CACHE": str(tmp / "cache"),
        **(extra_env or {}),
    }
    log = open(tmp / "streamlit.log", "w")
    process = subprocess.Popen(
        [sys.executable, "dashboard.py", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true",
         "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as response:
                if response.read().strip() == b"ok":
                    break
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"streamlit did not start; log:\n{(tmp / 'streamlit.log').read_text()}")
        time.sleep(0.3)
    try:
        yield url
    finally:
        stop_process(process, timeout=15)
        log.close()


def screenshot(page, name: str) -> None:
    settle(page)
    page.wait_for_timeout(1000)  # let plotly and the table canvas paint
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS / f"{name}.png")


def settle(page) -> None:
    """Wait until Streamlit has finished running the script and check for tracebacks."""
    page.wait_for_timeout(300)
    page.locator("[data-testid=stStatusWidget]").wait_for(state="hidden", timeout=TIMEOUT_MS)
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=TIMEOUT_MS)
    assert page.locator("[data-testid=stException]").count() == 0, page.locator("[data-testid=stException]").first.inner_text()


def go_to(page, title: str) -> None:
    page.locator("[data-testid=stSidebarNav]").get_by_role("link", name=title).click()
    page.get_by_role("heading", name=title, exact=True).wait_for(timeout=TIMEOUT_MS)
    settle(page)


def new_page(browser, url: str):
    """A fresh page at 1400 x 1000 that accepts downloads, opened at ``url``."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url)
    return page
