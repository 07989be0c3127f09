"""Export a chosen packing configuration as JSON and load it back.

The JSON file (``SCHEMA_VERSION`` 1) is one object::

    {
      "schema": "graph-packing-config",
      "schema_version": 1,
      "tool": {"name": "graph-packing", "version": "0.1.0"},
      "created": "2025-01-01T12:00:00Z",             # UTC, informational
      "dataset": {
        "name": "ogbg-molhiv", "split": "train",     # data_loaders names; "upload:<file>" for uploads
        "options": {},                               # graph construction, e.g. {"graph": "radius", "cutoff": 5.0}
        "source": "bundled profile",                 # where the sizes came from
        "provenance": "...",                         # sentence naming the original files
        "graphs": 32901, "max_nodes": 222, "max_edges": 502, "distinct_tuples": 795
      },
      "histogram": {"num_nodes": [...], "num_edges": [...], "count": [...]},   # the sizes packed
      "limits": {"max_nodes": 222, "max_edges": 502, "max_graphs": 256},
      "method": {"heuristic": "product", "algorithm": "best_fit",  # what produced the plan
                 "requested": "best"},                              # what the user asked for
      "metrics": {"packs": 3456, "lower_bound": 3430, "gap": 0.0076,
                  "node_efficiency": 0.95, "edge_efficiency": 0.90, "harmonic_mean": 0.92,
                  "packing_factor": 9.5, "strategies": 120, "tight_limits": [222, 502]},
      "plan": {                                      # PackingPlan.to_dict()
        "max_nodes": 222, "max_edges": 502, "max_graphs": 256,
        "heuristic": "product", "algorithm": "best_fit", "unlimited": null, "improved": false,
        "packs": [{"items": [[nodes, edges, copies], ...], "count": repeats}, ...]
      }
    }

Edges are directed (PyG ``edge_index`` columns). Each entry of ``plan.packs`` is one
pack strategy: ``items`` lists the size tuples in the pack with how many graphs of that
size it takes, and ``count`` says how many packs of that shape the plan uses.
Efficiencies are fractions against the limits (node-only / edge-only baselines: the
ignored component against its largest sum). :func:`load_config` verifies that the plan
packs the stored histogram exactly, within the limits, and that the metrics match.

>>> from packing import SizeHistogram, pack
>>> hist = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2])
>>> plan = pack(hist, 5, 6, 4)
>>> config, loaded = load_config(export_config(plan, hist, dataset="toy"))
>>> loaded == plan, config["metrics"]["packs"]
(True, 2)
"""
from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .histogram import SizeHistogram
from .plan import PackingPlan

SCHEMA = "graph-packing-config"
SCHEMA_VERSION = 1
TOOL_NAME = "graph-packing"
_METRICS = ("packs", "lower_bound", "gap", "node_efficiency", "edge_efficiency", "harmonic_mean", "packing_factor")
_REQUIRED = ("schema", "schema_version", "dataset", "histogram", "limits", "method", "metrics", "plan")


def _metrics(plan: PackingPlan) -> dict[str, Any]:
    summary = plan.summary()
    return {
        **{name: summary[name] for name in _METRICS},
        "strategies": plan.num_strategies,
        "tight_limits": list(plan.tight_limits),
    }


