"""The cost model: seconds per training step as a function of the padded batch shape
(nodes, edges, graphs), fitted to measured step times, with its error on held-out shapes.

Four forms are fitted, all to relative error (a 1 ms step matters as much as a 1 s one):

``linear``
    t = a + b * nodes + c * edges + d * graphs, every coefficient >= 0 (more work never
    takes less time), by non-negative least squares.
``piecewise``
    linear, plus p * max(0, nodes - n0) + q * max(0, edges - e0) (p, q >= 0): a node or
    edge costs more once the batch outgrows a size (a CPU's caches). The knots n0 and e0
    are tried at the quartiles of the timed nodes and edges; the best pair is kept.
``floor``
    t = max(f, a + b * nodes + c * edges + d * graphs): a device that is launch-bound on
    small batches (a GPU) takes the same time f until the work fills it, then grows
    linearly (a roofline).
``loglinear``
    log t = a + b log(nodes) + c log(edges + 1) + d log(graphs): a power law, for devices
    whose cost per element changes with the size (caches).

Each form's error is measured by K-fold cross-validation over the timed shapes (every
shape predicted by a fit that did not see it). ``linear`` is used unless another form's
held-out RMS relative error is below :data:`SWITCH_RATIO` times its own: the residuals
must ask for the other form (and a fit exact to rounding asks for nothing). The error band of an estimate is the chosen form's
90th-percentile held-out relative error.

>>> import numpy as np
>>> shapes = np.array([[n, n * r, g] for n in (64, 1024, 4096) for r in (1, 4) for g in (1, 32)])
>>> seconds = 0.002 + 1e-6 * shapes[:, 0] + 2e-7 * shapes[:, 1] + 3e-5 * shapes[:, 2]
>>> fit = fit_cost_model(shapes, seconds)
>>> fit.form, round(fit.coefficients["graphs"] * 1e5, 3), fit.held_out["p90"] < 1e-6
('linear', 3.0, True)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import nnls

from .records import LONGEST, SHORTEST

FORMS = ("linear", "piecewise", "floor", "loglinear")
#: Another form replaces ``linear`` only if its held-out RMS relative error is below this
#: share of linear's.
SWITCH_RATIO = 0.8
#: A held-out RMS relative error below this is exact (rounding): no other form can improve on it.
EXACT = 1e-6
#: Fewest timed shapes a fit accepts (four coefficients plus held-out shapes).
MIN_SHAPES = 6
#: Folds of the cross-validation (fewer when there are fewer shapes).
FOLDS = 5
_TERMS = ("intercept", "nodes", "edges", "graphs")
_LOG_TERMS = ("log_intercept", "log_nodes", "log_edges", "log_graphs")
_HINGE_TERMS = ("nodes_above", "edges_above")
_KNOTS = ("nodes_knot", "edges_knot")


def _design(shapes: np.ndarray) -> np.ndarray:
    return np.column_stack([np.ones(len(shapes)), shapes.astype(np.float64)])


def _log_design(shapes: np.ndarray) -> np.ndarray:
    shapes = shapes.astype(np.float64)
    return np.column_stack([np.ones(len(shapes)), np.log(shapes[:, 0]), np.log1p(shapes[:, 1]),
                            np.log(shapes[:, 2])])


def _relative_nnls(design: np.ndarray, seconds: np.ndarray) -> np.ndarray:
    """Non-negative coefficients minimising the sum of squared relative errors."""
    rows = design / seconds[:, None]
    scale = np.abs(rows).max(axis=0)
    scale[scale == 0] = 1.0
    solution, _ = nnls(rows / scale, np.ones(len(seconds)), maxiter=50 * design.shape[1])
    return solution / scale


def _fit_linear(shapes: np.ndarray, seconds: np.ndarray) -> dict[str, float]:
    return dict(zip(_TERMS, _relative_nnls(_design(shapes), seconds).tolist()))


def _hinge_design(shapes: np.ndarray, nodes_knot: float, edges_knot: float) -> np.ndarray:
    shapes = shapes.astype(np.float64)
    return np.column_stack([_design(shapes), np.maximum(0.0, shapes[:, 0] - nodes_knot),
                            np.maximum(0.0, shapes[:, 1] - edges_knot)])


def _fit_piecewise(shapes: np.ndarray, seconds: np.ndarray) -> dict[str, float]:
    """Linear plus a hinge in nodes and one in edges, knots at the quartiles (best pair)."""
    best: tuple[float, dict[str, float]] | None = None
    quartiles = (0.25, 0.5, 0.75)
    for nodes_knot in np.unique(np.quantile(shapes[:, 0], quartiles, method="lower")):
        for edges_knot in np.unique(np.quantile(shapes[:, 1], quartiles, method="lower")):
            design = _hinge_design(shapes, nodes_knot, edges_knot)
            beta = _relative_nnls(design, seconds)
            loss = float(np.sum((design @ beta / seconds - 1) ** 2))
            if best is None or loss < best[0]:
                best = (loss, {**dict(zip(_TERMS + _HINGE_TERMS, beta.tolist())),
                               "nodes_knot": float(nodes_knot), "edges_knot": float(edges_knot)})
    return best[1]


def _fit_floor(shapes: np.ndarray, seconds: np.ndarray) -> dict[str, float]:
    """The floor f is tried at every measured time in the faster half; the linear part is
    fitted to the shapes slower than f; the pair with the smallest relative error wins."""
    design = _design(shapes)
    best: tuple[float, dict[str, float]] | None = None
    for floor in np.unique(np.sort(seconds)[: max(1, len(seconds) // 2)]):
        above = seconds > floor
        if above.sum() < len(_TERMS) + 1:
            continue
        beta = _relative_nnls(design[above], seconds[above])
        predicted = np.maximum(floor, design @ beta)
        loss = float(np.sum(((predicted - seconds) / seconds) ** 2))
        if best is None or loss < best[0]:
            best = (loss, {**dict(zip(_TERMS, beta.tolist())), "floor": float(floor)})
    if best is None:  # too few shapes above any floor: a floor of zero is the linear fit
        return {**_fit_linear(shapes, seconds), "floor": 0.0}
    return best[1]


def _fit_loglinear(shapes: np.ndarray, seconds: np.ndarray) -> dict[str, float]:
    beta, *_ = np.linalg.lstsq(_log_design(shapes), np.log(seconds), rcond=None)
    return dict(zip(_LOG_TERMS, beta.tolist()))


_FITTERS = {"linear": _fit_linear, "piecewise": _fit_piecewise, "floor": _fit_floor, "loglinear": _fit_loglinear}


def predict(form: str, coefficients: dict[str, float], shapes: np.ndarray) -> np.ndarray:
    """Seconds per step of ``form`` with ``coefficients`` at each (nodes, edges, graphs) row.

    >>> predict("linear", {"intercept": 1.0, "nodes": 0.5, "edges": 0.0, "graphs": 2.0}, np.array([[4, 9, 1]]))
    array([5.])
    """
    shapes = np.asarray(shapes)
    if form == "loglinear":
        return np.exp(_log_design(shapes) @ np.array([coefficients[t] for t in _LOG_TERMS]))
    if form == "piecewise":
        design = _hinge_design(shapes, coefficients["nodes_knot"], coefficients["edges_knot"])
        return design @ np.array([coefficients[t] for t in _TERMS + _HINGE_TERMS])
    linear = _design(shapes) @ np.array([coefficients[t] for t in _TERMS])
    return np.maximum(coefficients["floor"], linear) if form == "floor" else linear


def _folds(count: int) -> np.ndarray:
    """Fold of every shape: a fixed permutation dealt round-robin (the same on every machine)."""
    folds = min(FOLDS, count)
    order = np.random.default_rng(0).permutation(count)
    assignment = np.empty(count, dtype=np.int64)
    assignment[order] = np.arange(count) % folds
    return assignment


def held_out_errors(form: str, shapes: np.ndarray, seconds: np.ndarray) -> np.ndarray:
    """Relative error (predicted / measured - 1) of every shape, predicted by the fit of
    ``form`` to the other folds.

    >>> shapes = np.array([[n, 2 * n, 1 + n // 64] for n in range(64, 1088, 64)])
    >>> seconds = 1e-3 + 2e-6 * shapes[:, 0] + 1e-7 * shapes[:, 1]  # exactly linear
    >>> bool(np.abs(held_out_errors("linear", shapes, seconds)).max() < 1e-9)
    True
    """
    folds = _folds(len(seconds))
    errors = np.empty(len(seconds))
    for fold in np.unique(folds):
        test = folds == fold
        coefficients = _FITTERS[form](shapes[~test], seconds[~test])
        errors[test] = predict(form, coefficients, shapes[test]) / seconds[test] - 1
    return errors


def error_summary(errors: np.ndarray) -> dict[str, float]:
    """Median, 90th percentile, largest and RMS of the absolute relative errors.

    >>> summary = error_summary(np.array([0.1, -0.2, 0.05, 0.0]))
    >>> {name: round(value, 3) for name, value in summary.items()}
    {'median': 0.075, 'p90': 0.2, 'max': 0.2, 'rms': 0.115, 'shapes': 4}
    """
    size = np.abs(errors)
    return {"median": float(np.median(size)), "p90": float(np.quantile(size, 0.9, method="higher")),
            "max": float(size.max()), "rms": float(np.sqrt(np.mean(size ** 2))), "shapes": int(size.size)}


@dataclass(frozen=True)
class CostFit:
    """A fitted cost model: the chosen ``form``, its ``coefficients`` (seconds, seconds per
    node / edge / graph; log terms for ``loglinear``), its ``held_out`` error summary and
    every form's held-out summary in ``forms``."""

    form: str
    coefficients: dict[str, float]
    held_out: dict[str, float]
    forms: dict[str, dict[str, float]]

    @property
    def error_band(self) -> float:
        """Relative error band of a prediction: the 90th-percentile held-out error."""
        return self.held_out["p90"]

    def predict(self, shapes: np.ndarray) -> np.ndarray:
        """Seconds per step at each (nodes, edges, graphs) row."""
        return predict(self.form, self.coefficients, shapes)

    def to_dict(self) -> dict[str, Any]:
        return {"form": self.form, "coefficients": dict(self.coefficients), "held_out": dict(self.held_out),
                "forms": {name: dict(summary) for name, summary in self.forms.items()},
                "switch_ratio": SWITCH_RATIO, "folds": min(FOLDS, self.held_out["shapes"])}

    def describe(self) -> str:
        """The model in words (coefficients in microseconds).

        >>> CostFit("linear", {"intercept": 0.002, "nodes": 1e-6, "edges": 2e-7, "graphs": 3e-5},
        ...         {"p90": 0.05}, {}).describe()
        'step = 2000 us + 1 us x nodes + 0.2 us x edges + 30 us x graphs'
        """
        c = {name: value * 1e6 for name, value in self.coefficients.items()}
        if self.form == "loglinear":
            return (f"step = {math.exp(self.coefficients['log_intercept']) * 1e6:.3g} us x nodes^{c['log_nodes'] / 1e6:.2f}"
                    f" x (edges+1)^{c['log_edges'] / 1e6:.2f} x graphs^{c['log_graphs'] / 1e6:.2f}")
        linear = (f"{c['intercept']:.4g} us + {c['nodes']:.3g} us x nodes + {c['edges']:.3g} us x edges + "
                  f"{c['graphs']:.3g} us x graphs")
        if self.form == "piecewise":
            k = self.coefficients
            return (f"step = {linear} + {c['nodes_above']:.3g} us x nodes over {k['nodes_knot']:,.0f} + "
                    f"{c['edges_above']:.3g} us x edges over {k['edges_knot']:,.0f}")
        return f"step = max({c['floor']:.4g} us, {linear})" if self.form == "floor" else f"step = {linear}"


def check_timings(shapes: Any, seconds: Any) -> tuple[np.ndarray, np.ndarray]:
    """Shapes as an (n, 3) int array of (nodes >= 1, edges >= 0, graphs >= 1) and positive
    finite seconds; ``ValueError`` naming the problem otherwise.

    >>> check_timings([(64, 128, 1)] * 6, [0.01] * 5)
    Traceback (most recent call last):
    ...
    ValueError: Need one time per shape: 6 shapes, 5 times.
    """
    shapes = np.asarray(shapes)
    seconds = np.asarray(seconds, dtype=np.float64)
    if shapes.ndim != 2 or shapes.shape[1] != 3 or shapes.dtype.kind not in "iu":
        raise ValueError("shapes must be rows of three whole numbers (nodes, edges, graphs).")
    if seconds.shape != (len(shapes),):
        raise ValueError(f"Need one time per shape: {len(shapes)} shapes, {seconds.size} times.")
    if len(shapes) < MIN_SHAPES:
        raise ValueError(f"A cost model needs at least {MIN_SHAPES} timed shapes, got {len(shapes)}.")
    if (shapes[:, 0] < 1).any() or (shapes[:, 1] < 0).any() or (shapes[:, 2] < 1).any():
        raise ValueError("Every shape needs at least 1 node and 1 graph, and no negative edge count.")
    if not np.all(np.isfinite(seconds)) or (seconds < SHORTEST).any() or (seconds > LONGEST).any():
        raise ValueError(f"Step times must be finite seconds between {SHORTEST:g} and {LONGEST:g}.")
    if (shapes > 2**40).any():
        raise ValueError("Shapes must have at most 2^40 nodes, edges and graphs.")
    return shapes.astype(np.int64), seconds


def fit_cost_model(shapes: Any, seconds: Any) -> CostFit:
    """Fit every form to the step ``seconds`` measured at ``shapes`` ((nodes, edges, graphs)
    rows), cross-validate each, and keep ``linear`` unless the residuals ask for another
    form (module docstring). Deterministic: the same timings give the same fit.

    Args:
        shapes: (nodes, edges, graphs) rows (``BatchShape`` values or an (n, 3) array).
        seconds: the measured seconds per step at each shape.

    Returns:
        The chosen fit with its held-out errors and those of every form.

    Raises:
        ValueError: too few shapes, malformed shapes, or seconds that are not positive
            and finite (:func:`check_timings`).
    """
    shapes, seconds = check_timings(shapes, seconds)
    forms = {form: error_summary(held_out_errors(form, shapes, seconds)) for form in FORMS}
    chosen = "linear"
    for form in FORMS[1:]:
        if forms[chosen]["rms"] > EXACT and forms[form]["rms"] < SWITCH_RATIO * forms[chosen]["rms"]:
            chosen = form
    return CostFit(chosen, _FITTERS[chosen](shapes, seconds), forms[chosen], forms)


def cost_fit_from_dict(data: Any, where: str = "fit") -> CostFit:
    """Rebuild a :class:`CostFit` from :meth:`CostFit.to_dict` (``ValueError`` naming the field).

    >>> cost_fit_from_dict({"form": "cubic"})
    Traceback (most recent call last):
    ...
    ValueError: fit.form must be one of linear, piecewise, floor, loglinear, got 'cubic'.
    """
    if not isinstance(data, dict):
        raise ValueError(f"{where} must be an object.")
    form = data.get("form")
    if form not in FORMS:
        raise ValueError(f"{where}.form must be one of {', '.join(FORMS)}, got {form!r}.")
    terms = {"linear": _TERMS, "piecewise": _TERMS + _HINGE_TERMS + _KNOTS, "floor": _TERMS + ("floor",),
             "loglinear": _LOG_TERMS}[form]
    coefficients = data.get("coefficients")
    if not isinstance(coefficients, dict) or set(coefficients) != set(terms) or not all(
            _is_number(v) for v in coefficients.values()):
        raise ValueError(f"{where}.coefficients must give the numbers {', '.join(terms)}.")
    held_out, forms = data.get("held_out"), data.get("forms")
    if not isinstance(held_out, dict) or not all(_is_number(held_out.get(k)) for k in ("median", "p90", "max", "rms")):
        raise ValueError(f"{where}.held_out must give median, p90, max and rms errors.")
    if not isinstance(forms, dict) or not all(isinstance(v, dict) for v in forms.values()):
        raise ValueError(f"{where}.forms must map each form to its held-out errors.")
    return CostFit(form, {k: float(v) for k, v in coefficients.items()}, dict(held_out), forms)


def _is_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
