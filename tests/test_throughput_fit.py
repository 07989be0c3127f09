"""The cost model: known coefficients come back from synthetic timings, the form follows
the residuals, held-out errors are honest, bad timings are refused."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from throughput.fit import SWITCH_RATIO, fit_cost_model, held_out_errors, predict
from throughput.shapes import default_shapes

SHAPES = np.array(default_shapes(24), dtype=np.int64)
TRUE = {"intercept": 2e-3, "nodes": 1.5e-6, "edges": 4e-7, "graphs": 2e-5}


def linear_seconds(shapes: np.ndarray, coefficients: dict[str, float]) -> np.ndarray:
    return predict("linear", coefficients, shapes)


def test_fit_recovers_known_coefficients_exactly():
    fit = fit_cost_model(SHAPES, linear_seconds(SHAPES, TRUE))
    assert fit.form == "linear"
    for name, value in TRUE.items():
        assert fit.coefficients[name] == pytest.approx(value, rel=1e-6)
    assert fit.held_out["max"] < 1e-6


def test_fit_recovers_coefficients_through_timing_noise():
    rng = np.random.default_rng(1)
    noisy = linear_seconds(SHAPES, TRUE) * rng.lognormal(0, 0.03, len(SHAPES))
    fit = fit_cost_model(SHAPES, noisy)
    assert fit.form == "linear"
    for name in ("intercept", "nodes", "edges"):
        assert fit.coefficients[name] == pytest.approx(TRUE[name], rel=0.15)
    # the held-out error reflects the 3 % noise: neither hidden nor inflated
    assert 0.01 < fit.held_out["median"] < 0.08


def test_launch_bound_floor_is_found_when_the_residuals_ask_for_it():
    linear = linear_seconds(SHAPES, {**TRUE, "intercept": 1e-4})
    floor = float(np.quantile(linear, 0.4))  # 40 % of the shapes launch-bound, as on a GPU
    seconds = np.maximum(floor, linear)
    fit = fit_cost_model(SHAPES, seconds)
    assert fit.form == "floor"
    assert fit.coefficients["floor"] == pytest.approx(floor, rel=1e-9)
    assert fit.forms["floor"]["rms"] < SWITCH_RATIO * fit.forms["linear"]["rms"]
    assert fit.held_out["p90"] < 0.05


def test_costs_that_grow_past_a_size_choose_the_piecewise_form():
    knot = float(np.quantile(SHAPES[:, 1], 0.5, method="lower"))  # edges cost 5x more past the median batch
    seconds = linear_seconds(SHAPES, TRUE) + 2e-6 * np.maximum(0, SHAPES[:, 1] - knot)
    fit = fit_cost_model(SHAPES, seconds)
    assert fit.form == "piecewise"
    assert fit.coefficients["edges_knot"] == knot
    assert fit.coefficients["edges_above"] == pytest.approx(2e-6, rel=1e-6)
    assert fit.coefficients["nodes_above"] == pytest.approx(0, abs=1e-12)
    assert fit.predict(SHAPES) == pytest.approx(seconds, rel=1e-6)
    assert "edges over" in fit.describe()


def test_power_law_timings_choose_the_log_linear_form():
    seconds = 1e-5 * SHAPES[:, 0] ** 0.6 * (SHAPES[:, 1] + 1) ** 0.3 * SHAPES[:, 2] ** 0.1
    fit = fit_cost_model(SHAPES, seconds)
    assert fit.form == "loglinear"
    assert fit.coefficients["log_nodes"] == pytest.approx(0.6, abs=1e-6)
    assert fit.predict(SHAPES) == pytest.approx(seconds, rel=1e-6)


def test_held_out_errors_come_from_fits_that_did_not_see_the_shape():
    seconds = linear_seconds(SHAPES, TRUE)
    seconds[5] *= 3  # one outlier: only its own held-out prediction is far off
    errors = held_out_errors("linear", SHAPES, seconds)
    assert abs(errors[5]) > 0.5
    fitted_on_all = fit_cost_model(SHAPES, seconds)
    in_sample = np.abs(fitted_on_all.predict(SHAPES) / seconds - 1)
    assert np.abs(errors).mean() > in_sample.mean()


def test_the_fit_is_deterministic():
    seconds = linear_seconds(SHAPES, TRUE) * np.random.default_rng(3).lognormal(0, 0.1, len(SHAPES))
    assert fit_cost_model(SHAPES, seconds) == fit_cost_model(SHAPES, seconds)


@pytest.mark.parametrize("shapes, seconds, message", [
    (SHAPES[:5], np.ones(5), "at least 6"),
    (SHAPES, -np.ones(len(SHAPES)), "finite seconds between"),
    (SHAPES, np.full(len(SHAPES), 5e-324), "finite seconds between 1e-09"),
    (SHAPES * 2**38, np.ones(len(SHAPES)), "at most 2\\^40"),
    (SHAPES, np.ones(3), "one time per shape"),
    (SHAPES.astype(float), np.ones(len(SHAPES)), "whole numbers"),
    (np.vstack([SHAPES, [[0, 1, 1]]]), np.ones(len(SHAPES) + 1), "at least 1 node"),
])
def test_bad_timings_are_refused(shapes, seconds, message):
    with pytest.raises(ValueError, match=message):
        fit_cost_model(shapes, seconds)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(1e-9, 1e-2), min_size=4, max_size=4), st.integers(0, 2**16))
def test_noise_free_linear_timings_are_predicted_exactly(values, seed):
    coefficients = dict(zip(("intercept", "nodes", "edges", "graphs"), [max(values[0], 1e-6), *values[1:]]))
    shapes = np.array(default_shapes(12, max_nodes=64 + seed % 4096), dtype=np.int64)
    seconds = linear_seconds(shapes, coefficients)
    fit = fit_cost_model(shapes, seconds)
    assert fit.predict(shapes) == pytest.approx(seconds, rel=1e-5)
    assert all(value >= 0 for value in fit.coefficients.values()) or fit.form == "loglinear"
