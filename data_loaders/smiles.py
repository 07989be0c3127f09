"""Graph sizes of molecules given as SMILES, with RDKit (as OGB's ``smiles2graph``).

Nodes are atoms of the parsed molecule (heavy atoms; with ``hydrogens=True`` hydrogens
too), edges are 2 x bonds (PyG's ``edge_index`` holds both directions of every bond).
RDKit parses one molecule at a time; this is the only per-item loop in the package.
"""
from __future__ import annotations

import math

from typing import Callable

import numpy as np

#: ``progress(stage, fraction)``: what is being done and how much of it (0 to 1) is done.
Progress = Callable[[str, float], None]
_REPORT_EVERY = 5000


def smiles_sizes(
    smiles: list[str], hydrogens: bool = False, progress: Progress | None = None,
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Nodes and directed edges of the parsable SMILES, and the positions of the others;
    ``progress`` hears every few thousand molecules.

    >>> nodes, edges, invalid = smiles_sizes(["CCO", "not-a-smiles", "C"], hydrogens=False)
    >>> nodes.tolist(), edges.tolist(), invalid
    ([3, 1], [4, 0], [1])
    >>> smiles_sizes(["CCO"], hydrogens=True)[:2]
    (array([9]), array([16]))
    """
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    nodes, edges, invalid = [], [], []
    for position, text in enumerate(smiles):
        if progress is not None and position % _REPORT_EVERY == 0:
            progress(f"Parsing SMILES with RDKit ({position:,} of {len(smiles):,})", position / max(len(smiles), 1))
        molecule = Chem.MolFromSmiles(text) if isinstance(text, str) and text.strip() else None
        if molecule is None:
            invalid.append(position)
            continue
        if hydrogens:
            molecule = Chem.AddHs(molecule)
        nodes.append(molecule.GetNumAtoms())
        edges.append(2 * molecule.GetNumBonds())
    return np.array(nodes, dtype=np.int64), np.array(edges, dtype=np.int64), invalid


#: Characters of an unparsable entry quoted in a report.
EXAMPLE_CHARS = 80


def invalid_example(where: str, value: object) -> str:
    """How an entry RDKit could not parse is quoted: ``"row 3: 'C1CC'"``; a missing value is
    ``(no value)`` and a number is quoted as the text it was read as.

    >>> invalid_example("row 3", 123), invalid_example("line 7", float("nan")), invalid_example("row 2", "C1CC")
    ("row 3: '123'", 'line 7: (no value)', "row 2: 'C1CC'")
    """
    if value is None or (isinstance(value, float) and math.isnan(value)) or (isinstance(value, str) and not value.strip()):
        return f"{where}: (no value)"
    text = value if isinstance(value, str) else str(value)
    shown = text if len(text) <= EXAMPLE_CHARS else text[:EXAMPLE_CHARS] + "..."
    return f"{where}: {shown!r}"
