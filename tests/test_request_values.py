"""PackLimits and PackMethod: one value each, validated once, refused with a message naming
the problem; the keyword form of pack keeps working; one grid rule for the CLI and the pages."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packing import HEURISTICS, TUPLE_ALGORITHMS, PackLimits, PackMethod, SizeHistogram, limit_grid, pack, sweep
from packing.cli_args import _int_list
from packing.method import ONE_DIM_ALGORITHMS
from packing.simple_bounds import lower_bound
from pages import sweeps

HIST = SizeHistogram.from_sizes([3, 2, 3, 2, 5], [4, 2, 4, 2, 8])
NOT_WHOLE = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).filter(lambda v: not (math.isfinite(v) and v.is_integer())),
    st.booleans(), st.text(max_size=5), st.fractions().filter(lambda f: f.denominator != 1),
    st.integers(max_value=0), st.integers(min_value=2**40 + 1),
)


@settings(max_examples=150, deadline=None)
@given(NOT_WHOLE, st.sampled_from(["max_nodes", "max_edges", "max_graphs"]))
def test_limits_refuse_anything_but_whole_numbers_in_range(value, field):
    values = {"max_nodes": 10, "max_edges": 10, "max_graphs": 4, field: value}
    with pytest.raises(ValueError, match=field):
        PackLimits(**values)
    with pytest.raises(ValueError, match=field):
        pack(HIST, **values)


@settings(max_examples=100, deadline=None)
@given(NOT_WHOLE)
def test_sweep_values_are_refused_the_same_way(value):
    with pytest.raises(ValueError):
        sweep(HIST, [6, value], [8], workers=1)
    with pytest.raises(ValueError):
        sweep(HIST, [6], [8], max_graphs=value, workers=1)


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True).filter(lambda v: not math.isfinite(v) or v < 0),
                 st.booleans(), st.text(max_size=3)))
def test_weights_must_be_finite_non_negative_numbers(bad):
    for weights in ((bad, 1.0), (1.0, bad)):
        with pytest.raises(ValueError, match="weights must be"):
            PackMethod("best_fit", "weighted", weights=weights)


def test_integral_numbers_of_any_type_are_accepted():
    limits = PackLimits(np.int64(10), 12.0, np.uint8(4))
    assert limits == PackLimits(10, 12, 4) and all(type(v) is int for v in limits.to_dict().values())
    assert json.loads(json.dumps(limits.to_dict())) == {"max_nodes": 10, "max_edges": 12, "max_graphs": 4}
    assert hash(limits) == hash(PackLimits(10, 12, 4))


def test_old_holes_are_closed():
    with pytest.raises(ValueError, match="must be a PackLimits"):
        lower_bound(HIST, 5.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="node limit must be a whole number"):
        sweep(HIST, ["6"], [8], workers=1)
    with pytest.raises(ValueError, match="max_nodes must lie between 1 and 1,099,511,627,775"):
        PackLimits(2**64, 1)
    with pytest.raises(ValueError, match="max_edges must be a whole number, got None"):
        PackLimits(3, None)  # type: ignore[arg-type]  (None means "data default" only in pack's keyword form)


@pytest.mark.parametrize("settings_, message", [
    (dict(algorithm="none", heuristic="sum"), "takes no heuristic"),
    (dict(algorithm="node_only", weights=(1, 2)), "takes no weights"),
    (dict(algorithm="edge_only", improve=True), "cannot be improved"),
    (dict(algorithm="best_fit", heuristic="sum", weights=(1, 2)), "apply to the 'weighted' heuristic only"),
    (dict(algorithm="best_fit", heuristic="weighted"), "needs weights"),
    (dict(algorithm="best_fit", one_dim="lpfhp"), "one_dim is for the node_only / edge_only baselines"),
    (dict(algorithm="none", one_dim="lpfhp"), "one_dim is for the node_only / edge_only baselines"),
    (dict(algorithm="best", heuristic="sum"), "tries every heuristic itself"),
    (dict(algorithm="node_only", one_dim="lp"), "Unknown 1D algorithm 'lp'"),
    (dict(algorithm="nope"), "Unknown algorithm 'nope'"),
    (dict(algorithm="best_fit", improve="yes"), "improve must be True or False"),
])
def test_settings_that_do_not_apply_are_refused_not_ignored(settings_, message):
    with pytest.raises(ValueError, match=message):
        PackMethod(**settings_)
    with pytest.raises(ValueError, match=message):
        pack(HIST, **settings_)


def test_every_valid_method_round_trips_and_packs():
    methods = [PackMethod(a, h) for a in TUPLE_ALGORITHMS for h in HEURISTICS]
    methods += [PackMethod(b, one_dim=o) for b in ("node_only", "edge_only") for o in ONE_DIM_ALGORITHMS]
    methods += [PackMethod("none"), PackMethod("best"), PackMethod("best", improve=False),
                PackMethod("first_fit", "weighted", weights=(2, 0.5), improve=True)]
    for method in methods:
        assert PackMethod.from_dict(json.loads(json.dumps(method.to_dict()))) == method
        plan = pack(HIST, PackLimits(8, 12, 4), method)
        assert plan.check(HIST) and plan.requested_method.algorithm == method.algorithm
        assert plan.method.unlimited == method.unlimited


def test_the_keyword_form_builds_the_same_values():
    assert pack(HIST, max_nodes=8, max_edges=12, max_graphs=4, algorithm="first_fit", heuristic="sum") == \
        pack(HIST, PackLimits(8, 12, 4), PackMethod("first_fit", "sum"))
    assert pack(HIST).limits == PackLimits.for_histogram(HIST)  # unset limits: the largest graph, 256 graphs
    with pytest.raises(ValueError, match="either as a PackLimits or as max_nodes"):
        pack(HIST, PackLimits(8, 12), max_nodes=9)
    with pytest.raises(ValueError, match="either as a PackMethod or as keywords"):
        pack(HIST, method=PackMethod(), heuristic="sum")


@pytest.mark.parametrize("text", ["100:420:50", "5:5:1", "222:444:111", "10:19:3"])
def test_the_command_line_and_the_dashboard_make_the_same_grid(text):
    start, stop, step = (int(v) for v in text.split(":"))
    params = {"n0": start, "n1": stop, "ns": step, "e0": start, "e1": stop, "es": step}
    assert _int_list(text) == sweeps.grid(params)[0] == sweeps.grid(params)[1] == limit_grid(start, stop, step)
    assert _int_list(text)[-1] == stop
