"""The report as PDF: the HTML report printed by a headless Chromium (the browser kaleido
uses for PNG export), A4 landscape, every plot drawn before printing."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

#: Chromium's flags for a headless run without network or first-run work.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
#: Window width (CSS pixels) the plots are drawn at: the printable width of A4 landscape.
PRINT_WIDTH = 1040
TIMEOUT_S = 180


def find_chromium() -> str | None:
    """The Chrome/Chromium binary named by ``$BROWSER_PATH``, else the first on the PATH,
    else None.

    >>> found = find_chromium()
    >>> found is None or os.path.exists(found)  # a path only when that browser exists
    True
    """
    explicit = os.environ.get("BROWSER_PATH")
    if explicit and os.path.exists(explicit):
        return explicit
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def report_pdf(page: str, browser: str | None = None) -> bytes:
    """The HTML ``page`` printed to PDF by headless Chromium.

    Args:
        page: the HTML document, e.g. a :func:`figures.report.build_report` report.
        browser: the Chrome or Chromium binary; None takes :func:`find_chromium`'s.

    Returns:
        The PDF file's bytes.

    Raises:
        OSError: no browser is found, or it fails to print (its error output is quoted).

    >>> report_pdf("<p>hi</p>", browser="/nonexistent/chromium")
    Traceback (most recent call last):
    ...
    OSError: PDF export needs Chrome or Chromium; /nonexistent/chromium does not exist: install it (apt-get install -y chromium) or set BROWSER_PATH to its binary.
    """
    install = "install it (apt-get install -y chromium) or set BROWSER_PATH to its binary"
    explicit = os.environ.get("BROWSER_PATH")
    browser = browser or find_chromium()
    if browser is None:
        where = f"BROWSER_PATH={explicit} does not exist and none is on the PATH" if explicit else \
            "none was found on the PATH"
        raise OSError(f"PDF export needs Chrome or Chromium ({where}): {install}.")
    if not os.path.exists(browser):
        raise OSError(f"PDF export needs Chrome or Chromium; {browser} does not exist: {install}.")
    with tempfile.TemporaryDirectory() as folder:
        source, out = Path(folder) / "report.html", Path(folder) / "report.pdf"
        source.write_text(page, encoding="utf-8")
        try:
            result = subprocess.run(
                [browser, *FLAGS, f"--user-data-dir={folder}/profile", "--no-pdf-header-footer",
                 f"--window-size={PRINT_WIDTH},1400", "--virtual-time-budget=30000", f"--print-to-pdf={out}",
                 source.as_uri()],
                capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise OSError(f"Chromium ({browser}) did not finish printing the report in {TIMEOUT_S} s; try again on "
                          "a less busy machine, or print the HTML report from a browser.") from None
        if result.returncode != 0 or not out.exists() or out.stat().st_size == 0:
            raise OSError(f"Chromium could not print the report (exit {result.returncode}): {result.stderr[-500:]}")
        return out.read_bytes()
