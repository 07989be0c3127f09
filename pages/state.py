"""Session-state keys and accessors shared by the pages.

Widgets that live on one page are cleaned up by Streamlit when another page runs, so
everything that must survive a page switch (chosen limits, method, the selected sweep
cell, uploaded histograms) is kept under plain keys that no widget owns. The dataset
widgets are drawn in the sidebar by ``app.py`` on every page, so their keys persist.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from packing import SizeHistogram, resolve_limits

# Sidebar widgets (drawn on every page).
DATASET = "ds_name"
SPLIT = "ds_split"
OPTION_PREFIX = "ds_opt_"
# Plain keys owned by no widget.
LIMITS = "limits"          # {"max_nodes", "max_edges", "max_graphs", "source", "for"}
METHOD = "method"          # {"heuristic", "algorithm", "one_dim"}
UPLOADS = "uploads"        # label -> (SizeHistogram, info)
UPLOAD_ERROR = "upload_error"
SWEEP = "sweep"            # parameters of the last sweep run for the current dataset
SELECTION = "selection"    # the Selection read from the sidebar on this run
UPLOAD_PREFIX = "upload:"

DEFAULT_MAX_GRAPHS = 256
DATA_DEFAULTS = "data defaults (largest graph)"
DEFAULT_METHOD = {"heuristic": "product", "algorithm": "best_fit", "one_dim": "lpfhp"}


@dataclass(frozen=True)
class Selection:
    """The dataset the user works on: a registered dataset or an uploaded file.

    ``content`` fingerprints an upload's histogram, so that another file uploaded under the
    same name is another dataset (with its own data-default limits and sweep ranges).
    """

    name: str
    split: str
    options: dict[str, Any] = field(default_factory=dict)
    content: str = ""

    @property
    def is_upload(self) -> bool:
        return self.name.startswith(UPLOAD_PREFIX)

    @property
    def label(self) -> str:
        """Short human-readable name, e.g. ``qm9 (all, graph=bonds)``."""
        if self.is_upload:
            return f"uploaded file {self.name[len(UPLOAD_PREFIX):]}"
        opts = ", ".join(f"{k}={v}" for k, v in self.options.items())
        return f"{self.name} ({self.split}{', ' + opts if opts else ''})"

    @property
    def key(self) -> str:
        """A stable string identifying this selection (limits are reset when it changes)."""
        return json.dumps([self.name, self.split, self.options, self.content], sort_keys=True, default=str)


def uploads() -> dict[str, tuple]:
    """Uploaded histograms of this session, by selection name (``upload:<file name>``)."""
    return st.session_state.setdefault(UPLOADS, {})


def upload_selection(name: str) -> Selection:
    """The selection of the upload stored as ``name`` (``upload:<file name>``), keyed by its content."""
    found = uploads().get(name)
    return Selection(name, "all", {}, found[0].fingerprint()[:12] if found is not None else "")


def limits() -> dict[str, Any] | None:
    """The chosen pack limits, or None before the first dataset was loaded."""
    return st.session_state.get(LIMITS)


def set_limits(max_nodes: int, max_edges: int, max_graphs: int, source: str, owner: str | None = None) -> None:
    """Choose pack limits for the Packing, Limit sweep and Export pages.

    ``source`` says where they came from (shown to the user); ``owner`` is the dataset
    selection key they belong to (kept when None).
    """
    previous = limits() or {}
    st.session_state[LIMITS] = {
        "max_nodes": int(max_nodes), "max_edges": int(max_edges), "max_graphs": int(max_graphs),
        "source": source, "for": owner if owner is not None else previous.get("for"),
    }


def data_defaults(hist: SizeHistogram) -> tuple[int, int, int]:
    """The data-default limits: the largest graph (at least 1 node and 1 edge) and 256 graphs,
    by the engine's own rule (``packing.resolve_limits``).

    >>> data_defaults(SizeHistogram.from_sizes([3, 5], [0, 0]))
    (5, 1, 256)
    """
    return resolve_limits(hist, None, None, DEFAULT_MAX_GRAPHS)


def reset_limits(hist: SizeHistogram) -> None:
    """Choose the data-default limits of ``hist`` (keeping the dataset they belong to)."""
    set_limits(*data_defaults(hist), DATA_DEFAULTS)


def ensure_limits(selection: Selection, hist: SizeHistogram) -> dict[str, Any]:
    """Limits for ``selection``: the data defaults when the dataset changed since limits were
    last chosen."""
    current = limits()
    if current is None or current.get("for") != selection.key:
        set_limits(*data_defaults(hist), DATA_DEFAULTS, selection.key)
    return limits()


def method() -> dict[str, str]:
    """The chosen heuristic, algorithm and 1D algorithm for the baselines."""
    return st.session_state.setdefault(METHOD, dict(DEFAULT_METHOD))


def set_method(**changes: str) -> None:
    """Update the chosen method (keys: heuristic, algorithm, one_dim)."""
    st.session_state[METHOD] = {**method(), **changes}
