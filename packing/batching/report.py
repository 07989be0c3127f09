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
strategy's resolved settings (targets, budgets, shapes, pack limits and method), ``table``
one row per strategy with the columns of :func:`packing.batching.compare_batching`.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import pandas as pd

from ..fields import EDITED, check_flag, check_object, check_text, check_whole, kind_of
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


def run_length_words(run: dict[str, Any]) -> str:
    """How long a run is (a ``RunSpec.to_dict()``), in words.

    >>> run_length_words({"epochs": 10, "steps": None}), run_length_words({"epochs": None, "steps": 5000})
    ('10 epochs', '5,000 steps')
    """
    if run.get("steps"):
        return f"{run['steps']:,} step{'s' if run['steps'] != 1 else ''}"
    epochs = run.get("epochs") or 1
    return f"{epochs:,} epoch{'s' if epochs != 1 else ''}"


def short_run_note(table: pd.DataFrame, label: Callable[[str], str] = str) -> str:
    """For a run of fewer steps than an epoch of some strategies (a ``compare_batching``
    or ``throughput.estimate`` table, its run in ``attrs``): that their batches per epoch,
    and what is priced per epoch, come from the batches run, not from a whole epoch; ""
    when every strategy ran at least one epoch (``label`` names a strategy).

    >>> table = pd.DataFrame({"strategy": ["packing", "dynamic"], "steps_per_epoch": [941.0, 3.0]})
    >>> table.attrs["run"] = {"steps": 10, "epochs": None, "devices": 1}
    >>> short_run_note(table)
    'This run of 10 steps is shorter than one epoch of packing: its per-epoch numbers are extrapolated from the batches it ran, not counted over an epoch; run at least one epoch for exact ones.'
    """
    run = table.attrs.get("run", {})
    if not run.get("steps"):
        return ""  # runs given in epochs cover whole epochs
    per_epoch = table["steps_per_epoch"] if "steps_per_epoch" in table else \
        table["batches_per_epoch"] / run.get("devices", 1)
    short = table.loc[per_epoch > run["steps"], "strategy"].map(label).tolist()
    if not short:
        return ""
    which = "every strategy" if len(short) == len(table) > 1 else f"{len(short)} strategies" if len(short) > 3 \
        else " and ".join(short)
    return (f"This run of {run_length_words(run)} is shorter than one epoch of {which}: "
            f"{'its' if len(short) == 1 else 'their'} per-epoch numbers are extrapolated from the batches it ran, not "
            "counted over an epoch; run at least one epoch for exact ones.")


def describe_settings(strategy: str, settings: dict[str, Any]) -> str:
    """A strategy's settings in words (the table's ``settings`` column).

    >>> describe_settings("dynamic", {"target": [640, 10112, 32], "sample_size": 1000, "sample_seed": 0})
    'target 640 nodes, 10,112 edges, 32 graphs (Algorithm 1: 1,000-graph sample, seed 0)'
    >>> describe_settings("packing", {"limits": {"max_nodes": 260, "max_edges": 560, "max_graphs": 64},
    ...                               "method": {"algorithm": "published", "heuristic": "node"}, "packs_per_batch": 3})
    '3 packs per batch, limits 260 nodes, 560 edges, 64 graphs, published algorithm (Krell et al. 2022), node heuristic'

    The packing row names its plan as the plan does (``plan_label``: "best of all: ..."
    for a plan best of all chose), else by its method.
    """
    if strategy == "static_constant":
        nodes, edges, graphs = settings["shape"]
        return (f"{settings['graphs_per_batch']:,} graphs per batch, padded to {nodes:,} nodes, {edges:,} edges, "
                f"{graphs:,} graphs")
    if strategy in ("static_64", "static_pow2"):
        return f"{settings['graphs_per_batch']:,} graphs per batch, totals rounded up to a {settings['rounding']}"
    if strategy == "dynamic":
        nodes, edges, graphs = settings["target"]
        where = ("given" if settings.get("given") else
                 f"Algorithm 1: {settings['sample_size']:,}-graph sample, seed {settings['sample_seed']}")
        if "estimated" in settings:
            where += (f"; the estimate {settings['estimated'][0]:,} nodes, {settings['estimated'][1]:,} edges was "
                      "raised to hold the largest graph")
        return f"target {nodes:,} nodes, {edges:,} edges, {graphs:,} graphs ({where})"
    if strategy == "pyg_dynamic":
        return f"budget {settings['max_num']:,} {settings['mode']}s, no graph cap, other sizes unpadded"
    if strategy == "buckets":
        if "shapes" in settings:
            return f"{len(settings['shapes'])} given shapes, {settings['graphs_per_batch']:,} graphs per batch"
        return (f"{settings['num_shapes']} shapes fitted to this run's batches, {settings['graphs_per_batch']:,} "
                "graphs per batch")
    limits, packs = settings["limits"], settings["packs_per_batch"]
    broken = f" (breaks {', '.join(settings['broken_limits'])})" if settings.get("broken_limits") else ""
    return (f"{packs:,} pack{'s' if packs > 1 else ''} per batch, limits {limits['max_nodes']:,} nodes, "
            f"{limits['max_edges']:,} edges, {limits['max_graphs']:,} graphs, "
            f"{settings.get('plan_label') or PackMethod.from_dict(settings['method']).label}{broken}")


