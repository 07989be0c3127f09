"""The dashboard's pure helpers: figure builders, tables and sweep grids (no Streamlit run)."""
from __future__ import annotations

import doctest

import numpy as np
import pytest

from packing import PackLimits, PackMethod, SizeHistogram, pack, sweep
import figures
from pages import state, sweeps


@pytest.mark.parametrize("module", [figures, figures.dataset, figures.packs, figures.sweep, figures.batching,
                                    figures.throughput, state, sweeps])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.failed == 0 and result.attempted > 0


def test_size_grid_counts_every_graph_once():
    rng = np.random.default_rng(0)
    nodes = rng.integers(1, 60, 5000)
    hist = SizeHistogram.from_sizes(nodes, 2 * nodes + rng.integers(0, 5, 5000))
    grid = figures.size_grid(hist)
    assert np.nansum(grid.counts) == hist.num_graphs and grid.hidden_graphs == 0
    assert grid.node_width == grid.edge_width == 1


def test_size_grid_bins_wide_ranges_and_hides_rare_tuples():
    nodes = np.arange(1, 5001)
    hist = SizeHistogram.from_counts(nodes, nodes * 3, np.where(nodes < 100, 50, 1))
    grid = figures.size_grid(hist, min_count=2)
    assert grid.hidden_tuples == 4901 and grid.hidden_graphs == 4901
    assert grid.hidden_share == pytest.approx(4901 / (99 * 50 + 4901))
    wide = figures.size_grid(hist)
    assert wide.node_width > 1 and wide.counts.shape[1] <= figures.MAX_AXIS_CELLS
    assert np.nansum(wide.counts) == hist.num_graphs


def test_histogram_hover_and_log_colour():
    hist = SizeHistogram.from_sizes([3, 3, 5, 9], [4, 4, 8, 16])
    fig, _ = figures.histogram_figure(hist, log_color=True)
    trace = fig.data[0]
    assert "graphs: %{customdata[0]" in trace.hovertemplate and "share" in trace.hovertemplate
    assert list(trace.colorbar.ticktext) == ["1", "2"]  # the counts span 1 to 2: both ends labelled
    counts = np.asarray(trace.customdata)[..., 0].astype(float)
    assert np.nansum(counts) == 4


@pytest.mark.parametrize("counts", [[1200, 4300, 2000], [7, 7, 7], [1, 5_000_000, 30]])
def test_log_colour_bar_is_always_labelled(counts):
    # Counts within one power of ten (molpcba with a tail cut-off, uploads) lost their labels.
    hist = SizeHistogram.from_counts([3, 5, 9], [4, 8, 16], counts)
    bar = figures.histogram_figure(hist, log_color=True)[0].data[0].colorbar
    shown = [float(t.replace(",", "")) for t in bar.ticktext]
    assert len(shown) >= 1 and shown[0] == min(counts) and shown[-1] == max(counts)
    assert np.allclose(bar.tickvals, np.log10(shown))


def test_heatmap_cells_are_uniform_so_rare_sizes_do_not_stretch():
    # Many small graphs and one rare large one (molpcba has one near (160, 330)): every cell
    # covers the same size range, the rare graph fills one cell.
    rng = np.random.default_rng(1)
    nodes = rng.integers(5, 40, 3000)
    edges = 2 * nodes + 2 * rng.integers(0, 3, 3000)  # directed bond counts: even
    hist = SizeHistogram.from_sizes(np.append(nodes, 160), np.append(edges, 330))
    grid = figures.size_grid(hist)
    assert np.all(np.diff(grid.nodes) == grid.node_width) and np.all(np.diff(grid.edges) == grid.edge_width)
    assert np.isfinite(grid.counts).sum() <= hist.num_tuples and np.nansum(grid.counts) == hist.num_graphs
    fig, _ = figures.histogram_figure(hist)
    x = np.asarray(fig.data[0].x, float)
    assert np.allclose(np.diff(x), grid.node_width)  # evenly spaced centres: equal cell widths
    rare = grid.counts[np.searchsorted(grid.edges, 330, side="right") - 1]
    assert np.nansum(rare) == 1


