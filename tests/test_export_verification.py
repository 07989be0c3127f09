"""packing.io.load_config verifies every derived field of a configuration (issue 19):
a certificate that is out of range or claims more than it proves, edited metrics, dataset
summaries and dataset objects are each one clear ValueError, and so are throughput sections
(throughput.load_checked_config); a derived field changed to any other value never loads."""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app_helpers import as_read, chosen, started_app
from common_helpers import replaced
from test_export import proven_toy_plan, toy_config

from packing import PackLimits, PackMethod, SizeHistogram, lower_bounds, pack
from packing.column_generation import verify_certificate
from packing.export import export_config
from packing.io import config_json, load_config
from throughput import load_checked_config
from throughput.section import TABLE_COLUMNS


def proven_config() -> dict:
    """The toy whose gap only the LP bound closes (3 packs), exported with its certificate."""
    hist, plan = proven_toy_plan()
    return json.loads(config_json(export_config(plan, hist, {"dataset": "toy"})))


def certificate_edit(**fields) -> dict:
    config = proven_config()
    config["bounds"]["lp_certificate"].update(fields)
    return config


@pytest.mark.parametrize("duals, message", [
    ([1e308, 1e308], "pricing_bound"),         # proves 3 when scaled, but no pack is worth 1.0 under them
    ([1e308, 0.0], r"not what its certificate proves \(2\)"),
    ([10**400, 1], "bounds.lp_certificate.duals"),
    ([float("inf"), 0.5], "bounds.lp_certificate.duals"),
    ([float("nan"), 0.5], "bounds.lp_certificate.duals"),
    ([-0.5, 0.5], "bounds.lp_certificate.duals"),
    ([True, 0.5], "bounds.lp_certificate.duals"),
    (["0.5", 0.5], "bounds.lp_certificate.duals"),
    ([0.5], "bounds.lp_certificate.duals"),
    ("0.5", "bounds.lp_certificate.duals"),
    ([5e-324, 5e-324], "pricing_bound"),
    ([0.0, 0.0], r"not what its certificate proves \(0\)"),
])
def test_an_out_of_range_certificate_is_one_clear_error(duals, message):
    with pytest.raises(ValueError, match=message) as error:
        load_config(certificate_edit(duals=duals))
    assert "again" in str(error.value)  # says what to do: prove the bound again / export again


@pytest.mark.parametrize("fields, message", [
    ({"pricing_bound": 1e-300}, r"pricing_bound is 1e-300, but the most a pack is worth under its duals is 1.0"),
    ({"pricing_bound": 1.5}, "pricing_bound is 1.5"),
    ({"pricing_bound": float("inf")}, "pricing_bound must be a positive number"),
    ({"pricing_bound": True}, "pricing_bound must be a positive number"),
    ({"bound": 2}, r"bounds.lp_certificate.bound \(2\) is not what its certificate proves \(3\)"),
    ({"bound": 3.0}, "bounds.lp_certificate needs bound"),
    ({"converged": "yes"}, "bounds.lp_certificate needs bound"),
])
def test_every_certificate_field_is_checked(fields, message):
    with pytest.raises(ValueError, match=message):
        load_config(certificate_edit(**fields))


def test_a_certificate_is_the_same_whatever_the_scale_of_its_duals():
    # Farley's bound is the same for any positive multiple of the duals: scaled by 2**900
    # (or 2**-1000, below what a float holds exactly), with the pricing bound scaled alike,
    # the certificate proves the same bound, computed without overflow.
    for power in (900, -1000):
        config = proven_config()
        certificate = config["bounds"]["lp_certificate"]
        certificate["duals"] = [math.ldexp(value, power) for value in certificate["duals"]]
        certificate["pricing_bound"] = math.ldexp(certificate["pricing_bound"], power)
        _, plan = load_config(config)
        assert plan.bounds.lp == 3 and plan.bounds.lp_result.pricing_bound == certificate["pricing_bound"]


def test_a_certificate_for_no_lp_bound_is_refused():
    config = toy_config()
    config["bounds"]["lp_certificate"] = proven_config()["bounds"]["lp_certificate"]
    with pytest.raises(ValueError, match="lp_certificate must be null"):
        load_config(config)


def test_duals_too_small_for_the_pricing_table_still_count():
    # 10,000 graphs need a pack each (1,000 edges); 19,990,000 single nodes fit beside them
    # for free, so 10,000 packs is optimal. Duals 1 and 1e-12 used to drop the small graphs
    # from the knapsack and "prove" 10,001 packs.
    hist = SizeHistogram.from_counts([10, 1], [1000, 0], [10**4, 1999 * 10**4])
    limits = PackLimits(10**6, 1000, 2000)
    assert pack(hist, limits).num_packs == 10**4
    large_first = hist.num_nodes[0] == 10
    assert verify_certificate(hist, limits, [1.0, 1e-12] if large_first else [1e-12, 1.0]) <= 10**4


