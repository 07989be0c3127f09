"""The batching comparison as a table and as the ``batching`` section of the exported
configuration JSON (:func:`batching_section`, checked by :func:`check_batching_section`).

The section (version 1)::

    "batching": {
      "version": 1,
      "run": {"batch_size": 32, "steps": 2000000, "epochs": null, "seed": 0, "devices": 1},
      "strategies": {"dynamic": {"target": [640, 10304, 32], "sample_size": 1000, ...}, ...},
      "table": [{"strategy": "static_constant", "batches": 2000000, "node_efficiency": 0.60, ...}, ...]
    }

``run`` says what was simulated (``steps`` or whole ``epochs``), ``strategies`` each
strategy's resolved settings (targets, budgets, shapes, pack limits and method; a report
puts them in words with ``packing.words.describe_settings``), ``table`` one row per
strategy with the columns of :func:`packing.batching.compare_batching`.
"""
from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ..fields import EDITED, check_flag, check_object, check_sizes, check_text, check_whole, kind_of
from ..limits import MAX_PACK_LIMIT
from ..method import PackMethod

#: The strategies, in the order of the comparison table.
STRATEGIES = ("static_constant", "static_64", "static_pow2", "dynamic", "pyg_dynamic", "buckets", "packing")
TABLE_COLUMNS = ("strategy", "batches", "steps", "node_efficiency", "edge_efficiency", "graph_efficiency",
                 "distinct_shapes", "max_padded_nodes", "max_padded_edges", "max_padded_graphs",
                 "batches_per_epoch", "mean_graphs_per_batch")
DEVICE_COLUMNS = ("mixed_shape_steps", "step_node_efficiency", "step_edge_efficiency", "step_distinct_shapes")
SECTION_VERSION = 1
_FRACTIONS = ("node_efficiency", "edge_efficiency", "graph_efficiency", "mixed_shape_steps", "step_node_efficiency",
              "step_edge_efficiency")
_COUNTS = ("batches", "steps", "distinct_shapes", "max_padded_nodes", "max_padded_edges", "max_padded_graphs",
           "step_distinct_shapes")


def comparison_table(summaries: dict[str, dict[str, Any]], run: dict[str, Any]) -> pd.DataFrame:
    """The comparison table from run summaries.

    Args:
        summaries: strategy name to its run summary (:attr:`BatchingResult.summary`).
        run: the run (``RunSpec.to_dict()``); ``devices > 1`` adds the multi-device columns.

    Returns:
        One row per strategy: ``TABLE_COLUMNS`` (and ``DEVICE_COLUMNS``); ``attrs`` keep
        ``run``, each strategy's ``settings`` (values: :func:`packing.words.describe_settings`
        puts them in words) and the full ``summaries``.

    Raises:
        KeyError: a summary lacks a column (it did not come from a simulated run).

    >>> from packing import SizeHistogram
    >>> from packing.batching import compare_batching
    >>> attrs = compare_batching(SizeHistogram.from_counts([3, 8], [4, 14], [20, 4]), 4).attrs
    >>> table = comparison_table({"dynamic": attrs["summaries"]["dynamic"]}, attrs["run"])
    >>> table["strategy"].tolist(), table.attrs["settings"]["dynamic"]["target"]
    (['dynamic'], [64, 64, 4])
    """
    columns = TABLE_COLUMNS + (DEVICE_COLUMNS if run["devices"] > 1 else ())
    rows = [{**{column: summary[column] for column in columns[1:]}, "strategy": name}
            for name, summary in summaries.items()]
    table = pd.DataFrame(rows, columns=list(columns))
    table.attrs.update(run=dict(run), settings={name: s["settings"] for name, s in summaries.items()},
                       summaries=summaries)
    return table


