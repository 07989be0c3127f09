"""Session-state keys and accessors shared by the pages.

Widgets that live on one page are cleaned up by Streamlit when another page runs, so
everything that must survive a page switch (the limits chosen per dataset, the method, the
selected sweep, uploaded histograms) is kept under plain keys that no widget owns. The
dataset widgets are drawn in the sidebar by ``app.py`` on every page, so their keys persist.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from packing import DEFAULT_MAX_GRAPHS, PackLimits, PackMethod, SizeHistogram
from packing.batching import MAX_SHAPES
from packing.words import run_length_words

# Sidebar widgets (drawn on every page). Widgets only mirror the plain keys below (see
# ``pages.widgets.mirrored``): the chosen value is the widget's default and is written to its
# key right before it is drawn when it changed elsewhere; on_change writes the user's choice
# back. (A value written to a widget key in a run where the widget is not drawn, e.g. QM9's
# cutoff while bonds are chosen, reached the server but not the browser, which showed the
# widget's minimum.)
DATASET_WIDGET = "ds_name"
SPLIT_WIDGET = "ds_split"
OPTION_WIDGET_PREFIX = "ds_opt_"
# Plain keys owned by no widget.
DATASET = "dataset"        # the current dataset's name
SETTINGS = "dataset_settings"  # dataset name -> DatasetSettings chosen for it this session
LIMITS = "limits"          # selection key -> Choice: the limits chosen for each dataset this session
REQUESTED_LIMITS = "requested_limits"  # limits from a link, for the dataset opened next
PLAN_WORDS = "plan_words"  # (selection key, limits, method) -> the plan's method in words
PROVED = "proved"          # (histogram fingerprint, limits) the user asked to prove a bound for
METHOD = "method"          # PackMethod
METHOD_BY_HAND = "method_by_hand"  # whether METHOD was chosen by hand (else: a default or a recommendation's)
UPLOADS = "uploads"        # label -> (SizeHistogram, info)
UPLOAD_ERROR = "upload_error"
SWEEP = "sweep"            # parameters of the last sweep run for the current dataset
SELECTION = "selection"    # the Selection read from the sidebar on this run
UPLOAD_PREFIX = "upload:"

DATA_DEFAULTS = "data defaults (largest graph)"
RECOMMENDED = "recommended"  # a link's limits=recommended: the recommendation for the link's run

# The simulated training run, shared by the Batching, Throughput and Export pages (and links).
RUN = "batching"
#: Run lengths offered: label -> (epochs, steps); steps None means whole epochs.
RUN_LENGTHS = {"1 epoch": (1, None), "10 epochs": (10, None), "100 epochs": (100, None),
               "10,000 steps": (1, 10_000), "100,000 steps": (1, 100_000), "1,000,000 steps": (1, 1_000_000),
               "2,000,000 steps": (1, 2_000_000)}  # the run of Speckhard et al. (the help says so)
#: ``packs_per_batch`` None: as many packs per batch as carry about the batch size in graphs.
RUN_DEFAULTS = {"batch_size": 32, "epochs": 10, "steps": None, "seed": 0, "devices": 1, "num_shapes": 8,
                "packs_per_batch": None}
#: The largest node or edge weight of the weighted heuristic the weight boxes take (and links).
MAX_WEIGHT = 1e6
#: The lowest and highest value of each whole-number run setting: the run controls' bounds and
#: the bounds a link's values are checked against (a value past a widget's bound breaks its page).
RUN_BOUNDS = {"batch_size": (2, 4096), "epochs": (1, 1000), "steps": (1, 2_000_000), "seed": (0, 2**32 - 1),
              "devices": (1, 64), "num_shapes": (1, MAX_SHAPES), "packs_per_batch": (1, 4096)}
# The Throughput page's own settings: the calibration (its label) and the user's current batching.
THROUGHPUT = "throughput_controls"
THROUGHPUT_DEFAULTS = {"calibration": None, "baseline": "pyg_dataloader"}
#: Calibration ids: the one that speaks for this machine (checked, or measured at first use),
#: and the prefix of those of this session (uploaded or measured), kept under ``SESSION_CALIBRATIONS``.
THIS_MACHINE = "this_machine"
SESSION = "session:"
SESSION_CALIBRATIONS = "tp_calibrations"


@dataclass(frozen=True)
class Selection:
    """The dataset the user works on: a registered dataset or an uploaded file.

    ``options`` are the construction options that change the histogram; ``content``
    fingerprints an upload's histogram, so that another file uploaded under the same name is
    another dataset (with its own data-default limits and sweep ranges).
    """

    name: str
    split: str
    options: dict[str, Any] = field(default_factory=dict)
    content: str = ""

    @property
    def is_upload(self) -> bool:
        return self.name.startswith(UPLOAD_PREFIX)

    @property
    def file_stem(self) -> str:
        """The start of the names of files downloaded for this dataset: its name, or the
        uploaded file's without its extension (``qm9``, ``molecules``)."""
        return self.name.removeprefix(UPLOAD_PREFIX).rsplit(".", 1)[0]

    @property
    def label(self) -> str:
        """Short human-readable name, e.g. ``qm9 (all, graph=radius, cutoff=5.0)``."""
        if self.is_upload:
            return f"uploaded file {self.name[len(UPLOAD_PREFIX):]}"
        opts = ", ".join(f"{k}={v}" for k, v in self.options.items())
        return f"{self.name} ({self.split}{', ' + opts if opts else ''})"

    @property
    def key(self) -> str:
        """A stable string identifying this selection (limits are kept per key)."""
        return json.dumps([self.name, self.split, self.options, self.content], sort_keys=True, default=str)


