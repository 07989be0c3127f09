"""Hostile input round two on the pages (issue 37, AppTest on the bundled data): a link's
values are checked against the very bounds of the widgets they fill, so no value breaks a
page; what cannot be used is said and the default kept."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import as_read
from pages import state

PAGES = {"packing": "pages/packing_page.py", "batching": "pages/batching_page.py", "sweep": "pages/sweep_page.py",
         "throughput": "pages/throughput_page.py", "export": "pages/export_page.py"}


def opened(params: dict[str, str], page: str) -> tuple[AppTest, str]:
    """A fresh session opening the link ``params``, then switched to ``page``; with the
    warnings of the first run (what the link held that could not be used, said once), as
    the user reads them."""
    at = AppTest.from_file("../app.py", default_timeout=120)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    said = " ".join(as_read(w.value) for w in at.warning)
    at.switch_page(PAGES[page]).run()
    assert not at.exception, [e.value for e in at.exception]
    return at, said


@pytest.mark.parametrize("params, page, problem", [
    ({"dataset": "qm9", "algorithm": "best_fit", "heuristic": "weighted", "weights": "1000001,1"}, "packing",
     "each weight must lie between 0 and 1,000,000"),
    ({"dataset": "qm9", "seed": "4294967296"}, "batching", "seed='4294967296' must lie between 0 and 4,294,967,295"),
    ({"dataset": "qm9", "sweep_nodes": "29:89:20", "sweep_edges": "56:176:40", "sweep_heuristic": "weighted",
      "sweep_weights": "1e7,1"}, "sweep", "each weight must lie between 0 and 1,000,000"),
    ({"dataset": "qm9", "packs_per_step": "4097"}, "batching", "packs_per_step='4097' must lie between 1 and 4,096"),
    ({"dataset": "qm9", "weights": "nan,1", "heuristic": "weighted"}, "packing", "each weight must lie between"),
])
def test_a_link_value_past_a_widget_bound_is_refused_with_a_message_and_the_page_works(params, page, problem):
    _, said = opened(params, page)
    assert problem in said, said


def test_the_run_controls_and_the_link_share_one_set_of_bounds():
    at, _ = opened({"dataset": "qm9"}, "batching")
    boxes = {box.label: (box.min, box.max) for box in at.number_input}
    assert boxes["Seed"] == state.RUN_BOUNDS["seed"] and boxes["Batch size (graphs)"] == state.RUN_BOUNDS["batch_size"]
    assert boxes["Packs per batch"] == state.RUN_BOUNDS["packs_per_batch"]
    assert boxes["Data-parallel devices"] == state.RUN_BOUNDS["devices"]
    assert (at.slider(key="bt_shapes").min, at.slider(key="bt_shapes").max) == state.RUN_BOUNDS["num_shapes"]


def test_a_loaded_configuration_with_weights_past_the_boxes_is_refused_before_anything_changes():
    from packing import PackLimits, PackMethod, SizeHistogram, pack
    from packing.export import export_config
    from packing.io import config_json

    hist = SizeHistogram.from_sizes([3, 5, 4], [4, 8, 6])
    plan = pack(hist, PackLimits(12, 20, 4), PackMethod("best_fit", "weighted", weights=(1e7, 1.0)))
    text = config_json(export_config(plan, hist, {"dataset": "upload:mine.csv"}))
    at, _ = opened({"dataset": "qm9"}, "export")
    at.get("file_uploader")[0].set_value(("mine.json", text.encode(), "application/json"))
    at.run()
    at.button(key="ex_apply").click().run()
    assert not at.exception
    assert "each must lie between 0 and 1,000,000" in as_read(at.error[0].value)
    assert at.session_state["ds_name"] == "qm9"  # nothing applied
    at.switch_page(PAGES["packing"]).run()
    assert not at.exception


def test_applying_a_loaded_configuration_restores_its_run_and_its_calibration():
    from data_loaders import load_histogram
    from packing import PackLimits, pack
    from packing.batching import batching_section, compare_batching
    from packing.export import export_config
    from packing.io import config_json
    from throughput import estimate, load_calibration, shipped_calibrations, throughput_section

    hist, info = load_histogram("ogbg-molhiv", "train")
    plan = pack(hist, PackLimits(260, 560, 32))
    path = shipped_calibrations()[-1]
    priced = estimate(hist, 64, load_calibration(path), plan, steps=10_000, seed=3, devices=2)
    sections = {"batching": batching_section(compare_batching(hist, 64, plan=plan, steps=10_000, seed=3, devices=2)),
                "throughput": throughput_section(priced, None, "not checked")}
    text = config_json(export_config(plan, hist, info, sections))
    at, _ = opened({"dataset": "qm9"}, "export")
    at.get("file_uploader")[0].set_value(("molhiv.json", text.encode(), "application/json"))
    at.run()
    at.button(key="ex_apply").click().run()
    assert not at.exception and not at.error and not at.info
    run = at.session_state[state.RUN]
    assert (run["batch_size"], run["steps"], run["epochs"], run["seed"], run["devices"]) == (64, 10_000, 1, 3, 2)
    assert at.session_state[state.THROUGHPUT]["calibration"] == path.stem


def test_shares_in_the_batching_table_are_rounded_as_in_its_chart_never_cut():
    import json

    at, _ = opened({"dataset": "qm9"}, "batching")
    columns = json.loads(at.dataframe[0].proto.columns)
    shares = [name for name, config in columns.items() if config.get("type_config", {}).get("format") == "percent"]
    assert {"node_efficiency", "edge_efficiency", "graph_efficiency"} <= set(shares)
    assert not [name for name in shares if "step" in columns[name]["type_config"]]  # a step cuts 96.874 % to 96.8 %
    table = at.dataframe[0].value
    chart = next(chart for chart in at.get("plotly_chart") if "Real share" in chart.proto.spec)
    bars = json.loads(chart.proto.spec)["data"][0]
    assert bars["text"][0] == f"{100 * table['node_efficiency'].iloc[0]:.2f} %"  # the report's rounding too


def test_choosing_a_sweep_cell_keeps_the_chosen_method_and_asks_when_the_sweeps_differs():
    from app_helpers import chosen
    from packing import PackMethod

    link = {"dataset": "qm9", "graph": "bonds", "algorithm": "first_fit", "heuristic": "sum",
            "sweep_nodes": "29:89:20", "sweep_edges": "56:176:40"}
    at, _ = opened(link, "sweep")
    at.button[0].click().run()  # Run sweep (the link's ranges)
    at.number_input(key="sw_target").set_value(90.0).run()
    at.button(key="sw_use_found").click().run()
    assert chosen(at).source.startswith("the sweep finder")
    assert at.session_state["method"] == PackMethod("first_fit", "sum")  # kept, not replaced
    question = [w.value for w in at.warning if "Which method?" in w.value]
    assert question and "best fit, product heuristic" in question[0] and "first fit, sum heuristic" in question[0]
    at.button(key="sw_take_method").click().run()
    assert at.session_state["method"] == PackMethod()
    assert not [w for w in at.warning if "Which method?" in w.value]


def test_the_export_is_the_same_whichever_page_the_link_opens():
    import json

    link = {"dataset": "qm9", "graph": "bonds", "sweep_nodes": "29:89:20", "sweep_edges": "56:176:40"}

    def exported(visited: tuple[str, ...]) -> tuple[list[str], list[str]]:
        at = AppTest.from_file("../app.py", default_timeout=180)
        for name, value in link.items():
            at.query_params[name] = value
        at.run()
        for page in (*visited, "export"):
            at.switch_page(PAGES[page]).run()
        assert not at.exception, [e.value for e in at.exception]
        sections = sorted(json.loads(at.json[0].value))
        figures = [m.value for m in at.markdown if m.value.startswith("**") and m.value.endswith("**")
                   and "-" not in m.value]
        return sections, figures

    opened_there = exported(())  # no other page ran: as when the link opened on the Export page
    assert "batching" in opened_there[0] and "throughput" in opened_there[0]
    assert "**sweep heatmap**" in opened_there[1] and "**throughput epoch**" in opened_there[1]
    assert exported(("sweep", "batching", "throughput")) == opened_there
