"""Synthetic size histograms for stress tests. They are NOT real datasets.

`ppa_like` imitates the published shape of ogbg-ppa (Krell et al., Table 1: 78,200
training graphs, at most 300 nodes and 36,138 edges, about 36,000 distinct tuples, most
graphs at 300 nodes), which is not available offline.
"""
from __future__ import annotations

import numpy as np

from packing import PackLimits, SizeHistogram


def ppa_like(seed: int = 0, graphs: int = 78_200) -> SizeHistogram:
    """A synthetic histogram shaped like ogbg-ppa (labelled synthetic wherever shown).

    >>> hist = ppa_like(graphs=2_000)
    >>> hist.largest_nodes, hist.largest_edges
    (300, 36138)
    """
    rng = np.random.default_rng(seed)
    nodes = np.where(rng.random(graphs) < 0.63, 300, rng.integers(50, 300, graphs))
    degree = rng.lognormal(np.log(7.5), 0.65, graphs)
    edges = np.minimum(2 * np.round(nodes * degree).astype(np.int64), 36_138)
    edges[0] = 36_138
    return SizeHistogram.from_sizes(nodes, edges)


def adversarial_random(seed: int = 0) -> tuple[SizeHistogram, PackLimits]:
    """The random histogram on which exact fill once took 60-100 s: 2,000 tuples of up to
    5,000 nodes and edges, 1-10 graphs each, packed into 10,000 nodes, 250,000 edges and
    256 graphs (synthetic).

    >>> hist, limits = adversarial_random()
    >>> hist.num_tuples <= 2000, limits.max_edges
    (True, 250000)
    """
    rng = np.random.default_rng(seed)
    nodes, edges, counts = rng.integers(1, 5001, 2000), rng.integers(0, 5001, 2000), rng.integers(1, 11, 2000)
    return SizeHistogram.from_counts(nodes, edges, counts), PackLimits(10_000, 250_000, 256)