def json_rows(table: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of ``table`` as JSON values: numpy scalars to Python, NaN and infinity to None.

    >>> json_rows(pd.DataFrame({"a": [1, 2], "b": [0.5, float("nan")]}))
    [{'a': 1, 'b': 0.5}, {'a': 2, 'b': None}]
    """
    return [{column: _plain(value) for column, value in row.items()} for row in table.to_dict("records")]


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def batching_section(table: pd.DataFrame) -> dict[str, Any]:
    """The export's ``batching`` section (module docstring) from a
    :func:`packing.batching.compare_batching` table; give it to
    ``packing.export_config(..., sections={"batching": ...})``.

    Args:
        table: the table returned by ``compare_batching`` (its ``attrs`` are needed).

    Returns:
        The JSON-safe section: ``version``, ``run``, ``strategies`` and ``table``.

    Raises:
        ValueError: the table's ``attrs`` lack the run or the strategies' settings.

    >>> from packing import SizeHistogram
    >>> from packing.batching import compare_batching
    >>> section = batching_section(compare_batching(SizeHistogram.from_counts([3, 8], [4, 14], [20, 4]), 4))
    >>> section["run"]["batch_size"], [row["strategy"] for row in section["table"]][:2]
    (4, ['static_constant', 'static_64'])
    >>> check_batching_section(section) is section
    True
    """
    run, settings = table.attrs.get("run"), table.attrs.get("settings")
    if run is None or settings is None:
        raise ValueError("batching_section needs the table returned by compare_batching (its attrs hold the run "
                         "and the strategies' settings).")
    rows = json_rows(table)
    return {"version": SECTION_VERSION, "run": dict(run),
            "strategies": {row["strategy"]: settings[row["strategy"]] for row in rows}, "table": rows}


def check_batching_section(section: Any) -> dict[str, Any]:
    """Check a ``batching`` section read from a configuration file.

    Args:
        section: the parsed JSON value of the section.

    Returns:
        ``section`` itself when it is well formed.

    Raises:
        ValueError: naming the first malformed field.

    >>> check_batching_section({"version": 1, "run": {}})
    Traceback (most recent call last):
    ...
    ValueError: batching.run.batch_size must be a whole number of at least 2, got null; export the configuration again (a file that does not verify was edited or damaged).
    """
    if not isinstance(section, dict):
        raise ValueError(f"batching must be an object, got {type(section).__name__}.")
    if section.get("version") != SECTION_VERSION:
        raise ValueError(f"batching.version must be {SECTION_VERSION}, got {section.get('version')!r}.")
    run = section.get("run")
    if not isinstance(run, dict):
        raise ValueError("batching.run must be an object with batch_size, steps, epochs, seed and devices.")
    check_whole(run.get("batch_size"), "batching.run.batch_size", 2)
    check_whole(run.get("steps"), "batching.run.steps", 1, allow_none=True)
    check_whole(run.get("epochs"), "batching.run.epochs", 1, allow_none=True)
    if (run.get("steps") is None) == (run.get("epochs") is None):
        raise ValueError("batching.run must give either steps or epochs (the other null).")
    check_whole(run.get("seed"), "batching.run.seed", 0)
    check_whole(run.get("devices"), "batching.run.devices", 1)
    strategies, rows = section.get("strategies"), section.get("table")
    if not isinstance(strategies, dict) or not all(isinstance(s, dict) for s in strategies.values()):
        raise ValueError("batching.strategies must map each strategy to an object of its settings.")
    unknown = set(strategies) - set(STRATEGIES)
    if unknown:
        raise ValueError(f"batching.strategies names unknown strategies {sorted(unknown)}; known: {', '.join(STRATEGIES)}.")
    for name, settings in strategies.items():
        check_settings(name, settings)
    if not isinstance(rows, list) or not rows:
        raise ValueError("batching.table must be a non-empty list of rows.")
    for index, row in enumerate(rows):
        _check_row(row, f"batching.table[{index}]", strategies)
    if [row["strategy"] for row in rows] != list(strategies):
        raise ValueError("batching.table must have one row per strategy in batching.strategies, in the same order.")
    return section


def _method(value: Any, where: str) -> None:
    try:
        PackMethod.from_dict(value)
    except ValueError as error:
        raise ValueError(f"{where}: {error} ({EDITED})") from None


def _packing_settings(settings: dict[str, Any], where: str) -> None:
    limits = check_object(settings.get("limits"), f"{where}.limits")
    for name in ("max_nodes", "max_edges", "max_graphs"):
        check_whole(limits.get(name), f"{where}.limits.{name}", 1, high=MAX_PACK_LIMIT)
    check_whole(settings.get("packs_per_batch"), f"{where}.packs_per_batch", 1)
    _method(settings.get("method"), f"{where}.method")
    if "plan_label" in settings:
        check_text(settings["plan_label"], f"{where}.plan_label", allow_none=True)
    if "broken_limits" in settings:
        check_object(settings["broken_limits"], f"{where}.broken_limits")
    if "plan_packs" in settings:
        check_whole(settings["plan_packs"], f"{where}.plan_packs", 1)
    for name in ("capacity", "shape"):
        if name in settings:
            check_sizes(settings[name], f"{where}.{name}")


def _dynamic_settings(settings: dict[str, Any], where: str) -> None:
    check_sizes(settings.get("target"), f"{where}.target")
    if "given" in settings:
        check_flag(settings["given"], f"{where}.given")
    if not settings.get("given"):
        check_whole(settings.get("sample_size"), f"{where}.sample_size", 1)
        check_whole(settings.get("sample_seed"), f"{where}.sample_seed", 0)
    if "estimated" in settings:
        check_sizes(settings["estimated"], f"{where}.estimated", 2)


def _bucket_settings(settings: dict[str, Any], where: str) -> None:
    check_whole(settings.get("graphs_per_batch"), f"{where}.graphs_per_batch", 1)
    if "shapes" in settings:
        if not isinstance(settings["shapes"], list):
            raise ValueError(f"{where}.shapes must be a list of shapes, got {kind_of(settings['shapes'])}; {EDITED}.")
    else:
        check_whole(settings.get("num_shapes"), f"{where}.num_shapes", 1)


def _constant_settings(settings: dict[str, Any], where: str) -> None:
    check_whole(settings.get("graphs_per_batch"), f"{where}.graphs_per_batch", 1)
    check_sizes(settings.get("shape"), f"{where}.shape")


def _rounded_settings(settings: dict[str, Any], where: str) -> None:
    check_whole(settings.get("graphs_per_batch"), f"{where}.graphs_per_batch", 1)
    check_text(settings.get("rounding"), f"{where}.rounding")


def _pyg_settings(settings: dict[str, Any], where: str) -> None:
    check_whole(settings.get("max_num"), f"{where}.max_num", 1)
    check_text(settings.get("mode"), f"{where}.mode")


_SETTINGS_CHECKS = {"static_constant": _constant_settings, "static_64": _rounded_settings,
                    "static_pow2": _rounded_settings, "dynamic": _dynamic_settings, "pyg_dynamic": _pyg_settings,
                    "buckets": _bucket_settings, "packing": _packing_settings}


def check_settings(strategy: str, settings: Any) -> dict[str, Any]:
    """Check one strategy's settings in a ``batching`` section: the fields
    ``packing.words.describe_settings`` reads, of their form; returns them.

    >>> check_settings("pyg_dynamic", {"max_num": 64, "mode": "node"})
    {'max_num': 64, 'mode': 'node'}
    >>> check_settings("packing", {})
    Traceback (most recent call last):
    ...
    ValueError: batching.strategies.packing.limits must be an object, got null; export the configuration again (a file that does not verify was edited or damaged).
    """
    where = f"batching.strategies.{strategy}"
    _SETTINGS_CHECKS[strategy](check_object(settings, where), where)
    if "cross_epochs" in settings:
        check_flag(settings["cross_epochs"], f"{where}.cross_epochs")
    if "fitted_to" in settings:
        check_text(settings["fitted_to"], f"{where}.fitted_to")
    return settings


def _check_row(row: Any, where: str, strategies: dict[str, Any]) -> None:
    if not isinstance(row, dict):
        raise ValueError(f"{where} must be an object.")
    missing = [column for column in TABLE_COLUMNS if column not in row]
    if missing:
        raise ValueError(f"{where} lacks {', '.join(missing)}.")
    if not isinstance(row["strategy"], str) or row["strategy"] not in strategies:
        raise ValueError(f"{where}.strategy {row['strategy']!r} has no settings in batching.strategies.")
    for column in _COUNTS:
        if column in row:
            check_whole(row[column], f"{where}.{column}", 0)
    for column in _FRACTIONS:
        value = row.get(column, 0.0)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise ValueError(f"{where}.{column} must be a fraction between 0 and 1, got {value!r}.")
    for column in ("batches_per_epoch", "mean_graphs_per_batch"):
        value = row[column]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise ValueError(f"{where}.{column} must be a finite number, got {value!r}.")
