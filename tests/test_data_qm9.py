"""QM9 from qm9pack: the four graph constructions against direct per-molecule computation."""
from __future__ import annotations

import numpy as np
from scipy.spatial.distance import pdist

from data_loaders import load_histogram
from data_loaders.qm9 import NUM_MOLECULES, parse_coordinates, qm9_sizes, read_qm9

from packing import SizeHistogram

SUBSET = 3000


def test_bonds_profile_has_all_molecules_and_29_atoms_at_most() -> None:
    hist, info = load_histogram("qm9", graph="bonds")
    assert info["source"] == "bundled profile" and info["split"] == "all"
    assert hist.num_graphs == NUM_MOLECULES and hist.largest_nodes == 29
    assert np.all(hist.num_edges % 2 == 0)


def test_bonds_on_a_subset_equal_rdkit_with_explicit_hydrogens() -> None:
    from rdkit import Chem

    frame = read_qm9().iloc[:SUBSET]
    nodes, edges = qm9_sizes("bonds", molecules=SUBSET)
    molecules = [Chem.AddHs(Chem.MolFromSmiles(s)) for s in frame["SMILES"]]
    assert nodes.tolist() == [m.GetNumAtoms() for m in molecules]
    assert edges.tolist() == [2 * m.GetNumBonds() for m in molecules]


def test_radius_on_a_subset_equals_pairwise_distances() -> None:
    frame = read_qm9(with_coordinates=True).iloc[:SUBSET]
    nodes = frame["N_atoms"].to_numpy()
    coordinates = parse_coordinates(frame["XYZ_Ang"], nodes)
    starts = np.concatenate([[0], np.cumsum(nodes)])
    for cutoff in (2.0, 5.0):
        expected = [2 * int((pdist(coordinates[a:b]) < cutoff).sum()) for a, b in zip(starts[:-1], starts[1:])]
        assert qm9_sizes("radius", cutoff=cutoff, molecules=SUBSET)[1].tolist() == expected


def test_full_and_knn_follow_from_atom_counts_for_any_parameter() -> None:
    nodes = read_qm9()["N_atoms"].to_numpy()
    full, info = load_histogram("qm9", graph="full")
    assert full == SizeHistogram.from_sizes(nodes, nodes * (nodes - 1))
    for k in (3, 8, 40):
        knn, info = load_histogram("qm9", graph="knn", k=k)
        assert knn == SizeHistogram.from_sizes(nodes, nodes * np.minimum(k, nodes - 1))
        assert info["source"] == "bundled profile" and info["options"]["k"] == k


def test_radius_profile_is_consistent_with_full_graphs() -> None:
    radius = load_histogram("qm9", graph="radius")[0]
    full = load_histogram("qm9", graph="full")[0]
    assert radius.num_graphs == full.num_graphs
    assert radius.total_edges < full.total_edges and radius.largest_nodes == full.largest_nodes
