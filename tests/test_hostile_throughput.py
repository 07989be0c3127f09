"""Hostile calibrations (issue 37, round two): a forged file (its digest recomputed, as
anyone can) whose shapes or model are too large for a check is refused or left out before
anything is allocated, on load, in a check, on the command line and on the Throughput page;
``calibrate --out`` never replaces a file or writes into the shipped folder without --force."""
from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Any

import pytest

from app_helpers import as_read
from calibration_helpers import throughput_page_of_a_fresh_server

from packing import BatchShape
from pages import cache
from throughput import Calibration, check_calibration, load_calibration
from throughput.calibration import CALIBRATIONS_ENV, SHIPPED, digest
from throughput.cli import run
from throughput.device import cpu_description

#: A real shipped calibration the forgeries start from.
BASE = SHIPPED / "amd-epyc__gin-h64-l3__eager.json"
#: A refusal must come before anything is allocated or timed: well within this.
QUICK_SECONDS = 5.0
#: A small calibration for the command line: GIN (hidden 4, 1 layer) at 6 shapes up to 64 nodes, its
#: loaders not timed (test_loader_cost.py times them from the command line).
TINY = ["--hidden", "4", "--layers", "1", "--shapes", "6", "--max-nodes", "64", "--max-edges", "64",
        "--max-graphs", "2", "--threads", "1", "--no-loaders"]


def forged(shape: tuple[int, int, int] | None = None, hidden: int = 64, layers: int = 3,
           this_cpu: bool = False) -> dict[str, Any]:
    """The shipped calibration :data:`BASE` with its first shape replaced by ``shape`` (the
    fastest of all, so a check picks it), the model resized, and (``this_cpu``) this
    machine's CPU as its device; fit and digest recomputed as the tool writes them."""
    base = load_calibration(BASE)
    timings = list(base.timings)
    if shape is not None:
        fastest = min(t.median for t in timings) / 2
        timings[0] = dataclasses.replace(timings[0], shape=BatchShape(*shape), median=fastest, p25=fastest,
                                         p75=fastest, fastest=fastest)
    device_info = cpu_description(base.device_info["threads"]) if this_cpu else base.device_info
    cal = Calibration.from_timings(base.model, hidden, layers, base.device, base.mode, timings,
                                   device_info=device_info, versions=base.versions,
                                   model_info={**base.model_info, "hidden": hidden, "layers": layers},
                                   timing=base.timing, created=base.created)
    data = cal.to_dict()
    assert data["digest"] == digest({key: value for key, value in data.items() if key != "digest"})
    return data


def write(data: dict[str, Any], path: Path) -> Path:
    path.write_text(json.dumps(data))
    return path


def refused_quickly(action: Any, message: str) -> str:
    """``action()`` raises a ``ValueError`` containing ``message`` within ``QUICK_SECONDS``."""
    started = time.perf_counter()
    with pytest.raises(ValueError) as error:
        action()
    assert time.perf_counter() - started < QUICK_SECONDS
    assert message in str(error.value), str(error.value)
    return str(error.value)


def test_load_refuses_a_forged_shape_of_2_30_nodes():
    data = forged((2**30, 2048, 3))
    words = refused_quickly(lambda: load_calibration(data),
                            "timings[0].nodes must lie between 1 and 16,777,216, got 1,073,741,824.")
    assert "calibrate again" in words and "\n" not in words


def test_load_refuses_a_forged_model_of_hidden_width_65536():
    refused_quickly(lambda: load_calibration(forged(hidden=65_536)),
                    "model.hidden must lie between 1 and 4,096, got 65,536.")


def test_a_check_refuses_a_model_too_large_for_its_memory_before_building_it():
    cal = load_calibration(forged(hidden=4096, layers=16))  # within what a device can time: loads
    words = refused_quickly(lambda: check_calibration(cal, "cpu", seconds=0.5),
                            "gin (model.hidden 4,096, model.layers 16) needs about")
    assert "a check may take, so it is not checked: calibrate this machine instead" in words


def test_a_check_leaves_out_a_shape_too_large_for_its_memory_and_says_why():
    cal = load_calibration(forged((2**24, 2048, 3)))
    started = time.perf_counter()
    check = check_calibration(cal, "cpu", seconds=0.5)
    assert time.perf_counter() - started < 4 * QUICK_SECONDS
    assert BatchShape(2**24, 2048, 3) not in [shape.shape for shape in check.shapes] and len(check.shapes) >= 3
    (skipped,) = check.skipped
    assert skipped.startswith("timings[0] (16,777,216 nodes, 2,048 edges) needs about")
    assert f"Not timed: {skipped}." in check.describe() and check.to_dict()["skipped"] == [skipped]


