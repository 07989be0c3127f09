"""Hostile configuration and sweep files (issue 37, items 6 and 7): whatever
``load_checked_config`` accepts, the report builds; anything else is one ``error: ...`` line
naming the field (exit status 2), never a traceback. Real files, the real command line."""
from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

import pytest

from common_helpers import replaced
from figures.cli import run as figures_cli
from figures.report import build_report
from packing import PackLimits, SizeHistogram, pack, sweep
from packing.batching import batching_section, compare_batching
from packing.export import export_config
from packing.io import save_config
from throughput import estimate, load_calibration, load_checked_config, shipped_calibrations, throughput_section

HIST = SizeHistogram.from_sizes([3, 2, 3, 5, 4], [4, 2, 4, 8, 6])
BAD_VALUES = ["x", None, [], {}, -1, 0, True, math.nan, 1e300, 10**30, "x" * 10_000]


@lru_cache(maxsize=1)
def _full_config() -> str:
    plan = pack(HIST, PackLimits(8, 12, 4))
    priced = estimate(HIST, 2, load_calibration(shipped_calibrations()[0]), plan, epochs=1)
    sections = {"batching": batching_section(compare_batching(HIST, 2, plan=plan, epochs=1, seed=0)),
                "throughput": throughput_section(priced, None, "not checked")}
    return json.dumps(export_config(plan, HIST, {"dataset": "toy", "split": "train"}, sections))


def full_config() -> dict[str, Any]:
    """A configuration with every section, as its JSON file holds it (a fresh copy)."""
    return json.loads(_full_config())


def dotted(path: tuple) -> str:
    """``("throughput", "table", 0, "run_s")`` as ``throughput.table[0].run_s``."""
    return "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in path).lstrip(".")


def report_cli(config_path: Path, *extra: str) -> int:
    return figures_cli(["report", str(config_path), *extra, "--out", str(config_path.with_suffix(".html"))])


def assert_one_line_error(capsys: pytest.CaptureFixture, *words: str) -> str:
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    for word in words:
        assert word in err, (word, err)
    return err


# ------------------------------------------------------------------ item 6: the listed cases
LISTED = [
    (("throughput", "calibration", "device"), "cpu", "throughput.calibration.device must be an object"),
    (("throughput", "calibration", "device"), None, "throughput.calibration.device must be an object"),
    (("throughput", "calibration", "fit"), [], "throughput.calibration.fit must be an object"),
    (("throughput", "calibration", "fit", "held_out"), "x", "throughput.calibration.fit.held_out must be an object"),
    (("throughput", "calibration", "label"), ["a"], "throughput.calibration.label must be text"),
    (("throughput", "calibration", "fit", "held_out", "median"), None,
     "throughput.calibration.fit.held_out.median must be a finite number"),
    (("batching", "strategies", "packing"), {}, "batching.strategies.packing.limits must be an object"),
    (("batching", "strategies", "buckets"), {}, "batching.strategies.buckets.graphs_per_batch must be a whole"),
    (("batching", "strategies", "static_constant"), {},
     "batching.strategies.static_constant.graphs_per_batch must be a whole"),
    (("throughput", "run", "devices"), "two", "throughput.run.devices must be a whole number"),
]


@pytest.mark.parametrize("path, value, words", LISTED, ids=[dotted(path) for path, _, _ in LISTED])
def test_a_listed_hostile_field_is_one_error_line_naming_it(tmp_path, capsys, path, value, words):
    config_path = save_config(replaced(full_config(), path, value), tmp_path / "c.json")
    assert report_cli(config_path) == 2
    assert_one_line_error(capsys, words, "export the configuration again")
    assert not config_path.with_suffix(".html").exists()


def test_the_unchanged_configuration_reports(tmp_path, capsys):
    config_path = save_config(full_config(), tmp_path / "c.json")
    assert report_cli(config_path) == 0
    assert "wrote" in capsys.readouterr().out


# ------------------------------------------------------------------ item 6: every field
def field_paths(value: Any, path: tuple = ()) -> Iterator[tuple]:
    """The path of every field under ``value``; of a list longer than three (rows, packs,
    histogram columns) its first item only."""
    if path:
        yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from field_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value if len(value) <= 3 else value[:1]):
            yield from field_paths(item, (*path, index))


