"""AFLOW crystals as k-nearest-neighbour graphs, from AFLOW exports (CSV or JSON).

Following Speckhard et al. (2025), "Training Speedups via Batching for Geometric
Learning", a crystal's graph has one node per atom of the calculated cell and keeps exactly
k neighbours per atom (periodic images included, so every atom finds k): edges = k x atoms,
k = 24 by default. Atoms per cell = sum of the subscripts of AFLOW's ``compound`` string
(``Bi2Cu2O2Se2`` -> 8); when an export has ``positions_fractional`` the number of positions
must agree. Duplicate entries (same ``auid``) are counted once; entries without an
``auid`` each count.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from packing import SizeHistogram

from .paths import shared_data_root

DEFAULT_K = 24
MAX_SUBSCRIPT = 1_000_000  # atoms of one element in one cell; larger counts are typos
SUBSETS = ("test_aflow_data", "classification_data")
_COMPOUND = r"(?:[A-Z][a-z]?\d*)+"


def atoms_from_compounds(compounds: pd.Series) -> np.ndarray:
    """Atoms per cell from AFLOW compound strings (a missing subscript counts as 1).

    >>> atoms_from_compounds(pd.Series(["Bi2Cu2O2Se2", "Ag1O2Yb1", "NaCl"])).tolist()
    [8, 4, 2]
    """
    text = compounds.astype(str).str.strip()
    bad = ~text.str.fullmatch(_COMPOUND)
    if bad.any():
        rows = ", ".join(f"row {i + 1}: {text.iloc[i]!r}" for i in np.flatnonzero(bad.to_numpy())[:5])
        raise ValueError(f"{int(bad.sum())} compound(s) are not element-count formulas ({rows}).")
    parts = text.str.extractall(r"[A-Z][a-z]?(\d*)")[0]
    parts = parts.fillna("").mask(parts.fillna("") == "", "1")
    too_large = pd.to_numeric(parts.str.slice(0, 9)) > MAX_SUBSCRIPT  # 9 digits show any count above it
    if too_large.any():
        row = int(too_large[too_large].index[0][0])
        raise ValueError(f"Row {row + 1}: compound {text.iloc[row]!r} has an element count above "
                         f"{MAX_SUBSCRIPT:,} atoms; check the compound column.")
    counts = pd.to_numeric(parts).groupby(level=0).sum()
    return counts.reindex(range(len(text))).to_numpy(dtype=np.int64)


def _position_counts(positions: pd.Series) -> np.ndarray:
    """Number of positions in each ``positions_fractional`` entry (a list, its JSON text or
    ``;``-separated positions); a ``ValueError`` names the first row that is none of these.

    >>> _position_counts(pd.Series(["[[0, 0, 0], [0.5, 0.5, 0.5]]", "0 0 0; 0.5 0.5 0.5; 0 0.5 0"])).tolist()
    [2, 3]
    """
    def count(row: int, entry: object) -> int:
        try:
            if isinstance(entry, str):
                entry = json.loads(entry.replace("'", '"')) if entry.strip().startswith("[") else \
                    [p for p in entry.split(";") if p.strip()]
        except json.JSONDecodeError as error:
            raise ValueError(f"Row {row}: positions_fractional is not a list of positions ({error.msg}).") from None
        if not isinstance(entry, (list, tuple)):
            raise ValueError(f"Row {row}: positions_fractional is {entry!r}, not a list of positions.")
        return len(entry)
    return np.array([count(row, entry) for row, entry in enumerate(positions.tolist(), start=1)], dtype=np.int64)


def aflow_frame_sizes(frame: pd.DataFrame, k: int = DEFAULT_K) -> tuple[np.ndarray, np.ndarray]:
    """Per-crystal (atoms, k x atoms) of an AFLOW export table with a ``compound`` column.

    >>> frame = pd.DataFrame({"compound": ["Ag1Br1", "Ag1Br1", "O2Ti1"], "auid": ["a", "a", "b"]})
    >>> [a.tolist() for a in aflow_frame_sizes(frame, k=24)]
    [[2, 3], [48, 72]]
    """
    if "compound" not in frame.columns:
        raise ValueError(f"An AFLOW export needs a 'compound' column; found {list(frame.columns)}.")
    frame = frame.reset_index(drop=True)  # rows as in the file (the first data row is row 1)
    atoms = atoms_from_compounds(frame["compound"])
    if "positions_fractional" in frame.columns:
        positions = _position_counts(frame["positions_fractional"])
        wrong = np.flatnonzero(positions != atoms)
        if wrong.size:
            first = int(wrong[0])
            raise ValueError(
                f"{wrong.size} crystal(s) have a number of positions that differs from their "
                f"compound (row {first + 1}: {frame['compound'][first]!r} has {atoms[first]} atoms, "
                f"{positions[first]} positions)."
            )
    if "auid" in frame.columns:  # an entry repeated under one auid counts once; entries without one all count
        atoms = atoms[(frame["auid"].isna() | ~frame["auid"].duplicated()).to_numpy()]
    return atoms, atoms * k


def subset_frames(root: Path | None = None) -> dict[str, pd.DataFrame]:
    """The two ICSD subsets of ``shared/data/aflow``, and their union as ``"all"``."""
    folder = (root or shared_data_root()) / "aflow"
    frames = {name: pd.read_csv(folder / f"{name}.csv", usecols=["compound", "auid"]) for name in SUBSETS}
    frames["all"] = pd.concat(list(frames.values()), ignore_index=True)
    return frames


def with_k(hist: SizeHistogram, k: int) -> SizeHistogram:
    """The same crystals with ``k`` neighbours per atom (edges = k x nodes).

    >>> with_k(SizeHistogram.from_sizes([2, 3], [48, 72]), 12).num_edges.tolist()
    [24, 36]
    """
    return SizeHistogram.from_counts(hist.num_nodes, hist.num_nodes * k, hist.counts)