@pytest.mark.parametrize("data, message", [
    (forged(hidden=65_536), "model.hidden must lie between 1 and 4,096, got 65,536."),
    (forged((2**30, 2048, 3)), "timings[0].nodes must lie between 1 and 16,777,216, got 1,073,741,824."),
    (forged(hidden=4096, layers=16), "needs about"),
])
def test_check_of_a_forged_file_ends_with_one_error_line_and_status_2(tmp_path, capsys, data, message):
    path = write(data, tmp_path / "forged.json")
    started = time.perf_counter()
    assert run(["check", str(path), "--seconds", "0.5"]) == 2
    assert time.perf_counter() - started < QUICK_SECONDS
    stderr = capsys.readouterr().err
    assert stderr.startswith("error: ") and message in stderr and stderr.count("\n") == 1, stderr
    assert "Traceback" not in stderr


def test_calibrate_refuses_to_replace_a_file_without_force(tmp_path, capsys):
    assert run(["calibrate", *TINY, "--out", str(tmp_path)]) == 0
    (written,) = tmp_path.glob("*.json")
    before = written.read_text()
    capsys.readouterr()
    for out in (tmp_path, written):  # the folder (the file named after the calibration) or the file itself
        assert run(["calibrate", *TINY, "--out", str(out)]) == 2
        stderr = capsys.readouterr().err
        assert stderr == f"error: --out {written} exists; choose another file or folder, or add --force to " \
                         "replace it.\n"
    assert written.read_text() == before
    assert run(["calibrate", *TINY, "--out", str(tmp_path), "--force"]) == 0
    assert f"wrote {written}" in capsys.readouterr().out
    assert written.read_text() != before and load_calibration(written).hidden == 4


def test_calibrate_refuses_the_shipped_folder_without_force(capsys):
    shipped = sorted(SHIPPED.iterdir())
    for out in (SHIPPED, SHIPPED / "mine.json", BASE):
        assert run(["calibrate", *TINY, "--out", str(out)]) == 2
        stderr = capsys.readouterr().err
        assert stderr.startswith("error: --out ") and "shipped with the tool" in stderr, stderr
        assert "write yours elsewhere" in stderr and "--force" in stderr and "timing gin" not in stderr
    assert sorted(SHIPPED.iterdir()) == shipped


def test_the_page_shows_a_message_and_calibrates_here_when_the_team_folder_holds_forgeries(tmp_path, monkeypatch):
    write(forged((2**30, 2048, 3), this_cpu=True), tmp_path / "a-forged-nodes.json")
    write(forged(hidden=4096, layers=16, this_cpu=True), tmp_path / "b-forged-model.json")
    with throughput_page_of_a_fresh_server(tmp_path, monkeypatch) as at:
        assert not at.error, [e.value for e in at.error]
        warnings = [as_read(w.value) for w in at.warning]
        assert any(w.startswith(f"a-forged-nodes.json (in ${CALIBRATIONS_ENV}) was left out: ") and
                   "timings[0].nodes must lie between 1 and 16,777,216, got 1,073,741,824." in w for w in warnings)
        assert any(w.startswith("The team folder's calibration of this CPU (b-forged-model.json) could not be "
                                "checked here: gin (model.hidden 4,096, model.layers 16) needs about") for w in warnings)
        this = cache.machine_calibration()
        assert this.measured and this.calibration.hidden == 64
        assert any(c.value.startswith("**Calibration check:**") and "could not be checked here, so this machine "
                   "was calibrated now" in as_read(c.value) for c in at.caption)
        assert at.selectbox(key="tp_calibration").value == "this_machine" and at.dataframe


def test_a_calibration_whose_device_and_versions_are_markdown_is_shown_as_text(tmp_path, monkeypatch):
    base = load_calibration(BASE)
    image = "![x](https://evil.example/p.png)"
    cal = Calibration.from_timings(base.model, base.hidden, base.layers, base.device, base.mode, list(base.timings),
                                   device_info={**base.device_info, "name": image},
                                   versions={**base.versions, "torch": "[click](https://evil.example/)"},
                                   model_info=base.model_info, timing=base.timing, created=base.created)
    write(cal.to_dict(), tmp_path / "hostile.json")
    with throughput_page_of_a_fresh_server(tmp_path, monkeypatch) as at:
        options = at.selectbox(key="tp_calibration").options
        chosen = next(option for option in options if "evil" in option)
        at.selectbox(key="tp_calibration").set_value(chosen).run()
        assert not at.exception, [e.value for e in at.exception]
        shown = [m.value for m in at.markdown if "**Device:**" in m.value]
        assert shown and "![x](" not in shown[0] and "[click](" not in shown[0]
        assert image in as_read(shown[0]) and "[click](https://evil.example/)" in as_read(shown[0])
