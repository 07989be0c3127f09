"""A dashboard link holds the whole view (AppTest on the bundled data): the simulated run, the
Throughput page's settings and the last sweep travel in the URL next to the dataset, limits
and method; what cannot be used is said once and left at its default."""
from __future__ import annotations

import base64
import doctest
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import as_read, chosen, started_app
from data_loaders import load_histogram
from packing import PackMethod, sweep
from packing.recommend import recommend
from pages import links, state
from throughput import shipped_calibrations

SWEEP_PAGE = "pages/sweep_page.py"
PACKING = "pages/packing_page.py"
STEMS = [path.stem for path in shipped_calibrations()]
STEM = STEMS[-1]
#: A sweep of ogbg-molhiv (largest graph: 222 nodes, 502 edges) with a method unlike the defaults.
SWEEP_LINK = {"dataset": "ogbg-molhiv", "sweep_nodes": "222:422:100", "sweep_edges": "502:902:200",
              "sweep_graphs": "128", "sweep_algorithm": "first_fit", "sweep_heuristic": "weighted",
              "sweep_weights": "2,1"}


def opened(params: dict[str, str]) -> AppTest:
    """A fresh session opening the link ``params`` (on the Overview page)."""
    at = AppTest.from_file("../app.py", default_timeout=90)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def link(at: AppTest) -> dict[str, str]:
    """The URL's query parameters after the last run."""
    return {name: values[0] for name, values in at.query_params.items()}


def stored(at: AppTest, key: str, defaults: dict) -> dict:
    """The settings under ``key`` (``defaults`` while no page or link has set them)."""
    return at.session_state[key] if key in at.session_state else defaults


def warnings(at: AppTest) -> list[str]:
    return [as_read(w.value) for w in at.warning]


def array(value) -> np.ndarray:
    """A plotly JSON array: a list, or a typed array ``{"dtype", "bdata"[, "shape"]}``."""
    if not isinstance(value, dict):
        return np.array(value, dtype=float)
    found = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).astype(float)
    return found.reshape([int(n) for n in str(value["shape"]).split(",")]) if "shape" in value else found


def heatmap(at: AppTest) -> dict[str, np.ndarray]:
    """The swept limits (x, y: the axes' labels, one per cell at these sizes) and z of the
    sweep page's harmonic-mean heatmap (its one plotly chart)."""
    (chart,) = at.get("plotly_chart")
    figure = json.loads(chart.proto.spec)
    assert figure["layout"]["title"]["text"].startswith("Harmonic mean")
    limits = {axis: array([int(text.replace(",", "")) for text in figure["layout"][f"{axis}axis"]["ticktext"]])
              for axis in "xy"}
    return {**limits, "z": array(figure["data"][0]["z"])}


def test_doctests():
    result = doctest.testmod(links)
    assert result.failed == 0 and result.attempted > 0


@pytest.mark.parametrize("params, run, throughput", [
    ({"batch_size": "64", "epochs": "7", "steps": "5000", "seed": "3", "devices": "4", "shapes": "5",
      "packs_per_step": "2", "calibration": STEM, "baseline": "dynamic"},
     {"batch_size": 64, "epochs": 1, "steps": 5000, "seed": 3, "devices": 4, "num_shapes": 5, "packs_per_batch": 2},
     {"calibration": STEM, "baseline": "dynamic"}),
    ({"epochs": "100", "packs_per_step": "match", "calibration": "this_machine"},
     {**state.RUN_DEFAULTS, "epochs": 100},
     {"calibration": "this_machine", "baseline": "pyg_dataloader"}),
])
def test_a_link_sets_the_run_and_the_throughput_settings(params, run, throughput):
    at = opened(params)
    assert not warnings(at)
    assert at.session_state[state.RUN] == run  # steps win over epochs: one epoch
    assert at.session_state[state.THROUGHPUT] == throughput


def test_the_run_and_throughput_settings_round_trip_through_the_url():
    app = started_app()
    assert not {"batch_size", "epochs", "steps", "calibration", "baseline"} & set(link(app))  # defaults stay out
    run = {"batch_size": 128, "epochs": 1, "steps": 20_000, "seed": 7, "devices": 2, "num_shapes": 3,
           "packs_per_batch": 4}
    throughput = {"calibration": STEM, "baseline": "buckets"}
    app.session_state[state.RUN] = run
    app.session_state[state.THROUGHPUT] = throughput
    app.run()
    written = link(app)
    assert {name: written[name] for name in ("batch_size", "steps", "seed", "devices", "shapes", "packs_per_step",
                                             "calibration", "baseline")} == {
        "batch_size": "128", "steps": "20000", "seed": "7", "devices": "2", "shapes": "3", "packs_per_step": "4",
        "calibration": STEM, "baseline": "buckets"}
    assert "epochs" not in written
    colleague = opened(written)
    assert not warnings(colleague)
    assert colleague.session_state[state.RUN] == run
    assert colleague.session_state[state.THROUGHPUT] == throughput
    assert link(colleague) == written