def export_config(
    plan: PackingPlan,
    hist: SizeHistogram,
    *,
    dataset: str,
    split: str = "all",
    options: dict[str, Any] | None = None,
    info: dict[str, Any] | None = None,
    requested_algorithm: str | None = None,
) -> dict[str, Any]:
    """The JSON-safe configuration of ``plan`` for the graphs of ``hist`` (schema above).

    ``info`` is the loader's info dict (its ``source`` and ``provenance`` are kept);
    ``requested_algorithm`` records what the user chose (e.g. ``"best"``) when it differs
    from the algorithm that produced the plan. Raises ``ValueError`` if the plan does not
    pack ``hist`` exactly.
    """
    from . import __version__

    plan.check(hist)
    info = info or {}
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": TOOL_NAME, "version": __version__},
        "created": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "dataset": {
            "name": dataset,
            "split": split,
            "options": dict(options or {}),
            "source": str(info.get("source", "unknown")),
            "provenance": str(info.get("provenance", "")),
            "graphs": hist.num_graphs,
            "max_nodes": hist.max_nodes,
            "max_edges": hist.max_edges,
            "distinct_tuples": hist.num_tuples,
        },
        "histogram": {
            "num_nodes": hist.num_nodes.tolist(),
            "num_edges": hist.num_edges.tolist(),
            "count": hist.counts.tolist(),
        },
        "limits": {"max_nodes": plan.max_nodes, "max_edges": plan.max_edges, "max_graphs": plan.max_graphs},
        "method": {
            "heuristic": plan.heuristic,
            "algorithm": plan.algorithm,
            "requested": requested_algorithm or plan.algorithm,
        },
        "metrics": _metrics(plan),
        "plan": plan.to_dict(),
    }


def config_json(config: dict[str, Any]) -> str:
    """The configuration as indented JSON text."""
    return json.dumps(config, indent=2)


def save_config(config: dict[str, Any], path: str | Path) -> Path:
    """Write ``config`` (from :func:`export_config`) as JSON to ``path``."""
    path = Path(path)
    path.write_text(config_json(config) + "\n", encoding="utf-8")
    return path


def config_histogram(config: dict[str, Any]) -> SizeHistogram:
    """The size histogram stored in a configuration."""
    try:
        data = config["histogram"]
        return SizeHistogram.from_counts(data["num_nodes"], data["num_edges"], data["count"])
    except (KeyError, TypeError) as error:
        raise ValueError(f"The configuration has no valid histogram ({error!r}).") from None


def _read(source: str | Path | bytes | dict[str, Any]) -> dict[str, Any]:
    if isinstance(source, dict):
        return source
    if isinstance(source, bytes):
        text = source.decode("utf-8", errors="replace")
    elif isinstance(source, Path) or (isinstance(source, str) and not source.lstrip().startswith("{")):
        path = Path(source)
        if not path.exists():
            raise ValueError(f"No configuration file at {path}.")
        text = path.read_text(encoding="utf-8")
    else:
        text = source
    try:
        config = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"Not a configuration file: invalid JSON ({error.msg} at line {error.lineno}).") from None
    if not isinstance(config, dict):
        raise ValueError("Not a configuration file: the JSON is not an object.")
    return config


def load_config(source: str | Path | bytes | dict[str, Any]) -> tuple[dict[str, Any], PackingPlan]:
    """Read a configuration (a path, JSON text or bytes, or the dict) and rebuild its plan.

    Checks the schema, that the plan packs the stored histogram exactly within the
    limits, and that the stored metrics are those of the plan; raises ``ValueError``
    with a user-facing message otherwise.
    """
    config = _read(source)
    missing = [key for key in _REQUIRED if key not in config]
    if missing or config.get("schema") != SCHEMA:
        raise ValueError(
            f"Not a graph packing configuration (schema {config.get('schema')!r}, missing {missing})."
        )
    version = config["schema_version"]
    if not isinstance(version, int) or version < 1 or version > SCHEMA_VERSION:
        raise ValueError(
            f"Configuration schema version {version!r} is not supported; this tool reads 1 to {SCHEMA_VERSION}."
        )
    plan = PackingPlan.from_dict(config["plan"])
    plan.check(config_histogram(config))
    limits = config["limits"]
    if (limits.get("max_nodes"), limits.get("max_edges"), limits.get("max_graphs")) != (
        plan.max_nodes, plan.max_edges, plan.max_graphs
    ):
        raise ValueError("The configuration's limits differ from its plan's limits.")
    stored, actual = config["metrics"], _metrics(plan)
    for name in _METRICS:
        value = stored.get(name)
        if not isinstance(value, (int, float)) or not math.isclose(value, actual[name], rel_tol=1e-9, abs_tol=1e-12):
            raise ValueError(f"The configuration's {name} ({value!r}) does not match its plan ({actual[name]!r}).")
    return config, plan
