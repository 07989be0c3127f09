"""Widgets shared by every page: the dataset picker in the sidebar, loading the chosen
dataset with inline errors, and the summary of the chosen configuration."""
from __future__ import annotations

from typing import Any, Callable

import streamlit as st

import data_loaders
from packing import BEST, SizeHistogram

from . import cache, state

#: What each algorithm does, in the words of the README and ``packing/greedy.py``.
ALGORITHM_LABELS = {
    "best_fit": "best fit: longest pack first (fullest open pack that fits)",
    "first_fit": "first fit (earliest-opened open pack that fits)",
    "worst_fit": "worst fit: shortest pack first (emptiest open pack that fits)",
    "none": "baseline: no packing",
    "node_only": "baseline: node-only 1D packing",
    "edge_only": "baseline: edge-only 1D packing",
    BEST: "best of all (every heuristic x algorithm)",
}

#: Exceptions that become an inline message instead of a traceback.
USER_ERRORS = (ValueError, data_loaders.DatasetUnavailableError, FileNotFoundError, OSError)


def show_error(error: BaseException, what: str) -> None:
    """Show ``error`` inline as ``what`` failed, with its user-facing message."""
    st.error(f"**{what}.** {error}", icon=":material/error:")


def run_page(main: Callable[[], None]) -> None:
    """Run a page's ``main``; user errors become inline messages and anything unexpected
    becomes an inline message too, so no traceback ever reaches the page."""
    try:
        main()
    except USER_ERRORS as error:
        show_error(error, "Something in the chosen settings does not work")
    except Exception as error:  # a bug: still no traceback on the page, but say what happened
        st.error(f"**Unexpected error ({type(error).__name__}).** {error}. Try other settings or reload the "
                 "page; if it persists, report it with the steps that led here.", icon=":material/bug_report:")


def _dataset_label(name: str) -> str:
    if name.startswith(state.UPLOAD_PREFIX):
        return f"Uploaded: {name[len(state.UPLOAD_PREFIX):]}"
    spec = cache.spec_for(name)
    if spec is None:
        return name
    return spec.title if spec.bundled else f"{spec.title} (needs download)"


def _default_split(splits: tuple[str, ...]) -> str:
    return "train" if "train" in splits else splits[0]


def _on_dataset_change() -> None:
    """Reset split and options to the new dataset's defaults."""
    spec = cache.spec_for(st.session_state[state.DATASET])
    if spec is None:
        st.session_state[state.SPLIT] = "all"
        return
    st.session_state[state.SPLIT] = _default_split(spec.splits)
    for option, default in spec.options.items():
        st.session_state[state.OPTION_PREFIX + option] = default


def _is_visible(option: str, graph: Any) -> bool:
    """Whether ``option`` matters for the chosen construction (cutoff: radius, k: k-NN)."""
    if graph is None:
        return True
    return {"cutoff": graph == "radius", "k": graph == "knn"}.get(option, True)


def _option_widget(name: str, default: Any, choices: tuple | None) -> Any:
    key = state.OPTION_PREFIX + name
    if key not in st.session_state:
        st.session_state[key] = default
    labels = {"graph": "Graph construction", "cutoff": "Radius cutoff (Å)", "k": "Neighbours per node (k)"}
    label = labels.get(name, name)
    if choices:
        return st.selectbox(label, choices, key=key)
    if isinstance(default, float):
        return st.number_input(label, min_value=0.1, max_value=100.0, step=0.5, key=key)
    return st.number_input(label, min_value=1, step=1, key=key)


def dataset_sidebar() -> state.Selection:
    """Draw the dataset picker (dataset, split, construction options) in the sidebar."""
    specs = cache.dataset_specs()
    names = [spec.name for spec in specs] + list(state.uploads())
    if st.session_state.get(state.DATASET) not in names:
        st.session_state[state.DATASET] = next((s.name for s in specs if s.name == "qm9"), names[0])
        _on_dataset_change()
    with st.sidebar:
        st.subheader("Dataset")
        name = st.selectbox("Dataset", names, key=state.DATASET, format_func=_dataset_label,
                            on_change=_on_dataset_change, label_visibility="collapsed")
        spec = cache.spec_for(name)
        if spec is None:
            return state.upload_selection(name)
        if st.session_state.get(state.SPLIT) not in spec.splits:
            st.session_state[state.SPLIT] = _default_split(spec.splits)
        split = st.selectbox("Split", spec.splits, key=state.SPLIT)
        chosen: dict[str, Any] = {}
        if "graph" in spec.options:
            chosen["graph"] = _option_widget("graph", spec.options["graph"], spec.choices.get("graph"))
        for option, default in spec.options.items():
            if option == "graph":
                continue
            if _is_visible(option, chosen.get("graph")):  # hidden options keep the loader's default
                chosen[option] = _option_widget(option, default, spec.choices.get(option))
    return state.Selection(name, split, chosen)


def load_selection(selection: state.Selection) -> tuple[SizeHistogram, dict] | None:
    """The histogram and info of ``selection``; an inline error and None when it fails."""
    if selection.is_upload:
        found = state.uploads().get(selection.name)
        if found is None:
            st.error("The uploaded file is no longer in this session; upload it again on the Datasets page.")
        return found
    try:
        return cache.load_dataset(selection.name, selection.split, tuple(sorted(selection.options.items())))
    except USER_ERRORS as error:
        show_error(error, f"Could not open {selection.label}")
        st.info("Choose a bundled dataset in the sidebar (QM9, ogbg-molhiv, ogbg-molpcba, AFLOW) "
                "or upload your own sizes on the Datasets page.")
        return None


def current_dataset() -> tuple[state.Selection, SizeHistogram, dict] | None:
    """The dataset chosen in the sidebar (read by ``app.py`` on this run), loaded, with
    limits made valid for it; None after an inline message when that fails."""
    selection = st.session_state.get(state.SELECTION)
    if selection is None:
        return None
    loaded = load_selection(selection)
    if loaded is None:
        return None
    hist, info = loaded
    state.ensure_limits(selection, hist)
    return selection, hist, info


def selection_summary() -> None:
    """Sidebar lines with the chosen limits and method, used by Packing and Export."""
    chosen = state.choice()
    if chosen is None:
        return
    limits = chosen.limits
    with st.sidebar:
        st.subheader("Chosen configuration")
        st.markdown(
            f"max nodes **{limits.max_nodes:,}** · max edges **{limits.max_edges:,}** · "
            f"max graphs **{limits.max_graphs:,}**  \n{state.method().label}  \n_limits from {chosen.source}_"
        )


def provenance_caption(info: dict) -> None:
    """One caption line saying where the numbers come from."""
    seconds = info.get("seconds")
    timing = f" in {seconds:.2f} s" if isinstance(seconds, (int, float)) else ""
    st.caption(
        f"Source: {info.get('source', 'unknown')}{timing}. {info.get('provenance', '')} "
        f"({info.get('graphs', 0):,} graphs)."
    )