def names_the_field(message: str, path: tuple) -> bool:
    """Whether an error names the field at ``path`` or a field above it (a derived field is
    named with the section that derives it; the schema version in words)."""
    return any(dotted(path[:length]) in message for length in range(1, len(path) + 1)) or \
        path[0].replace("_", " ") in message


def accepted_corruptions() -> tuple[list[tuple[tuple, Any]], list[str]]:
    """Every (field, bad value) ``load_checked_config`` accepts, and what is wrong with each refusal
    that is not one line naming the field."""
    config, accepted, problems = full_config(), [], []
    for path in field_paths(config):
        for bad in BAD_VALUES:
            try:
                load_checked_config(json.dumps(replaced(config, path, bad)))
            except ValueError as error:
                if "\n" in str(error) or not names_the_field(str(error), path):
                    problems.append(f"{dotted(path)} = {bad!r}: {error}")
                continue
            accepted.append((path, bad))
    return accepted, problems


def combined(accepted: list[tuple[tuple, Any]]) -> list[tuple[dict[str, Any], list[tuple[tuple, Any]]]]:
    """The accepted corruptions in few configurations: those of one bad value together, a
    field under one already corrupted left for another round."""
    rounds = []
    for key in dict.fromkeys(repr(value) for _, value in accepted):
        left = [(path, value) for path, value in accepted if repr(value) == key]
        while left:
            config, edits, later = full_config(), [], []
            for path, value in left:
                if any(path[:len(done)] == done or done[:len(path)] == path for done, _ in edits):
                    later.append((path, value))
                else:
                    config, edits = replaced(config, path, value), [*edits, (path, value)]
            rounds.append((config, edits))
            left = later
    return rounds


def test_every_field_of_every_section_is_refused_by_name_or_reported():
    accepted, problems = accepted_corruptions()
    assert not problems, "\n".join(problems[:20])
    assert accepted  # text fields take any text, nullable fields null
    for config, edits in combined(accepted):
        try:
            together = [load_checked_config(json.dumps(config))]
        except ValueError:  # edits that each pass but disagree together (a method and its plan): one by one
            together = [load_checked_config(json.dumps(replaced(full_config(), path, value))) for path, value in edits]
        for loaded, plan in together:
            assert build_report(loaded, plan).startswith("<!DOCTYPE html>"), [dotted(path) for path, _ in edits]


# ------------------------------------------------------------------ item 7: sweep files
def sweep_file(tmp_path: Path, **columns: Any) -> Path:
    """A real sweep of the configuration's graphs as CSV, with ``columns`` replaced."""
    frame = sweep(HIST, [5, 8], [8, 12], max_graphs=4, workers=1)
    for column, values in columns.items():
        frame[column] = frame[column].astype(object)
        frame[column] = values
    path = tmp_path / "s.csv"
    frame.to_csv(path, index=False)
    return path


def test_the_sweep_file_as_written_reports(tmp_path, capsys):
    config_path = save_config(full_config(), tmp_path / "c.json")
    assert report_cli(config_path, "--sweep", str(sweep_file(tmp_path))) == 0


@pytest.mark.parametrize("column, values, words", [
    ("packs", [4, 4, 3, math.inf], "row 4 has packs inf, not a whole number"),
    ("packs", [4, 4, 3, math.nan], "row 4 has packs nan, empty in a cell packs could fill"),
    ("packs", [4, 4, 3, 2.5], "row 4 has packs 2.5, not a whole number"),
    ("max_graphs", [4, 4, "four", 4], "row 3 has max_graphs 'four'"),
    ("max_graphs", [4, 4, 0, 4], "row 3 has max_graphs 0, below 1"),
    ("harmonic_mean", [0.5, 0.5, math.inf, 0.5], "row 3 has harmonic_mean inf"),
    ("gap", [0.0, 0.0, -0.5, 0.0], "row 3 has gap -0.5, below 0"),
    ("lower_bound", [4, 4, "x", 3], "row 3 has lower_bound 'x'"),
    ("feasible", [True, "sometimes", True, True], "row 2 has feasible 'sometimes'"),
    ("method", ["best fit", "x" * 500, "best fit", "best fit"], "row 2 has method"),
])
def test_a_hostile_sweep_column_is_one_error_line_naming_column_row_and_value(tmp_path, capsys, column, values,
                                                                               words):
    config_path = save_config(full_config(), tmp_path / "c.json")
    assert report_cli(config_path, "--sweep", str(sweep_file(tmp_path, **{column: values}))) == 2
    assert_one_line_error(capsys, "is not a sweep table", words)
