"""Property tests of the batching simulator on random histograms and size sequences.

Invariants: every graph is batched exactly once per epoch (batches tile the stream of
epoch orders, each a permutation), real sums equal the graphs they cover, padded shapes
hold their batches with room for the padding graph, greedy batches respect their caps and
are maximal, packing batches are the plan's packs, and more bucket shapes never pad more.
"""
from collections import Counter

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packing import PackLimits, SizeHistogram, pack
from packing.batching import STRATEGIES, RunSpec, estimate_target, run_strategies, simulate

PROPERTY_SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def graph_sizes(draw):
    """A histogram (shuffled every epoch) or an explicit sequence (loader order)."""
    rows = draw(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 80), st.integers(1, 12)),
                         min_size=1, max_size=12))
    rows = [(n, e if n else 0, c) for n, e, c in rows]  # an edge needs a node
    nodes, edges, counts = (np.array(v) for v in zip(*rows))
    hist = SizeHistogram.from_counts(nodes, edges, counts)
    if draw(st.booleans()):
        return hist, hist
    order = draw(st.permutations(range(hist.num_graphs)))
    sequence = (np.repeat(hist.num_nodes, hist.counts)[order], np.repeat(hist.num_edges, hist.counts)[order])
    return sequence, hist


def options_for(strategy, hist, batch_size, draw):
    if strategy == "dynamic":
        low = estimate_target(hist, batch_size, sample_size=10**9)
        nodes = max(low[0], hist.largest_nodes + 1) + draw(st.integers(0, 40))
        edges = max(low[1], hist.largest_edges) + draw(st.integers(0, 80))
        return {"target": (nodes, edges)}
    if strategy == "pyg_dynamic":
        return {"max_num": draw(st.integers(1, 120)), "mode": draw(st.sampled_from(["node", "edge"]))}
    if strategy == "buckets":
        return {"num_shapes": draw(st.integers(1, 16))}
    if strategy == "packing":
        limits = PackLimits(max(1, hist.largest_nodes) + draw(st.integers(0, 60)),
                            max(1, hist.largest_edges) + draw(st.integers(0, 120)), draw(st.integers(1, 12)))
        return {"plan": pack(hist, limits), "packs_per_batch": draw(st.integers(1, 3))}
    return {}


@st.composite
def runs(draw):
    sizes, hist = draw(graph_sizes())
    strategy = draw(st.sampled_from(STRATEGIES))
    batch_size = draw(st.integers(2, 12))
    options = options_for(strategy, hist, batch_size, draw)
    epochs = draw(st.integers(1, 3))
    cross = draw(st.sampled_from([None, True, False]))
    devices = draw(st.integers(1, 3))
    return sizes, hist, strategy, batch_size, options, epochs, cross, devices


def stream_of(result, epochs, nodes, edges):
    """Graph ids of the whole run in stream order, and running sums of their sizes."""
    ids = np.concatenate([result.epoch_order(epoch) for epoch in range(epochs)])
    return ids, np.concatenate([[0], np.cumsum(nodes[ids])]), np.concatenate([[0], np.cumsum(edges[ids])])


@PROPERTY_SETTINGS
@given(runs(), st.integers(0, 3))
def test_every_graph_once_and_every_batch_holds_its_graphs(run, seed):
    sizes, hist, strategy, batch_size, options, epochs, cross, devices = run
    result = simulate(sizes, strategy, batch_size, epochs=epochs, seed=seed, devices=devices, cross_epochs=cross,
                      **options)
    n = hist.num_graphs
    nodes, edges = (np.asarray(sizes[0]), np.asarray(sizes[1])) if isinstance(sizes, tuple) else (
        np.repeat(hist.num_nodes, hist.counts), np.repeat(hist.num_edges, hist.counts))
    ids, cum_nodes, cum_edges = stream_of(result, epochs, nodes, edges)
    for epoch in range(epochs):  # each epoch visits every graph once
        assert sorted(ids[epoch * n:(epoch + 1) * n].tolist()) == list(range(n))
    frame = result.batches
    start = (frame.epoch * n + frame.start).to_numpy()
    stop = start + frame.graphs.to_numpy()
    assert start[0] == 0 and stop[-1] == epochs * n and (start[1:] == stop[:-1]).all()  # batches tile the stream
    assert (frame.nodes.to_numpy() == cum_nodes[stop] - cum_nodes[start]).all()
    assert (frame.edges.to_numpy() == cum_edges[stop] - cum_edges[start]).all()
    assert result.summary["graphs"] == epochs * n


