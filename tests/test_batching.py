"""The batching simulator on small size sequences worked by hand: every padded size equals
the strategy's definition (Speckhard et al. 2025 and PyG's DynamicBatchSampler), the dynamic target
equals Algorithm 1, buckets, multi-device numbers, errors."""
import numpy as np
import pytest

from packing import BatchShape, PackLimits, SizeHistogram, pack
from packing.batching.summary import shape_curve
from packing.batching import (
    STRATEGIES,
    compare_batching,
    first_appearances,
    fit_bucket_shapes,
    estimate_target,
    run_strategies,
    RunSpec,
    sample_graphs,
    simulate,
)
from packing.batching.padding import power_of_two_at_least, target_from_sample
from packing.words import describe_settings

# Five graphs in loader order: (nodes, edges).
NODES = [10, 20, 40, 5, 7]
EDGES = [30, 60, 100, 10, 0]
SEQUENCE = (NODES, EDGES)


def rows(result, *columns):
    return result.batches[list(columns)].values.tolist()


def test_static_64_pads_nodes_strictly_up_and_edges_to_a_multiple():
    # batch size 3: two real graphs per batch, one slot for the padding graph
    result = simulate(SEQUENCE, "static_64", batch_size=3)
    assert rows(result, "graphs", "nodes", "edges", "padded_nodes", "padded_edges", "padded_graphs") == [
        [2, 30, 90, 64, 128, 3], [2, 45, 110, 64, 128, 3], [1, 7, 0, 64, 64, 3]]
    # 63 real nodes fit 64 (one node left for the padding graph), 64 do not; 128 edges stay 128
    edge = simulate(([63, 1, 64, 0], [128, 0, 128, 0]), "static_64", batch_size=2)
    assert rows(edge, "nodes", "padded_nodes", "padded_edges") == [[63, 64, 128], [1, 64, 64], [64, 128, 128],
                                                                    [0, 64, 64]]


def test_static_pow2_pads_to_powers_of_two():
    result = simulate(SEQUENCE, "static_pow2", batch_size=3)
    assert rows(result, "padded_nodes", "padded_edges") == [[32, 128], [64, 128], [8, 2]]
    exact = simulate(([31, 32], [64, 65]), "static_pow2", batch_size=2)
    assert rows(exact, "padded_nodes", "padded_edges") == [[32, 64], [64, 128]]
    assert power_of_two_at_least(np.array([2**40, 2**40 + 1])).tolist() == [2**40, 2**41]


def test_static_constant_pads_to_batch_size_times_the_largest_graph():
    result = simulate(SEQUENCE, "static_constant", batch_size=3)
    assert rows(result, "padded_nodes", "padded_edges", "padded_graphs") == [[120, 300, 3]] * 3
    assert result.summary["distinct_shapes"] == 1
    assert result.summary["node_efficiency"] == pytest.approx(82 / 360)


def test_dynamic_fills_to_the_target_with_room_for_the_padding_graph():
    sizes = ([5, 3, 4, 6, 2], [8, 4, 6, 10, 2])
    # node target 10: at most 9 real nodes; batch size 3: at most 2 real graphs
    by_nodes = simulate(sizes, "dynamic", batch_size=3, target=(10, 64))
    assert rows(by_nodes, "graphs", "nodes", "padded_nodes", "padded_edges", "padded_graphs") == [
        [2, 8, 10, 64, 3], [1, 4, 10, 64, 3], [2, 8, 10, 64, 3]]
    # edge target 12: 8 + 4 fits exactly, 6 + 10 does not
    by_edges = simulate(sizes, "dynamic", batch_size=4, target=(100, 12))
    assert rows(by_edges, "graphs", "edges") == [[2, 12], [1, 6], [2, 12]]
    assert by_edges.summary["settings"]["target"] == [100, 12, 4]


def test_dynamic_refuses_a_graph_larger_than_the_target_and_says_what_fits():
    with pytest.raises(ValueError, match=r"Graph 2 \(40 nodes, 100 edges\).*target of 40 nodes.*\(64, 128\)"):
        simulate(SEQUENCE, "dynamic", batch_size=3, target=(40, 500))
    # Algorithm 1 on graphs 1 and 2: mean 30 nodes x 2 -> 64, mean 80 edges x 2 = 160 -> 192 < 200 edges of graph 3
    with pytest.raises(ValueError, match=r"Graph 3 \(5 nodes, 200 edges\) does not fit.*raise_to_fit=True"):
        simulate(([10, 20, 40, 5, 7], [30, 60, 100, 200, 0]), "dynamic", batch_size=2, sample_size=2, sample_seed=1)
    raised = simulate(([10, 20, 40, 5, 7], [30, 60, 100, 200, 0]), "dynamic", batch_size=2, sample_size=2,
                      sample_seed=1, raise_to_fit=True)
    settings = raised.summary["settings"]
    assert settings["target"][:2] == [64, 256] and settings["estimated"][1] < 200


