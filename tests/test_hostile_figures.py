"""One outlier must not flatten a chart (issue 37, item 15): the value axis turns
logarithmic where the largest value is many times the median, with every text still next to
its bar."""
from __future__ import annotations

import math

from data_loaders import load_histogram
from figures.batching import batch_sizes_figure
from figures.throughput import epoch_figure
from packing.batching import compare_batching
from throughput import estimate, load_calibration, shipped_calibrations


def test_static_constants_huge_batches_put_the_box_plots_on_log_axes():
    hist, _ = load_histogram("ogbg-molpcba", "train")
    table = compare_batching(hist, 128, epochs=1, seed=0)
    fig = batch_sizes_figure(table.attrs["summaries"])
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis2.type == "log"
    assert "log scale" in fig.layout.xaxis.title.text


def test_a_slow_row_puts_the_epoch_bars_on_a_log_axis_with_each_text_at_its_bar():
    hist, _ = load_histogram("ogbg-molhiv", "train")
    table = estimate(hist, 32, load_calibration(shipped_calibrations()[0]), epochs=1)
    slow = table.set_index("strategy")["steady_epoch_s"]
    assert slow["static_constant"] > 5 * slow.median()  # 46.6 s next to about 8 s (shipped AMD EPYC calibration)
    fig = epoch_figure(table)
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis2.type == "log"
    texts = [a for a in fig.layout.annotations if a.xref == "x"]
    ends = dict(zip(fig.data[0].y, table["steady_high"].where(~table["extrapolated"], table["steady_epoch_s"])))
    assert texts and all(math.isclose(10 ** a.x, ends[a.y], rel_tol=1e-9) for a in texts)
    comparable = table[table["strategy"] != "static_constant"]
    assert epoch_figure(comparable).layout.xaxis.type != "log"  # bars of like size stay on a linear axis
