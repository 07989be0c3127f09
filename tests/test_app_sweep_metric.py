"""The Limit sweep page prices every cell on the Throughput page's calibration and marks
the recommended configuration (AppTest on the bundled QM9)."""
from __future__ import annotations

import json

from app_helpers import started_app
from data_loaders import load_histogram
from packing import recommend
from throughput import load_calibration, shipped_calibrations, step_cost

COMPILE = "nvidia-h100-80gb-hbm3__gin-h64-l3__compile"


def chart(at) -> dict:
    return json.loads(at.get("plotly_chart")[0].proto.spec)


def test_the_heatmap_prices_cells_on_the_chosen_calibration_and_marks_the_recommendation():
    at = started_app()
    at.switch_page("pages/sweep_page.py").run()
    for key, value in {"sw_n0": 300, "sw_n1": 700, "sw_ns": 50, "sw_e0": 600, "sw_e1": 1500, "sw_es": 100}.items():
        at.number_input(key=key).set_value(value)
    at.button[0].click().run()  # Run sweep
    assert not at.exception and not at.error
    names = [trace.get("name") for trace in chart(at)["data"]]
    assert "recommended" in names and "fastest" not in names  # QM9's 583 x 1,206 lies inside these ranges
    assert any(c.value.startswith("Recommended for batch size 32 (no calibration chosen: the least padding) "
                                  "(diamond)") for c in at.caption)
    at.radio(key="sw_metric").set_value("Estimated steady epoch (s)").run()
    assert any("Choose a calibration on the Throughput page" in i.value for i in at.info)
    at.session_state["throughput_controls"] = {"calibration": COMPILE, "baseline": "pyg_dataloader"}
    at.run()
    assert not at.exception and not at.error
    figure = chart(at)
    assert figure["layout"]["title"]["text"].startswith(
        "Estimated steady epoch per limit pair, batch size 32 on NVIDIA H100 80GB HBM3 (compile)")
    assert {"best", "fastest", "recommended"} <= {trace.get("name") for trace in figure["data"]}
    fastest = next(c.value for c in at.caption if c.value.startswith("Fastest cell (star)"))
    assert "an upper bound where its packs hold fewer" in fastest
    # the recommendation is now priced on that calibration, and no sweep cell estimates faster
    calibration = load_calibration(next(p for p in shipped_calibrations() if p.stem == COMPILE))
    chosen = recommend(load_histogram("qm9")[0], 32, step_cost(calibration))
    seconds = float(fastest.split("at most ")[1].split(" s a steady epoch")[0])
    assert chosen.steady_epoch_s <= seconds * 1.001  # the caption rounds to three digits
    assert any(c.value.startswith("Recommended for batch size 32 on NVIDIA H100 80GB HBM3 (compile)")
               for c in at.caption)
