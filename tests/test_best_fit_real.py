"""Best fit on real histograms: never more packs than the published algorithm with the
same heuristic at the data-default limits (ogbg-molhiv, ogbg-molpcba and the four QM9
constructions), and the lockstep sweep counts what best fit counts cell by cell."""
import pytest

from data_loaders import load_histogram
from packing import HEURISTICS, PackLimits, PackMethod, default_limits
from packing.api import count_tuple_packs
from packing.best_fit_grid import count_best_fit_grid
from packing.greedy import count_packs

QM9_CONSTRUCTIONS = ({"graph": "bonds"}, {"graph": "full"}, {"graph": "radius", "cutoff": 5.0}, {"graph": "knn"})


@pytest.fixture(scope="module")
def real_histograms(molhiv, molpcba):
    hists = {"ogbg-molhiv": molhiv, "ogbg-molpcba": molpcba}
    for options in QM9_CONSTRUCTIONS:
        hists["qm9 " + options["graph"]] = load_histogram("qm9", **options)[0]
    return hists


@pytest.mark.parametrize("heuristic", sorted(HEURISTICS))
def test_best_fit_never_behind_the_published_algorithm(real_histograms, heuristic):
    for name, hist in real_histograms.items():
        limits = PackLimits.for_histogram(hist)
        ours = count_tuple_packs(hist, limits, PackMethod("best_fit", heuristic))
        published = count_tuple_packs(hist, limits, PackMethod("published", heuristic))
        assert ours <= published, f"{name}: best fit {ours:,} packs, published {published:,} ({heuristic})"


@pytest.mark.parametrize("heuristic", ["product", "sum"])
def test_lockstep_sweep_counts_match_best_fit_on_molpcba(molpcba, heuristic):
    node_limits, edge_limits = default_limits(molpcba)
    cells = [PackLimits(n, e, 256) for n in node_limits for e in edge_limits]
    counts = count_best_fit_grid(molpcba.num_nodes, molpcba.num_edges, molpcba.counts, cells, HEURISTICS[heuristic])
    assert counts.tolist() == [count_packs(molpcba.num_nodes, molpcba.num_edges, molpcba.counts, limits,
                                           HEURISTICS[heuristic]) for limits in cells]
