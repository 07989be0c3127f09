"""What the dashboard remembers (AppTest on the bundled data): the dataset widgets show the
options actually loaded, limits are kept per dataset, and the URL holds the whole view."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import as_read, chosen, started_app
from data_loaders import list_datasets, load_histogram
from packing import PackLimits, PackMethod
from packing.recommend import recommend

PACKING = "pages/packing_page.py"
DATASETS = "pages/datasets_page.py"


@pytest.fixture
def app() -> AppTest:
    """The dashboard on the bundled data (conftest gives it empty data and cache folders)."""
    return started_app()


def no_errors(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_the_option_widgets_show_what_is_loaded_for_every_dataset_and_construction(app):
    # A construction's own options (cutoff for radius, k for k-NN) come from the dataset's
    # spec, start at its default, and the loaded histogram uses exactly the value shown.
    app.switch_page(DATASETS).run()
    for spec in list_datasets():
        if not spec.bundled:
            continue
        app.sidebar.selectbox(key="ds_name").set_value(spec.name).run()
        constructions = spec.choices.get("graph", (None,))
        for graph in constructions:
            if graph is not None:
                app.sidebar.selectbox(key="ds_opt_graph").set_value(graph).run()
            no_errors(app)
            selection = app.session_state["selection"]
            shown = {option.name: app.sidebar.number_input(key=f"ds_opt_{option.name}").value
                     for option in spec.option_specs if option.choices is None and option.applies(selection.options)}
            numeric = {k: v for k, v in selection.options.items() if k != "graph"}
            assert shown == numeric, (spec.name, graph)
            for name, value in shown.items():
                assert value == spec.options[name]  # the spec's default, not a widget minimum
            labels = {w.label for w in app.sidebar.number_input}
            assert labels == {o.label for o in spec.option_specs if o.choices is None and o.applies(selection.options)}
            caption = " ".join(as_read(c.value) for c in app.caption)
            if graph == "radius":
                assert "cutoff=5.0" in caption


def test_a_changed_cutoff_is_what_gets_loaded(app):
    app.switch_page(DATASETS).run()
    app.sidebar.selectbox(key="ds_opt_graph").set_value("radius").run()
    app.sidebar.number_input(key="ds_opt_cutoff").set_value(5.0).run()
    no_errors(app)
    assert app.session_state["selection"].options == {"graph": "radius", "cutoff": 5.0}
    app.sidebar.selectbox(key="ds_opt_graph").set_value("knn").run()
    app.sidebar.number_input(key="ds_opt_k").set_value(12).run()
    no_errors(app)
    assert app.session_state["selection"].options == {"graph": "knn", "k": 12}
    assert "k=12" in app.session_state["selection"].label and "cutoff" not in app.session_state["selection"].label
    app.switch_page(PACKING).run()  # a page change keeps the value that was loaded
    assert app.sidebar.number_input(key="ds_opt_k").value == 12
    assert app.session_state["selection"].options == {"graph": "knn", "k": 12}


def opened_on_packing(link: dict[str, str]) -> AppTest:
    """A fresh session that opens ``link`` and goes to the Packing page, without errors."""
    at = AppTest.from_file("../app.py", default_timeout=90)
    for name, value in link.items():
        at.query_params[name] = value
    at.run()
    at.switch_page(PACKING).run()
    no_errors(at)
    return at


def test_limits_are_kept_per_dataset(app):
    app.switch_page(PACKING).run()
    qm9 = chosen(app).limits  # the recommendation for batch size 32
    app.number_input(key="pk_max_nodes").set_value(60).run()
    assert chosen(app).limits == PackLimits(60, qm9.max_edges, qm9.max_graphs) and not chosen(app).is_recommended
    app.sidebar.selectbox(key="ds_name").set_value("ogbg-molhiv").run()
    molhiv = recommend(load_histogram("ogbg-molhiv")[0], 32).limits
    assert chosen(app).limits == molhiv and chosen(app).is_recommended  # molhiv opens on its own recommendation
    app.number_input(key="pk_max_edges").set_value(600).run()
    app.sidebar.selectbox(key="ds_name").set_value("qm9").run()
    assert chosen(app).limits == PackLimits(60, qm9.max_edges, qm9.max_graphs)
    assert app.number_input(key="pk_max_nodes").value == 60
    app.sidebar.selectbox(key="ds_name").set_value("ogbg-molhiv").run()
    assert chosen(app).limits == PackLimits(molhiv.max_nodes, 600, molhiv.max_graphs)


def test_the_url_holds_the_view_and_a_link_opens_it(app):
    app.switch_page(PACKING).run()
    app.sidebar.selectbox(key="ds_opt_graph").set_value("knn").run()
    app.number_input(key="pk_max_nodes").set_value(40).run()
    app.selectbox(key="pk_algorithm").set_value("first_fit").run()
    app.selectbox(key="pk_heuristic").set_value("weighted").run()
    app.number_input(key="pk_w_nodes").set_value(2.0).run()
    no_errors(app)
    link = {name: values[0] for name, values in app.query_params.items()}
    limits = chosen(app).limits  # the recommendation's edges and graphs, the nodes typed here
    assert limits.max_nodes == 40 and not chosen(app).is_recommended
    assert link == {"dataset": "qm9", "split": "all", "graph": "knn", "k": "8", "max_nodes": "40",
                    "max_edges": str(limits.max_edges), "max_graphs": str(limits.max_graphs),
                    "algorithm": "first_fit", "heuristic": "weighted", "weights": "2,1"}
    colleague = opened_on_packing(link)
    assert chosen(colleague).limits == chosen(app).limits and chosen(colleague).source == "the link you opened"
    assert colleague.session_state["method"] == PackMethod("first_fit", "weighted", weights=(2.0, 1.0))
    assert colleague.session_state["selection"] == app.session_state["selection"]
    assert {m.label: m.value for m in colleague.metric} == {m.label: m.value for m in app.metric}


@pytest.mark.parametrize("params, words", [
    ({"dataset": "nope"}, "there is no dataset 'nope'"),
    ({"dataset": "qm9", "graph": "radius", "cutoff": "-3"}, "Option cutoff must lie between 0.1 and 100"),
    ({"dataset": "ogbg-molhiv", "split": "dev"}, "has no split 'dev'"),
    ({"max_nodes": "lots"}, "max_nodes='lots' is not a whole number"),
    ({"algorithm": "none", "heuristic": "sum"}, "The baseline 'none' takes no heuristic"),
    ({"dataset": "upload:mine.csv"}, "a link cannot carry"),
    ({"improve": "maybe"}, "improve='maybe' must be true or false"),
])
def test_a_bad_or_stale_link_says_what_it_could_not_use(params, words):
    at = AppTest.from_file("../app.py", default_timeout=90)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception
    (warning,) = at.warning
    assert "This link could not be used completely" in as_read(warning.value) and words in as_read(warning.value)
    at.switch_page(PACKING).run()
    no_errors(at)  # defaults are shown instead
    assert not at.warning  # said once


def test_a_method_improved_by_exact_fill_survives_a_link():
    at = AppTest.from_file("../app.py", default_timeout=90)
    for name, value in {"dataset": "ogbg-molhiv", "algorithm": "first_fit", "heuristic": "sum",
                        "improve": "true"}.items():
        at.query_params[name] = value
    at.run()
    assert not at.warning
    assert at.session_state["method"] == PackMethod("first_fit", "sum", improve=True)
    assert at.query_params["improve"] == ["true"]  # written back into the URL as it was read


def test_a_recommended_view_travels_as_limits_recommended_and_follows_the_batch_size(app):
    app.switch_page("pages/batching_page.py").run()
    app.number_input(key="run_batch_size").set_value(128).run()
    no_errors(app)
    hist = load_histogram("qm9")[0]
    assert chosen(app).limits == recommend(hist, 128).limits  # a new batch size, a new recommendation
    link = {name: values[0] for name, values in app.query_params.items()}
    assert link["limits"] == "recommended" and "max_nodes" not in link and link["batch_size"] == "128"
    colleague = opened_on_packing(link)
    assert chosen(colleague).limits == chosen(app).limits and chosen(colleague).is_recommended
    assert colleague.session_state["method"] == app.session_state["method"]
    app.switch_page(PACKING).run()
    app.number_input(key="pk_max_graphs").set_value(200).run()  # by hand: the batch size no longer moves them
    app.switch_page("pages/batching_page.py").run()
    app.number_input(key="run_batch_size").set_value(64).run()
    assert chosen(app).limits.max_graphs == 200 and not chosen(app).is_recommended
    app.switch_page(PACKING).run()
    next(b for b in app.button if b.label == "Use the recommendation").click().run()
    assert chosen(app).limits == recommend(hist, 64).limits and chosen(app).is_recommended


def test_weighted_heuristic_is_offered_with_its_two_weights(app):
    app.switch_page(PACKING).run()
    app.selectbox(key="pk_algorithm").set_value("best_fit").run()  # QM9's recommendation deals (balanced fill)
    app.selectbox(key="pk_heuristic").set_value("weighted").run()
    labels = [n.label for n in app.number_input]
    assert "Node weight" in labels and "Edge weight" in labels
    app.number_input(key="pk_w_edges").set_value(3.0).run()
    no_errors(app)
    assert app.session_state["method"] == PackMethod("best_fit", "weighted", weights=(1.0, 3.0))
    assert any("weighted(1,3)" in c.value for c in app.caption)
    app.number_input(key="pk_w_nodes").set_value(0.0).run()
    app.number_input(key="pk_w_edges").set_value(0.0).run()
    assert any("must not both be zero" in e.value for e in app.error)
    assert app.session_state["method"] == PackMethod("best_fit", "weighted", weights=(0.0, 3.0))


def test_comparison_labels_name_only_the_options_that_apply(app):
    app.switch_page(DATASETS).run()
    app.multiselect(key="ds_compare").set_value(["aflow"]).run()
    no_errors(app)
    columns = list(app.dataframe[1].value.columns)
    assert columns == ["qm9 (all, graph=bonds)", "aflow (all, k=24)"]
