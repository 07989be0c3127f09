"""The data sets the dashboard offers, their options, and option validation."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .aflow import DEFAULT_K

OGB_SPLITS = ("train", "valid", "test", "all")


@dataclass(frozen=True)
class OptionSpec:
    """One dataset option: its label, default, allowed values and when it applies.

    ``choices`` lists the values of a discrete option; numbers range over ``low`` to
    ``high`` (inclusive) in steps of ``step``. ``applies_when`` names another option and the
    values for which this one matters (QM9's cutoff only for radius graphs); an option that
    does not apply keeps its default and does not change the histogram.

    >>> OptionSpec("k", "Neighbours per atom (k)", 8, low=1, high=4096).applies({"graph": "knn"})
    True
    """

    name: str
    label: str
    default: Any
    choices: tuple | None = None
    low: float | None = None
    high: float | None = None
    step: float = 1
    applies_when: tuple[str, tuple] | None = None
    help: str = ""

    def applies(self, values: dict[str, Any]) -> bool:
        """Whether this option changes the histogram, given the other options' values."""
        if self.applies_when is None:
            return True
        other, allowed = self.applies_when
        return values.get(other) in allowed

    def coerce(self, value: Any) -> Any:
        """``value`` (possibly a CLI string) checked and converted to this option's type.

        >>> OptionSpec("cutoff", "Cutoff", 5.0, low=0.1, high=100.0).coerce("4")
        4.0
        """
        if self.choices is not None:
            if value not in self.choices:
                raise ValueError(f"Option {self.name} must be one of {', '.join(map(str, self.choices))}; got {value!r}.")
            return value
        if isinstance(value, bool):
            raise ValueError(f"Option {self.name} must be a number, not {value!r}.")
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"Option {self.name} must be a number, not {value!r}.") from None
        if not math.isfinite(number):
            raise ValueError(f"Option {self.name} must be finite, not {value!r}.")
        if isinstance(self.default, int):
            if number != int(number):
                raise ValueError(f"Option {self.name} must be a whole number, not {value!r}.")
            number = int(number)
        low = -math.inf if self.low is None else self.low
        high = math.inf if self.high is None else self.high
        if not low <= number <= high:
            raise ValueError(f"Option {self.name} must lie between {low:g} and {high:g}; got {value!r}.")
        return number


_QM9_OPTIONS = (
    OptionSpec("graph", "Graph construction", "bonds", choices=("bonds", "full", "radius", "knn"),
               help="bonds: chemical bonds with hydrogens (PyG QM9); full: fully connected; radius: atom pairs "
                    "closer than the cutoff; knn: k nearest neighbours per atom."),
    OptionSpec("cutoff", "Radius cutoff (Å)", 5.0, low=0.1, high=100.0, step=0.5, applies_when=("graph", ("radius",)),
               help="Atoms closer than this are connected (SchNet uses 5 Å)."),
    OptionSpec("k", "Neighbours per atom (k)", 8, low=1, high=4096, applies_when=("graph", ("knn",)),
               help="Each atom is connected to its k nearest atoms."),
)
_AFLOW_OPTIONS = (
    OptionSpec("k", "Neighbours per atom (k)", DEFAULT_K, low=1, high=4096,
               help="k nearest neighbours per atom, periodic images included (Speckhard et al. use 24)."),
)


