"""The current view in the URL, so that reloading, bookmarking or sending the link to a
colleague opens the same view. A link is read once, when a session starts; every run then
writes the view back (Streamlit clears query parameters on a page switch, and this puts them
back). All parameters are optional:

- ``dataset``, ``split`` and the dataset's construction options (``graph``, ``cutoff``,
  ``k``, ...);
- the chosen limits ``max_nodes``, ``max_edges``, ``max_graphs`` (missing ones: the
  dataset's data defaults), or ``limits=recommended``: the recommendation for the link's
  batch size and calibration (:mod:`pages.recommended`; a link without limits opens on it too);
- the packing method ``algorithm``, ``heuristic``, ``one_dim``, ``weights=w_nodes,w_edges``,
  ``improve=true``;
- the simulated run of the Batching, Throughput and Export pages, written only where it
  differs from ``state.RUN_DEFAULTS``: ``batch_size`` (2-4096), ``epochs`` (1-1000) or
  ``steps`` (1-2,000,000; steps wins, with one epoch), ``seed``, ``devices`` (1-64),
  ``shapes`` (bucket shapes, 1-16), ``packs_per_step`` (``match`` or 1-4096 packs per batch);
- the Throughput page: ``calibration`` (a shipped calibration's file stem, or
  ``this_machine``; one uploaded or measured in a session is written as ``uploaded``, which
  cannot be opened elsewhere) and ``baseline`` (the user's current batching, one of
  ``throughput.ROWS``), each written only when not the default;
- the last sweep of the dataset (Limit sweep page): ``sweep_nodes=from:to:step``,
  ``sweep_edges=from:to:step``, ``sweep_graphs``, ``sweep_algorithm``, ``sweep_heuristic``
  and, for the weighted heuristic, ``sweep_weights=w_nodes,w_edges``.

What cannot be used becomes one message each (:func:`show_problems`) and the rest still
applies. A link naming an uploaded file (or no known dataset) opens the default dataset with
its own limits, method and sweep.

Example: ``/sweep?dataset=qm9&split=all&graph=radius&cutoff=4.0&max_nodes=29&max_edges=700
&max_graphs=256&algorithm=best_fit&heuristic=sum&batch_size=64&steps=10000
&sweep_nodes=29:89:20&sweep_edges=56:176:40&sweep_graphs=256&sweep_algorithm=best_fit
&sweep_heuristic=product``.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from data_loaders.registry import check_split, resolve_options
from packing import DEFAULT_MAX_GRAPHS, MAX_PACK_LIMIT, TUPLE_ALGORITHMS, PackMethod
from throughput import ROWS

from . import cache, state
from .sweeps import RANGE_FIELDS, check_grid, sweep_method
from .widgets import md_text, weights_of

READ = "link_read"           # the URL of this session was read
PROBLEMS = "link_problems"   # what could not be used from it, shown once
REQUESTED_SWEEP = "link_sweep"  # a link's sweep settings, for the dataset the link opens
LIMIT_NAMES = ("max_nodes", "max_edges", "max_graphs")
METHOD_NAMES = ("algorithm", "heuristic", "one_dim", "weights", "improve")
#: Run query parameter -> ``state.RUN_DEFAULTS`` key (its bounds: ``state.RUN_BOUNDS``).
RUN_PARAMS = {"batch_size": "batch_size", "epochs": "epochs", "steps": "steps", "seed": "seed", "devices": "devices",
              "shapes": "num_shapes"}
PACKS_PER_STEP, MATCH = "packs_per_step", "match"
THIS_MACHINE = state.THIS_MACHINE   # the Throughput page's calibration of the server's machine
SESSION_PREFIX = state.SESSION      # calibration ids of this session only (uploaded or measured)
UPLOADED = "uploaded"           # how a session calibration is written into a link
SWEEP_NAMES = ("sweep_nodes", "sweep_edges", "sweep_graphs", "sweep_algorithm", "sweep_heuristic", "sweep_weights")
#: Sweep settings a link may leave out, and the values they then take.
SWEEP_DEFAULTS = {"max_graphs": DEFAULT_MAX_GRAPHS, "algorithm": "best_fit", "heuristic": "product",
                  "w_nodes": 1.0, "w_edges": 1.0}


def run_params(settings: dict[str, Any]) -> dict[str, str]:
    """The query parameters of the simulated run ``settings`` (``state.RUN_DEFAULTS``'s keys):
    only those that differ from the defaults.

    >>> run_params({**state.RUN_DEFAULTS, "epochs": 1, "steps": 5000, "packs_per_batch": 2})
    {'steps': '5000', 'packs_per_step': '2'}
    """
    params = {}
    for name, key in RUN_PARAMS.items():
        skipped = key == "epochs" and settings["steps"] is not None  # steps say how long the run is
        if settings[key] != state.RUN_DEFAULTS[key] and not skipped:
            params[name] = str(settings[key])
    packs = settings["packs_per_batch"]
    if packs != state.RUN_DEFAULTS["packs_per_batch"]:
        params[PACKS_PER_STEP] = MATCH if packs is None else str(packs)
    return params


def throughput_params(settings: dict[str, Any]) -> dict[str, str]:
    """The query parameters of the Throughput page's ``settings`` (calibration id, baseline)
    that are not the defaults; a session's own calibration is written as ``uploaded``.

    >>> throughput_params({"calibration": "session:mine.json", "baseline": "dynamic"})
    {'calibration': 'uploaded', 'baseline': 'dynamic'}
    """
    params = {}
    calibration = settings["calibration"]
    if calibration != state.THROUGHPUT_DEFAULTS["calibration"]:
        params["calibration"] = UPLOADED if calibration.startswith(SESSION_PREFIX) else calibration
    if settings["baseline"] != state.THROUGHPUT_DEFAULTS["baseline"]:
        params["baseline"] = settings["baseline"]
    return params


def sweep_params(params: dict[str, Any]) -> dict[str, str]:
    """The query parameters of a sweep's settings (``pages.sweeps.SETTINGS``).

    >>> sweep_params({"n0": 29, "n1": 89, "ns": 20, "e0": 56, "e1": 176, "es": 40, "max_graphs": 256,
    ...               "algorithm": "first_fit", "heuristic": "weighted", "w_nodes": 2.0, "w_edges": 1.0})
    ... # doctest: +NORMALIZE_WHITESPACE
    {'sweep_nodes': '29:89:20', 'sweep_edges': '56:176:40', 'sweep_graphs': '256', 'sweep_algorithm': 'first_fit',
     'sweep_heuristic': 'weighted', 'sweep_weights': '2,1'}
    """
    found = {"sweep_nodes": ":".join(str(params[name]) for name in RANGE_FIELDS[:3]),
             "sweep_edges": ":".join(str(params[name]) for name in RANGE_FIELDS[3:]),
             "sweep_graphs": str(params["max_graphs"]), "sweep_algorithm": params["algorithm"],
             "sweep_heuristic": params["heuristic"]}
    if params["heuristic"] == "weighted":
        found["sweep_weights"] = f"{params['w_nodes']:g},{params['w_edges']:g}"
    return found


def _stored(key: str, defaults: dict[str, Any]) -> dict[str, Any]:
    """The settings kept under ``key`` over their ``defaults`` (a page may keep only some of
    them); reading them stores nothing, so pages still start them as they do."""
    return {**defaults, **st.session_state.get(key, {})}


def view_params(selection: state.Selection) -> dict[str, str]:
    """The query parameters of the current view (the dataset ``selection``, its chosen
    limits, the chosen method, the simulated run, the Throughput page's settings and the
    dataset's last sweep).

    >>> view_params(state.Selection("qm9", "all", {"graph": "bonds"}))["dataset"]
    'qm9'
    """
    params = {"dataset": selection.name}
    if not selection.is_upload:
        params["split"] = selection.split
        params.update({name: str(value) for name, value in selection.options.items()})
    choice = state.choices().get(selection.key)
    if choice is not None and choice.is_recommended:
        params["limits"] = state.RECOMMENDED
    elif choice is not None:
        params.update({name: str(value) for name, value in choice.limits.to_dict().items()})
    method = state.method().to_dict()
    for name in ("algorithm", "heuristic", "one_dim"):
        if method[name] is not None:
            params[name] = method[name]
    if method["weights"] is not None:
        params["weights"] = ",".join(f"{w:g}" for w in method["weights"])
    if method["improve"]:
        params["improve"] = "true"
    params.update(run_params(_stored(state.RUN, state.RUN_DEFAULTS)))
    params.update(throughput_params(_stored(state.THROUGHPUT, state.THROUGHPUT_DEFAULTS)))
    sweep = st.session_state.get(state.SWEEP)
    if sweep and sweep["for"] == selection.key:
        params.update(sweep_params(sweep["params"]))
    return params


def claim_sweep(selection: state.Selection) -> None:
    """Store the sweep a link asked for as the last sweep of ``selection``, the dataset the
    link opened (known once the sidebar has resolved it); nothing when no link asked for one.

    Called by :func:`write_link` at the end of the first run and by the Limit sweep page
    before it draws, so a link opened on that page shows its sweep at once.
    """
    requested = st.session_state.pop(REQUESTED_SWEEP, None)
    if requested is not None:
        st.session_state[state.SWEEP] = {"for": selection.key, "params": requested}


def write_link(selection: state.Selection | None) -> None:
    """Put the current view into the URL (nothing when no dataset is selected)."""
    if selection is None:
        return
    claim_sweep(selection)
    wanted = view_params(selection)
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


def _whole(name: str, text: str, low: int = 1, high: int = MAX_PACK_LIMIT) -> int:
    """The whole number ``text`` of query parameter ``name``, in ``[low, high]``."""
    try:
        number = int(text)
    except ValueError:
        raise ValueError(f"{name}={text!r} is not a whole number") from None
    if not low <= number <= high:
        raise ValueError(f"{name}={text!r} must lie between {low:,} and {high:,}")
    return number


def _apply_dataset(params: dict[str, str], problems: list[str]) -> bool:
    """Open the link's dataset; False when it names one that cannot be opened."""
    name = params["dataset"]
    instead = "; the default dataset opens instead, with its own limits, method and sweep"
    if name.startswith(state.UPLOAD_PREFIX):
        problems.append(f"it refers to an uploaded file ({name[len(state.UPLOAD_PREFIX):]}), which a link cannot "
                        f"carry: upload the file again on the Datasets page{instead}")
        return False
    spec = cache.spec_for(name)
    if spec is None:
        problems.append(f"there is no dataset {name!r}{instead}")
        return False
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
    return True


def _apply_method(params: dict[str, str], problems: list[str]) -> None:
    given: dict[str, Any] = {name: params[name] for name in METHOD_NAMES if name in params}
    if not given:
        return
    try:
        if "weights" in given:
            given["weights"] = weights_of("weights", given["weights"])
        if "improve" in given:
            if given["improve"] not in ("true", "false"):
                raise ValueError(f"improve={given['improve']!r} must be true or false")
            given["improve"] = given["improve"] == "true"
        state.set_method(PackMethod(**given))
    except (TypeError, ValueError) as error:
        problems.append(f"its method could not be used ({error})")


def _apply_limits(params: dict[str, str], problems: list[str]) -> None:
    if "limits" in params:
        if params["limits"] == state.RECOMMENDED and not set(LIMIT_NAMES) & set(params):
            state.request_limits(state.RECOMMENDED)
            return
        problems.append(f"limits={params['limits']!r} could not be used (limits={state.RECOMMENDED} alone asks for "
                        "the recommendation; give max_nodes, max_edges and max_graphs for others)")
    usable, bad = {}, []
    for name in LIMIT_NAMES:
        if name in params:
            try:
                usable[name] = _whole(name, params[name])
            except ValueError as error:
                bad.append(str(error))
    if bad:
        problems.append(f"{'its limits' if len(bad) > 1 else 'a limit'} could not be used ({'; '.join(bad)})")
    if usable:
        try:
            state.request_limits(usable)
        except ValueError as error:
            problems.append(f"its limits could not be used ({error})")


def _apply_run(params: dict[str, str], problems: list[str]) -> None:
    """The simulated run: each valid value is used, each bad one is a problem."""
    changes: dict[str, Any] = {}
    for name, key in RUN_PARAMS.items():
        if name in params:
            try:
                changes[key] = _whole(name, params[name], *state.RUN_BOUNDS[key])
            except ValueError as error:
                problems.append(str(error))
    if "steps" in changes:
        changes["epochs"] = 1
    if PACKS_PER_STEP in params:
        text = params[PACKS_PER_STEP]
        try:
            changes["packs_per_batch"] = None if text == MATCH else \
                _whole(PACKS_PER_STEP, text, *state.RUN_BOUNDS["packs_per_batch"])
        except ValueError as error:
            problems.append(f"{error} (or {MATCH})")
    if changes:
        state.set_run_settings(**changes)


def _calibration(text: str) -> str:
    """The calibration id of query value ``text``; ``ValueError`` when it cannot be used here."""
    if text == UPLOADED:
        raise ValueError("calibration=uploaded: a calibration uploaded or measured in another session cannot "
                         "travel in a link (upload it again on the Throughput page)")
    stems = list(cache.calibration_options().found)
    if text != THIS_MACHINE and text not in stems:
        raise ValueError(f"calibration={text!r} is not a shipped calibration ({', '.join(stems)}) or {THIS_MACHINE}")
    return text


def _apply_throughput(params: dict[str, str], problems: list[str]) -> None:
    changes = {}
    if "calibration" in params:
        try:
            changes["calibration"] = _calibration(params["calibration"])
        except ValueError as error:
            problems.append(str(error))
    if "baseline" in params:
        if params["baseline"] in ROWS:
            changes["baseline"] = params["baseline"]
        else:
            problems.append(f"baseline={params['baseline']!r} is not one of {', '.join(ROWS)}")
    if changes:
        st.session_state[state.THROUGHPUT] = {**state.throughput_settings(), **changes}


def _range(name: str, text: str) -> list[int]:
    parts = text.split(":")
    if len(parts) != 3:
        raise ValueError(f"{name}={text!r} must be from:to:step")
    return [_whole(name, part) for part in parts]


def sweep_settings(given: dict[str, str]) -> dict[str, Any]:
    """The sweep settings (``pages.sweeps.SETTINGS``) of a link's ``sweep_*`` parameters,
    checked as the Limit sweep page checks its form; ``ValueError`` says what is wrong.

    >>> sweep_settings({"sweep_nodes": "29:89:20", "sweep_edges": "56:176:40"})["heuristic"]
    'product'
    """
    if "sweep_nodes" not in given or "sweep_edges" not in given:
        raise ValueError("a sweep needs both sweep_nodes and sweep_edges, each from:to:step")
    ranges, bad = [], []
    for name in ("sweep_nodes", "sweep_edges"):
        try:
            ranges += _range(name, given[name])
        except ValueError as error:
            bad.append(str(error))
    if bad:
        raise ValueError("; ".join(bad))
    settings = {**SWEEP_DEFAULTS, **dict(zip(RANGE_FIELDS, ranges))}
    if "sweep_graphs" in given:
        settings["max_graphs"] = _whole("sweep_graphs", given["sweep_graphs"])
    settings["algorithm"] = given.get("sweep_algorithm", settings["algorithm"])
    if settings["algorithm"] not in TUPLE_ALGORITHMS:
        raise ValueError(f"sweep_algorithm={settings['algorithm']!r} is not one of {', '.join(TUPLE_ALGORITHMS)}")
    settings["heuristic"] = given.get("sweep_heuristic", settings["heuristic"])
    heuristics = PackMethod.choices(settings["algorithm"], "heuristic")
    if settings["heuristic"] not in heuristics:
        raise ValueError(f"sweep_heuristic={settings['heuristic']!r} is not one of {', '.join(heuristics)}")
    if settings["heuristic"] == "weighted" and "sweep_weights" in given:
        settings["w_nodes"], settings["w_edges"] = weights_of("sweep_weights", given["sweep_weights"])
    sweep_method(settings)  # raises for weights the method refuses
    problem = check_grid(settings)
    if problem:
        raise ValueError(problem.rstrip("."))
    return settings


def _apply_sweep(params: dict[str, str], problems: list[str]) -> None:
    """Ask for the link's sweep (:func:`claim_sweep` gives it to the dataset the link opens)."""
    given = {name: params[name] for name in SWEEP_NAMES if name in params}
    if not given:
        return
    try:
        st.session_state[REQUESTED_SWEEP] = sweep_settings(given)
    except ValueError as error:
        problems.append(f"its sweep could not be used ({str(error).rstrip('.')})")


def read_link() -> None:
    """Once per session: take the view from the URL. What cannot be used is named in a
    message (:func:`show_problems`) and left at its default."""
    if st.session_state.get(READ):
        return
    st.session_state[READ] = True
    params = st.query_params.to_dict()
    problems: list[str] = []
    if "dataset" not in params or _apply_dataset(params, problems):
        _apply_method(params, problems)
        _apply_limits(params, problems)
        _apply_sweep(params, problems)
    _apply_run(params, problems)
    _apply_throughput(params, problems)
    st.session_state[PROBLEMS] = problems


def show_problems() -> None:
    """Say once what a link held that could not be used."""
    problems = st.session_state.pop(PROBLEMS, None)
    if problems:
        st.warning("**This link could not be used completely:** " + "; ".join(md_text(p.rstrip(".")) for p in problems)
                   + ". The defaults are shown for those instead.", icon=":material/link_off:")
