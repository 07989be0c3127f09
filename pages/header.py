"""The header every page opens with: its title, the current dataset line, the page's caption."""
from __future__ import annotations

from typing import Callable

import streamlit as st

from packing import SizeHistogram

from . import state
from .widgets import current_dataset, md_text

#: A page's caption after the dataset line: fixed words, or words built from the histogram.
About = str | Callable[[SizeHistogram], str]


def page_header(title: str, about: About = "") -> tuple[state.Selection, SizeHistogram, dict] | None:
    """Show the page's title, load the dataset chosen in the sidebar and caption it as
    ``Dataset: <label>: <graphs> graphs.`` followed by ``about``.

    Args:
        title: the page's title.
        about: what the page shows, after the dataset line (a function of the histogram
            when the words need its numbers); nothing when empty.

    Returns:
        What :func:`pages.widgets.current_dataset` returns: ``(selection, histogram, info)``,
        or None (after an inline message where one is due) when no dataset is loaded; the
        page then shows what it can without one.
    """
    st.title(title)
    loaded = current_dataset()
    if loaded is None:
        return None
    selection, hist, _ = loaded
    words = about(hist) if callable(about) else about
    st.caption(f"Dataset: {md_text(selection.label)}: {hist.num_graphs:,} graphs." + (f" {words}" if words else ""))
    return loaded