@pytest.mark.parametrize("path, value, message", [
    (("metrics", "tight_limits"), [6, 7], r"metrics.tight_limits \(\[6, 7\]\) does not match its plan and histogram "
                                          r"\(\[6, 8\]\)"),
    (("metrics", "strategies"), 99, r"metrics.strategies \(99\)"),
    (("metrics", "strategies"), 3.0, r"metrics.strategies \(3.0\)"),
    (("metrics", "broken_limits"), {"max_edges": 9}, "metrics.broken_limits"),
    (("metrics", "packs"), 3.0, r"metrics.packs \(3.0\)"),
    (("dataset", "graphs"), 4, r"dataset.graphs \(4\) does not match its plan and histogram \(5\)"),
    (("dataset", "largest_nodes"), 7, r"dataset.largest_nodes \(7\)"),
    (("dataset", "largest_edges"), "6", r"dataset.largest_edges \('6'\)"),
    (("dataset", "distinct_tuples"), True, r"dataset.distinct_tuples \(True\)"),
    (("bounds", "volume"), True, "bounds.volume is True"),
])
def test_edited_summaries_are_refused(path, value, message):
    with pytest.raises(ValueError, match=message):
        load_config(replaced(toy_config(), path, value))


def test_metrics_of_the_schema_3_file_are_required():
    config = toy_config()
    del config["metrics"]["broken_limits"]
    with pytest.raises(ValueError, match="metrics.broken_limits is missing"):
        load_config(config)


@pytest.mark.parametrize("edit, message", [
    (lambda c: c.pop("dataset"), "dataset must be an object"),
    (lambda c: c.update(dataset=[]), "dataset must be an object"),
    (lambda c: c.update(dataset={}), "dataset.name must be text"),
    (lambda c: c["dataset"].update(name=5), "dataset.name must be text"),
    (lambda c: c["dataset"].update(split=None), "dataset.split must be text"),
    (lambda c: c["dataset"].update(options=[]), "dataset.options must be an object"),
    (lambda c: c["dataset"].update(provenance=1), "dataset.provenance must be text"),
])
def test_the_dataset_object_is_checked(edit, message):
    config = toy_config()
    edit(config)
    with pytest.raises(ValueError, match=message):
        load_config(config)


def throughput_section() -> dict:
    """A section as throughput.throughput_section writes it (a short table)."""
    return {
        "version": 1, "calibration": {"label": "gin on a CPU", "device": {"type": "cpu"},
                                      "shape_range": [900, 1800, 40]},
        "run": {"batch_size": 4, "steps": None, "epochs": 1, "seed": 0, "devices": 1, "num_shapes": 8},
        "baseline": "pyg_dataloader", "check": None, "check_note": "not checked on this machine",
        "wall": {"workers": 0, "parallel_workers": 0, "device_batches": False, "priced": False},
        "table": [{"strategy": "packing", **dict.fromkeys(TABLE_COLUMNS, 0.5), "step_ms": 1.5, "run_s": 0.2,
                   "compilations": 0, "extrapolated": False, "settings": "1 pack(s) per batch"}],
    }


def test_a_throughput_section_as_exported_loads():
    section = throughput_section()
    config = toy_config()
    config["throughput"] = section
    assert load_checked_config(config)[0]["throughput"] == section


def test_the_engine_keeps_a_throughput_section_as_given():
    """The engine checks only that a throughput section is an object; its fields are the
    throughput package's to check."""
    config = toy_config()
    config["throughput"] = {"version": 2}
    assert load_config(config)[0]["throughput"] == {"version": 2}
    config["throughput"] = 5
    with pytest.raises(ValueError, match="throughput must be an object, got int"):
        load_config(config)


