"""Helpers for the AppTest tests: what the session has chosen."""
from __future__ import annotations

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
