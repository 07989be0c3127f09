"""The Packing page shows proven bounds by name, proves a tighter one on request and offers
the published algorithm next to ours (AppTest on the bundled data)."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import started_app, use_data_defaults

PACKING = "pages/packing_page.py"


@pytest.fixture
def app() -> AppTest:
    return started_app(timeout=180)


def cards(at: AppTest) -> dict[str, str]:
    """Each metric's label and value, with its delta in brackets ("0.00% (optimal)")."""
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    return {metric.label: metric.value + (f" ({metric.delta})" if metric.delta else "") for metric in at.metric}


def test_qm9_radius_at_its_defaults_is_proven_optimal_by_the_large_items_bound(app):
    app.sidebar.selectbox(key="ds_opt_graph").set_value("radius").run()
    use_data_defaults(app)
    shown = cards(app)
    assert shown["Packs"] == "116,041" and shown["Lower bound"] == "116,041 (large-items bound)"
    assert shown["Gap to bound"] == "0.00% (optimal)"  # the volume bound alone said 81,353: gap 42.6 %
    assert not app.button(key="pk_prove") if "pk_prove" in [b.key for b in app.button] else True


def test_proving_closes_the_gap_on_molhiv(app):
    app.sidebar.selectbox(key="ds_name").set_value("ogbg-molhiv").run()
    use_data_defaults(app)
    app.selectbox(key="pk_algorithm").set_value("best").run()
    before = cards(app)
    assert before["Packs"] == "3,744" and before["Gap to bound"] != "0.00% (optimal)"
    app.button(key="pk_prove").click().run()
    after = cards(app)
    assert after["Lower bound"] == "3,744 (LP bound)" and after["Gap to bound"] == "0.00% (optimal)"
    lp_caption = next(c.value for c in app.caption if c.value.startswith("LP bound: 3,744 packs after"))
    assert "(converged: no pack can improve the LP relaxation;" in lp_caption
    app.session_state["pk_view"] = "All methods (Table 2)"
    app.run()  # every row measured against the proven bound, as the cards are
    table = app.dataframe[0].value
    kept = table[table["keeps_limits"] == "yes"]
    assert (kept["lower_bound"] == 3744).all() and (kept["bound"] == "lp").all()
    app.switch_page("pages/export_page.py").run()  # the export carries the proof
    assert not app.exception and not app.error
    assert "gap 0.00%" in " ".join(m.value for m in app.markdown)


def test_the_published_algorithm_is_offered_and_reproduces_table_2(app):
    app.sidebar.selectbox(key="ds_name").set_value("ogbg-molhiv").run()
    use_data_defaults(app)
    app.selectbox(key="pk_algorithm").set_value("published").run()
    app.selectbox(key="pk_published").set_value("paper_min").run()
    assert "min heuristic as published" in app.session_state["method"].label
    assert cards(app)["Packs"]
    app.session_state["pk_view"] = "All methods (Table 2)"
    app.run()
    comparison, _, published = (frame.value for frame in app.dataframe)  # the middle one: "More columns"
    assert (comparison["algorithm"] == "published").sum() == 7 and "bound" in comparison.columns
    paper = published[published["paper_node_pct"] != ""]  # the paper's numbers as printed, blank where none
    assert len(paper) == 6
    assert (paper["tight_node_pct"].map("{:.1f}".format) == paper["paper_node_pct"]).all()
    assert (paper["tight_edge_pct"].map("{:.1f}".format) == paper["paper_edge_pct"]).all()


def test_a_proof_no_tighter_than_the_bound_shown_says_so(app):
    use_data_defaults(app)
    for name, value in {"pk_max_nodes": 58, "pk_max_edges": 112}.items():
        app.number_input(key=name).set_value(value).run()
    assert cards(app)["Lower bound"] == "43,578 (volume bound)"
    app.button(key="pk_prove").click().run()
    assert cards(app)["Lower bound"] == "43,578 (volume bound)"
    assert [i.value for i in app.info] == ["The LP bound is 43,578, no tighter than the volume bound 43,578 already "
                                           "shown."]


def test_the_no_packing_baseline_names_no_limit_closing_its_packs(app):
    app.switch_page(PACKING).run()
    assert "Packs closed by" in cards(app)
    app.selectbox(key="pk_algorithm").set_value("none").run()
    assert "Packs closed by" not in cards(app)
    assert not any("closes the packs" in c.value for c in app.caption)


def test_the_published_table_formats_its_numbers_and_shows_the_whole_method(app):
    app.switch_page(PACKING).run()
    app.session_state["pk_view"] = "All methods (Table 2)"
    app.run()
    comparison, _, published = app.dataframe  # the middle one: "More columns"
    assert set(published.value["paper_node_pct"]) == {""}  # no printed numbers here: blank cells, not "None"
    columns = json.loads(published.proto.columns)
    assert columns["method"]["width"] >= 260 and json.loads(comparison.proto.columns)["method"]["width"] >= 260
    assert columns["tight_node_pct"]["type_config"]["format"] == "%.2f"
    assert columns["packs"]["type_config"]["format"] == "localized"
