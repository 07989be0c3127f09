"""The one-file report (issue 20, item 1): from the command line on a saved configuration of
bundled data and from the Export page (AppTest), every section checked against the
configuration and the pages' numbers; errors of the command line; the report opened in
Chromium with a screenshot (docs/screenshots/report.png)."""
from __future__ import annotations

import doctest
import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from plotly.offline import get_plotlyjs
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from browser_helpers import ROOT, screenshot
from common_helpers import Finished, run_main

from data_loaders import load_histogram
import figures.cli
import figures.report
import figures.throughput
import figures.snippet
from data_loaders.registry import task_of
import figures.titles
from figures.report import build_report, report_figures, three_digits, throughput_frame
from figures.titles import subject, sweep_subject
from packing import PackLimits, PackMethod, SizeHistogram, pack, sweep
from packing.batching import batching_section, compare_batching
from packing.export import export_config
from packing.io import load_config, save_config
from packing.words import bound_words, describe_settings
from throughput.section import extrapolation_note, one_off_note
from throughput import estimate, load_calibration, shipped_calibrations, throughput_section

FIGURES = ["size-histogram", "graphs-per-pack", "pack-fill", "pack-strategies", "sweep-heatmap", "batching-padding",
           "throughput-epoch"]
MAX_BYTES = 8_000_000  # plotly.js alone is 4.8 MB


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> tuple[Path, Path]:
    """A configuration of ogbg-molhiv (train) with batching and throughput sections made
    with a shipped calibration, and a sweep CSV around its limits."""
    folder = tmp_path_factory.mktemp("report")
    hist, info = load_histogram("ogbg-molhiv", "train")
    limits = PackLimits(260, 560, 64)
    plan = pack(hist, limits, algorithm="best")
    batching = compare_batching(hist, 32, plan=plan, epochs=1, seed=0)
    priced = estimate(hist, 32, load_calibration(shipped_calibrations()[0]), plan, epochs=1)
    sections = {"batching": batching_section(batching),
                "throughput": throughput_section(priced, None, "not checked: made by the test")}
    config_path = save_config(export_config(plan, hist, info, sections), folder / "molhiv-260n-560e-64g.json")
    frame = sweep(hist, node_limits=range(222, 500, 38), edge_limits=range(502, 1100, 58), max_graphs=64)
    frame.to_csv(folder / "sweep.csv", index=False)
    return config_path, folder / "sweep.csv"


def run_cli(*args: str) -> Finished:
    """``python -m figures ARGS`` run in this process."""
    return run_main(figures.cli.run, *args)