def test_bins_follow_the_step_of_the_edge_counts_so_no_row_is_empty_by_construction():
    # directed edges of bond graphs are even: cells of 1 edge left every other row empty (stripes),
    # cells of 3 held one or two possible counts in turn
    rng = np.random.default_rng(2)
    nodes = rng.integers(10, 30, 5000)
    edges = 2 * (nodes + rng.integers(-2, 4, 5000))
    for cells in (200, 50):
        grid = figures.size_grid(SizeHistogram.from_sizes(nodes, edges), max_cells=cells)
        assert grid.edge_step == 2 and grid.edge_width % 2 == 0
        occupied = np.flatnonzero(np.isfinite(grid.counts).any(axis=1))
        assert np.all(np.diff(occupied) == 1)  # every row between the first and the last holds graphs
    fig, grid = figures.histogram_figure(SizeHistogram.from_sizes(nodes, edges))
    assert "in steps of 2" in fig.layout.yaxis.title.text and not fig.layout.annotations


def test_graphs_whose_edges_follow_from_their_nodes_are_shown_along_one_axis():
    nodes = np.repeat(np.arange(3, 30), np.arange(3, 30))  # fully connected: edges = n (n - 1)
    hist = SizeHistogram.from_sizes(nodes, nodes * (nodes - 1))
    fig, grid = figures.histogram_figure(hist)
    (bars,) = fig.data
    assert grid.follows and bars.type == "bar" and list(bars.x) == list(range(3, 30))
    assert list(bars.y) == list(range(3, 30)) and "edges: %{customdata[0]" in bars.hovertemplate
    assert np.asarray(bars.customdata)[:, 0].tolist() == [n * (n - 1) for n in range(3, 30)]
    assert "edges follow from nodes" in fig.layout.title.subtitle.text
    bonds = SizeHistogram.from_sizes([3, 3, 4, 5], [4, 6, 6, 8])  # two edge counts for 3 nodes: a real 2D histogram
    assert figures.histogram_figure(bonds)[0].data[0].type == "heatmap"


def test_sweep_figure_marks_best_floor_and_selection():
    hist = SizeHistogram.from_sizes([2, 3, 5, 4, 4], [2, 4, 8, 6, 6])
    frame = sweep(hist, [4, 5, 8, 10], [6, 8, 12, 16], max_graphs=8, workers=1)
    fig = figures.sweep_figure(frame, floor=0.9, selected=(8, 12))
    names = [trace.name for trace in fig.data]
    assert figures.SWEEP_TRACE in names and "best" in names
    clickable = fig.data[names.index(figures.SWEEP_TRACE)]
    assert len(clickable.x) == int(frame["feasible"].sum())  # infeasible cells are not clickable
    best = frame.loc[frame["harmonic_mean"].idxmax()]
    star = fig.data[names.index("best")]
    assert figures.clicked_limits(frame, star.x[0], star.y[0]) == (best["max_nodes"], best["max_edges"])
    assert [figures.clicked_limits(frame, x, y) for x, y in zip(clickable.x, clickable.y)] == \
        [tuple(row) for row in np.asarray(clickable.customdata)[:, :2].astype(int).tolist()]
    shade = [t for t in fig.data if t.name == "below 90%"]
    low = frame["feasible"].astype(bool) & (frame["harmonic_mean"] < 0.9)
    assert (np.isfinite(np.asarray(shade[0].z, float)).sum() if shade else 0) == low.sum()
    (frame_shape,) = fig.layout.shapes
    assert (frame_shape.x0, frame_shape.x1, frame_shape.y0, frame_shape.y1) == (1.5, 2.5, 1.5, 2.5)  # cell (8, 12)
    assert list(fig.layout.xaxis.ticktext) == ["4", "5", "8", "10"]
    assert ("harmonic mean below 90%" in names) == bool(low.any())  # the grey cells' legend entry
    assert star.textposition == ("bottom center" if best["max_edges"] == 16 else "top center")  # never clipped
    top = figures.sweep_figure(frame[frame["max_edges"] <= best["max_edges"]])  # the best cell in the top row
    assert next(t for t in top.data if t.name == "best").textposition == "bottom center"