@dataclass(frozen=True)
class DatasetSettings:
    """The split and construction options chosen for one dataset (all options, including
    those that do not apply to the chosen construction, so switching back restores them)."""

    split: str
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Choice:
    """Limits chosen for one dataset and, in words, where they came from. A recommendation
    (:mod:`pages.recommended`) also keeps what it was recommended for (``recommended_for``:
    the batch size, the calibration's id, None for none, and the loader workers of its wall
    time, None for model time) and the method it packs with, so
    that it follows the run until the user chooses limits by hand."""

    limits: PackLimits
    source: str
    recommended_for: tuple[int, str | None, int | None] | None = None
    method: PackMethod | None = None

    @property
    def is_recommended(self) -> bool:
        return self.recommended_for is not None

    @property
    def origin(self) -> str:
        """Where the limits come from, as a sentence starts it.

        >>> Choice(PackLimits(5, 6, 2), "the link you opened").origin
        'Limits from the link you opened'
        """
        return self.source[0].upper() + self.source[1:] if self.is_recommended else f"Limits from {self.source}"


def dataset_name() -> str | None:
    """The name of the current dataset (None before the sidebar first ran)."""
    return st.session_state.get(DATASET)


def choose_dataset(name: str) -> None:
    """Make ``name`` the current dataset (its split and options are kept per dataset)."""
    st.session_state[DATASET] = name


def default_settings(spec: Any) -> DatasetSettings:
    """A registered dataset's default split (train where there is one) and options."""
    return DatasetSettings("train" if "train" in spec.splits else spec.splits[0], dict(spec.options))


def settings(name: str, defaults: DatasetSettings) -> DatasetSettings:
    """The split and options chosen for dataset ``name`` (``defaults`` the first time)."""
    return st.session_state.setdefault(SETTINGS, {}).setdefault(name, defaults)


def set_settings(name: str, chosen: DatasetSettings) -> None:
    """Choose the split and options of dataset ``name``."""
    st.session_state.setdefault(SETTINGS, {})[name] = chosen


def uploads() -> dict[str, tuple]:
    """Uploaded histograms of this session, by selection name (``upload:<file name>``)."""
    return st.session_state.setdefault(UPLOADS, {})


def upload_selection(name: str) -> Selection:
    """The selection of the upload stored as ``name`` (``upload:<file name>``), keyed by its content."""
    found = uploads().get(name)
    return Selection(name, "all", {}, found[0].fingerprint()[:12] if found is not None else "")


def choices() -> dict[str, Choice]:
    """The limits chosen this session, by dataset selection key."""
    return st.session_state.setdefault(LIMITS, {})


def _current_key() -> str | None:
    selection = st.session_state.get(SELECTION)
    return None if selection is None else selection.key


def choice() -> Choice | None:
    """The limits chosen for the current dataset, or None before it was loaded."""
    return choices().get(_current_key())


def set_limits(limits: PackLimits, source: str, owner: str | None = None) -> None:
    """Choose ``limits`` for the dataset ``owner`` (a selection key; default: the current
    one), saying where they came from (shown to the user). Limits that replace a
    recommendation take the default method back unless the user chose one by hand (the
    recommendation's goes with its limits: balanced fill serves large packs only)."""
    owner = owner if owner is not None else _current_key()
    before = choices().get(owner)
    if before is not None and before.is_recommended and not method_by_hand():
        set_method(PackMethod(), by_hand=False)
    set_choice(Choice(limits, source), owner)


def set_choice(chosen: Choice, owner: str | None) -> None:
    """Make ``chosen`` the choice of the dataset ``owner`` (a selection key; None: the current one)."""
    choices()[owner if owner is not None else _current_key()] = chosen


def data_defaults(hist: SizeHistogram) -> PackLimits:
    """The data-default limits: the largest graph (at least 1 node and 1 edge) and 256 graphs.

    >>> data_defaults(SizeHistogram.from_sizes([3, 5], [0, 0]))
    PackLimits(max_nodes=5, max_edges=1, max_graphs=256)
    """
    return PackLimits.for_histogram(hist, max_graphs=DEFAULT_MAX_GRAPHS)


