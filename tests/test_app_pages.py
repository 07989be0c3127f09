"""Every dashboard page rendered headless with Streamlit's AppTest, on the bundled data."""
from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import chosen, started_app, use_data_defaults

import data_loaders
import figures.packs as plan_figures
from figures.snippet import cuda_training_snippet, training_snippet
from packing import PackLimits, PackMethod, pack
from packing.recommend import recommend
from throughput.device import cpu_name

PAGES = {
    "datasets": "pages/datasets_page.py",
    "packing": "pages/packing_page.py",
    "sweep": "pages/sweep_page.py",
    "export": "pages/export_page.py",
}


@pytest.fixture
def app() -> AppTest:
    """The dashboard on the bundled data (conftest gives it empty data and cache folders)."""
    return started_app()


def open_page(at: AppTest, page: str) -> AppTest:
    at.switch_page(PAGES[page]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def figures(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def choose_dataset(at: AppTest, name: str, split: str | None = None) -> None:
    at.sidebar.selectbox(key="ds_name").set_value(name).run()
    if split is not None:
        at.sidebar.selectbox(key="ds_split").set_value(split).run()
    assert not at.exception


def test_overview_lists_workflow_datasets_and_pages(app):
    assert app.title[0].value == "Graph packing dashboard"
    text = " ".join(m.value for m in app.markdown)
    assert "Workflow" in " ".join(s.value for s in app.subheader)
    for step in ("Datasets", "Packing", "Limit sweep", "Export"):
        assert step in text
    table = app.table[0].value
    assert {"qm9", "ogbg-molhiv", "ogbg-molpcba", "ogbg-code2"} <= set(table["Dataset"])
    available = dict(zip(table["Dataset"], table["Available"]))
    assert "report (HTML or PDF)" in text and "training loop" in text  # what Export gives
    assert available["qm9"] == "bundled, opens offline"
    assert available["ogbg-code2"] == "needs download"


def test_datasets_page_shows_statistics_heatmap_and_marginals(app):
    open_page(app, "datasets")
    stats = app.dataframe[0].value
    column = stats.columns[0]
    assert stats.loc["Number of graphs", column] == "130,831"
    assert stats.loc["Max number of nodes", column] == "29"
    heatmap, nodes, edges = figures(app)[:3]
    assert heatmap["data"][0]["type"] == "heatmap"
    assert "share" in heatmap["data"][0]["hovertemplate"] and "graphs" in heatmap["data"][0]["hovertemplate"]
    assert nodes["data"][0]["type"] == "bar" and edges["data"][0]["type"] == "bar"
    assert any("bundled profile" in c.value for c in app.caption)


def test_datasets_tail_cutoff_says_what_it_hides(app):
    open_page(app, "datasets")
    app.number_input(key="ds_min_count").set_value(50).run()
    hidden = [c.value for c in app.caption if "The cut-off hides" in c.value]
    assert hidden and "% of the dataset" in hidden[0]
    app.toggle(key="ds_log_color").set_value(False).run()
    assert figures(app)[0]["data"][0]["colorbar"]["title"]["text"] == "graphs"


def test_datasets_split_and_construction_change_the_histogram(app):
    open_page(app, "datasets")
    choose_dataset(app, "ogbg-molhiv", "train")
    stats = app.dataframe[0].value
    assert stats.iloc[0, 0] == "32,901" and stats.loc["Max number of nodes"].iloc[0] == "222"
    # the caption counts cells as the axis titles do ("in steps of 2; 2 counts per cell")
    assert any("a cell holds 2 node counts and 2 edge counts (edge counts come in steps of 2, so a cell spans 4 "
               "edges)" in c.value for c in app.caption)
    choose_dataset(app, "qm9")
    app.sidebar.selectbox(key="ds_opt_graph").set_value("full").run()
    stats = app.dataframe[0].value
    assert stats.loc["Max number of edges"].iloc[0] == str(29 * 28)


def test_datasets_comparison_side_by_side(app):
    open_page(app, "datasets")
    app.multiselect(key="ds_compare").set_value(["ogbg-molhiv", "ogbg-molpcba"]).run()
    assert not app.exception
    table = app.dataframe[1].value
    assert len(table.columns) == 3
    assert table.loc["Distinct (nodes, edges) size tuples"].tolist()[1:] == ["795", "576"]
    lines = [f for f in figures(app) if f["data"][0]["type"] == "scatter"]
    assert len(lines) == 2 and len(lines[0]["data"]) == 3


def test_packing_page_cards_plots_table_and_strategies(app):
    choose_dataset(app, "ogbg-molhiv", "train")
    use_data_defaults(app)
    open_page(app, "packing")
    metrics = {m.label: m.value for m in app.metric}
    hist, _ = data_loaders.load_histogram("ogbg-molhiv", "train")
    hist_plan = pack(hist)
    assert metrics["Packs"] == f"{hist_plan.num_packs:,}"
    assert metrics["Node efficiency"] == f"{hist_plan.node_efficiency:.2%}"
    assert hist_plan.graphs_that_fit < 256  # the paper's graph limit never binds here, and the page says so
    assert any(f"can hold more than {hist_plan.graphs_that_fit} graphs of this dataset, so Max graphs 256 never "
               "binds" in c.value for c in app.caption)
    assert {"Harmonic mean", "Gap to bound", "Packing factor", "Packs closed by", "Lower bound"} <= set(metrics)
    titles = [f["layout"]["title"]["text"] for f in figures(app)]
    assert "Graphs per pack" in titles and any("Pack fill" in t for t in titles)
    heuristic = app.selectbox(key="pk_heuristic")
    assert heuristic.label == "Heuristic (orders the graphs)" and "tighter side" in heuristic.help  # best fit's rule
    assert not app.dataframe  # closed tabs do not run
    app.session_state["pk_view"] = "All methods (Table 2)"
    app.run()
    table = app.dataframe[0].value
    baselines = list(plan_figures.BASELINE_WORDS.values())  # the baselines in words, their ids kept
    assert len(table) == 6 * 3 + 7 + 1 + 3 and set(baselines) <= set(table["method"])
    assert (table["algorithm"] == "published").sum() == 7  # the published algorithm's rows next to ours
    tuple_rows = table[~table["method"].isin(baselines)]
    assert tuple_rows["packs"].min() <= hist_plan.num_packs
    assert table["method"].str.startswith("best of all: ").sum() == 1
    assert any("never highlighted" in c.value for c in app.caption)
    app.session_state["pk_view"] = "Pack strategies"
    app.run()
    assert any("most used pack strategies" in f["layout"]["title"]["text"] for f in figures(app))
    strategies = app.dataframe[0].value
    assert strategies["count"].sum() == hist_plan.num_packs


def test_packing_limits_and_method_are_used(app):
    open_page(app, "packing")
    app.number_input(key="pk_max_nodes").set_value(100).run()
    app.number_input(key="pk_max_edges").set_value(200).run()
    app.selectbox(key="pk_algorithm").set_value("best").run()
    assert not app.error
    metrics = {m.label: m.value for m in app.metric}
    assert float(metrics["Node efficiency"].rstrip("%")) > 90
    assert app.session_state["method"] == PackMethod("best")
    assert any(s.value.startswith("**best of all: ") for s in app.success)
    app.selectbox(key="pk_algorithm").set_value("node_only").run()
    metrics = {m.label: m for m in app.metric}
    assert "Edge efficiency (limit broken)" in metrics and "Harmonic mean (not comparable)" in metrics
    assert "limit 200" in metrics["Edge efficiency (limit broken)"].delta


def test_sweep_runs_and_finder_selects_limits(app):
    open_page(app, "sweep")
    for key, value in {"sw_n0": 29, "sw_n1": 89, "sw_ns": 20, "sw_e0": 56, "sw_e1": 176, "sw_es": 40}.items():
        app.number_input(key=key).set_value(value)
    app.button[0].click().run()
    assert not app.exception and not app.error
    (heatmap,) = [f for f in figures(app) if f["layout"]["title"]["text"].startswith("Harmonic mean")]
    names = [t.get("name") for t in heatmap["data"]]
    assert "limits" in names and "best" in names
    clickable = heatmap["data"][names.index("limits")]
    assert "edge efficiency" in clickable["hovertemplate"] and "gap" in clickable["hovertemplate"]
    assert not any("binds in the larger cells" in i.value for i in app.info)  # 256 graphs never bind here
    app.number_input(key="sw_max_graphs").set_value(2)
    app.button[0].click().run()
    hist = data_loaders.load_histogram("qm9")[0]
    most = hist.graphs_that_fit(89, 176)
    capped, free = (pack(hist, PackLimits(89, 176, graphs)).num_packs for graphs in (2, most))
    assert capped > free and any(f"Max graphs 2 binds in the larger cells: at 89 nodes and 176 edges it packs "
                                 f"{capped:,} packs, {free:,} with Max graphs {most:,}" in i.value for i in app.info)
    app.number_input(key="sw_max_graphs").set_value(256)
    app.button[0].click().run()
    app.number_input(key="sw_target").set_value(90.0).run()
    app.button(key="sw_use_found").click().run()
    found = chosen(app)
    assert found.source.startswith("the sweep finder")
    # a sweep with another heuristic keeps the chosen configuration's method, and says so
    app.selectbox(key="sw_heuristic").set_value("sum").run()
    app.button[0].click().run()
    (box,) = [s.value for s in app.success if s.value.startswith("Chosen:")]
    assert "(best fit, product heuristic). The heatmap above is of best fit, sum heuristic" in box
    open_page(app, "packing")
    assert app.number_input(key="pk_max_nodes").value == found.limits.max_nodes
    open_page(app, "export")  # the sweep's heatmap is offered for export, on the Export page alone
    assert [t.value for t in app.title] == ["Export"]
    assert "**sweep heatmap**" in [m.value for m in app.markdown]


def test_export_page_offers_json_csv_and_figures(app):
    open_page(app, "export")
    labels = [b.label for b in app.get("download_button")]
    assert "Download configuration (JSON)" in labels and "Download strategies (CSV)" in labels
    assert labels.count("HTML") >= 4
    shown = app.json[0].value
    config = json.loads(shown)
    assert config["schema_version"] == 1 and config["dataset"]["name"] == "qm9"
    recommended = recommend(data_loaders.load_histogram("qm9")[0], 32)  # the dashboard starts on it
    assert config["plan"]["limits"] == recommended.limits.to_dict()
    assert config["recommendation"]["packs_per_step"] == recommended.packs_per_step
    assert config["recommendation"]["label"] == "recommended for batch size 32 (no calibration chosen: the least padding)"
    assert any("The file carries the recommendation: 1 pack(s) a step" in c.value for c in app.caption)
    summary = next(m.value for m in app.markdown if m.value.startswith(f"**Max nodes {recommended.limits.max_nodes:,}"))
    assert f"harmonic mean {config['metrics']['harmonic_mean']:.2%}, " in summary  # as the Packing page's cards
    (code,) = [c.value for c in app.code if "PackedLoader.from_config" in c.value]
    file_name = re.search(r'from_config\(dataset, "([^"]+)"', code).group(1)
    what = re.search(r"this file packs, (.*)", code).group(1)
    assert code == training_snippet(file_name, what=what, task="regression").strip()  # QM9's targets regress
    app.toggle(key="ex_snippet_cuda").set_value(True).run()  # the GPU variant in its place
    (code,) = [c.value for c in app.code if "PackedLoader.from_config" in c.value]
    assert code == cuda_training_snippet(file_name, what=what, task="regression").strip()


def test_first_render_is_fast_when_warm(app):
    import time

    for page in PAGES:
        open_page(app, page)  # warm the caches
    for page in PAGES:
        start = time.perf_counter()
        open_page(app, page)
        assert time.perf_counter() - start < 3.0, page


def test_export_loads_a_configuration_back_and_applies_it(app):
    from packing.export import export_config
    from packing.io import config_json

    hist, info = data_loaders.load_histogram("ogbg-molhiv", "train")
    plan = pack(hist, PackLimits(260, 560, 32), PackMethod("first_fit", "sum"))
    text = config_json(export_config(plan, hist, info))
    open_page(app, "export")
    app.get("file_uploader")[0].set_value(("molhiv.json", text.encode(), "application/json"))
    app.run()
    assert "Same plan as the current configuration: **no**" in [m.value for m in app.markdown]
    assert f"harmonic mean {plan.harmonic_mean:.2%}." in app.success[0].value
    app.button(key="ex_apply").click().run()
    assert not app.exception and not app.error
    assert app.session_state["ds_name"] == "ogbg-molhiv" and app.session_state["ds_split"] == "train"
    assert chosen(app).limits == PackLimits(260, 560, 32)
    assert "Same plan as the current configuration: **yes**" in [m.value for m in app.markdown]


def test_configuration_of_an_uploaded_file_keeps_its_limits(app):
    from packing import SizeHistogram
    from packing.export import export_config
    from packing.io import config_json

    hist = SizeHistogram.from_sizes([3, 5, 4], [4, 8, 6])
    plan = pack(hist, PackLimits(12, 20, 4))
    text = config_json(export_config(plan, hist, {"dataset": "upload:mine.csv"}))
    open_page(app, "export")
    app.get("file_uploader")[0].set_value(("mine.json", text.encode(), "application/json"))
    app.run()
    app.button(key="ex_apply").click().run()
    assert not app.exception and not app.error
    assert app.session_state["ds_name"] == "upload:mine.csv"
    assert (chosen(app).limits.max_nodes, chosen(app).limits.max_edges, chosen(app).source) == (
        12, 20, "a loaded configuration")
    assert "Same plan as the current configuration: **yes**" in [m.value for m in app.markdown]


def test_algorithm_labels_follow_the_readme_mapping(app):
    expected = {
        "best_fit": "best fit: longest pack first (fullest open pack that fits)",
        "worst_fit": "worst fit: shortest pack first (emptiest open pack that fits)",
        "first_fit": "first fit (earliest-opened open pack that fits)",
    }
    open_page(app, "packing")
    assert set(expected.values()) <= set(app.selectbox(key="pk_algorithm").options)
    app.selectbox(key="pk_algorithm").set_value("first_fit").run()
    assert app.selectbox(key="pk_algorithm").value == "first_fit"
    assert app.session_state["method"].algorithm == "first_fit"
    open_page(app, "sweep")
    assert app.selectbox(key="sw_algorithm").options == list(expected.values())  # packing.TUPLE_ALGORITHMS order


def test_export_carries_the_batching_comparison_of_the_sessions_run_and_follows_the_batching_page(app):
    open_page(app, "export")  # before any other page ran (issue 37: the same file whichever page a link opens)
    assert json.loads(app.json[0].value)["batching"]["run"]["batch_size"] == 32
    app.switch_page("pages/batching_page.py").run()
    app.number_input(key="run_batch_size").set_value(16).run()
    assert not app.exception
    open_page(app, "export")
    assert any("batching comparison of the Batching page (batch size 16)" in c.value for c in app.caption)
    section = json.loads(app.json[0].value)["batching"]
    assert section["run"]["batch_size"] == 16 and section["table"].endswith("strategies (in the file)")
    app.switch_page("pages/batching_page.py").run()  # the page shows the settings kept for the session
    assert app.number_input(key="run_batch_size").value == 16


def test_export_carries_the_throughput_estimates_of_the_sessions_calibration(app):
    open_page(app, "export")  # before the Throughput page ran: this machine's calibration, as that page starts on
    assert "throughput" in json.loads(app.json[0].value)
    app.switch_page("pages/throughput_page.py").run()
    assert not app.exception and not app.error
    open_page(app, "export")
    section = json.loads(app.json[0].value)["throughput"]
    assert section["calibration"]["device"]["type"] == "cpu" and section["table"].endswith("strategies (in the file)")
    assert section["version"] == 1 and section["run"]["epochs"] == 10  # the shared run
    # the calibration of this machine, checked here (shipped; kept on its steps' check, loader times being noisier)
    # or measured here now: the export says which
    assert section["check"] is None or section["check"]["steps_within_band"] is True
    assert section["check_note"] and section["calibration"]["device"]["name"] == cpu_name()
    assert any("throughput estimates of the Throughput page" in c.value for c in app.caption)


def test_the_all_methods_table_ends_with_the_chosen_method_where_no_row_is_it(app):
    use_data_defaults(app)
    app.selectbox(key="pk_heuristic").set_value("weighted").run()
    app.number_input(key="pk_w_edges").set_value(0.5).run()
    app.session_state["pk_view"] = "All methods (Table 2)"
    app.run()
    table = app.dataframe[0].value
    assert len(table) == 6 * 3 + 7 + 1 + 3 + 1
    last = table.iloc[-1]
    plan = pack(data_loaders.load_histogram("qm9")[0], method=PackMethod("best_fit", "weighted", weights=(1.0, 0.5)))
    assert last["method"] == f"chosen: {plan.label}" and last["packs"] == plan.num_packs
    assert any("The last row is the chosen method" in c.value for c in app.caption)


def test_sweep_form_starts_from_the_chosen_method_and_enables_weights_for_the_weighted_sum(app):
    open_page(app, "packing")
    app.selectbox(key="pk_algorithm").set_value("worst_fit").run()
    app.selectbox(key="pk_heuristic").set_value("sum").run()
    app.number_input(key="pk_max_graphs").set_value(16).run()
    open_page(app, "sweep")
    assert app.selectbox(key="sw_algorithm").value == "worst_fit"
    assert app.selectbox(key="sw_heuristic").value == "sum"
    assert app.number_input(key="sw_max_graphs").value == 16
    assert app.number_input(key="sw_w_nodes").disabled and app.number_input(key="sw_w_edges").disabled
    app.selectbox(key="sw_heuristic").set_value("weighted").run()
    assert not app.number_input(key="sw_w_nodes").disabled and not app.number_input(key="sw_w_edges").disabled
    app.button[0].click().run()  # the sweep runs with the method shown; clicking a cell keeps it
    assert not app.exception and not app.error
    assert app.session_state["sweep"]["params"]["algorithm"] == "worst_fit"
    assert app.session_state["sweep"]["params"]["heuristic"] == "weighted"
