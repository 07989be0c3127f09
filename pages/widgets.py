"""Widgets shared by every page: the dataset picker in the sidebar, loading the chosen
dataset with inline errors, and the summary of the chosen configuration."""
from __future__ import annotations

import re
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import streamlit as st

import data_loaders
from data_loaders.registry import effective_options
from packing import ALGORITHMS, SizeHistogram, lower_bounds

from . import cache, recommended, state
from .cache import PROVE_SECONDS

#: Every ASCII punctuation character: CommonMark lets a backslash make any of them plain text.
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
#: Where Streamlit's Markdown would still make a link of plain text (GitHub's autolinks of
#: "https://", "www." and e-mail addresses, found after the escapes are read).
_AUTOLINK = re.compile(r"(?<=:)(?=//)|(?<=www)(?=\.)|(?<=@)", re.IGNORECASE)
#: An invisible character that ends a would-be autolink (U+2060, word joiner).
_WORD_JOINER = "\u2060"


def md_text(text: object) -> str:
    """``text`` given by a user (a link's value, a file's name or content, an error naming
    one) for a Streamlit Markdown string: shown as typed, never as an image fetched from
    elsewhere, a link, a colour or formatting.

    >>> md_text("![x](https://evil.example/p.png) **1,000**").replace(_WORD_JOINER, "|")
    '\\\\!\\\\[x\\\\]\\\\(https\\\\:|\\\\/\\\\/evil\\\\.example\\\\/p\\\\.png\\\\) \\\\*\\\\*1\\\\,000\\\\*\\\\*'
    """
    return _PUNCTUATION.sub(r"\\\1", _AUTOLINK.sub(_WORD_JOINER, str(text)))


def entered_text(key: str) -> str | None:
    """What the text box ``key`` holds, stripped; None when it is empty."""
    text = str(st.session_state.get(key) or "").strip()
    return text or None


def algorithm_name(algorithm: str) -> str:
    """The engine's short name of an algorithm, for a list of choices."""
    return ALGORITHMS[algorithm].name


def percent_column(label: str, help: str | None = None) -> Any:
    """A table column of shares shown as percentages rounded to two decimals ("96.87%",
    "100%"), as the charts and the report show them. No ``step``: Streamlit cuts a value to
    the step's decimals (0.96874 would show 96.8%) before it formats it."""
    return st.column_config.NumberColumn(label, format="percent", help=help)


def table_in_two(frame: Any, first: list[str], more: str, **kwargs: Any) -> None:
    """``frame`` as a table of its ``first`` columns, narrow enough to be read whole on a
    1,400 px screen, and the table of its other columns (after ``first[0]``, the rows' names)
    in an expander titled ``more``: a table wider than the page hides its last columns behind
    a scroll bar that only shows on hover. ``kwargs`` go to both ``st.dataframe`` calls
    (``column_config`` and the like; ``column_order``: the columns to show, in order)."""
    order = kwargs.pop("column_order", None) or list(frame.columns)
    st.dataframe(frame, hide_index=True, width="stretch", column_order=[c for c in order if c in first], **kwargs)
    rest = [c for c in order if c not in first]
    if rest:
        with st.expander(more):
            st.dataframe(frame, hide_index=True, width="stretch", column_order=[first[0], *rest], **kwargs)


#: The largest node / edge weight the weight boxes take (the heuristics need only their ratio).
MAX_WEIGHT = state.MAX_WEIGHT


def weights_of(name: str, text: str) -> tuple[float, float]:
    """The weights ``w_nodes,w_edges`` of query parameter ``name``, each within the weight
    boxes' bounds (0 to ``MAX_WEIGHT``); ``ValueError`` says what is wrong.

    >>> weights_of("weights", "2,1")
    (2.0, 1.0)
    """
    try:
        weights = tuple(float(part) for part in text.split(","))
    except ValueError:
        weights = ()
    if len(weights) != 2:
        raise ValueError(f"{name}={text!r} must be two numbers w_nodes,w_edges")
    if not state.weights_fit_the_boxes(weights):
        raise ValueError(f"{name}={text!r}: each weight must lie between 0 and {MAX_WEIGHT:,.0f}")
    return weights  # type: ignore[return-value]

#: Exceptions that become an inline message instead of a traceback.
USER_ERRORS = (ValueError, data_loaders.DatasetUnavailableError, FileNotFoundError, OSError)


_UNSET = object()


def mirrored(key: str, value: Any) -> dict[str, Any]:
    """Keyword arguments (``key``, ``value``) for a widget that shows ``value`` from the
    session's plain state; its on_change writes the user's choice back there.

    The value is the widget's default, so a browser that creates the widget afresh shows it
    (a value written only through the widget's key is shown solely by a browser that applies
    that run's message: after an interrupted first run it showed the minimum, 1 or 0.10);
    it is written to the key as well when it changed elsewhere (a sweep cell, a link, a
    loaded configuration), which updates a widget the browser already shows.
    """
    if st.session_state.get(key, _UNSET) != value:
        st.session_state[key] = value
    return {"key": key, "value": value}