def reset_limits(hist: SizeHistogram) -> None:
    """Choose the data-default limits of ``hist`` for the current dataset."""
    set_limits(data_defaults(hist), DATA_DEFAULTS)


def request_limits(values: dict[str, int] | str) -> None:
    """Limits asked for before the dataset is loaded (by a link): the next dataset opened
    without limits of its own takes them, the missing ones from its data defaults
    (``RECOMMENDED``: the recommendation)."""
    st.session_state[REQUESTED_LIMITS] = values


def requested_limits() -> dict[str, int] | str | None:
    """The limits a link asked for, once: the first dataset opened takes them."""
    return st.session_state.pop(REQUESTED_LIMITS, None)


def plan_words() -> dict[tuple, str]:
    """What each packed (selection key, limits, method) turned out to be, in words (best of
    all names its winner), for the sidebar summary."""
    return st.session_state.setdefault(PLAN_WORDS, {})


def proved() -> set[tuple[str, PackLimits]]:
    """The (histogram fingerprint, limits) for which this session asked for the LP bound."""
    return st.session_state.setdefault(PROVED, set())


def method() -> PackMethod:
    """The chosen packing method."""
    return st.session_state.setdefault(METHOD, PackMethod())


def weights_fit_the_boxes(weights: tuple[float, ...]) -> bool:
    """Whether every weight lies in the weight boxes' range, 0 to ``MAX_WEIGHT`` (NaN does not).

    >>> weights_fit_the_boxes((2.0, 1.0)), weights_fit_the_boxes((1e7, 1.0))
    (True, False)
    """
    return all(0 <= weight <= MAX_WEIGHT for weight in weights)


def check_method(chosen: PackMethod) -> PackMethod:
    """``chosen`` when the weight boxes can show it (each weight at most ``MAX_WEIGHT``);
    ``ValueError`` otherwise, as a method past a box's bound would break its page.

    >>> check_method(PackMethod(heuristic="weighted", weights=(2.0, 1.0))).weights
    (2.0, 1.0)
    """
    if chosen.weights is not None and not weights_fit_the_boxes(chosen.weights):
        raise ValueError(f"its weights {chosen.weights[0]:g},{chosen.weights[1]:g} are past the weight boxes' "
                         f"bound: each must lie between 0 and {MAX_WEIGHT:,.0f}")
    return chosen


def set_method(chosen: PackMethod, by_hand: bool = True) -> None:
    """Choose the packing method for the Packing and Export pages; ``by_hand``: the user (or
    a link, a sweep cell, a loaded configuration) chose it, so a recommendation keeps it.
    ``ValueError`` for a method the pages cannot show (:func:`check_method`)."""
    st.session_state[METHOD] = check_method(chosen)
    st.session_state[METHOD_BY_HAND] = by_hand


def method_by_hand() -> bool:
    """Whether the chosen method was chosen by hand (:func:`set_method`)."""
    return st.session_state.get(METHOD_BY_HAND, False)


def run_settings() -> dict[str, Any]:
    """The simulated run (``RUN_DEFAULTS``'s keys): batch size, epochs or steps, seed, devices,
    bucket shapes and packs per batch, shared by the Batching, Throughput and Export pages."""
    return st.session_state.setdefault(RUN, dict(RUN_DEFAULTS))


def run_batch_size() -> int:
    """The run's batch size, without starting the run settings (the Export page includes the
    batching comparison once a page started them)."""
    return st.session_state.get(RUN, RUN_DEFAULTS)["batch_size"]


def set_run_settings(**changes: Any) -> None:
    """Change some of the run settings (unknown names are a programming error)."""
    unknown = set(changes) - set(RUN_DEFAULTS)
    if unknown:
        raise KeyError(f"Unknown run settings: {sorted(unknown)}")
    st.session_state[RUN] = {**run_settings(), **changes}


def run_length_label(settings: dict[str, Any]) -> str:
    """The run's epochs and steps in words (the ``RUN_LENGTHS`` label where one is offered).

    >>> run_length_label({"epochs": 10, "steps": None}), run_length_label({"epochs": 1, "steps": 5000})
    ('10 epochs', '5,000 steps')
    """
    wanted = (settings["epochs"], settings["steps"])
    offered = next((label for label, value in RUN_LENGTHS.items() if value == wanted), None)
    return offered or run_length_words(settings)


def run_length_options(settings: dict[str, Any]) -> dict[str, tuple[int, int | None]]:
    """The run lengths to offer: ``RUN_LENGTHS`` and the run's own when it is another (a link's)."""
    return {**RUN_LENGTHS, run_length_label(settings): (settings["epochs"], settings["steps"])}


def throughput_settings() -> dict[str, Any]:
    """The Throughput page's calibration label (None: the page's default) and baseline."""
    return st.session_state.setdefault(THROUGHPUT, dict(THROUGHPUT_DEFAULTS))
