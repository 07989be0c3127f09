"""Plotly figures and display tables from engine values, shared by the dashboard's pages,
the one-file report and its command line (``python -m figures report config.json --out
report.html``). Imports plotly, pandas and the engine, never Streamlit.

Modules: ``dataset`` (size histogram, marginals, Table 1 statistics), ``packs`` (a plan's
packs and the comparison table), ``sweep`` (the harmonic-mean heatmap), ``batching`` (the
batching comparison), ``throughput`` (time per epoch), ``titles`` (exported figures' titles),
``report`` (the one-file HTML report), ``pdf`` (the report printed by Chromium), ``cli``
(``python -m figures``), ``snippet`` (the PyG training snippet of the Export page and README).

>>> from packing import SizeHistogram
>>> fig, grid = histogram_figure(SizeHistogram.from_sizes([2, 3], [2, 4]))
>>> grid.total_graphs
2
"""
from . import batching, throughput
from .dataset import (MAX_AXIS_CELLS, TABLE1_ROWS, SizeGrid, comparison_figures, histogram_figure, log_ticks, marginal_comparison_figure,
                      marginal_figure, size_grid, stats_table)
from .packs import (COMPARE_LABELS, PUBLISHED_LABELS, best_cells, graphs_per_pack_figure, highlight_best,
                    pack_fill_figure, strategies_figure)
from .sweep import SWEEP_TRACE, clicked_limits, grid_position, sweep_axes, sweep_figure

__all__ = [
    "COMPARE_LABELS", "MAX_AXIS_CELLS", "PUBLISHED_LABELS", "SWEEP_TRACE", "TABLE1_ROWS", "SizeGrid", "batching",
    "best_cells", "clicked_limits", "comparison_figures", "graphs_per_pack_figure", "grid_position", "highlight_best", "histogram_figure",
    "log_ticks",
    "marginal_comparison_figure", "marginal_figure", "pack_fill_figure", "size_grid", "stats_table",
    "strategies_figure", "sweep_axes", "sweep_figure", "throughput",
]
