"""Size profiles shipped with the project (``data_loaders/profiles/*.csv``).

A profile is a histogram file (``num_nodes,num_edges,count``) named after the data set,
split and effective options; ``profiles/PROVENANCE.md`` says where each came from and
``python -m data_loaders.make_profiles`` regenerates them. Constructions whose edges follow
from the atom count alone (QM9 fully connected and k-NN, AFLOW k-NN for any k) are derived
from a shipped profile instantly.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from packing import SizeHistogram
from packing.io import load_size_table

from .aflow import DEFAULT_K, with_k
from .paths import PROFILES_DIR
from .qm9 import from_atom_histogram


def profile_name(dataset: str, split: str, options: dict[str, Any]) -> str:
    """File name of a profile.

    >>> profile_name("qm9", "all", {"graph": "radius", "cutoff": 5.0})
    'qm9__all__cutoff=5.0__graph=radius.csv'
    """
    parts = [dataset, split] + [f"{key}={options[key]}" for key in sorted(options)]
    return "__".join(parts) + ".csv"


def profile_path(dataset: str, split: str, options: dict[str, Any]) -> Path:
    """Path of a shipped profile (which may not exist).

    >>> profile_path("ogbg-molhiv", "train", {}).is_file()
    True
    """
    return PROFILES_DIR / profile_name(dataset, split, options)


def bundled_histogram(dataset: str, split: str, options: dict[str, Any]) -> tuple[SizeHistogram, str] | None:
    """A shipped (or derived-from-shipped) histogram and its provenance, else ``None``.

    >>> hist, note = bundled_histogram("aflow", "all", {"k": 12})
    >>> hist.num_graphs, int(hist.num_edges[0] // hist.num_nodes[0])
    (13841, 12)
    """
    path = profile_path(dataset, split, options)
    if path.is_file():
        return load_size_table(path), f"Bundled size profile {path.name} (see profiles/PROVENANCE.md)."
    if dataset == "aflow":
        base = profile_path(dataset, split, {"k": DEFAULT_K})
        if base.is_file():
            note = f"Bundled AFLOW atom counts ({base.name}) with k = {options['k']} neighbours per atom."
            return with_k(load_size_table(base), options["k"]), note
    if dataset == "qm9" and options.get("graph") in ("full", "knn"):
        base = profile_path(dataset, split, {"graph": "bonds"})
        if base.is_file():
            rule = "n(n-1)" if options["graph"] == "full" else f"n*min({options['k']}, n-1)"
            note = f"Bundled QM9 atom counts ({base.name}) with edges = {rule}."
            return from_atom_histogram(load_size_table(base), options["graph"], options.get("k", 8)), note
    return None
