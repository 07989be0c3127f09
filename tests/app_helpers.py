"""Helpers for the AppTest tests: what the session has chosen."""
from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest


def started_app(timeout: int = 90) -> AppTest:
    """The dashboard on the bundled data, run once without an exception."""
    at = AppTest.from_file("../app.py", default_timeout=timeout)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def chosen(at: AppTest):
    """The limits chosen for the current dataset (a ``pages.state.Choice``)."""
    return at.session_state["limits"][at.session_state["selection"].key]


def use_data_defaults(at: AppTest) -> AppTest:
    """Open the Packing page and press **Reset to data defaults**: the largest graph, 256
    graphs a pack, and the default method (the dashboard starts on the recommendation)."""
    at.switch_page("pages/packing_page.py").run()
    next(button for button in at.button if button.label == "Reset to data defaults").click().run()
    assert chosen(at).source == "data defaults (largest graph)", chosen(at)
    return at


def as_read(markdown: str) -> str:
    r"""A Markdown string as the page shows it: without the backslashes that make user text
    plain (``pages.widgets.md_text``) and its invisible word joiners.

    >>> as_read("no dataset \\!\\[x\\]\\(https\\:\u2060\\/\\/e\\.x\\)")
    'no dataset ![x](https://e.x)'
    """
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace("\u2060", "")
