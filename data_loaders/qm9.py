"""QM9 sizes from the qm9pack package (all 130,831 molecules, offline) for four graph types.

qm9pack ships the molecules that PyG's ``QM9`` keeps (the 133,885 of QM9 minus the 3,054
that fail its geometry consistency check) as CSV with SMILES, ``N_atoms`` (hydrogens
included) and ``XYZ_Ang`` coordinates. Nodes are all atoms, hydrogens included. Edges:

- ``bonds``: chemical bonds as in PyG's QM9, counted twice: 2 x (bonds between heavy atoms
  from RDKit + one bond per hydrogen);
- ``full``: fully connected, n (n - 1), as Speckhard et al. (2025), "Training Speedups
  via Batching for Geometric Learning", build QM9 graphs;
- ``radius``: ordered atom pairs closer than ``cutoff`` Angstrom (SchNet style, no self loops);
- ``knn``: each atom to its k nearest others, n min(k, n - 1) (PyG ``KNNGraph``, no loops).
"""
from __future__ import annotations

import importlib.metadata
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from packing import SizeHistogram

from .smiles import Progress, smiles_sizes

NUM_MOLECULES = 130_831
_CHUNK = 8192


def qm9_files() -> list[Path]:
    """The three CSV parts of qm9pack (located without importing qm9pack).

    >>> [p.name for p in qm9_files()]
    ['qm9_part1.csv', 'qm9_part2.csv', 'qm9_part3.csv']
    """
    folder = Path(str(importlib.metadata.distribution("qm9pack").locate_file("qm9pack/data")))
    return [folder / f"qm9_part{i}.csv" for i in (1, 2, 3)]


@lru_cache(maxsize=2)
def read_qm9(with_coordinates: bool = False) -> pd.DataFrame:
    """The qm9pack molecules in QM9 index order: ``N_atoms``, ``SMILES`` [, ``XYZ_Ang``].

    >>> molecules = read_qm9()
    >>> len(molecules), molecules.iloc[0].to_dict()  # QM9 molecule 1 is methane, CH4
    (130831, {'Index': 1, 'SMILES': 'C', 'N_atoms': 5})
    """
    columns = ["Index", "SMILES", "N_atoms"] + (["XYZ_Ang"] if with_coordinates else [])
    frame = pd.concat([pd.read_csv(path, usecols=columns) for path in qm9_files()],
                      ignore_index=True)
    return frame.sort_values("Index", kind="stable").reset_index(drop=True)


def fully_connected_edges(nodes: np.ndarray) -> np.ndarray:
    """Directed edges of complete graphs without self loops, n (n - 1).

    >>> fully_connected_edges(np.array([1, 3])).tolist()
    [0, 6]
    """
    return nodes * (nodes - 1)


def knn_edges(nodes: np.ndarray, k: int) -> np.ndarray:
    """Directed edges of k-NN graphs of finite point sets: n min(k, n - 1).

    >>> knn_edges(np.array([3, 20]), 8).tolist()
    [6, 160]
    """
    return nodes * np.minimum(k, nodes - 1)


def parse_coordinates(xyz: pd.Series, nodes: np.ndarray) -> np.ndarray:
    """All ``XYZ_Ang`` lists as one (total atoms, 3) array, parsed in a single pass.

    The strings are not JSON (``0.`` occurs), so brackets are dropped and all numbers are
    split at once.

    >>> parse_coordinates(pd.Series(["[[0.,1,2]]", "[[1,1,1],[2,2,2.5]]"]), np.array([1, 2]))[-1].tolist()
    [2.0, 2.0, 2.5]
    """
    text = ",".join(xyz.tolist()).replace("[", "").replace("]", "")
    values = np.array(text.split(","), dtype=np.float64)
    if values.size != 3 * int(nodes.sum()):
        raise ValueError(f"Expected {3 * int(nodes.sum())} coordinates, parsed {values.size}.")
    return values.reshape(-1, 3)


def radius_edges(coordinates: np.ndarray, nodes: np.ndarray, cutoff: float,
                 progress: Progress | None = None) -> np.ndarray:
    """Directed edges between atoms closer than ``cutoff`` (per molecule, no self loops).

    Molecules are padded to the largest one (NaN never compares as close) and distances are
    computed in chunks of molecules; ``progress`` hears after each chunk.

    >>> coords = np.array([[0, 0, 0], [1, 0, 0], [5, 0, 0], [0, 0, 0], [0, 3, 0]], float)
    >>> radius_edges(coords, np.array([3, 2]), 2.0).tolist()
    [2, 0]
    """
    count, largest = nodes.size, int(nodes.max())
    starts = np.concatenate([[0], np.cumsum(nodes)[:-1]])
    molecule = np.repeat(np.arange(count), nodes)
    slot = np.arange(coordinates.shape[0]) - starts[molecule]
    padded = np.full((count, largest, 3), np.nan)
    padded[molecule, slot] = coordinates
    edges = np.empty(count, dtype=np.int64)
    limit = cutoff * cutoff
    for first in range(0, count, _CHUNK):
        if progress is not None:
            progress(f"Distances within molecules {first:,} to {min(first + _CHUNK, count):,} of {count:,}",
                     first / count)
        block = padded[first:first + _CHUNK]
        delta = block[:, :, None, :] - block[:, None, :, :]
        close = np.einsum("mijk,mijk->mij", delta, delta) < limit
        edges[first:first + _CHUNK] = close.sum(axis=(1, 2)) - nodes[first:first + _CHUNK]
    return edges


def qm9_sizes(graph: str, cutoff: float = 5.0, k: int = 8, molecules: int | None = None,
              progress: Progress | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per-molecule (nodes, edges) for one graph construction.

    ``molecules`` limits the computation to the first molecules (tests use it); ``progress``
    hears the stages of the slow constructions (radius, bonds).

    >>> nodes, edges = qm9_sizes("full", molecules=3)
    >>> nodes.tolist(), edges.tolist()
    ([5, 4, 3], [20, 12, 6])
    """
    if progress is not None:
        progress("Reading QM9 from the qm9pack package", 0.0)
    frame = read_qm9(with_coordinates=graph == "radius")
    if molecules is not None:
        frame = frame.iloc[:molecules]
    nodes = frame["N_atoms"].to_numpy(dtype=np.int64)
    if graph == "full":
        return nodes, fully_connected_edges(nodes)
    if graph == "knn":
        return nodes, knn_edges(nodes, k)
    if graph == "radius":
        return nodes, radius_edges(parse_coordinates(frame["XYZ_Ang"], nodes), nodes, cutoff, progress)
    if graph == "bonds":
        heavy, heavy_edges, invalid = smiles_sizes(frame["SMILES"].tolist(), progress=progress)
        if invalid:
            raise ValueError(f"RDKit could not parse {len(invalid)} QM9 SMILES (first: {invalid[0]}).")
        return nodes, heavy_edges + 2 * (nodes - heavy)
    raise ValueError(f"Unknown QM9 graph {graph!r}; use bonds, full, radius or knn.")


def from_atom_histogram(atoms: SizeHistogram, graph: str, k: int = 8) -> SizeHistogram:
    """Fully connected or k-NN histogram from any QM9 histogram's node marginal (instant).

    >>> atoms = SizeHistogram.from_sizes([3, 20], [4, 42])
    >>> from_atom_histogram(atoms, "knn", k=8).num_edges.tolist()
    [6, 160]
    """
    nodes, counts = atoms.marginal("nodes")
    edges = fully_connected_edges(nodes) if graph == "full" else knn_edges(nodes, k)
    return SizeHistogram.from_counts(nodes, edges, counts)
