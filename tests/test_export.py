"""packing.export: the configuration JSON round-trips and gives the same plan; figures
export to PNG (kaleido + Debian chromium) and standalone HTML."""
from __future__ import annotations

import json

import pytest

import data_loaders
from packing import ALGORITHMS, BEST, HEURISTICS, SizeHistogram, pack
from packing.export import (
    SCHEMA_VERSION,
    config_histogram,
    config_json,
    export_config,
    load_config,
    save_config,
)


@pytest.fixture(scope="module")
def molhiv() -> tuple[SizeHistogram, dict]:
    return data_loaders.load_histogram("ogbg-molhiv", "train")


def test_round_trip_through_a_file_gives_the_same_plan(molhiv, tmp_path):
    hist, info = molhiv
    plan = pack(hist, 300, 600, 64, heuristic="max", algorithm="best_fit")
    config = export_config(plan, hist, dataset="ogbg-molhiv", split="train", info=info)
    path = save_config(config, tmp_path / "config.json")
    loaded_config, loaded_plan = load_config(path)
    assert loaded_plan == plan
    assert loaded_config["schema_version"] == SCHEMA_VERSION
    assert loaded_config["dataset"]["provenance"] == info["provenance"]
    assert config_histogram(loaded_config) == hist
    # Packing the stored histogram again with the stored method gives the same plan.
    method, limits = loaded_config["method"], loaded_config["limits"]
    again = pack(config_histogram(loaded_config), **limits, heuristic=method["heuristic"], algorithm=method["algorithm"])
    assert again == plan


@pytest.mark.parametrize("algorithm", [BEST, "node_only", "none"])
def test_best_and_baselines_round_trip(molhiv, algorithm):
    hist, info = molhiv
    plan = pack(hist, hist.max_nodes, hist.max_edges, 256, algorithm=algorithm)
    config = export_config(plan, hist, dataset="ogbg-molhiv", split="train", info=info, requested_algorithm=algorithm)
    assert config["method"]["requested"] == algorithm
    _, loaded = load_config(config_json(config))
    assert loaded == plan
    assert loaded.unlimited == plan.unlimited
    if algorithm == BEST:
        assert (plan.heuristic, plan.algorithm) in {(h, a) for h in HEURISTICS for a in ALGORITHMS}


def test_schema_fields(molhiv):
    hist, info = molhiv
    plan = pack(hist, 250, 520, 128)
    config = json.loads(config_json(export_config(plan, hist, dataset="ogbg-molhiv", split="train", info=info)))
    assert config["tool"]["version"]
    assert config["dataset"]["graphs"] == hist.num_graphs == 32901
    assert config["limits"] == {"max_nodes": 250, "max_edges": 520, "max_graphs": 128}
    metrics = config["metrics"]
    assert metrics["packs"] == plan.num_packs and metrics["lower_bound"] == plan.lower_bound
    assert metrics["gap"] == pytest.approx(plan.gap)
    assert metrics["node_efficiency"] == pytest.approx(plan.node_efficiency)
    packs = config["plan"]["packs"]
    assert sum(p["count"] for p in packs) == plan.num_packs
    assert sum(p["count"] * k for p in packs for _, _, k in p["items"]) == hist.num_graphs


def test_tampered_or_foreign_files_are_refused(molhiv, tmp_path):
    hist, info = molhiv
    config = export_config(pack(hist, 250, 520, 128), hist, dataset="ogbg-molhiv", info=info)
    edited = json.loads(config_json(config))
    edited["metrics"]["node_efficiency"] = 0.999
    with pytest.raises(ValueError, match="node_efficiency"):
        load_config(edited)
    edited = json.loads(config_json(config))
    edited["plan"]["packs"][0]["count"] += 1
    with pytest.raises(ValueError, match="cover the histogram"):
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


def test_figures_export_to_png_and_html(molhiv):
    from pages import cache, figures

    hist, _ = molhiv
    plan = pack(hist, 250, 520, 128)
    assert cache.png_browser() is not None, "PNG export needs chromium: apt-get install -y chromium"
    png = cache.figure_png(figures.graphs_per_pack_figure(plan))
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    html = cache.figure_html(figures.histogram_figure(hist)[0])
    assert html.lower().startswith("<!doctype html>") and len(html) > 1_000_000  # plotly.js embedded
    assert '<script src="https://cdn.plot.ly' not in html and "Plotly.newPlot" in html