def test_dynamic_target_is_algorithm_1_on_the_sample():
    # mean nodes 61/3 x 4 = 81.3 -> 128; mean edges 60 x 4 = 240 -> 256
    assert target_from_sample(np.array([10, 20, 31]), np.array([30, 60, 90]), 4) == (128, 256, 4)
    # exactly a multiple of 64 is rounded strictly up, as the published code does
    assert target_from_sample(np.array([16, 16]), np.array([0, 0]), 4) == (128, 64, 4)
    hist = SizeHistogram.from_counts([3, 8, 12, 20], [4, 14, 30, 60], [50, 30, 15, 5])
    ids = sample_graphs(hist, sample_size=20, seed=7)
    assert ids.size == 20 and np.unique(ids).size == 20
    nodes, edges = np.repeat(hist.num_nodes, hist.counts), np.repeat(hist.num_edges, hist.counts)
    expected = target_from_sample(nodes[ids], edges[ids], 16)
    assert estimate_target(hist, 16, sample_size=20, seed=7) == expected
    result = simulate(hist, "dynamic", batch_size=16, sample_size=20, sample_seed=7)
    assert result.summary["settings"]["target"] == list(expected)
    assert (result.batches.padded_nodes == expected[0]).all()


def test_pyg_dynamic_matches_pyg_semantics_by_hand():
    sizes = ([5, 3, 4, 6, 2, 30], [1, 1, 1, 1, 1, 1])
    result = simulate(sizes, "pyg_dynamic", batch_size=2, max_num=10)
    # 5+3 (then 4 would make 12), 4+6 = 10, 2 (then 30), 30 alone: over the budget, kept
    assert rows(result, "graphs", "nodes", "padded_nodes", "padded_edges", "padded_graphs") == [
        [2, 8, 10, 2, 2], [2, 10, 10, 2, 2], [1, 2, 10, 1, 1], [1, 30, 30, 1, 1]]
    assert result.summary["over_budget_batches"] == 1
    edges = simulate(([1, 1, 1], [4, 5, 2]), "pyg_dynamic", batch_size=2, max_num=7, mode="edge")
    assert rows(edges, "graphs", "padded_nodes", "padded_edges") == [[1, 1, 7], [2, 2, 7]]


def test_pyg_dynamic_batches_equal_pygs_dynamic_batch_sampler():
    """The real sampler of torch_geometric on the same graphs, in order (shuffle=False)."""
    torch = pytest.importorskip("torch")
    geometric = pytest.importorskip("torch_geometric")
    from torch_geometric.data import Data
    from torch_geometric.loader import DynamicBatchSampler

    rng = np.random.default_rng(3)
    nodes = rng.integers(1, 40, 300)
    edges = rng.integers(0, 90, 300)
    dataset = [Data(num_nodes=int(n), edge_index=torch.zeros((2, int(e)), dtype=torch.long))
               for n, e in zip(nodes, edges)]
    assert geometric.__version__
    for mode, budget in (("node", 120), ("edge", 260), ("node", 35)):
        sampler = DynamicBatchSampler(dataset, max_num=budget, mode=mode, shuffle=False)
        theirs = [len(batch) for batch in sampler]
        ours = simulate((nodes, edges), "pyg_dynamic", batch_size=2, max_num=budget, mode=mode)
        assert ours.batches.graphs.tolist() == theirs


def test_buckets_with_one_shape_pad_every_batch_to_the_largest():
    hist = SizeHistogram.from_counts([3, 8, 12, 20], [4, 14, 30, 60], [50, 30, 15, 5])
    static = simulate(hist, "static_64", batch_size=8, epochs=3, seed=4).batches
    one = simulate(hist, "buckets", batch_size=8, epochs=3, seed=4, num_shapes=1).batches
    assert one[["nodes", "edges"]].equals(static[["nodes", "edges"]])
    assert (one.padded_nodes == static.nodes.max() + 1).all()
    assert (one.padded_edges == static.edges.max()).all()
    assert (one.padded_graphs == 8).all()


def test_more_bucket_shapes_never_pad_more():
    rng = np.random.default_rng(11)
    nodes = rng.integers(50, 400, 3000)
    edges = nodes * rng.integers(1, 9, 3000)
    fit = fit_bucket_shapes(nodes, edges, 16)
    assert all(later <= earlier for earlier, later in zip(fit.cost, fit.cost[1:]))
    assert fit.cost[-1] < fit.cost[0] and len(fit.shapes[0]) == 1
    assert all(len(shapes) <= k for k, shapes in enumerate(fit.shapes, 1))


