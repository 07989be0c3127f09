"""Hostile strings in a configuration or a sweep table (issue 37, item 1): the HTML report
and its figures show them as text, never as markup (a script, an image fetched from a
remote host, a link), and the training snippet never turns them into code."""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import plotly.graph_objects as go
import pytest

from figures.cli import run as figures_cli
from figures.report import build_report, report_figures
from figures.snippet import training_snippet
from packing import PackLimits, SizeHistogram, pack, sweep
from packing.batching import batching_section, compare_batching
from packing.export import export_config
from packing.io import save_config
from throughput import estimate, load_calibration, shipped_calibrations, throughput_section

HOSTILE = "<img src=x onerror=alert(1)><a href='https://evil.example/'>x</a></script><b>"
TAGS = re.compile(r"<\s*/?\s*(img|a|script|b|iframe)\b", re.IGNORECASE)


def hostile_report_inputs() -> tuple[dict, object, object]:
    """A configuration with every section and a sweep table whose strings are all hostile."""
    hist = SizeHistogram.from_sizes([3, 2, 3, 5, 4], [4, 2, 4, 8, 6])
    plan = pack(hist, PackLimits(8, 12, 4))
    info = {"dataset": HOSTILE, "split": HOSTILE, "options": {HOSTILE: HOSTILE}, "source": HOSTILE,
            "provenance": HOSTILE}
    priced = estimate(hist, 2, load_calibration(shipped_calibrations()[0]), plan, epochs=1)
    sections = {"batching": batching_section(compare_batching(hist, 2, plan=plan, epochs=1, seed=0)),
                "throughput": throughput_section(priced, None, HOSTILE)}
    config = export_config(plan, hist, info, sections)
    config["tool"] = {"name": HOSTILE, "version": HOSTILE}
    config["created"] = HOSTILE
    calibration = config["throughput"]["calibration"]
    calibration["label"] = HOSTILE
    calibration["device"]["name"] = HOSTILE
    frame = sweep(hist, [5, 8], [8, 12], max_graphs=4, workers=1).assign(method=HOSTILE)
    return config, plan, frame


def strings_of(value: object) -> list[str]:
    """Every string in a figure's JSON, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in [str(key), *strings_of(item)]]
    if isinstance(value, (list, tuple)):
        return [text for item in value for text in strings_of(item)]
    return []


def test_the_report_shows_hostile_strings_as_text_and_no_tag_survives():
    config, plan, frame = hostile_report_inputs()
    page = build_report(config, plan, frame, file_name="c.json")
    outside_scripts = re.sub(r"<script[^>]*>.*?</script>", "", page, flags=re.DOTALL)
    assert not re.search(r"<\s*(img|iframe)\b|<a href='https://evil", outside_scripts, re.IGNORECASE)
    assert page.count("<script") == page.count("</script>")  # no string closes a script early
    assert outside_scripts.count("&lt;img src=x onerror=alert(1)&gt;") >= 5  # shown, as typed
    for name, build in report_figures(config, plan, frame).items():
        fig = build()
        assert isinstance(fig, go.Figure)
        found = [text for text in strings_of(fig.to_plotly_json()) if "evil" in text or "onerror" in text]
        assert found, name  # every figure is titled with the dataset
        assert not any(TAGS.search(text) for text in found), (name, found)


def test_the_report_command_writes_a_report_of_hostile_files_without_a_live_tag(tmp_path: Path):
    config, plan, frame = hostile_report_inputs()
    config_path = save_config(config, tmp_path / "c.json")
    frame.to_csv(tmp_path / "s.csv", index=False)
    out = tmp_path / "r.html"
    assert figures_cli(["report", str(config_path), "--sweep", str(tmp_path / "s.csv"), "--out", str(out)]) == 0
    page = out.read_text()
    outside_scripts = re.sub(r"<script[^>]*>.*?</script>", "", page, flags=re.DOTALL)
    assert not re.search(r"<\s*(img|iframe)\b|<a href='https://evil", outside_scripts, re.IGNORECASE)
    assert page.count("<script") == page.count("</script>")


@pytest.mark.parametrize("name", ['x")\nimport os\nos.system("echo owned")\n#', "a\"b'.json", "c\\\n.json"])
def test_the_training_snippet_keeps_a_hostile_name_in_its_comment_and_its_string(name):
    code = training_snippet(name, what=name)
    tree = ast.parse(code)  # still Python
    imports = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert [alias.name for node in imports for alias in node.names] == \
        ["torch", "torch.nn.functional", "GIN", "global_add_pool", "PackedLoader"]
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute) and node.func.attr == "from_config"]
    assert ast.literal_eval(calls[0].args[1]) == name
    assert json.dumps(name) in code