@PROPERTY_SETTINGS
@given(runs())
def test_padded_shapes_hold_their_batches(run):
    sizes, hist, strategy, batch_size, options, epochs, cross, devices = run
    frame = simulate(sizes, strategy, batch_size, epochs=epochs, cross_epochs=cross, **options).batches
    nodes, edges, graphs = frame.nodes, frame.edges, frame.graphs
    padded_nodes, padded_edges, padded_graphs = frame.padded_nodes, frame.padded_edges, frame.padded_graphs
    if strategy == "pyg_dynamic":
        budget = options["max_num"]
        budgeted, free = (nodes, padded_nodes) if options["mode"] == "node" else (edges, padded_edges)
        assert (free == np.maximum(budgeted, budget)).all()
        assert (padded_graphs == graphs).all()
    elif strategy == "packing":
        plan, k = options["plan"], options["packs_per_batch"]
        assert (padded_nodes == k * plan.node_capacity + 1).all() and (padded_edges == k * plan.edge_capacity).all()
        assert (padded_graphs == k * plan.graph_capacity + 1).all() and plan.graph_capacity <= plan.limits.max_graphs
        # room for the padding graph, as every other strategy leaves it
        assert (nodes + 1 <= padded_nodes).all() and (edges <= padded_edges).all() and (graphs + 1 <= padded_graphs).all()
    else:
        assert (padded_nodes >= nodes + 1).all() and (padded_edges >= edges).all()
        assert (padded_graphs == batch_size).all() and (graphs <= batch_size - 1).all()
    if strategy in ("static_constant", "dynamic", "packing"):
        assert frame[["padded_nodes", "padded_edges", "padded_graphs"]].drop_duplicates().shape[0] == 1


@PROPERTY_SETTINGS
@given(runs())
def test_greedy_batches_keep_their_caps_and_are_maximal(run):
    sizes, hist, _, batch_size, _, epochs, cross, _ = run
    target = estimate_target(hist, batch_size, sample_size=10**9)
    target = (max(target[0], hist.largest_nodes + 1), max(target[1], hist.largest_edges))
    budget = max(1, hist.largest_nodes // 2)
    for strategy, options in (("dynamic", {"target": target}), ("pyg_dynamic", {"max_num": budget})):
        result = simulate(sizes, strategy, batch_size, epochs=epochs, cross_epochs=cross, **options)
        frame = result.batches
        n = hist.num_graphs
        nodes_of = (np.asarray(sizes[0]) if isinstance(sizes, tuple) else np.repeat(hist.num_nodes, hist.counts))
        edges_of = (np.asarray(sizes[1]) if isinstance(sizes, tuple) else np.repeat(hist.num_edges, hist.counts))
        ids = np.concatenate([result.epoch_order(e) for e in range(epochs)])
        crossing = result.summary["settings"]["cross_epochs"]
        for row, following in zip(frame.itertuples(), frame.iloc[1:].itertuples()):
            end = row.epoch * n + row.start + row.graphs
            if not crossing and end % n == 0:
                continue  # the epoch closed this batch
            nxt = ids[end]
            if strategy == "dynamic":
                assert row.nodes <= target[0] - 1 and row.edges <= target[1] and row.graphs <= batch_size - 1
                assert (row.nodes + nodes_of[nxt] > target[0] - 1 or row.edges + edges_of[nxt] > target[1]
                        or row.graphs + 1 > batch_size - 1)
            else:
                assert row.nodes <= budget or row.graphs == 1
                assert row.nodes + nodes_of[nxt] > budget
            assert following.graphs >= 1


@PROPERTY_SETTINGS
@given(graph_sizes(), st.integers(2, 12), st.integers(1, 40), st.integers(0, 5))
def test_buckets_pad_less_with_more_shapes_and_steps_give_exact_counts(sized, batch_size, steps, seed):
    sizes, _ = sized
    run = RunSpec(batch_size, steps, 1, seed, 1)
    results = run_strategies(sizes, run, {"static_64": {}})
    real_nodes = results["static_64"].padded.nodes.sum()
    real_edges = results["static_64"].padded.edges.sum()
    costs = []
    for count in range(1, 17):
        padded = simulate(sizes, "buckets", batch_size, steps=steps, seed=seed, num_shapes=count).padded
        assert padded.count == steps
        costs.append(padded.padded_nodes.sum() / max(real_nodes, 1) + padded.padded_edges.sum() / max(real_edges, 1))
    assert all(later <= earlier + 1e-12 for earlier, later in zip(costs, costs[1:]))


@PROPERTY_SETTINGS
@given(graph_sizes(), st.integers(1, 12), st.integers(0, 3))
def test_an_epoch_of_packing_batches_is_the_plan(sized, max_graphs, seed):
    sizes, hist = sized
    plan = pack(hist, PackLimits(max(1, hist.largest_nodes) * 2, max(1, hist.largest_edges) * 2, max_graphs))
    frame = simulate(sizes, "packing", 2, seed=seed, plan=plan).batches
    batches = Counter(zip(frame.nodes, frame.edges, frame.graphs))
    packs = Counter()
    for nodes, edges, graphs, count in zip(plan.pack_nodes, plan.pack_edges, plan.pack_graphs, plan.pack_counts):
        packs[nodes, edges, graphs] += count
    assert batches == packs


@PROPERTY_SETTINGS
@given(runs(), st.integers(1, 60))
def test_steps_give_exactly_steps_times_devices_batches_in_stream_order(run, steps):
    sizes, hist, strategy, batch_size, options, _, cross, devices = run
    frame = simulate(sizes, strategy, batch_size, steps=steps, devices=devices, cross_epochs=cross, **options).batches
    assert len(frame) == steps * devices and frame.step.max() == steps - 1
    start = (frame.epoch * hist.num_graphs + frame.start).to_numpy()
    assert start[0] == 0 and (start[1:] == start[:-1] + frame.graphs.to_numpy()[:-1]).all()
