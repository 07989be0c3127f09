"""The one pack-shape value, packing.BatchShape: validated, a tuple everywhere a tuple was
(unpacking, equality, JSON), its two conversions inverse to each other, and the same value
in the engine, the batching simulator, the packed loader's namespace and the calibrations."""
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import data_loaders
from packing import BatchShape, PackLimits, SizeHistogram
from packing.batching import constant_shape, estimate_target, simulate
from throughput.shapes import check_shapes, default_shapes

LIMIT = st.integers(1, 10**6)


@given(LIMIT, LIMIT, LIMIT, st.integers(1, 64))
def test_for_limits_holds_the_packs_and_real_room_gives_the_budget_back(nodes, edges, graphs, packs):
    limits = PackLimits(nodes, edges, graphs)
    shape = BatchShape.for_limits(limits, packs)
    assert shape.real_room == (packs * nodes, packs * edges, packs * graphs)
    assert BatchShape.for_limits(limits).real_room == (nodes, edges, graphs)


@given(st.integers(1, 10**9), st.integers(0, 10**9), st.integers(1, 10**9))
def test_a_shape_is_the_plain_tuple(nodes, edges, graphs):
    shape = BatchShape(nodes, edges, graphs)
    assert shape == (nodes, edges, graphs) and hash(shape) == hash((nodes, edges, graphs))
    assert json.loads(json.dumps(shape)) == [nodes, edges, graphs]
    assert tuple(shape) == (shape.num_nodes, shape.num_edges, shape.num_graphs)


@pytest.mark.parametrize("values, named", [((0, 4, 1), "num_nodes"), ((4, -1, 1), "num_edges"),
                                           ((4, 4, 0), "num_graphs"), ((4.5, 4, 1), "num_nodes"),
                                           ((4, True, 1), "num_edges")])
def test_bad_components_are_refused_by_name(values, named):
    with pytest.raises(ValueError, match=named):
        BatchShape(*values)
    with pytest.raises(ValueError, match=named):
        BatchShape(4, 4, 1)._replace(**dict(zip(BatchShape._fields, values)))


def test_one_value_from_the_engine_to_the_loader_and_the_calibrations():
    assert data_loaders.BatchShape is BatchShape
    assert isinstance(constant_shape(29, 812, 32), BatchShape)
    assert isinstance(estimate_target(([18, 18], [306, 306]), 32), BatchShape)
    assert all(isinstance(shape, BatchShape) for shape in default_shapes(6) + check_shapes([(8, 16, 2)]))


def test_dynamic_batches_keep_the_real_room_of_their_target():
    hist = SizeHistogram.from_counts([3, 8, 20], [4, 14, 40], [50, 20, 5])
    run = simulate(hist, "dynamic", batch_size=8, target=(64, 128))
    room_nodes, room_edges, room_graphs = BatchShape(64, 128, 8).real_room
    batches = run.batches
    assert (batches["nodes"] <= room_nodes).all() and (batches["edges"] <= room_edges).all()
    assert (batches["graphs"] <= room_graphs).all()
    assert (batches[["padded_nodes", "padded_edges", "padded_graphs"]] == (64, 128, 8)).all().all()


@given(st.lists(st.tuples(st.integers(1, 10**6), st.integers(0, 10**6), st.integers(1, 10**4)), min_size=1, max_size=5))
def test_the_covering_shape_holds_every_shape_and_no_smaller_one_does(triples):
    shapes = [BatchShape(*triple) for triple in triples]
    shared = BatchShape.covering(*shapes)
    assert all(shared.check_holds(shape) is shared for shape in shapes)
    for component in range(3):  # one less of any component no longer holds them all
        smaller = list(shared)
        smaller[component] -= 1
        assert any(any(a < b for a, b in zip(smaller, shape)) for shape in shapes)
