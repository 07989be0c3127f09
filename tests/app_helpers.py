"""Helpers for the AppTest tests: what the session has chosen."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest


def chosen(at: AppTest):
    """The limits chosen for the current dataset (a ``pages.state.Choice``)."""
    return at.session_state["limits"][at.session_state["selection"].key]