@dataclass(frozen=True)
class DatasetSpec:
    """One data set: what it is, its splits and options, whether it opens offline.

    ``option_specs`` describes each option (label, default, range, when it applies);
    ``bundled`` says a size profile ships with the project (opens instantly offline) and
    ``download_size`` is the size of the download that a non-bundled data set needs
    (``None`` when nothing is downloaded). ``task`` is what its graphs are labelled with,
    for the training snippet: ``binary`` (0/1 labels, several tasks with missing ones as
    NaN), ``regression``, ``multiclass`` (one class of many) or ``sequence`` (tokens).

    >>> spec = get_spec("qm9")
    >>> spec.options["graph"], spec.choices["graph"]
    ('bonds', ('bonds', 'full', 'radius', 'knn'))
    """

    name: str
    title: str
    source: str
    splits: tuple[str, ...]
    option_specs: tuple[OptionSpec, ...] = ()
    bundled: bool = False
    download_size: str | None = None
    family: str = "ogb"
    task: str = "binary"

    @property
    def options(self) -> dict[str, Any]:
        """Option name -> default."""
        return {option.name: option.default for option in self.option_specs}

    @property
    def choices(self) -> dict[str, tuple]:
        """Allowed values of the discrete options."""
        return {option.name: option.choices for option in self.option_specs if option.choices is not None}

    def option(self, name: str) -> OptionSpec:
        """The spec of option ``name``."""
        found = next((option for option in self.option_specs if option.name == name), None)
        if found is None:
            known = ", ".join(self.options) or "none"
            raise ValueError(f"{self.name} has no option {name}; its options: {known}.")
        return found


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
        OGB_SPLITS, download_size="about 0.9 GB", task="sequence",
    ),
    DatasetSpec(
        "ogbg-ppa", "ogbg-ppa (158,100 protein association graphs)",
        "OGB graph property prediction: protein association neighbourhoods of 1,581 species.",
        OGB_SPLITS, download_size="about 1.4 GB", task="multiclass",
    ),
    DatasetSpec(
        "pcqm4mv2", "PCQM4Mv2 (3.7M molecules, OGB-LSC)",
        "OGB-LSC molecules from SMILES (ogb converts 3.7M SMILES with RDKit after download: slow).",
        ("train", "valid", "test-dev", "test-challenge", "all"),
        download_size="about 60 MB", family="pcqm4mv2", task="regression",
    ),
    DatasetSpec(
        "qm9", "QM9 (130,831 small molecules with 3D coordinates)",
        "QM9 from the qm9pack package (offline): bonds, fully connected, radius or k-NN graphs.",
        ("all",),
        option_specs=_QM9_OPTIONS, bundled=True, family="qm9", task="regression",
    ),
    DatasetSpec(
        "qm9-pyg", "QM9 via PyG download (chemical bonds with hydrogens)",
        "torch_geometric.datasets.QM9, downloaded and processed by PyG.",
        ("all",), download_size="about 90 MB", family="qm9-pyg", task="regression",
    ),
    DatasetSpec(
        "aflow", "AFLOW ICSD crystals (13,841 crystals, k-NN graphs)",
        "Two AFLOW ICSD API pulls; atoms from the compound formula, k nearest neighbours per atom.",
        ("all", "test_aflow_data", "classification_data"),
        option_specs=_AFLOW_OPTIONS, bundled=True, family="aflow", task="regression",
    ),
)

_BY_NAME = {spec.name: spec for spec in _SPECS}

def list_datasets() -> list[DatasetSpec]:
    """All data sets the dashboard offers (frozen specs).

    >>> [spec.name for spec in list_datasets()][:2]
    ['ogbg-molhiv', 'ogbg-molpcba']
    """
    return list(_SPECS)


def get_spec(name: str) -> DatasetSpec:
    """The spec of data set ``name`` (its title, splits, options and source).

    Raises:
        ValueError: ``name`` is not registered; the message lists the known names.

    >>> get_spec("aflow").options
    {'k': 24}
    """
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(
            f"Unknown data set {name!r}. Known data sets: {', '.join(_BY_NAME)}."
        ) from None


def task_of(name: str) -> str:
    """What the graphs of data set ``name`` are labelled with (``DatasetSpec.task``), for the
    training snippet; ``regression`` for a name the registry does not hold (an upload,
    whose labels only its owner knows: the snippet's comment names the 0/1 loss too).

    >>> task_of("ogbg-molpcba"), task_of("qm9"), task_of("upload:sizes.csv")
    ('binary', 'regression', 'regression')
    """
    spec = _BY_NAME.get(name)
    return "regression" if spec is None else spec.task


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


def resolve_options(spec: DatasetSpec, options: dict[str, Any]) -> dict[str, Any]:
    """Defaults merged with ``options``, each value checked and converted to its type.

    >>> resolve_options(get_spec("qm9"), {"graph": "radius", "cutoff": "4"})
    {'graph': 'radius', 'cutoff': 4.0, 'k': 8}
    """
    resolved = dict(spec.options)
    for name, value in options.items():
        resolved[name] = spec.option(name).coerce(value)
    return resolved


def check_options_apply(spec: DatasetSpec, given: dict[str, Any], resolved: dict[str, Any]) -> None:
    """``ValueError`` for an option ``given`` that would not change the histogram
    with the ``resolved`` values (e.g. QM9's ``k`` for bond graphs): it would be ignored.

    >>> check_options_apply(get_spec("qm9"), {"k": 12}, {"graph": "bonds", "cutoff": 5.0, "k": 12})
    Traceback (most recent call last):
    ...
    ValueError: Option k applies only when graph is knn (here graph is bonds): add graph=knn, or leave k out.
    """
    for name in given:
        option = spec.option(name)
        if not option.applies(resolved):
            other, allowed = option.applies_when
            raise ValueError(f"Option {name} applies only when {other} is {' or '.join(map(str, allowed))} (here "
                             f"{other} is {resolved[other]}): add {other}={allowed[0]}, or leave {name} out.")


def effective_options(spec: DatasetSpec, resolved: dict[str, Any]) -> dict[str, Any]:
    """The options that change the histogram (QM9's cutoff only matters for radius graphs).

    >>> effective_options(get_spec("qm9"), {"graph": "bonds", "cutoff": 5.0, "k": 8})
    {'graph': 'bonds'}
    """
    return {option.name: resolved[option.name] for option in spec.option_specs if option.applies(resolved)}
