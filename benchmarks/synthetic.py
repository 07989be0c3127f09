"""Synthetic size histograms for stress tests. They are NOT real datasets.

`ppa_like` imitates the published shape of ogbg-ppa (Krell et al., Table 1: 78,200
training graphs, at most 300 nodes and 36,138 edges, about 36,000 distinct tuples, most
graphs at 300 nodes), which is not available offline.
"""
from __future__ import annotations

import numpy as np

from packing import SizeHistogram


def ppa_like(seed: int = 0, graphs: int = 78_200) -> SizeHistogram:
    """A synthetic histogram shaped like ogbg-ppa (labelled synthetic wherever shown).

    >>> hist = ppa_like(graphs=2_000)
    >>> hist.max_nodes, hist.max_edges
    (300, 36138)
    """
    rng = np.random.default_rng(seed)
    nodes = np.where(rng.random(graphs) < 0.63, 300, rng.integers(50, 300, graphs))
    degree = rng.lognormal(np.log(7.5), 0.65, graphs)
    edges = np.minimum(2 * np.round(nodes * degree).astype(np.int64), 36_138)
    edges[0] = 36_138
    return SizeHistogram.from_sizes(nodes, edges)