@pytest.mark.parametrize("params, words", [
    ({"calibration": "uploaded"}, "cannot travel in a link (upload it again on the Throughput page)"),
    ({"calibration": "my-gpu"},
     f"calibration='my-gpu' is not a shipped calibration ({', '.join(STEMS)}) or this_machine"),
    ({"devices": "0"}, "devices='0' must lie between 1 and 64"),
    ({"steps": "abc"}, "steps='abc' is not a whole number"),
    ({"packs_per_step": "-1"}, "packs_per_step='-1' must lie between 1 and 4,096 (or match)"),
    ({"baseline": "fastest"}, "baseline='fastest' is not one of static_constant"),
    ({"sweep_nodes": "29:89", "sweep_edges": "56:176:40"}, "its sweep could not be used (sweep_nodes='29:89' must "
                                                           "be from:to:step)"),
    ({"sweep_nodes": "89:29:20", "sweep_edges": "56:176:40"}, "The node range is empty: start 89 is above stop 29"),
    ({"sweep_nodes": "29:89:20", "sweep_edges": "56:176:40", "sweep_algorithm": "published"},
     "sweep_algorithm='published' is not one of best_fit, worst_fit, first_fit"),
    ({"sweep_edges": "56:176:40"}, "a sweep needs both sweep_nodes and sweep_edges"),
])
def test_a_bad_value_is_one_problem_and_the_rest_of_the_link_applies(params, words):
    at = opened({**params, "seed": "5"})
    (warning,) = warnings(at)
    assert "This link could not be used completely" in warning and words in warning
    assert at.session_state[state.RUN] == {**state.RUN_DEFAULTS, "seed": 5}
    assert stored(at, state.THROUGHPUT, state.THROUGHPUT_DEFAULTS) == state.THROUGHPUT_DEFAULTS
    assert state.SWEEP not in at.session_state and links.REQUESTED_SWEEP not in at.session_state


def test_every_bad_value_of_a_link_is_named():
    bad = {"calibration": "uploaded", "devices": "0", "steps": "abc", "packs_per_step": "-1", "shapes": "99"}
    (warning,) = warnings(opened(bad))
    problems = warning.split("**This link could not be used completely:** ")[1].split("; ")
    assert len(problems) == len(bad)
    for name in bad:
        assert f"{name}=" in warning
    (warning,) = warnings(opened({"dataset": "ogbg-molhiv", "max_nodes": "abc", "max_graphs": "0", "max_edges": "1e3"}))
    assert all(f"{name}=" in warning for name in ("max_nodes", "max_graphs", "max_edges"))
    (warning,) = warnings(opened({"sweep_nodes": "300:100", "sweep_edges": "502:abc:1"}))
    assert "sweep_nodes=" in warning and "sweep_edges=" in warning
    (warning,) = warnings(opened({"dataset": "aflow", "k": "0"}))
    assert "got '0'. The defaults are shown" in warning  # one full stop


def check_sweep_shown(at: AppTest) -> None:
    """The heatmap, form and state hold exactly ``SWEEP_LINK``'s ranges and method."""
    assert not at.exception and not at.error, [e.value for e in at.exception] + [e.value for e in at.error]
    selection = at.session_state[state.SELECTION]
    assert selection.name == "ogbg-molhiv" and at.session_state[state.SWEEP]["for"] == selection.key
    cells = heatmap(at)
    assert cells["x"].tolist() == [222, 322, 422] and cells["y"].tolist() == [502, 702, 902]
    shown = {name: at.number_input(key=f"sw_{name}").value for name in ("n0", "n1", "ns", "e0", "e1", "es",
                                                                        "max_graphs", "w_nodes", "w_edges")}
    assert shown == {"n0": 222, "n1": 422, "ns": 100, "e0": 502, "e1": 902, "es": 200, "max_graphs": 128,
                     "w_nodes": 2.0, "w_edges": 1.0}
    assert at.selectbox(key="sw_algorithm").value == "first_fit"
    assert at.selectbox(key="sw_heuristic").value == "weighted"
    hist, _ = load_histogram("ogbg-molhiv", selection.split, **selection.options)
    expected = sweep(hist, [222, 322, 422], [502, 702, 902], max_graphs=128,
                     method=PackMethod("first_fit", "weighted", weights=(2.0, 1.0)), workers=1)
    table = expected.set_index(["max_edges", "max_nodes"])["harmonic_mean"].unstack("max_nodes")
    assert np.allclose(cells["z"], table.to_numpy() * 100, equal_nan=True)
    assert {name: value for name, value in link(at).items() if name.startswith("sweep_")} == {
        name: value for name, value in SWEEP_LINK.items() if name.startswith("sweep_")}