def mirrored_choice(key: str, options: list, value: Any) -> dict[str, Any]:
    """:func:`mirrored` for a select box: ``key`` and the ``index`` of ``value`` in ``options``."""
    kwargs = mirrored(key, value)
    return {"key": kwargs["key"], "index": list(options).index(value)}


def show_error(error: BaseException, what: str) -> None:
    """Show ``error`` inline as ``what`` failed, with its user-facing message."""
    st.error(f"**{md_text(what)}.** {md_text(error)}", icon=":material/error:")


def run_page(main: Callable[[], None]) -> None:
    """Run a page's ``main``; user errors become inline messages and anything unexpected
    becomes an inline message too, so no traceback ever reaches the page."""
    try:
        main()
    except USER_ERRORS as error:
        show_error(error, "Something in the chosen settings does not work")
    except Exception as error:  # a bug: still no traceback on the page, but say what happened
        st.error(f"**Unexpected error ({type(error).__name__}).** {md_text(error)}. Try other settings or reload the "
                 "page; if it persists, report it with the steps that led here.", icon=":material/bug_report:")


def dataset_label(name: str) -> str:
    """The dataset's short name, marked when it needs a download (the sidebar's title is the
    caption below it: a title did not fit)."""
    if name.startswith(state.UPLOAD_PREFIX):
        return f"Uploaded: {name[len(state.UPLOAD_PREFIX):]}"
    spec = cache.spec_for(name)
    return name if spec is None or spec.bundled else f"{name} (needs download)"


def _on_dataset_change() -> None:
    state.choose_dataset(st.session_state[state.DATASET_WIDGET])


def _on_settings_change(name: str) -> None:
    """Write the split and option widgets of dataset ``name`` back to its settings."""
    spec = cache.spec_for(name)
    current = state.settings(name, state.default_settings(spec))
    options = dict(current.options)
    for option in spec.option_specs:
        key = state.OPTION_WIDGET_PREFIX + option.name
        if key in st.session_state:
            options[option.name] = st.session_state[key]
    state.set_settings(name, state.DatasetSettings(st.session_state[state.SPLIT_WIDGET], options))


def _option_widget(spec, option, value: Any) -> Any:
    """The widget of one dataset option (labels, ranges and steps from its ``OptionSpec``)."""
    key = state.OPTION_WIDGET_PREFIX + option.name
    common = dict(help=option.help or None, on_change=_on_settings_change, args=(spec.name,))
    if option.choices is not None:
        return st.selectbox(option.label, option.choices, **mirrored_choice(key, option.choices, value), **common)
    if isinstance(option.default, float):
        return st.number_input(option.label, min_value=float(option.low), max_value=float(option.high),
                               step=float(option.step), format="%.2f", **mirrored(key, float(value)), **common)
    return st.number_input(option.label, min_value=int(option.low), max_value=int(option.high),
                           step=int(option.step), **mirrored(key, int(value)), **common)


def dataset_sidebar() -> state.Selection:
    """Draw the dataset picker (dataset, split, construction options) in the sidebar; the
    options shown and their ranges come from the dataset's spec."""
    specs = cache.dataset_specs()
    names = [spec.name for spec in specs] + list(state.uploads())
    if state.dataset_name() not in names:
        state.choose_dataset(next((s.name for s in specs if s.name == "qm9"), names[0]))
    name = state.dataset_name()
    with st.sidebar:
        st.subheader("Dataset")
        st.selectbox("Dataset", names, **mirrored_choice(state.DATASET_WIDGET, names, name),
                     format_func=dataset_label, on_change=_on_dataset_change, label_visibility="collapsed")
        spec = cache.spec_for(name)
        if spec is None:
            return state.upload_selection(name)
        st.caption(spec.title)
        chosen = state.settings(name, state.default_settings(spec))
        st.selectbox("Split", spec.splits, **mirrored_choice(state.SPLIT_WIDGET, spec.splits, chosen.split),
                     on_change=_on_settings_change, args=(name,))
        for option in spec.option_specs:
            if option.applies(chosen.options):  # an option that does not apply keeps its value, hidden
                _option_widget(spec, option, chosen.options[option.name])
    return selection_of(spec, state.settings(name, chosen))


def selection_of(spec, chosen: state.DatasetSettings) -> state.Selection:
    """The selection of a registered dataset with ``chosen`` settings: only the options that
    change the histogram are part of it (its label, limits and caches)."""
    return state.Selection(spec.name, chosen.split, effective_options(spec, chosen.options))


