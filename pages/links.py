"""The current view in the URL: dataset, split, construction options, limits and method as
query parameters, so that reloading, bookmarking or sending the link to a colleague opens the
same view. A link is read once, when a session starts; every run then writes the view back
(Streamlit clears query parameters on a page switch, and this puts them back).

Example: ``/packing?dataset=qm9&split=all&graph=radius&cutoff=4.0&max_nodes=29&max_edges=700
&max_graphs=256&algorithm=best_fit&heuristic=sum``.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from data_loaders.registry import check_split, resolve_options
from packing import PackMethod
from packing.limits import whole_number

from . import cache, state

READ = "link_read"           # the URL of this session was read
PROBLEMS = "link_problems"   # what could not be used from it, shown once
LIMIT_NAMES = ("max_nodes", "max_edges", "max_graphs")
METHOD_NAMES = ("algorithm", "heuristic", "one_dim", "weights", "improve")


def view_params(selection: state.Selection) -> dict[str, str]:
    """The query parameters of the current view (the dataset ``selection``, its chosen
    limits and the chosen method).

    >>> view_params(state.Selection("qm9", "all", {"graph": "bonds"}))["dataset"]
    'qm9'
    """
    params = {"dataset": selection.name}
    if not selection.is_upload:
        params["split"] = selection.split
        params.update({name: str(value) for name, value in selection.options.items()})
    choice = state.choices().get(selection.key)
    if choice is not None:
        params.update({name: str(value) for name, value in choice.limits.to_dict().items()})
    method = state.method().to_dict()
    for name in ("algorithm", "heuristic", "one_dim"):
        if method[name] is not None:
            params[name] = method[name]
    if method["weights"] is not None:
        params["weights"] = ",".join(f"{w:g}" for w in method["weights"])
    if method["improve"]:
        params["improve"] = "true"
    return params


def write_link(selection: state.Selection | None) -> None:
    """Put the current view into the URL (nothing when no dataset is selected)."""
    if selection is None:
        return
    wanted = view_params(selection)
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


def _limit(name: str, text: str) -> int:
    try:
        return whole_number(int(text), name)
    except ValueError as error:
        raise ValueError(f"{name}={text!r}: {error}" if "must" in str(error) else f"{name}={text!r} is not a whole number")


def _apply_dataset(params: dict[str, str], problems: list[str]) -> None:
    name = params["dataset"]
    if name.startswith(state.UPLOAD_PREFIX):
        problems.append(f"it refers to an uploaded file ({name[len(state.UPLOAD_PREFIX):]}), which a link cannot "
                        "carry; upload the file again on the Datasets page")
        return
    spec = cache.spec_for(name)
    if spec is None:
        problems.append(f"there is no dataset {name!r}")
        return
    chosen = state.default_settings(spec)
    try:
        split = check_split(spec, params.get("split", chosen.split))
        given = {option: params[option] for option in spec.options if option in params}
        options = resolve_options(spec, {**chosen.options, **given})
    except ValueError as error:
        problems.append(str(error))
        split, options = chosen.split, chosen.options
    state.choose_dataset(name)
    state.set_settings(name, state.DatasetSettings(split, options))


def _apply_method(params: dict[str, str], problems: list[str]) -> None:
    given: dict[str, Any] = {name: params[name] for name in METHOD_NAMES if name in params}
    if not given:
        return
    try:
        if "weights" in given:
            given["weights"] = tuple(float(w) for w in given["weights"].split(","))
        if "improve" in given:
            if given["improve"] not in ("true", "false"):
                raise ValueError(f"improve={given['improve']!r} must be true or false")
            given["improve"] = given["improve"] == "true"
        state.set_method(PackMethod(**given))
    except (TypeError, ValueError) as error:
        problems.append(f"its method could not be used ({error})")


def read_link() -> None:
    """Once per session: take the dataset, limits and method from the URL. What cannot be
    used is named in a message (:func:`show_problems`) and left at its default."""
    if st.session_state.get(READ):
        return
    st.session_state[READ] = True
    params = st.query_params.to_dict()
    problems: list[str] = []
    if "dataset" in params:
        _apply_dataset(params, problems)
    _apply_method(params, problems)
    limits = {name: params[name] for name in LIMIT_NAMES if name in params}
    if limits:
        try:
            state.request_limits({name: _limit(name, value) for name, value in limits.items()})
        except ValueError as error:
            problems.append(f"its limits could not be used ({error})")
    st.session_state[PROBLEMS] = problems


def show_problems() -> None:
    """Say once what a link held that could not be used."""
    problems = st.session_state.pop(PROBLEMS, None)
    if problems:
        st.warning("**This link could not be used completely:** " + "; ".join(problems)
                   + ". The defaults are shown for those instead.", icon=":material/link_off:")