def test_a_sweep_link_opened_on_the_sweep_page_shows_its_heatmap_at_once():
    at = started_app()  # a session whose first run is the Limit sweep page, opened by a link
    at.session_state[links.READ] = False
    for name, value in SWEEP_LINK.items():
        at.query_params[name] = value
    at.switch_page(SWEEP_PAGE).run()
    check_sweep_shown(at)


def test_a_sweep_link_belongs_to_the_dataset_it_opens():
    at = opened(SWEEP_LINK)
    assert not warnings(at)
    assert link(at)["sweep_nodes"] == "222:422:100"  # written back before any page drew the sweep
    at.switch_page(SWEEP_PAGE).run()
    check_sweep_shown(at)
    at.sidebar.selectbox(key="ds_name").set_value("qm9").run()  # another dataset: not its sweep
    assert not any(name.startswith("sweep_") for name in link(at))
    assert any("press **Run sweep**" in info.value for info in at.info)


def test_an_upload_link_opens_the_default_dataset_with_its_own_defaults():
    at = opened({"dataset": "upload:mine.csv", "max_nodes": "40", "algorithm": "first_fit", "heuristic": "sum",
                 "sweep_nodes": "29:89:20", "sweep_edges": "56:176:40", "batch_size": "64"})
    (warning,) = warnings(at)
    assert "uploaded file (mine.csv), which a link cannot carry" in warning
    assert "the default dataset opens instead, with its own limits, method and sweep" in warning
    at.switch_page(PACKING).run()
    assert not at.exception and not at.error
    assert at.session_state[state.SELECTION].name == "qm9"
    recommended = recommend(load_histogram("qm9")[0], 64)  # the link's batch size still travels
    assert chosen(at).limits == recommended.limits and chosen(at).is_recommended
    assert at.session_state[state.METHOD] == recommended.plan.method
    assert state.SWEEP not in at.session_state and links.REQUESTED_SWEEP not in at.session_state
    assert at.session_state[state.RUN]["batch_size"] == 64  # the run is no dataset's: it still travels


def test_a_throughput_link_opens_the_pages_with_every_setting_and_writes_their_changes_back():
    gpu = "nvidia-h100-80gb-hbm3__gin-h64-l3__eager"
    at = opened({"dataset": "ogbg-molhiv", "calibration": gpu, "baseline": "static_64", "batch_size": "64",
                 "devices": "4", "steps": "5000", "packs_per_step": "2"})
    at.switch_page("pages/throughput_page.py").run()
    assert not at.exception and not at.error, [e.value for e in at.exception]
    assert at.selectbox(key="tp_calibration").value == gpu and at.selectbox(key="tp_baseline").value == "static_64"
    assert at.number_input(key="run_batch_size").value == 64 and at.number_input(key="run_devices").value == 4
    assert at.selectbox(key="run_length").value == "5,000 steps"  # a run length offered only through the link
    assert at.number_input(key="run_packs_per_batch").value == 2
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "NVIDIA H100 80GB HBM3" in chart["layout"]["title"]["text"]
    assert "5,000 steps" in json.dumps(chart["layout"]["annotations"])
    at.switch_page("pages/batching_page.py").run()
    assert at.selectbox(key="run_length").value == "5,000 steps" and at.number_input(key="run_devices").value == 4
    at.number_input(key="run_devices").set_value(2).run()
    assert link(at)["devices"] == "2" and link(at)["calibration"] == gpu and link(at)["steps"] == "5000"


def test_a_dataset_without_edges_is_said_to_be_judged_by_its_nodes():
    at = opened({"dataset": "qm9", "graph": "radius", "cutoff": "0.1"})
    at.switch_page("pages/packing_page.py").run()
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    assert any("The graphs have no edges, so the harmonic mean is the node efficiency." in caption.value
               for caption in at.caption)
    metrics = {metric.label: metric.value for metric in at.metric}
    assert metrics["Harmonic mean"] == metrics["Node efficiency"]
    at.switch_page("pages/sweep_page.py").run()
    at.button[0].click().run()  # the default sweep
    assert not at.exception, [e.value for e in at.exception]
    found = next(m.value for m in at.markdown if " nodes x " in m.value and "(smallest product of the two)" in m.value)
    assert "edges not judged: the graphs have none" in found and "edge efficiency 0.00%" not in found
    best = next(c.value for c in at.caption if c.value.startswith("Best cell (star)"))
    assert "no edges to judge" in best and "edge 0.00%" not in best
    assert at.number_input(key="sw_target").label == "Node efficiency at least (%)"