def test_sweep_figure_draws_a_short_last_step_as_a_whole_cell():
    hist = SizeHistogram.from_sizes([2, 3], [2, 4])
    frame = sweep(hist, [4, 8], [502, 2005, 2008, 12_000], workers=1)
    fig = figures.sweep_figure(frame, clickable=False)
    heat = fig.data[0]
    assert list(heat.y) == [0, 1, 2, 3] and list(fig.layout.yaxis.ticktext) == ["502", "2,005", "2,008", "12,000"]
    assert "click" not in fig.data[[t.name for t in fig.data].index(figures.SWEEP_TRACE)].hovertemplate


def test_pack_fill_of_graphs_without_edges_shows_the_nodes_in_fine_bins():
    hist = SizeHistogram.from_sizes(np.random.default_rng(0).integers(5, 29, 2000), [0] * 2000)
    fill = figures.pack_fill_figure(pack(hist, PackLimits(120, 1, 256)))
    (nodes,) = fill.data  # no edge trace: every pack's edge fill would be 0 of a 1-edge limit
    assert nodes.name == "node fill" and len(nodes.x) > 10 and sum(nodes.y) == pack(hist, PackLimits(120, 1, 256)).num_packs
    assert fill.layout.xaxis.range[0] > 50


def test_plan_figures_add_up():
    hist = SizeHistogram.from_sizes([3, 2, 3, 2, 7], [4, 2, 4, 2, 12])
    plan = pack(hist, PackLimits(8, 12, 4))
    per_pack = figures.graphs_per_pack_figure(plan).data[0]
    assert sum(per_pack.y) == plan.num_packs
    fill = figures.pack_fill_figure(plan)
    assert [sum(trace.y) for trace in fill.data] == [plan.num_packs, plan.num_packs]
    strategies = figures.strategies_figure(plan).data[0]
    assert sum(strategies.x) == plan.num_packs


def test_tables():
    hists = {"a": SizeHistogram.from_sizes([2, 4], [2, 6]), "b": SizeHistogram.from_sizes([3], [4])}
    table = figures.stats_table(hists)
    assert list(table.columns) == ["a", "b"] and table.loc["Node efficiency (%) padding every graph to the largest", "b"] == "100.00"
    from packing import compare

    styled = figures.highlight_best(compare(SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2]), PackLimits(5, 6, 4)))
    html = styled.to_html()
    assert "font-weight: bold" in html


def test_baselines_are_never_highlighted_as_best():
    from packing import compare

    # Node-heavy graphs: edge-only packing ignores the node limit and puts all four in one pack.
    table = compare(SizeHistogram.from_sizes([5, 5, 5, 5], [1, 1, 1, 1]), PackLimits(5, 4, 4))
    baseline = ~table["keeps_limits"]
    assert table.loc[table["method"] == "edge_only", "packs"].item() < table.loc[~baseline, "packs"].min()
    best = figures.best_cells(table)
    assert not best[baseline].to_numpy().any()
    assert best.loc[~baseline, "packs"].all() and best.loc[~baseline, "harmonic_mean"].all()
    assert not best["method"].any() and not best["lower_bound"].any()


def test_sweep_grid_defaults_start_at_the_largest_graph():
    hist = SizeHistogram.from_sizes([10, 20], [30, 44])
    params = sweeps.default_params(hist, 256, PackMethod())
    nodes, edges = sweeps.grid(params)
    assert nodes[0] == 20 and nodes[-1] == 80 and edges[0] == 44 and edges[-1] == 176
    assert sweeps.check_grid(params) is None
    assert "empty" in sweeps.check_grid({**params, "n0": 9, "n1": 1})