@pytest.mark.parametrize("path, value, message", [
    ((), 5, "throughput must be an object"),
    (("version",), 2, r"throughput.version 2 is not supported \(this tool reads version 1\): the section was written "
                      "by an earlier development version; export the configuration again"),
    (("version",), True, "throughput.version True is not supported"),
    (("calibration",), "cpu.json", "throughput.calibration must be an object"),
    (("run",), None, "throughput.run must be an object"),
    (("baseline",), 7, "throughput.baseline must be text"),
    (("check",), [], "throughput.check must be an object or null"),
    (("check_note",), None, "throughput.check_note must be text"),
    (("wall",), None, "throughput.wall must be an object, got null"),
    (("wall", "priced"), None, "throughput.wall.priced must be true or false"),
    (("calibration", "shape_range"), None, "throughput.calibration.shape_range must be a list of three whole numbers"),
    (("table", 0, "max_padded_graphs"), None, r"throughput.table\[0\].max_padded_graphs must be a finite number"),
    (("table",), [], "throughput.table must be a non-empty list"),
    (("table", 0), "packing", r"throughput.table\[0\] must be an object"),
    (("table", 0, "strategy"), 3, r"throughput.table\[0\].strategy must be text"),
    (("table", 0, "step_ms"), "fast", r"throughput.table\[0\].step_ms must be a finite number, got 'fast'"),
    (("table", 0, "run_s"), None, r"throughput.table\[0\].run_s must be a finite number"),
    (("table", 0, "run_s"), float("inf"), r"throughput.table\[0\].run_s must be a finite number"),
    (("table", 0, "compilations"), True, r"throughput.table\[0\].compilations must be a finite number"),
    (("table", 0, "extrapolated"), "no", r"throughput.table\[0\].extrapolated must be true or false"),
    (("table", 0, "settings"), 1, r"throughput.table\[0\].settings must be text"),
    (("table", 0), {"strategy": "packing", "run_s": 0.2}, r"throughput.table\[0\] lacks steps_per_epoch, step_ms, "
                                                          r"steady_epoch_s, steady_low, steady_high, run_low"),
])
def test_a_garbage_throughput_section_is_refused(path, value, message):
    config = toy_config()
    config["throughput"] = replaced(throughput_section(), path, value) if path else value
    with pytest.raises(ValueError, match=message):
        load_checked_config(config)


# ------------------------------------------------------------------ the property
DERIVED = [("metrics", name) for name in ("packs", "lower_bound", "gap", "node_efficiency", "edge_efficiency",
                                          "harmonic_mean", "packing_factor", "bound", "strategies", "tight_limits",
                                          "graph_capacity", "broken_limits")] + \
          [("dataset", name) for name in ("graphs", "largest_nodes", "largest_edges", "distinct_tuples")] + \
          [("bounds", name) for name in ("volume", "large_items", "large_items_by", "lp", "best", "name_of_best",
                                         "lp_certificate")] + \
          [("bounds", "lp_certificate", name) for name in ("pricing_bound", "bound")]

ANY_VALUE = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 10**6), st.integers(), st.floats(), st.text(max_size=4),
    st.sampled_from(["volume", "large_items", "lp", "nodes", "edges"]),
    st.lists(st.integers(0, 40), max_size=3), st.dictionaries(st.sampled_from(["max_nodes", "max_edges"]),
                                                               st.integers(0, 40), max_size=2),
)


def nearby(value) -> st.SearchStrategy:
    """Values close to ``value``: one more or less, a relative 1e-6 off, as a float or text."""
    if isinstance(value, bool) or value is None:
        return st.just(not value)
    if isinstance(value, (int, float)):
        return st.sampled_from([value + 1, value - 1, value * (1 + 1e-6) + 1e-9, float(value), str(value)])
    if isinstance(value, list):
        return st.sampled_from([[v + 1 for v in value], value[::-1], value + [0]])
    if isinstance(value, dict):
        return st.sampled_from([{**value, "max_nodes": 1}, {}, {"max_edges": 10**6}])
    return st.sampled_from([value + "x", value.upper(), ""])


def same(new, old) -> bool:
    """Whether ``new`` is ``old`` as a stored value (numbers within 1e-9, else equal, same JSON type)."""
    if isinstance(old, float) or isinstance(new, float):
        return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (new, old)) and \
            math.isclose(new, old, rel_tol=1e-9, abs_tol=1e-12)
    return type(new) is type(old) and new == old