def test_given_bucket_shapes_are_used_and_a_batch_too_big_for_all_is_named():
    result = simulate(SEQUENCE, "buckets", batch_size=3, shapes=[(40, 100), (64, 128)])
    assert rows(result, "nodes", "padded_nodes", "padded_edges") == [[30, 40, 100], [45, 64, 128], [7, 40, 100]]
    with pytest.raises(ValueError, match=r"Batch 1 \(45 nodes, 110 edges\) fits none of the shapes"):
        simulate(SEQUENCE, "buckets", batch_size=3, shapes=[(40, 100)])


def test_packing_rows_follow_the_plan():
    hist = SizeHistogram.from_counts([3, 8, 12], [4, 14, 30], [40, 20, 10])
    plan = pack(hist, PackLimits(24, 60, 6))
    result = simulate(hist, "packing", batch_size=8, plan=plan)
    summary = result.summary
    # every batch is padded as the packed loader pads it: the pack's node and edge limits and its fullest pack's
    # graphs (here the limit's 6), plus one padding node and graph
    assert summary["batches"] == plan.num_packs and plan.graph_capacity == 6
    assert summary["node_efficiency"] == plan.total_nodes / (plan.num_packs * 25)
    assert summary["edge_efficiency"] == plan.edge_efficiency
    assert summary["graph_efficiency"] == plan.num_graphs / (plan.num_packs * 7)
    assert result.settings["shape"] == [25, 60, 7] == list(BatchShape.for_plan(plan))
    two = simulate(hist, "packing", batch_size=8, limits=PackLimits(24, 60, 6), packs_per_batch=2, steps=5)
    assert (two.batches.padded_nodes == 49).all() and two.summary["batches"] == 5


def test_steps_and_devices_lay_batches_out_in_steps():
    result = simulate(SEQUENCE, "static_64", batch_size=3, steps=4, devices=2)
    frame = result.batches
    assert len(frame) == 8 and frame.step.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert frame.device.tolist() == [0, 1] * 4
    # the stream runs on into the next epochs: 5 graphs per epoch, 2 per batch
    assert frame.graphs.tolist() == [2] * 8 and frame.epoch.tolist() == [0, 0, 0, 1, 1, 2, 2, 2]
    summary = result.summary
    # shapes per step: (64,128) twice, then (64,64) with (64,128): every step holds one mixed pair but step 0
    shapes = list(zip(frame.padded_nodes, frame.padded_edges))
    mixed = [shapes[2 * s] != shapes[2 * s + 1] for s in range(4)]
    assert summary["mixed_shape_steps"] == sum(mixed) / 4
    largest = [max(shapes[2 * s][1], shapes[2 * s + 1][1]) for s in range(4)]
    assert summary["step_edge_efficiency"] == frame.edges.sum() / (2 * sum(largest))


def test_cross_epochs_false_closes_every_epoch():
    result = simulate(SEQUENCE, "static_64", batch_size=3, epochs=2, cross_epochs=False)
    assert result.batches.graphs.tolist() == [2, 2, 1, 2, 2, 1]
    joined = simulate(SEQUENCE, "static_64", batch_size=3, epochs=2)
    assert joined.batches.graphs.tolist() == [2, 2, 2, 2, 2]


def test_distinct_shapes_and_their_first_steps():
    first, code = first_appearances(np.array([64, 64, 128, 64, 128, 192]), np.array([8] * 6), np.array([4] * 6))
    assert first.tolist() == [0, 2, 5] and code.tolist() == [0, 0, 1, 0, 1, 2]
    # shapes too wide to combine in one integer are numbered row by row, still by first appearance
    first, code = first_appearances(np.array([2**61, 5, 2**61, 7]), np.ones(4, dtype=np.int64),
                                    np.array([2**40, 3, 2**40, 3]))
    assert first.tolist() == [0, 1, 3] and code.tolist() == [0, 1, 0, 2]
    curve = shape_curve(np.array([0, 10, 500]), steps=1000)
    assert curve == {"step": [0, 10, 500], "distinct_shapes": [1, 2, 3]}
    many = shape_curve(np.arange(0, 3000, 3), steps=3000)
    assert many["distinct_shapes"][-1] == 1000 and len(many["step"]) <= 200
    assert many["distinct_shapes"] == [int(np.searchsorted(np.arange(0, 3000, 3), s, "right")) for s in many["step"]]


