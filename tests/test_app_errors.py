"""Every user error gives an inline message, never a traceback (AppTest, bundled data)."""
from __future__ import annotations

import gzip
import io
import json

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import as_read, chosen
from packing import PackLimits

PAGES = ("pages/datasets_page.py", "pages/packing_page.py", "pages/sweep_page.py", "pages/export_page.py")


@pytest.fixture
def app() -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=60)
    at.run()
    return at


def errors(at: AppTest) -> list[str]:
    assert not at.exception, [e.value for e in at.exception]
    return [as_read(e.value) for e in at.error]


def upload(at: AppTest, name: str, content: bytes) -> AppTest:
    at.switch_page("pages/datasets_page.py").run()
    at.get("file_uploader")[0].set_value((name, content, "application/octet-stream"))
    return at.run()


def reset(at: AppTest) -> None:
    next(button for button in at.button if button.label == "Reset to data defaults").click().run()


def test_limit_below_largest_graph(app):
    app.switch_page("pages/packing_page.py").run()
    app.number_input(key="pk_max_edges").set_value(10).run()
    (message,) = errors(app)
    assert "do not fit into one pack" in message and "at least 29 nodes and 56 edges" in message
    app.switch_page("pages/export_page.py").run()
    assert any("do not fit" in m for m in errors(app))
    app.switch_page("pages/packing_page.py").run()
    reset(app)
    assert errors(app) == [] and chosen(app).limits.max_edges == 56


def test_empty_upload(app):
    upload(app, "sizes.csv", b"")
    (message,) = errors(app)
    assert "sizes.csv" in message and "empty" in message


@pytest.mark.parametrize(
    "name, content, expected",
    [
        ("sizes.csv", b"a,b\n1,2\n", "expected num_nodes,num_edges"),
        ("sizes.csv", b"num_nodes,num_edges\n3,x\n", "has 'x' for num_edges; every value must be a whole number"),
        ("sizes.parquet", b"not parquet", "is not a Parquet file"),
        # .pt is not in the uploader's types; a gzipped pickle gets past that filter and is refused
        ("dataset.pt.gz", gzip.compress(b"\x80\x04K\x01."), "never read from an upload"),
    ],
)
def test_malformed_upload(app, name, content, expected):
    upload(app, name, content)
    (message,) = errors(app)
    assert expected in message
    assert app.session_state["ds_name"] == "qm9"  # the current dataset is unchanged


def test_good_upload_becomes_the_dataset(app):
    frame = pd.DataFrame({"num_nodes": [3, 5, 7, 3], "num_edges": [4, 8, 12, 4]})
    buffer = io.BytesIO()
    frame.to_parquet(buffer)
    upload(app, "mine.parquet", buffer.getvalue())
    assert errors(app) == []
    assert app.session_state["ds_name"] == "upload:mine.parquet"
    assert app.dataframe[0].value.iloc[0, 0] == "4"
    app.switch_page("pages/packing_page.py").run()
    assert errors(app) == [] and {m.label: m.value for m in app.metric}["Packs"] == "3"  # (3,4)+(3,4) share a pack


def test_offline_dataset_on_every_page(app):
    app.sidebar.selectbox(key="ds_name").set_value("pcqm4mv2").run()
    for page in PAGES:
        app.switch_page(page).run()
        messages = errors(app)
        assert messages and "needs a download" in messages[0], page
        assert "Connect to the internet" in messages[0]


@pytest.mark.parametrize(
    "ranges, expected",
    [
        ({"sw_n0": 80, "sw_n1": 40}, "The node range is empty"),
        ({"sw_e0": 300, "sw_e1": 100}, "The edge range is empty"),
        ({"sw_n0": 29, "sw_n1": 2000, "sw_ns": 1}, "use larger steps"),
    ],
)
def test_bad_sweep_ranges(app, ranges, expected):
    app.switch_page("pages/sweep_page.py").run()
    for key, value in ranges.items():
        app.number_input(key=key).set_value(value)
    app.button[0].click().run()
    (message,) = errors(app)
    assert expected in message