@contextmanager
def progress_shown(title: str) -> Iterator[Callable[[str, float], None]]:
    """A ``progress(stage, fraction)`` callback for slow work: the first call opens a status
    box with the stage and a progress bar where this is called; it is removed when done."""
    holder = st.empty()
    shown: dict[str, Any] = {}

    def report(stage: str, fraction: float) -> None:
        if not shown:
            with holder.container():
                shown["status"] = st.status(title, expanded=True)
                shown["bar"] = shown["status"].progress(0.0)  # leaving `with status:` would mark it complete
        shown["status"].update(label=f"{title}: {stage}")
        shown["bar"].progress(min(max(float(fraction), 0.0), 1.0), text=stage)

    try:
        yield report
    finally:
        holder.empty()


#: Seconds a packing runs before its progress is shown (a quick one shows nothing).
SHOW_PACKING_AFTER_S = 1.0


@contextmanager
def packing_shown(title: str) -> Iterator[Callable[[float, str], None]]:
    """A ``progress(fraction, message)`` callback in the engine's form (``packing.pack``) that
    opens :func:`progress_shown`'s box once the packing has run ``SHOW_PACKING_AFTER_S``:
    a slow one (best of all on many distinct sizes) shows its stage, and Streamlit's Stop
    button ends it at the next update."""
    start = time.perf_counter()
    with progress_shown(title) as report:
        def progress(fraction: float, message: str) -> None:
            if time.perf_counter() - start >= SHOW_PACKING_AFTER_S:
                report(message, fraction)

        yield progress


@contextmanager
def share_shown(title: str) -> Iterator[Callable[[float], None]]:
    """A ``progress(share)`` callback for a simulation (:func:`progress_shown` with the
    share done as its stage)."""
    with progress_shown(title) as report:
        yield lambda share: report(f"{share:.0%} of the run", share)


def with_proof(hist: SizeHistogram, plan):
    """``plan`` measured against the LP bound when this session asked to prove its histogram
    and limits (the engine caches the LP, so this is instant after the first time; progress
    is shown while it runs), else ``plan`` as it is."""
    if (hist.fingerprint(), plan.limits) not in state.proved() or not plan.method.keeps_limits:
        return plan
    with progress_shown("Proving a lower bound (LP relaxation by column generation)") as progress:
        bounds = lower_bounds(hist, plan.limits, prove=True, time_budget=PROVE_SECONDS, packs=plan.packs,
                              progress=lambda fraction, message: progress(message, fraction))
    return plan.with_bounds(bounds)


def load_selection(selection: state.Selection) -> tuple[SizeHistogram, dict] | None:
    """The histogram and info of ``selection`` (with progress shown when it must be computed);
    an inline error and None when it fails."""
    if selection.is_upload:
        found = state.uploads().get(selection.name)
        if found is None:
            st.error("The uploaded file is no longer in this session; upload it again on the Datasets page.")
        return found
    try:
        with progress_shown(f"Computing the sizes of {selection.label}") as progress:
            found = cache.load_dataset(selection.name, selection.split, tuple(sorted(selection.options.items())),
                                       progress)
    except USER_ERRORS as error:
        show_error(error, f"Could not open {selection.label}")
        return None
    if found[1].get("warning"):
        st.warning(found[1]["warning"], icon=":material/warning:")
    return found


def current_dataset() -> tuple[state.Selection, SizeHistogram, dict] | None:
    """The dataset chosen in the sidebar (read by ``app.py`` on this run), loaded, with
    limits made valid for it; None after an inline message when that fails."""
    selection = st.session_state.get(state.SELECTION)
    if selection is None:
        return None
    loaded = load_selection(selection)
    if loaded is None:
        if not selection.is_upload:
            st.info("Choose a bundled dataset in the sidebar (QM9, ogbg-molhiv, ogbg-molpcba, AFLOW) "
                    "or upload your own sizes on the Datasets page.")
        return None
    hist, info = loaded
    recommended.ensure_limits(selection, hist)
    return selection, hist, info


def selection_summary() -> None:
    """Sidebar lines with the chosen limits and method, used by Packing and Export (for best
    of all, the winner once a page has packed with it)."""
    chosen = state.choice()
    if chosen is None:
        return
    limits, method = chosen.limits, state.method()
    words = state.plan_words().get((st.session_state[state.SELECTION].key, limits, method), method.label)
    with st.sidebar:
        st.subheader("Chosen configuration")
        st.markdown(
            f"max nodes **{limits.max_nodes:,}** · max edges **{limits.max_edges:,}** · "
            f"max graphs **{limits.max_graphs:,}**  \n{words}  \n_{md_text(chosen.origin)}_"
        )


def provenance_caption(info: dict) -> None:
    """One caption line saying where the numbers come from."""
    seconds = info.get("seconds")
    timing = "" if not isinstance(seconds, (int, float)) else \
        f" in {seconds:.2f} s" if seconds >= 0.005 else ", read at once"
    st.caption(
        f"Source: {md_text(info.get('source', 'unknown'))}{timing}. {md_text(info.get('provenance', ''))} "
        f"({info.get('graphs', 0):,} graphs)."
    )
