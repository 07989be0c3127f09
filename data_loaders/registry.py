"""The data sets the dashboard offers, their options, and option validation."""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

OGB_SPLITS = ("train", "valid", "test", "all")


@dataclass(frozen=True)
class DatasetSpec:
    """One data set: what it is, its splits and options, whether it opens offline.

    ``options`` maps each option to its default, ``choices`` gives the allowed values of
    discrete options, ``bundled`` says a size profile ships with the project (opens
    instantly offline) and ``download_size`` is the size of the download that a non-bundled
    data set needs (``None`` when nothing is downloaded).

    >>> spec = get_spec("qm9")
    >>> spec.options["graph"], spec.choices["graph"]
    ('bonds', ('bonds', 'full', 'radius', 'knn'))
    """

    name: str
    title: str
    source: str
    splits: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)
    choices: dict[str, tuple] = field(default_factory=dict)
    bundled: bool = False
    download_size: str | None = None
    family: str = "ogb"


_SPECS: tuple[DatasetSpec, ...] = (
    DatasetSpec(
        "ogbg-molhiv", "ogbg-molhiv (41,127 molecules, HIV activity)",
        "OGB graph property prediction: MoleculeNet HIV molecules, heavy atoms and bonds.",
        OGB_SPLITS, bundled=True, download_size="about 3 MB",
    ),
    DatasetSpec(
        "ogbg-molpcba", "ogbg-molpcba (437,929 molecules, PubChem bioassays)",
        "OGB graph property prediction: MoleculeNet PCBA molecules, heavy atoms and bonds.",
        OGB_SPLITS, bundled=True, download_size="about 40 MB",
    ),
    DatasetSpec(
        "ogbg-code2", "ogbg-code2 (452,741 Python method ASTs)",
        "OGB graph property prediction: abstract syntax trees of Python methods.",
        OGB_SPLITS, download_size="about 0.9 GB",
    ),
    DatasetSpec(
        "ogbg-ppa", "ogbg-ppa (158,100 protein association graphs)",
        "OGB graph property prediction: protein association neighbourhoods of 1,581 species.",
        OGB_SPLITS, download_size="about 1.4 GB",
    ),
    DatasetSpec(
        "pcqm4mv2", "PCQM4Mv2 (3.7M molecules, OGB-LSC)",
        "OGB-LSC molecules from SMILES (ogb converts 3.7M SMILES with RDKit after download: slow).",
        ("train", "valid", "test-dev", "test-challenge", "all"),
        download_size="about 60 MB", family="pcqm4mv2",
    ),
    DatasetSpec(
        "qm9", "QM9 (130,831 small molecules with 3D coordinates)",
        "QM9 from the qm9pack package (offline): bonds, fully connected, radius or k-NN graphs.",
        ("all",),
        options={"graph": "bonds", "cutoff": 5.0, "k": 8},
        choices={"graph": ("bonds", "full", "radius", "knn")},
        bundled=True, family="qm9",
    ),
    DatasetSpec(
        "qm9-pyg", "QM9 via PyG download (chemical bonds with hydrogens)",
        "torch_geometric.datasets.QM9, downloaded and processed by PyG.",
        ("all",), download_size="about 90 MB", family="qm9-pyg",
    ),
    DatasetSpec(
        "aflow", "AFLOW ICSD crystals (13,841 crystals, k-NN graphs)",
        "Two AFLOW ICSD API pulls; atoms from the compound formula, k nearest neighbours per atom.",
        ("all", "test_aflow_data", "classification_data"),
        options={"k": 24}, bundled=True, family="aflow",
    ),
)

_BY_NAME = {spec.name: spec for spec in _SPECS}

#: Allowed ranges of numeric options: name -> (low, high), both inclusive.
_RANGES: dict[str, tuple[float, float]] = {"cutoff": (0.1, 100.0), "k": (1, 4096)}


def list_datasets() -> list[DatasetSpec]:
    """All data sets the dashboard offers (fresh copies: mutating them changes nothing).

    >>> [spec.name for spec in list_datasets()][:2]
    ['ogbg-molhiv', 'ogbg-molpcba']
    """
    return [
        dataclasses.replace(spec, options=dict(spec.options), choices=dict(spec.choices))
        for spec in _SPECS
    ]


def get_spec(name: str) -> DatasetSpec:
    """The spec of data set ``name``; a ``ValueError`` lists the known names otherwise.

    >>> get_spec("aflow").options
    {'k': 24}
    """
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(
            f"Unknown data set {name!r}. Known data sets: {', '.join(_BY_NAME)}."
        ) from None


def check_split(spec: DatasetSpec, split: str) -> str:
    """Return ``split`` if ``spec`` has it, else raise a ``ValueError`` naming the splits.

    >>> check_split(get_spec("qm9"), "all")
    'all'
    """
    if split not in spec.splits:
        raise ValueError(
            f"{spec.name} has no split {split!r}; choose one of {', '.join(spec.splits)}."
        )
    return split


def _coerce(name: str, value: Any, default: Any) -> Any:
    """Convert ``value`` (possibly a CLI string) to the type of ``default``."""
    if isinstance(default, str):
        return str(value)
    if isinstance(value, bool):
        raise ValueError(f"Option {name} must be a number, not {value!r}.")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"Option {name} must be a number, not {value!r}.") from None
    if not math.isfinite(number):
        raise ValueError(f"Option {name} must be finite, not {value!r}.")
    if isinstance(default, int):
        if number != int(number):
            raise ValueError(f"Option {name} must be a whole number, not {value!r}.")
        number = int(number)
    low, high = _RANGES.get(name, (-math.inf, math.inf))
    if not low <= number <= high:
        raise ValueError(f"Option {name} must lie between {low} and {high}; got {value!r}.")
    return number


def resolve_options(spec: DatasetSpec, options: dict[str, Any]) -> dict[str, Any]:
    """Defaults merged with ``options``, each value checked and converted to its type.

    >>> resolve_options(get_spec("qm9"), {"graph": "radius", "cutoff": "4"})
    {'graph': 'radius', 'cutoff': 4.0, 'k': 8}
    """
    unknown = set(options) - set(spec.options)
    if unknown:
        known = ", ".join(spec.options) or "none"
        raise ValueError(
            f"{spec.name} has no option(s) {', '.join(sorted(unknown))}; its options: {known}."
        )
    resolved = dict(spec.options)
    for name, value in options.items():
        resolved[name] = _coerce(name, value, spec.options[name])
        allowed = spec.choices.get(name)
        if allowed is not None and resolved[name] not in allowed:
            raise ValueError(
                f"Option {name} of {spec.name} must be one of {', '.join(map(str, allowed))}; "
                f"got {value!r}."
            )
    return resolved


def effective_options(spec: DatasetSpec, resolved: dict[str, Any]) -> dict[str, Any]:
    """The options that change the histogram (QM9's cutoff only matters for radius graphs).

    >>> effective_options(get_spec("qm9"), {"graph": "bonds", "cutoff": 5.0, "k": 8})
    {'graph': 'bonds'}
    """
    if spec.family != "qm9":
        return dict(resolved)
    graph = resolved["graph"]
    relevant = {"radius": ("cutoff",), "knn": ("k",)}.get(graph, ())
    return {"graph": graph, **{name: resolved[name] for name in relevant}}
