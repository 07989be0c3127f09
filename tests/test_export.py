"""packing.export: the configuration JSON round-trips and gives the same plan; figures
export to PNG (kaleido + Debian chromium) and standalone HTML."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from common_helpers import replaced

import data_loaders
from packing import TUPLE_ALGORITHMS, PackingPlan, PackLimits, PackMethod, SizeHistogram, lower_bounds, pack
from packing.export import config_histogram, export_config
from packing.io import SCHEMA_VERSION, config_json, load_config, save_config

DATA = Path(__file__).with_name("data")


@pytest.fixture(scope="module")
def molhiv() -> tuple[SizeHistogram, dict]:
    return data_loaders.load_histogram("ogbg-molhiv", "train")


def test_round_trip_through_a_file_gives_the_same_plan(molhiv, tmp_path):
    hist, info = molhiv
    plan = pack(hist, PackLimits(300, 600, 64), PackMethod("best_fit", "max"))
    config = export_config(plan, hist, info)
    path = save_config(config, tmp_path / "config.json")
    loaded_config, loaded_plan = load_config(path)
    assert loaded_plan == plan
    assert loaded_config["schema_version"] == SCHEMA_VERSION == 1
    assert loaded_config["dataset"]["provenance"] == info["provenance"]
    assert loaded_config["dataset"]["name"] == "ogbg-molhiv" and loaded_config["dataset"]["split"] == "train"
    assert config_histogram(loaded_config) == hist
    # Packing the stored histogram again with the stored values gives the same plan.
    again = pack(config_histogram(loaded_config), PackLimits.from_dict(loaded_config["plan"]["limits"]),
                 PackMethod.from_dict(loaded_config["plan"]["method"]))
    assert again == plan


@pytest.mark.parametrize("algorithm", ["best", "node_only", "none"])
def test_best_and_baselines_round_trip(molhiv, algorithm):
    hist, info = molhiv
    plan = pack(hist, algorithm=algorithm)
    config = export_config(plan, hist, info)
    _, loaded = load_config(config_json(config))
    assert loaded == plan and loaded.requested_method.algorithm == algorithm
    assert loaded.method.unlimited == plan.method.unlimited
    if algorithm == "best":
        assert plan.method.algorithm in TUPLE_ALGORITHMS and config["plan"]["method"]["heuristic"]
    if algorithm == "node_only":
        assert config["metrics"]["broken_limits"] == {"max_edges": plan.tight_limits[1]}


def test_schema_fields(molhiv):
    hist, info = molhiv
    plan = pack(hist, PackLimits(250, 520, 128))
    config = json.loads(config_json(export_config(plan, hist, info)))
    assert config["tool"]["version"]
    assert config["dataset"]["graphs"] == hist.num_graphs == 32901
    assert config["plan"]["limits"] == {"max_nodes": 250, "max_edges": 520, "max_graphs": 128}
    assert "limits" not in config  # written once, in the plan
    metrics = config["metrics"]
    assert metrics["packs"] == plan.num_packs and metrics["lower_bound"] == plan.lower_bound
    assert metrics["gap"] == pytest.approx(plan.gap)
    assert metrics["node_efficiency"] == pytest.approx(plan.node_efficiency)
    packs = config["plan"]["packs"]
    assert sum(p["count"] for p in packs) == plan.num_packs
    assert sum(p["count"] * k for p in packs for _, _, k in p["items"]) == hist.num_graphs


def test_extra_sections_are_kept_and_may_not_replace_the_core(molhiv):
    hist, info = molhiv
    plan = pack(hist)
    config, _ = load_config(config_json(export_config(plan, hist, info, {"notes": {"rows": [1, 2]}})))
    assert config["notes"] == {"rows": [1, 2]}
    with pytest.raises(ValueError, match="batching"):  # a known section is checked on load
        load_config(config_json(export_config(plan, hist, info, {"batching": {"rows": [1, 2]}})))
    with pytest.raises(ValueError, match="may not replace metrics"):
        export_config(plan, hist, info, {"metrics": {}})


def test_tampered_or_foreign_files_are_refused(molhiv, tmp_path):
    hist, info = molhiv
    config = export_config(pack(hist, PackLimits(250, 520, 128)), hist, info)
    edited = json.loads(config_json(config))
    edited["metrics"]["node_efficiency"] = 0.999
    with pytest.raises(ValueError, match="node_efficiency"):
        load_config(edited)
    edited = json.loads(config_json(config))
    edited["plan"]["packs"][0]["count"] += 1
    with pytest.raises(ValueError, match="does not pack the histogram exactly"):
        load_config(edited)
    edited = json.loads(config_json(config))
    edited["schema_version"] = SCHEMA_VERSION + 1
    with pytest.raises(ValueError, match="not supported"):
        load_config(edited)
    with pytest.raises(ValueError, match="invalid JSON"):
        load_config(b"{oops")
    with pytest.raises(ValueError, match="No configuration file"):
        load_config(tmp_path / "missing.json")
    with pytest.raises(ValueError, match="Not a graph packing configuration"):
        load_config({"schema": "x"})


def toy_config() -> dict:
    hist = SizeHistogram.from_sizes([3, 2, 3, 2, 6], [4, 2, 4, 2, 6])
    return json.loads(config_json(export_config(pack(hist, PackLimits(6, 8, 4)), hist, {"dataset": "toy"})))


def edit(path: tuple, value) -> dict:
    return replaced(toy_config(), path, value)


@pytest.mark.parametrize("path, value, message", [
    (("schema_version",), True, "schema version True is not supported"),
    (("plan", "packs", 0, "items", 0), [3.7, 4, 1], r"plan.packs\[0\].items\[0\] must be an integer, got 3.7"),
    (("plan", "packs", 0, "count"), "2", r"plan.packs\[0\].count must be an integer, got '2'"),
    (("plan", "unlimited"), "edges", "leaves None unlimited"),
    (("plan", "limits"), [6, 8, 4], "limits must be an object"),
    (("plan", "packs"), {"items": []}, "plan.packs must be a non-empty list"),
    (("plan",), [], "plan must be an object"),
    (("histogram", "count"), ["1"], "histogram.count must be a list of integers"),
    (("plan", "requested"), "best_fit", "plan: requested: method must be an object"),
    (("plan", "method", "heuristic"), "nope", "Unknown heuristic 'nope'"),
    (("plan", "limits", "max_nodes"), 2**64, "plan: limits.max_nodes must lie between"),
    (("metrics", "packs"), True, "metrics.packs"),
    (("plan", "packs", 0, "items", 0), [3, 4, 0], "copies must lie between 1 and 4"),
])
def test_every_malformed_field_is_named(path, value, message):
    with pytest.raises(ValueError, match=message):
        load_config(edit(path, value))


def test_a_tuple_plan_with_an_unlimited_component_is_refused():
    # A tuple-packing plan may not claim the edge limit does not apply (a 1D baseline's
    # privilege): its packs would break the limit and still verify.
    config = edit(("plan", "unlimited"), "edges")
    config["plan"]["packs"] = [{"items": [[2, 12, 1]], "count": 1}]
    with pytest.raises(ValueError, match="unlimited"):
        load_config(config)


def test_a_plan_without_packs_is_refused_by_name():
    with pytest.raises(ValueError, match="at least one pack"):
        PackingPlan([], PackLimits(5, 8, 4))


def test_odd_inputs_get_one_clear_error(tmp_path):
    for source in ("", "   ", tmp_path, b"", b"[1, 2]", "[" * 100_000, 42):
        with pytest.raises(ValueError):
            load_config(source)


def test_claims_are_checked_without_expanding_packs():
    # 100 packs claiming a million copies each (the old reader expanded them: minutes, GBs).
    config = toy_config()
    big = {"max_nodes": 10**6, "max_edges": 10**6, "max_graphs": 10**6}
    config["plan"]["limits"] = dict(big)
    config["plan"]["packs"] = [{"items": [[1, 1, 10**6]], "count": 10**6} for _ in range(100)]
    with pytest.raises(ValueError, match="does not pack the histogram exactly"):
        load_config(config)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_flipped_bytes_never_give_a_wrong_plan(data):
    text = config_json(toy_config()).encode()
    original = load_config(text)[1]
    position = data.draw(st.integers(0, len(text) - 1))
    flipped = bytearray(text)
    flipped[position] ^= data.draw(st.integers(1, 255))
    try:
        config, plan = load_config(bytes(flipped))
    except ValueError:
        return
    # A flip that still loads may only touch what does not change the plan (a date, a name,
    # whitespace); the plan and the histogram it packs are unchanged.
    assert plan == original and config_histogram(config) == config_histogram(load_config(text)[0])


def test_figures_export_to_png_and_html(molhiv):
    import figures
    from pages import cache

    hist, _ = molhiv
    plan = pack(hist, PackLimits(250, 520, 128))
    assert cache.png_browser() is not None, "PNG export needs chromium: apt-get install -y chromium"
    png = cache.figure_png(figures.graphs_per_pack_figure(plan))
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    html = cache.figure_html(figures.histogram_figure(hist)[0])
    assert html.lower().startswith("<!doctype html>") and len(html) > 1_000_000  # plotly.js embedded
    assert '<script src="https://cdn.plot.ly' not in html and "Plotly.newPlot" in html


def proven_toy_plan():
    """A plan whose gap only the LP bound closes: two (2, 14) graphs cannot share a pack of
    17 edges, three (5, 2) graphs need two packs of 11 nodes, and (2, 14) + 2 x (5, 2) is
    12 nodes: 3 packs, where the volume and large-items bounds prove 2."""
    hist = SizeHistogram.from_counts([2, 5], [14, 2], [2, 3])
    limits = PackLimits(11, 17, 4)
    plan = pack(hist, limits, PackMethod("best"))
    return hist, plan.with_bounds(lower_bounds(hist, limits, prove=True))


def test_an_lp_bound_travels_with_its_certificate_and_is_verified_on_load():
    hist, plan = proven_toy_plan()
    assert (plan.bounds.volume, plan.bounds.large_items, plan.bounds.lp) == (2, 2, 3)
    assert plan.num_packs == 3 and plan.bound_name == "lp" and plan.gap == 0
    config = json.loads(config_json(export_config(plan, hist, {"dataset": "toy"})))
    assert config["metrics"]["bound"] == "lp" and config["metrics"]["lower_bound"] == 3
    assert config["bounds"]["lp"] == 3 and config["bounds"]["name_of_best"] == "lp"
    assert len(config["bounds"]["lp_certificate"]["duals"]) == hist.num_tuples
    loaded_config, loaded = load_config(config)
    assert loaded == plan and loaded.bounds.lp == 3 and loaded.bound_name == "lp" and loaded.gap == 0
    again = json.loads(config_json(export_config(loaded, hist, {"dataset": "toy"})))
    assert again["bounds"] == config["bounds"]
    # A certificate proves the bound whatever claims it: it cannot be inflated ...
    edited = json.loads(json.dumps(config))
    edited["bounds"]["lp"] = edited["bounds"]["lp_certificate"]["bound"] = 4
    with pytest.raises(ValueError, match="not what its certificate proves"):
        load_config(edited)
    # ... nor be kept without its duals, nor name a bound the file does not hold.
    edited = json.loads(json.dumps(config))
    edited["bounds"]["lp_certificate"]["duals"] = [0.0, 0.0]
    with pytest.raises(ValueError, match="not what its certificate proves"):
        load_config(edited)
    edited = json.loads(json.dumps(config))
    edited["bounds"]["lp"] = edited["bounds"]["lp_certificate"] = None
    with pytest.raises(ValueError, match="name the best bound"):
        load_config(edited)
    edited = json.loads(json.dumps(config))
    edited["bounds"]["large_items"] = 3
    with pytest.raises(ValueError, match="bounds.large_items is 3"):
        load_config(edited)


def test_a_plan_without_a_proof_stores_the_cheap_bounds_only(molhiv):
    hist, info = molhiv
    plan = pack(hist, PackLimits(250, 520, 128))
    config = json.loads(config_json(export_config(plan, hist, info)))
    assert config["bounds"]["lp"] is None and config["bounds"]["lp_certificate"] is None
    assert config["metrics"]["bound"] == plan.bound_name == config["bounds"]["name_of_best"]
    assert load_config(config)[1].bounds == plan.bounds


@pytest.mark.parametrize("name", ["best", "edge_only"])
def test_files_of_development_versions_are_refused_with_the_version(name):
    """Schema 1 is the first release's; a file of a development version before it (2 to 4:
    graph-packing 0.2.0 wrote these two) is refused in one line saying so."""
    with pytest.raises(ValueError, match=r"^Configuration schema version 2 is not supported \(this tool reads version "
                                         r"1\): the file was written by an earlier development version; "
                                         r"export it again\.$"):
        load_config(DATA / f"config_v2_{name}.json")
    with pytest.raises(ValueError, match="schema version 4 is not supported"):
        load_config(edit(("schema_version",), 4))