def comparison_table(summaries: dict[str, dict[str, Any]], run: dict[str, Any]) -> pd.DataFrame:
    """The comparison table from run summaries.

    Args:
        summaries: strategy name to its run summary (:attr:`BatchingResult.summary`).
        run: the run (``RunSpec.to_dict()``); ``devices > 1`` adds the multi-device columns.

    Returns:
        One row per strategy: ``TABLE_COLUMNS`` (and ``DEVICE_COLUMNS``) and ``settings``
        in words; ``attrs`` keep ``run``, each strategy's ``settings`` and the full
        ``summaries``.

    Raises:
        KeyError: a summary lacks a column (it did not come from a simulated run).

    >>> from packing import SizeHistogram
    >>> from packing.batching import compare_batching
    >>> attrs = compare_batching(SizeHistogram.from_counts([3, 8], [4, 14], [20, 4]), 4).attrs
    >>> comparison_table({"dynamic": attrs["summaries"]["dynamic"]}, attrs["run"]).loc[0, "settings"]
    'target 64 nodes, 64 edges, 4 graphs (Algorithm 1: 24-graph sample, seed 0)'
    """
    columns = TABLE_COLUMNS + (DEVICE_COLUMNS if run["devices"] > 1 else ())
    rows = [{**{column: summary[column] for column in columns[1:]}, "strategy": name,
             "settings": describe_settings(name, summary["settings"])} for name, summary in summaries.items()]
    table = pd.DataFrame(rows, columns=[*columns, "settings"])
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


def _sizes(value: Any, where: str, length: int = 3) -> None:
    """Refuse ``value`` unless it is a list of ``length`` whole numbers of at least 1."""
    if not isinstance(value, list) or len(value) != length:
        raise ValueError(f"{where} must be a list of {length} whole numbers, got {kind_of(value)}; {EDITED}.")
    for index, item in enumerate(value):
        check_whole(item, f"{where}[{index}]", 1)


def _method(value: Any, where: str) -> None:
    try:
        PackMethod.from_dict(value)
    except ValueError as error:
        raise ValueError(f"{where}: {error} ({EDITED})") from None


def _packing_settings(settings: dict[str, Any], where: str) -> None:
    limits = check_object(settings.get("limits"), f"{where}.limits")
    for name in ("max_nodes", "max_edges", "max_graphs"):
        check_whole(limits.get(name), f"{where}.limits.{name}", 1)
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
            _sizes(settings[name], f"{where}.{name}")


def _dynamic_settings(settings: dict[str, Any], where: str) -> None:
    _sizes(settings.get("target"), f"{where}.target")
    if "given" in settings:
        check_flag(settings["given"], f"{where}.given")
    if not settings.get("given"):
        check_whole(settings.get("sample_size"), f"{where}.sample_size", 1)
        check_whole(settings.get("sample_seed"), f"{where}.sample_seed", 0)
    if "estimated" in settings:
        _sizes(settings["estimated"], f"{where}.estimated", 2)


def _bucket_settings(settings: dict[str, Any], where: str) -> None:
    check_whole(settings.get("graphs_per_batch"), f"{where}.graphs_per_batch", 1)
    if "shapes" in settings:
        if not isinstance(settings["shapes"], list):
            raise ValueError(f"{where}.shapes must be a list of shapes, got {kind_of(settings['shapes'])}; {EDITED}.")
    else:
        check_whole(settings.get("num_shapes"), f"{where}.num_shapes", 1)


def _constant_settings(settings: dict[str, Any], where: str) -> None:
    check_whole(settings.get("graphs_per_batch"), f"{where}.graphs_per_batch", 1)
    _sizes(settings.get("shape"), f"{where}.shape")


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
    :func:`describe_settings` reads, of their form; returns them.

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
