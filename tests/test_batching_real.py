"""The batching simulator on real data: Speckhard et al.'s (2025) QM9 (fully connected) numbers, AFLOW's
multi-device shapes (appendix F), and packing rows that equal the plan (ogbg-molhiv).

Speckhard et al. (2025), QM9 fully connected, batch size 32: dynamic node target 576
(section 8), static-2^N 4 and static-64 89 recompilations over two million steps (Figure 3).
BENCHMARKS.md puts our numbers next to these and explains the differences.
"""
import bisect

import numpy as np
import pytest

import data_loaders
from packing import PackLimits, pack
from packing.batching import GraphSizes, RunSpec, compare_batching, estimate_target, run_strategies, sample_graphs

PAPER_STEPS = 2_000_000


@pytest.fixture(scope="module")
def qm9_full():
    hist, _ = data_loaders.load_histogram("qm9", graph="full")
    assert hist.num_graphs == 130_831 and hist.largest_edges == 29 * 28
    return hist


def test_dynamic_node_target_576_or_640_as_the_sample_mean_falls_below_or_above_18(qm9_full):
    sizes = GraphSizes.of(qm9_full)
    # the whole dataset: 18.03 nodes per graph x 32 = 577.0 -> 640 (the paper reports 576)
    assert estimate_target(sizes, 32, sample_size=10**9) == (640, 10_112, 32)
    seen = set()
    for seed in range(100):  # Algorithm 1 with 1,000-graph samples, as the published code
        ids = sample_graphs(sizes, 1000, seed)
        nodes = estimate_target(sizes, 32, 1000, seed)[0]
        mean_times_batch = int(sizes.nodes[ids].sum()) * 32 / 1000
        assert nodes == (576 if mean_times_batch < 576 else 640)
        seen.add(nodes)
    assert seen == {576, 640}  # both occur: the paper's 576 comes from a sample mean below 18


def test_static_shapes_over_two_million_steps_next_to_figure_3(qm9_full):
    run = RunSpec(32, PAPER_STEPS, 1, 0, 1)
    results = run_strategies(qm9_full, run, {"static_pow2": {}, "static_64": {}})
    pow2, by64 = results["static_pow2"].summary, results["static_64"].summary
    assert pow2["distinct_shapes"] == 4  # Figure 3: four
    assert {(s["nodes"], s["edges"]) for s in pow2["shapes"]} == {(512, 8192), (512, 16384), (1024, 8192),
                                                                  (1024, 16384)}
    # Figure 3: 89 for static-64, about 20 of them after step 100,000. Ours (seed 0): 105,
    # 91 by step 100,000; other seeds and 80 % training subsets give 103-106 (BENCHMARKS.md).
    curve = by64["shape_first_steps"]
    by_100k = curve["distinct_shapes"][bisect.bisect_right(curve["step"], 99_999) - 1]
    assert (by64["distinct_shapes"], by_100k) == (105, 91)
    assert pow2["batches"] == by64["batches"] == PAPER_STEPS


def test_aflow_batches_on_four_devices_mostly_differ_in_shape():
    hist, _ = data_loaders.load_histogram("aflow")
    run = RunSpec(32, 50_000, 1, 0, 4)
    results = run_strategies(hist, run, {"static_64": {}, "static_pow2": {}, "dynamic": {}})
    mixed = {name: result.summary["mixed_shape_steps"] for name, result in results.items()}
    # appendix F: close to 99 % (static-64) and roughly 90 % (static-2^N) of steps on AFLOW
    assert mixed["static_64"] > 0.97 and 0.8 < mixed["static_pow2"] < 0.97 and mixed["dynamic"] == 0
    step64 = results["static_64"].summary
    assert step64["step_node_efficiency"] < step64["node_efficiency"]  # padding to the step's largest costs


def test_packing_rows_are_the_plan_padded_as_the_loader_pads(molhiv):
    plan = pack(molhiv, PackLimits(222, 502, 256))
    table = compare_batching(molhiv, 32, plan=plan, packs_per_batch=1).set_index("strategy")
    row = table.loc["packing"]
    assert row["batches"] == plan.num_packs
    # one padding node and one padding graph per batch, as PackedLoader pads (BatchShape.for_plan);
    # graph slots: the fullest pack's 27 graphs, not the limit's 256
    assert row["node_efficiency"] == plan.total_nodes / (plan.num_packs * 223)
    assert row["edge_efficiency"] == plan.edge_efficiency
    assert plan.graph_capacity == max(graphs for items, _ in plan.packs for graphs in [sum(c for *_, c in items)]) == 27
    assert row["graph_efficiency"] == plan.num_graphs / (plan.num_packs * 28)
    assert row["max_padded_nodes"] == 223 and row["distinct_shapes"] == 1
    # one epoch of every strategy covers the training split once
    assert np.allclose(table["batches_per_epoch"] * table["mean_graphs_per_batch"], molhiv.num_graphs)


def test_packing_rows_carry_about_the_batch_size_by_default(molhiv):
    """As the command line's and the Batching page's 'match': packs per batch that carry
    about batch_size graphs, so that packing takes about as many steps as the batches."""
    plan = pack(molhiv, PackLimits(222, 502, 256))  # about 8.7 graphs per pack
    table = compare_batching(molhiv, 32, plan=plan)
    assert table.attrs["settings"]["packing"]["packs_per_batch"] == 4
    steps = table.set_index("strategy")["batches_per_epoch"]
    assert abs(steps["packing"] / steps["dynamic"] - 1) < 0.15