@st.composite
def exported(draw) -> dict:
    """A real exported configuration: a small random histogram packed with best of all,
    its LP bound proved or not."""
    rows = draw(st.lists(st.tuples(st.integers(1, 12), st.integers(0, 20), st.integers(1, 6)), min_size=1,
                         max_size=5, unique_by=lambda row: row[:2]))
    hist = SizeHistogram.from_counts(*map(list, zip(*rows)))
    limits = PackLimits(hist.largest_nodes + draw(st.integers(0, 10)), max(hist.largest_edges, 1) + draw(st.integers(0, 20)),
                        draw(st.integers(2, 6)))
    plan = pack(hist, limits, PackMethod("best"))
    if draw(st.booleans()):
        plan = plan.with_bounds(lower_bounds(hist, limits, prove=True, time_budget=5, packs=plan.packs))
    return json.loads(config_json(export_config(plan, hist, {"dataset": "random"})))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_derived_field_changed_to_another_value_never_loads(data):
    config = data.draw(exported())
    original = load_config(config)[1]
    path = data.draw(st.sampled_from([p for p in DERIVED if len(p) < 3 or config["bounds"]["lp"] is not None]))
    old = config
    for key in path:
        old = old[key]
    new = data.draw(st.one_of(ANY_VALUE, nearby(old)))
    if same(new, old):
        return
    try:
        _, plan = load_config(replaced(config, path, new))
    except ValueError:
        return
    pytest.fail(f"{'.'.join(path)} changed from {old!r} to {new!r} loaded: {plan.bounds}, original {original.bounds}")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_certificate_never_proves_more_than_the_lp_optimum(data):
    # Whatever the duals and pricing bound, loading either refuses them (ValueError) or
    # returns an LP bound no larger than the LP optimum's ceiling (3 for the toy).
    config = proven_config()
    certificate = config["bounds"]["lp_certificate"]
    scale = data.draw(st.sampled_from([1.0, 2.0**-1070, 1e-300, 1e-12, 1e300, 2.0**1000]))
    duals = data.draw(st.lists(st.floats(min_value=0, allow_infinity=False), min_size=2, max_size=2)
                      | st.just([v * scale for v in certificate["duals"]]))
    most = data.draw(st.floats(min_value=0, allow_infinity=False) | st.just(certificate["pricing_bound"] * scale))
    certificate.update(duals=duals, pricing_bound=most)
    try:
        _, plan = load_config(config)
    except ValueError:
        return
    assert plan.bounds.lp <= 3  # the toy packs into 3


# ------------------------------------------------------------------ the Export page
def upload(app, config: dict) -> None:
    app.get("file_uploader")[0].set_value(("bad.json", json.dumps(config).encode(), "application/json"))
    app.run()
    assert not app.exception, [e.value for e in app.exception]


def test_the_export_page_names_what_is_wrong_with_a_dataset_object():
    app = started_app()
    app.switch_page("pages/export_page.py").run()
    for edit in (lambda c: c.pop("dataset"), lambda c: c.update(dataset={}), lambda c: c["dataset"].update(name=5)):
        config = toy_config()
        edit(config)
        upload(app, config)
        errors = [as_read(e.value) for e in app.error]
        assert len(errors) == 1 and errors[0].startswith("**Could not load bad.json.** dataset"), errors
    # A configuration that verifies but names a split or options the dataset does not have
    # here is not applied, and the page says why (the sidebar used to fail on them).
    for dataset, message in (({"split": "valid"}, "qm9 has no split 'valid'"),
                             ({"options": {"graph": 5}}, "Option graph must be one of"),
                             ({"options": {"graph": "radius", "cutoff": -1.0}}, "cutoff"),
                             ({"options": {"bonds": True}}, "qm9 has no option bonds")):
        config = toy_config()
        config["dataset"].update(name="qm9", **dataset)
        upload(app, config)
        app.button(key="ex_apply").click().run()
        assert not app.exception, [e.value for e in app.exception]
        errors = [as_read(e.value) for e in app.error]
        assert len(errors) == 1 and errors[0].startswith("The configuration could not be applied: ") and \
            message in errors[0], errors
        assert chosen(app).limits != PackLimits(6, 8, 4)  # the toy's limits were not applied


def test_the_harmonic_mean_of_graphs_without_edges_is_their_node_efficiency():
    """Graphs without edges are judged by their nodes: a file stores that, and any other
    value (the two-sided mean, 0, among them) is refused as edited."""
    hist = SizeHistogram.from_sizes([3, 2, 5, 4, 1], [0] * 5)
    plan = pack(hist, PackLimits(8, 1, 4))
    config = json.loads(config_json(export_config(plan, hist, {"dataset": "toy"})))
    assert config["metrics"]["harmonic_mean"] == plan.node_efficiency
    assert load_config(config)[1].num_packs == plan.num_packs
    for stored in (0.0, 0.5):
        with pytest.raises(ValueError, match="metrics.harmonic_mean"):
            load_config(replaced(config, ("metrics", "harmonic_mean"), stored))


def test_a_size_tables_configuration_of_a_named_dataset_is_applied_as_its_graphs():
    """`python -m packing pack table.csv --dataset ogbg-molhiv --out x.json` names no split
    ("whole table"): the Export page applies it as an upload of its graphs, not as a split."""
    app = started_app()
    app.switch_page("pages/export_page.py").run()
    config = toy_config()
    config["dataset"].update(name="ogbg-molhiv", split="whole table")
    upload(app, config)
    app.button(key="ex_apply").click().run()
    assert not app.exception and not app.error, [e.value for e in [*app.exception, *app.error]]
    assert app.session_state["selection"].name == "upload:ogbg-molhiv"
    assert chosen(app).limits == PackLimits(6, 8, 4)
