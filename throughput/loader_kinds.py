"""What a calibration keeps of its loader timings (:mod:`throughput.loader_cost` measures
them): per loader kind, the timings and the fitted cost per batch. No torch here: loading a
calibration and estimating need none.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .fit import CostFit
from .records import ShapeTiming

#: The loader kinds, as :mod:`throughput.loader_cost` describes them.
LOADERS = ("pyg_first", "pyg_cached", "packed", "packed_device", "handoff")
#: What the loaders were timed on (:func:`data_loaders.random_mol_dataset`), as a calibration
#: file records it: a dataset with more or wider attributes collates more slowly.
TIMED_DATA = {"graphs": "random molecules (data_loaders.random_mol_dataset)", "x": "9 atom features (int64)",
              "edge_attr": "3 bond features (int64)", "y": "1 target per graph"}


@dataclass(frozen=True)
class LoaderCost:
    """One loader kind's timings (per batch, at the shapes of its batches) and their fit;
    ``long_run_factor``: how much slower a batch is on average in a long epoch than the
    short timed epochs' median (PyG's first reads: the garbage collector scans the graphs
    PyG keeps, :func:`throughput.loader_cost.first_read_factor`; 1 for the other kinds)."""

    loader: str
    timings: tuple[ShapeTiming, ...]
    fit: CostFit
    long_run_factor: float = 1.0

    def predict(self, shapes: Any) -> np.ndarray:
        """Seconds per batch at each (nodes, edges, graphs) row.

        >>> from throughput.fit import fit_cost_model
        >>> timings = [ShapeTiming((100 * g, 200 * g, g), 1e-4 + 2e-5 * g, 0, 0, 0, 3) for g in range(1, 7)]
        >>> cost = LoaderCost("pyg_first", tuple(timings), fit_cost_model([t.shape for t in timings],
        ...                                                         [t.median for t in timings]))
        >>> round(float(cost.predict([(1000, 2000, 10)])[0]) * 1e6)
        300
        """
        return self.long_run_factor * self.fit.predict(np.asarray(shapes, dtype=np.int64).reshape(-1, 3))

    def describe(self) -> str:
        """The fitted cost of a batch in words (coefficients in microseconds).

        >>> from throughput.fit import CostFit
        >>> fit = CostFit("linear", {"intercept": 1e-4, "nodes": 0.0, "edges": 0.0, "graphs": 2e-5}, {"p90": 0.1}, {})
        >>> LoaderCost("packed", (), fit).describe()
        'batch = 100 us + 0 us x nodes + 0 us x edges + 20 us x graphs'
        """
        return "batch" + self.fit.describe().removeprefix("step")

    def to_dict(self) -> dict[str, Any]:
        """The kind's entry of a calibration file's ``loaders.kinds``: timings and fit."""
        entry = {"timings": [timing.to_dict() for timing in self.timings], "fit": self.fit.to_dict()}
        return entry if self.long_run_factor == 1.0 else {**entry, "long_run_factor": self.long_run_factor}
