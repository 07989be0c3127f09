"""Widgets shared by the pages, each in a small script of its own (AppTest)."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _work_in_progress() -> None:
    """Reports progress and leaves the work open until the next run, which ends it."""
    import streamlit as st

    from pages.widgets import progress_shown

    if "work" in st.session_state:
        st.session_state.pop("work").__exit__(None, None, None)
        return
    work = st.session_state["work"] = progress_shown("Reading")
    work.__enter__()("stage 1 of 2", 0.5)


def test_a_progress_box_shows_running_until_the_work_is_done():
    at = AppTest.from_function(_work_in_progress).run()
    assert not at.exception, [e.value for e in at.exception]
    (box,) = at.get("status")
    assert box.state == "running" and box.label == "Reading: stage 1 of 2"
    at.run()
    assert not at.exception and not at.get("status")
