"""Graph sizes of molecules given as SMILES, with RDKit (as OGB's ``smiles2graph``).

Nodes are atoms of the parsed molecule (heavy atoms; with ``hydrogens=True`` hydrogens
too), edges are 2 x bonds (PyG's ``edge_index`` holds both directions of every bond).
RDKit parses one molecule at a time; this is the only per-item loop in the package.
"""
from __future__ import annotations

import numpy as np


def smiles_sizes(smiles: list[str], hydrogens: bool = False) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Nodes and directed edges of the parsable SMILES, and the positions of the others.

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
        molecule = Chem.MolFromSmiles(text) if isinstance(text, str) and text.strip() else None
        if molecule is None:
            invalid.append(position)
            continue
        if hydrogens:
            molecule = Chem.AddHs(molecule)
        nodes.append(molecule.GetNumAtoms())
        edges.append(2 * molecule.GetNumBonds())
    return np.array(nodes, dtype=np.int64), np.array(edges, dtype=np.int64), invalid