@pytest.fixture(scope="module")
def cli_report(saved) -> Path:
    """The report written by ``python -m figures`` in a real process (the entry point's test)."""
    config_path, sweep_path = saved
    out = config_path.with_name("report.html")
    result = subprocess.run([sys.executable, "-m", "figures", "report", str(config_path), "--out", str(out),
                             "--sweep", str(sweep_path)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"wrote {out}")
    return out


def sections(page: str) -> dict[str, str]:
    """Section id -> its HTML."""
    parts = re.split(r"<section id='section-([a-z]+)'>", page)[1:]
    return dict(zip(parts[::2], parts[1::2]))


def without_tags(text: str) -> str:
    """The text of some HTML, tags left out (a note's options are in spans)."""
    return re.sub(r"<[^>]+>", "", text)


def figure_chunks(page: str) -> dict[str, str]:
    """Figure name -> the HTML of its plot."""
    parts = re.split(r"<div class='figure' id='figure-([a-z-]+)'>", page)[1:]
    return dict(zip(parts[::2], parts[1::2]))


def embedded_config(page: str) -> dict:
    text = re.search(r"<pre id='config-json'>(.*?)</pre>", page, re.S).group(1)
    return json.loads(html.unescape(text))


def check_report(page: str, config: dict, plan, sweep_line: str | None) -> dict[str, str]:
    """Every section of a report against its configuration (and ``sweep_line``, the subtitle
    of its sweep heatmap, when it has one); returns the sections."""
    with_sweep = sweep_line is not None
    found = sections(page)
    expected = ["dataset", "choice", "packs", *(["sweep"] if with_sweep else []), "batching", "throughput",
                "configuration"]
    assert list(found) == expected
    assert page.count(get_plotlyjs()) == 1  # inlined once
    rest = page.replace(get_plotlyjs(), "")
    assert "<script src=" not in rest and "http" not in rest.split("<section")[0]  # works offline
    assert len(page.encode()) < MAX_BYTES
    charts = figure_chunks(page)
    assert list(charts) == [name for name in FIGURES if with_sweep or name != "sweep-heatmap"]
    line = subject(config["dataset"], plan)
    for name, chunk in charts.items():  # titled with dataset, split, method, limits (the sweep's own)
        assert "Plotly.newPlot" in chunk, name
        assert (sweep_line if name == "sweep-heatmap" else line) in chunk, name
    data = config["dataset"]
    for text in (data["name"], data["split"], html.escape(data["provenance"]), html.escape(data["source"])):
        assert text in found["dataset"]
    assert f"<td>{data['graphs']:,}</td>" in found["dataset"]
    metrics = config["metrics"]
    choice = found["choice"]
    for value in (f"{metrics['packs']:,}", f"{metrics['node_efficiency']:.2%}", f"{metrics['edge_efficiency']:.2%}",
                  f"{metrics['harmonic_mean']:.2%}", f"{metrics['gap']:.2%}", f"{metrics['lower_bound']:,}",
                  f"{plan.limits.max_nodes:,}", f"{plan.limits.max_edges:,}", html.escape(plan.label)):
        assert f"<td>{value}" in choice, value
    for row in config["batching"]["table"]:
        assert f"<td>{row['node_efficiency']:.2%}</td>" in found["batching"]
        assert f"<td>{row['batches']:,}</td>" in found["batching"]
        # the file keeps each strategy's settings as values, and the report says them in words
        words = describe_settings(row["strategy"], config["batching"]["strategies"][row["strategy"]])
        assert f"<td>{words}</td>" in html.unescape(found["batching"])
    throughput = config["throughput"]
    assert html.escape(throughput["calibration"]["label"]) in found["throughput"]
    assert html.escape(throughput["check_note"]) in found["throughput"]
    for row in throughput["table"]:
        assert f"<td>{row['speedup_run']:.2f}x</td>" in found["throughput"]
        assert f"<td>{three_digits(row['run_s'])}</td>" in found["throughput"]
    priced = throughput_frame(throughput)
    for note in [one_off_note(priced, figures.throughput.label), extrapolation_note(priced, figures.throughput.label)]:
        assert html.escape(note.replace("`", "")) in without_tags(found["throughput"])  # the page's notes, code as code
    assert embedded_config(page) == config
    assert "loader.set_epoch(epoch)" in found["configuration"]  # the training snippet for this file
    loss = "F.binary_cross_entropy_with_logits(out" if task_of(data["name"]) == "binary" else "F.mse_loss(out"
    assert loss in found["configuration"]  # the dataset's task, as the Export page shows it
    return found


@pytest.mark.parametrize("module", [figures.report, figures.snippet, figures.titles])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.failed == 0 and result.attempted > 0


def test_cli_report_has_every_section_with_the_configurations_numbers(saved, cli_report):
    config, plan = load_config(saved[0])
    page = cli_report.read_text(encoding="utf-8")
    found = check_report(page, config, plan, sweep_subject(config["dataset"], pd.read_csv(saved[1])))
    assert "No LP bound was proven" in found["choice"]
    assert f"download='{saved[0].name}'" in found["configuration"]


def test_exported_figures_name_what_they_show_and_keep_colour_bars_below_the_title(saved):
    config, plan = load_config(saved[0])
    frame = pd.read_csv(saved[1])
    built = {name: build() for name, build in report_figures(config, plan, frame).items()}
    assert list(built) == FIGURES
    line = subject(config["dataset"], plan)
    assert "ogbg-molhiv (train)" in line and "limits 260 nodes, 560 edges, 64 graphs" in line
    sweep_line = sweep_subject(config["dataset"], frame)
    assert sweep_line == "ogbg-molhiv (train): sweep with best fit, product heuristic; 64 graphs per pack"
    for name, fig in built.items():
        assert fig.layout.title.text.endswith(f"<br><sup>{sweep_line if name == 'sweep-heatmap' else line}</sup>"), name
        assert fig.layout.margin.t >= 100, name  # two title lines fit in the top margin
        for trace in fig.data:
            if trace.type == "heatmap" and trace.showscale is not False:
                assert trace.colorbar.yanchor == "bottom" and trace.colorbar.y + trace.colorbar.len <= 0.9, name


def test_cli_prints_the_report_to_pdf(saved, tmp_path):
    out = tmp_path / "report.pdf"
    result = run_cli("report", str(saved[0]), "--out", str(out))
    assert result.returncode == 0, result.stderr
    data = out.read_bytes()
    assert data[:5] == b"%PDF-" and len(re.findall(rb"/Type\s*/Page\b", data)) >= 5  # every section, on pages


def test_report_states_an_lp_proof_and_what_the_configuration_lacks():
    hist, info = load_histogram("ogbg-molhiv", "train")
    from packing import lower_bounds

    limits = PackLimits.for_histogram(hist)
    plan = pack(hist, limits, algorithm="best")
    plan = plan.with_bounds(lower_bounds(hist, limits, prove=True, time_budget=60, packs=plan.packs))
    config, loaded = load_config(export_config(plan, hist, info))
    page = build_report(config, loaded)
    assert "LP bound proven: at least" in sections(page)["choice"]
    assert plan.bounds.lp_result.stop_reason in sections(page)["choice"]
    assert "Not in this configuration: batching comparison (Batching page), throughput estimate" in page
    assert list(report_figures(config, loaded)) == FIGURES[:4]


def test_a_plan_whose_graph_limit_never_binds_and_whose_estimate_is_extrapolated_says_so():
    """QM9 bonds at their data defaults (29 nodes, 56 edges, 256 graphs): no pack holds more
    than 7 graphs and best fit puts at most 2 in one, so the packs pad 2 graph slots each, not
    256; with 2,000 packs per batch the
    packing row's shape is far beyond what the shipped CPU calibration timed. The report says
    both, as the pages do."""
    hist, info = load_histogram("qm9")
    plan = pack(hist, PackLimits(29, 56, 256))
    assert plan.graph_capacity == 2
    priced = estimate(hist, 32, load_calibration(shipped_calibrations()[0]), plan, epochs=1, packs_per_batch=2000)
    assert priced.set_index("strategy").loc["packing", "extrapolated"]
    config, loaded = load_config(export_config(plan, hist, info, {"throughput": throughput_section(priced)}))
    found = {key: html.unescape(text) for key, text in sections(build_report(config, loaded)).items()}
    assert "can hold more than 7 graphs of this dataset, so Max graphs 256 never binds here; the packed loader " \
           "pads each pack to the 2 graph slots its fullest pack uses, not to 256." in found["choice"]
    assert "<td>yes</td>" in found["throughput"]
    assert "Extrapolated: the padded shapes of packing (58,001 nodes, 4,001 graphs)" \
        in found["throughput"]
    assert "python -m throughput calibrate --model gin" in without_tags(found["throughput"])
    assert " <span class='flag'>--max-graphs 4001</span></code>." in found["throughput"]  # an option never breaks inside


def test_the_no_packing_baseline_is_not_told_to_prove_a_bound():
    hist, info = load_histogram("ogbg-molhiv", "train")
    plan = pack(hist, PackLimits.for_histogram(hist), algorithm="none")
    config, loaded = load_config(export_config(plan, hist, info))
    choice = html.unescape(sections(build_report(config, loaded))["choice"])
    assert "puts every graph in a pack of its own" in choice and "Prove a tighter" not in choice


def test_a_json_sweep_table_makes_the_same_heatmap(saved, tmp_path):
    as_json = tmp_path / "sweep.json"
    pd.read_csv(saved[1]).to_json(as_json, orient="records")
    out = tmp_path / "r.html"
    result = run_cli("report", str(saved[0]), "--sweep", str(as_json), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "sweep with best fit, product heuristic; 64 graphs per pack" in sections(out.read_text())["sweep"]


SEVENTEEN = SizeHistogram.from_counts([3, 5, 8, 12], [4, 10, 16, 26], [7, 5, 3, 2])
SIX = SizeHistogram.from_counts([2, 8, 9], [2, 8, 10], [2, 1, 3])  # the 9-node graphs and the 8-node one share no pack


@pytest.mark.parametrize("hist, algorithm, proof", [
    (SEVENTEEN, "best", "No LP bound was proven"),
    (SEVENTEEN, "node_only", "this baseline leaves one out"),
    (SIX, "best", "The plan meets its lower bound"),
    (SIX, "edge_only", "this baseline leaves one out"),
])
def test_the_report_gives_the_bound_and_the_gap_of_its_plan(hist, algorithm, proof):
    """The plan's best bound, its name and the gap against it, never one bound's number
    with another's name; a baseline's broken limits with their largest sums."""
    plan = pack(hist, PackLimits(16, 32, 4), PackMethod(algorithm))
    config, plan = load_config(export_config(plan, hist, {"dataset": "toy"}))
    choice = html.unescape(sections(build_report(config, plan))["choice"])
    assert f"{plan.lower_bound:,} ({bound_words(plan.bounds)})" in choice and f"{plan.gap:.2%}" in choice
    assert proof in choice and "LP bound proven" not in choice
    for limit, largest in plan.broken_limits().items():
        assert f"breaks the {limit} limit" in choice and f"largest sum {largest:,}" in choice
        side = {"max_nodes": "node", "max_edges": "edge"}[limit]
        assert f"{plan.summary()[f'{side}_efficiency']:.2%} (limit broken: measured against the largest sum" in choice
    if plan.broken_limits():
        assert f"{plan.harmonic_mean:.2%} (not comparable: this plan breaks a limit" in choice


def test_pdf_export_without_a_browser_says_which_was_looked_for(monkeypatch, tmp_path):
    from figures.pdf import report_pdf

    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no browser on the PATH
    monkeypatch.setenv("BROWSER_PATH", str(tmp_path / "chromium"))
    with pytest.raises(OSError, match=r"\(BROWSER_PATH=.*chromium does not exist and none is on the PATH\): install"):
        report_pdf("<p>hi</p>")
    monkeypatch.delenv("BROWSER_PATH")
    with pytest.raises(OSError, match=r"\(none was found on the PATH\): install it"):
        report_pdf("<p>hi</p>")


def test_the_sweep_text_says_whether_the_chosen_limits_are_framed(saved):
    config, plan = load_config(saved[0])
    frame = pd.read_csv(saved[1])
    same = frame.assign(method=plan.label)  # as if the sweep had packed as the plan (best of all) did
    cell = (same["max_nodes"] == plan.limits.max_nodes) & (same["max_edges"] == plan.limits.max_edges)
    same.loc[cell, "packs"] = plan.num_packs
    words = {name: html.unescape(sections(build_report(config, plan, table))["sweep"]) for name, table in (
        ("in", same), ("out", same[same["max_nodes"] != plan.limits.max_nodes]),
        ("other graphs", same.assign(max_graphs=256)), ("other method", frame),
        ("unrecorded", same.drop(columns="method")),
        ("other data", same.assign(packs=same["packs"] + 1)),
        ("larger graphs", same.assign(feasible=~cell, packs=same["packs"].where(~cell))))}
    assert "The chosen limits are framed in red." in words["in"]
    assert "(260 nodes, 560 edges) are not a cell of this sweep, so none is framed" in words["out"]
    assert "framed in red" not in words["out"]
    assert "but the sweep packed with 256 graphs per pack where the plan has 64, so its cell" in words["other graphs"]
    assert f"packed with best fit, product heuristic where the plan used {plan.label}" in words["other method"]
    assert "packed with a method the sweep table does not record" in words["unrecorded"]
    assert "a method the sweep table does not record" in words["unrecorded"]  # the heatmap's subtitle too
    assert f"packs where the plan, packed the same way, has {plan.num_packs:,}: the sweep is of other graphs" in \
        words["other data"]
    assert "but one no pack could fill there (a graph is larger): the sweep is of other graphs" in words["larger graphs"]


def test_cli_errors_are_one_line_and_exit_2(saved, tmp_path):
    bad = tmp_path / "bad.json"
    config = json.loads(saved[0].read_text())
    config["metrics"]["packs"] += 1
    bad.write_text(json.dumps(config))
    bad.with_suffix(".png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    maybe = tmp_path / "maybe.csv"
    pd.read_csv(saved[1]).assign(feasible="maybe").to_csv(maybe, index=False)
    edited = tmp_path / "edited.csv"
    pd.read_csv(saved[1]).assign(node_efficiency=3.0).to_csv(edited, index=False)
    joined, negative, empty = tmp_path / "joined.csv", tmp_path / "negative.csv", tmp_path / "empty.csv"
    table = pd.read_csv(saved[1])
    pd.concat([table, table.tail(1)]).to_csv(joined, index=False)
    table.assign(max_nodes=-table["max_nodes"]).to_csv(negative, index=False)
    table.head(0).to_csv(empty, index=False)
    for args, words in (((str(bad),), "metrics.packs"), ((str(tmp_path / "missing.json"),), "missing.json"),
                        ((str(saved[0]), "--sweep", str(saved[0])), "not a sweep table"),
                        ((str(saved[0]), "--sweep", str(maybe)), "column feasible holds values of the wrong type"),
                        ((str(saved[0]), "--sweep", str(edited)), "row 1 has node_efficiency 3, outside 0 to 1"),
                        ((str(saved[0]), "--sweep", str(joined)), f"row {len(table) + 1} repeats the cell of"),
                        ((str(saved[0]), "--sweep", str(negative)), "row 1 has max_nodes -222, below 1"),
                        ((str(saved[0]), "--sweep", str(empty)), "has a sweep table's columns but no rows"),
                        ((str(saved[0]), "--sweep", str(tmp_path / "none.csv")), "No sweep file at"),
                        ((str(saved[0]), "--sweep", str(tmp_path)), "(it is a folder); write one with"),
                        ((str(saved[0]), "--sweep", str(bad.with_suffix(".png"))), "not a text (CSV) file")):
        result = run_cli("report", *args, "--out", str(tmp_path / "r.html"))
        assert result.returncode == 2 and result.stderr.startswith("error: ") and words in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    assert not (tmp_path / "r.html").exists()
    result = run_cli("report", str(saved[0]), "--out", str(tmp_path / "r.txt"))
    assert result.returncode == 2 and result.stderr == "error: --out must end in .html or .pdf, got 'r.txt'.\n"
    result = run_cli("report", str(saved[0]), "--out", str(tmp_path / "no" / "r.html"))
    assert result.returncode == 2 and "the folder " + str(tmp_path / "no") + " does not exist" in result.stderr


def test_a_configuration_whose_tool_field_is_not_an_object_still_reports(saved, tmp_path):
    """Loading keeps ``tool`` as given; the report names an unknown tool instead of failing."""
    config = json.loads(saved[0].read_text())
    config["tool"] = None
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(config))
    result = run_cli("report", str(odd), "--out", str(tmp_path / "r.html"))
    assert result.returncode == 0, result.stderr
    assert "Made by ? " in (tmp_path / "r.html").read_text()


def test_export_page_report_has_every_section_and_the_pages_numbers(monkeypatch):
    downloads = {}
    original_add, original_deferred = MediaFileManager.add, MediaFileManager.add_deferred

    def add(self, data, mimetype, coordinates, file_name=None, is_for_static_download=False):
        downloads[file_name] = data
        return original_add(self, data, mimetype, coordinates, file_name, is_for_static_download)

    def add_deferred(self, data_callable, mimetype, coordinates, file_name=None):
        downloads[file_name] = data_callable
        return original_deferred(self, data_callable, mimetype, coordinates, file_name)

    monkeypatch.setattr(MediaFileManager, "add", add)
    monkeypatch.setattr(MediaFileManager, "add_deferred", add_deferred)
    app = AppTest.from_file("../app.py", default_timeout=180)
    app.run()
    shipped = shipped_calibrations()[0]  # chosen as on the Throughput page: the Export page prices with it
    app.session_state["throughput_controls"] = {"calibration": shipped.stem, "baseline": "pyg_dataloader"}
    # after the choice: the recommended limits (the packing row) are priced on the calibration
    app.switch_page("pages/batching_page.py").run()
    batching_rows = app.dataframe[0].value
    app.switch_page("pages/sweep_page.py").run()
    app.button[0].click().run()  # the default sweep
    app.switch_page("pages/export_page.py").run()
    assert not app.exception and not app.error, [e.value for e in [*app.exception, *app.error]]
    labels = [button.label for button in app.get("download_button")]
    assert "Download report (HTML)" in labels and "Download report (PDF)" in labels
    assert labels.count("HTML") == len(FIGURES)  # the Batching and Throughput charts are in the list
    stem = next(name for name in downloads if name and name.endswith(".json"))[:-len(".json")]
    config, plan = load_config(downloads[f"{stem}.json"])
    page = downloads[f"{stem}-report.html"]()
    sweep_line = f"qm9 (all, graph=bonds): sweep with best fit, product heuristic; {plan.limits.max_graphs} graphs per pack"
    found = check_report(page, config, plan, sweep_line)  # the page's default sweep
    summary = next(m.value for m in app.markdown if m.value.startswith("**"))
    for value in (f"{plan.num_packs:,} packs", f"Node efficiency {plan.node_efficiency:.2%}",
                  f"edge efficiency {plan.edge_efficiency:.2%}", f"gap {plan.gap:.2%}"):
        assert value in summary  # the page's numbers
    for value in (f"{plan.num_packs:,}", f"{plan.node_efficiency:.2%}", f"{plan.gap:.2%}"):
        assert f"<td>{value}" in found["choice"]
    for efficiency in batching_rows["node_efficiency"]:  # the Batching page's table
        assert f"<td>{efficiency:.2%}</td>" in found["batching"]
    assert html.escape(load_calibration(shipped).label) in found["throughput"]
    assert downloads[f"{stem}-report.pdf"]()[:5] == b"%PDF-"
    exported = {name: downloads[f"{stem}-{name}.html"]() for name in FIGURES}
    line = subject(config["dataset"], plan)
    assert all((sweep_line if name == "sweep-heatmap" else line) in text for name, text in exported.items())
    (code,) = [c.value for c in app.code if "PackedLoader.from_config" in c.value]
    assert f'PackedLoader.from_config(dataset, "{stem}.json"' in code and "loader.set_epoch(epoch)" in code
    assert "graph_mask" in code
    assert config["dataset"]["name"] == "qm9" and "F.mse_loss(out, y.nan_to_num()" in code  # QM9's targets regress


def test_report_opens_in_chromium(browser, cli_report):
    page = browser.new_page(viewport={"width": 1400, "height": 1400})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(cli_report.as_uri())
    page.wait_for_function(f"() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= {len(FIGURES)}",
                           timeout=60_000)
    assert not errors, errors
    assert page.locator("h2").all_inner_texts()[:3] == ["Dataset", "Chosen limits and method", "Packs"]
    title = page.locator("#figure-size-histogram .gtitle").first.text_content()
    assert "ogbg-molhiv" in title and "260 nodes" in title
    screenshot(page, "report")
    with page.expect_download() as download:
        page.locator("#download-config").click()
    assert json.loads(Path(download.value.path()).read_text()) == json.loads(cli_report.with_name(
        "molhiv-260n-560e-64g.json").read_text())
    page.close()