def test_compare_has_a_row_per_strategy_on_the_same_stream():
    hist = SizeHistogram.from_counts([3, 8, 12], [4, 14, 30], [40, 20, 10])
    table = compare_batching(hist, batch_size=8, steps=50, seed=2, devices=2)
    assert table["strategy"].tolist() == list(STRATEGIES)
    assert {"strategy", "batches", "node_efficiency", "edge_efficiency", "graph_efficiency", "distinct_shapes",
            "max_padded_nodes", "max_padded_edges", "mixed_shape_steps"} <= set(table.columns)
    assert (table.batches == 100).all() and (table.steps == 50).all()
    frame = table.set_index("strategy")
    # static strategies cut the same batches: equal graphs per batch, different padding
    assert frame.loc["static_64", "mean_graphs_per_batch"] == frame.loc["static_pow2", "mean_graphs_per_batch"] == 7
    assert frame.loc["dynamic", "distinct_shapes"] == frame.loc["static_constant", "distinct_shapes"] == 1
    # without a plan, packing packs into the dynamic target's real room: its batches pad to the same shape
    target = table.attrs["settings"]["dynamic"]["target"]
    assert table.attrs["settings"]["packing"]["limits"] == {"max_nodes": target[0] - 1, "max_edges": target[1],
                                                            "max_graphs": 7}
    assert table.attrs["settings"]["packing"]["shape"] == target


def test_the_packing_row_names_its_plan_as_the_plan_does():
    hist = SizeHistogram.from_counts([3, 8, 12], [4, 14, 30], [40, 20, 10])
    plan = pack(hist, PackLimits(24, 60, 8), algorithm="best")
    assert plan.label.startswith("best of all: ")
    table = compare_batching(hist, batch_size=8, plan=plan, steps=20)
    assert table.attrs["settings"]["packing"]["plan_label"] == plan.label
    assert describe_settings("packing", table.attrs["settings"]["packing"]).endswith(plan.label)


def test_bad_input_gets_a_clear_message():
    with pytest.raises(ValueError, match="Unknown batching strategy 'static_32'"):
        simulate(SEQUENCE, "static_32", batch_size=3)
    with pytest.raises(ValueError, match="batch_size must lie between 2"):
        simulate(SEQUENCE, "static_64", batch_size=1)
    with pytest.raises(ValueError, match=r"static_64 does not take num_shapes \(its options: none\)"):
        simulate(SEQUENCE, "static_64", batch_size=3, num_shapes=2)
    with pytest.raises(ValueError, match="pyg_dynamic needs its budget"):
        simulate(SEQUENCE, "pyg_dynamic", batch_size=3)
    with pytest.raises(ValueError, match="steps must be a whole number"):
        simulate(SEQUENCE, "static_64", batch_size=3, steps=2.5)
    with pytest.raises(ValueError, match="needs plan=PackingPlan or limits"):
        simulate(SEQUENCE, "packing", batch_size=3)
    with pytest.raises(ValueError, match="pair \\(nodes, edges\\)"):
        simulate("not sizes", "static_64", batch_size=3)
    with pytest.raises(ValueError, match="not both"):
        simulate(SEQUENCE, "dynamic", batch_size=3, target=(64, 64), sample_size=10)
    with pytest.raises(ValueError, match="have edges but no nodes"):
        simulate(([0, 2], [3, 1]), "static_64", batch_size=3)
    with pytest.raises(ValueError, match="accepts at most 20,000,000 graphs; this dataset has 20,000,001"):
        simulate(SizeHistogram.from_counts([3], [2], [20_000_001]), "static_64", batch_size=3)


def test_run_strategies_shares_one_cut_between_static_strategies():
    hist = SizeHistogram.from_counts([3, 8, 12], [4, 14, 30], [40, 20, 10])
    run = RunSpec(batch_size=5, steps=30, epochs=1, seed=1, devices=1)
    results = run_strategies(hist, run, {"static_64": {}, "buckets": {"num_shapes": 3}, "static_constant": {}})
    assert list(results) == ["static_64", "buckets", "static_constant"]
    starts = {name: result.start.tolist() for name, result in results.items()}
    assert starts["static_64"] == starts["buckets"] == starts["static_constant"]


@pytest.mark.parametrize("run", [{"epochs": 3}, {"steps": 40, "devices": 2}])
def test_a_run_reports_its_share_done_epoch_by_epoch_up_to_the_whole(run):
    hist = SizeHistogram.from_counts([3, 8, 12], [4, 14, 20], [20, 4, 6])
    shares: list[float] = []
    table = compare_batching(hist, 4, progress=shares.append, **run)
    assert shares and shares == sorted(shares) and 0 < shares[0] and shares[-1] == 1.0
    assert len(shares) >= 3  # one per epoch streamed, not one at the end
    assert table.equals(compare_batching(hist, 4, **run))  # the numbers do not depend on listening