def test_sweep_range_below_largest_graph(app):
    app.switch_page("pages/sweep_page.py").run()
    for key, value in {"sw_n0": 5, "sw_n1": 20, "sw_ns": 5}.items():
        app.number_input(key=key).set_value(value)
    app.button[0].click().run()
    assert errors(app) == []
    assert any("No limit pair" in w.value for w in app.warning)


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"{not json", "invalid JSON"),
        (json.dumps({"schema": "something else"}).encode(), "Not a graph packing configuration"),
    ],
)
def test_malformed_configuration(app, content, expected):
    app.switch_page("pages/export_page.py").run()
    app.get("file_uploader")[0].set_value(("config.json", content, "application/json"))
    app.run()
    (message,) = errors(app)
    assert expected in message


def test_graphs_without_edges_pack_at_their_data_defaults(app):
    upload(app, "rings.csv", b"num_nodes,num_edges\n3,0\n5,0\n4,0\n")
    assert errors(app) == []
    assert chosen(app).limits == PackLimits(5, 1, 256)
    for page in ("pages/packing_page.py", "pages/export_page.py"):
        app.switch_page(page).run()
        assert errors(app) == [], page
    app.switch_page("pages/packing_page.py").run()
    app.number_input(key="pk_max_edges").set_value(7).run()
    reset(app)
    assert errors(app) == [] and chosen(app).limits.max_edges == 1
    assert {m.label: m.value for m in app.metric}["Packs"] == "3"  # 3, 4 and 5 nodes: no two fit in 5


def test_another_file_under_the_same_name_is_a_new_dataset(app):
    upload(app, "s.csv", b"num_nodes,num_edges\n3,4\n5,8\n")
    app.switch_page("pages/sweep_page.py").run()
    assert (app.number_input(key="sw_n0").value, app.number_input(key="sw_e0").value) == (5, 8)
    upload(app, "s.csv", b"num_nodes,num_edges\n30,40\n50,80\n")
    assert errors(app) == []
    assert (chosen(app).limits.max_nodes, chosen(app).limits.max_edges) == (50, 80)
    # two graphs cannot fill a step of the run's 32: no recommendation, and the page says why
    assert chosen(app).source == ("data defaults (largest graph); no recommendation: The dataset holds 2 graphs, "
                                  "fewer than one batch of 32; lower the batch size.")
    app.switch_page("pages/packing_page.py").run()
    assert errors(app) == [] and {m.label: m.value for m in app.metric}["Packs"] == "2"
    app.switch_page("pages/sweep_page.py").run()
    assert (app.number_input(key="sw_n0").value, app.number_input(key="sw_e0").value) == (50, 80)


def test_limit_boxes_stop_at_the_engines_largest_limit(app):
    from packing.limits import MAX_PACK_LIMIT

    app.switch_page("pages/packing_page.py").run()
    for key in ("pk_max_nodes", "pk_max_edges", "pk_max_graphs"):
        assert app.number_input(key=key).max == MAX_PACK_LIMIT
    app.number_input(key="pk_max_nodes").set_value(MAX_PACK_LIMIT).run()  # the largest the engine takes still packs
    assert errors(app) == [] and chosen(app).limits.max_nodes == MAX_PACK_LIMIT
    assert app.sidebar.subheader and "Chosen configuration" in [h.value for h in app.sidebar.subheader]
    app.switch_page("pages/sweep_page.py").run()
    assert all(app.number_input(key=f"sw_{name}").max == MAX_PACK_LIMIT for name in ("n0", "n1", "e1", "max_graphs"))


def test_compare_offers_only_the_datasets_that_open_without_a_download_offline(app):
    app.switch_page("pages/datasets_page.py").run()
    compare = app.multiselect(key="ds_compare")
    assert "ogbg-molhiv" in compare.options and not [o for o in compare.options if "needs download" in o]
    compare.set_value(list(compare.options)).run()  # "Select all": every panel, no red error (issue 37)
    assert errors(app) == [] and not app.exception