"""A chosen packing configuration as a JSON-safe value, and its verification when read back
(:mod:`packing.io` saves and loads the file).

The JSON file (``SCHEMA_VERSION`` 1) is one object::

    {
      "schema": "graph-packing-config",
      "schema_version": 1,
      "tool": {"name": "graph-packing", "version": "0.4.0"},
      "created": "2026-01-01T12:00:00Z",            # UTC, informational
      "dataset": {
        "name": "ogbg-molhiv", "split": "train",     # data_loaders names; "upload:<file>" for uploads
        "options": {},                               # graph construction, e.g. {"graph": "radius", "cutoff": 5.0}
        "source": "bundled profile",                 # where the sizes came from
        "provenance": "...",                         # sentence naming the original files
        "graphs": 32901, "largest_nodes": 222, "largest_edges": 502, "distinct_tuples": 795
      },
      "histogram": {"num_nodes": [...], "num_edges": [...], "count": [...]},   # the sizes packed
      "metrics": {"packs": 3744, "lower_bound": 3744, "gap": 0.0, "bound": "lp",   # bound: which bound
                  "node_efficiency": 0.99, "edge_efficiency": 0.94, "harmonic_mean": 0.97,
                  "packing_factor": 8.8, "strategies": 700, "tight_limits": [222, 502],
                  "graph_capacity": 33,              # graph slots a pack pads to: its fullest pack's graphs
                  "broken_limits": {}},               # limits a 1D baseline breaks, with its largest sum
      "bounds": {                                     # packing.Bounds.to_dict(): every bound computed
        "volume": 3743, "large_items": 3743, "large_items_by": "nodes", "lp": 3744,   # lp: null unless proved
        "best": 3744, "name_of_best": "lp",
        "lp_certificate": {"duals": [...], "pricing_bound": 1.0, "bound": 3744,     # null unless proved
                           "converged": true, "stopped": "converged"}
      },
      "plan": {                                       # PackingPlan.to_dict()
        "limits": {"max_nodes": 222, "max_edges": 502, "max_graphs": 256},   # PackLimits, the plan's only copy
        "method": {...}, "requested": {...},         # PackMethod.to_dict(): what produced the plan
                                                      # and what the user asked for (e.g. best)
        "unlimited": null, "improved": true,
        "packs": [{"items": [[nodes, edges, copies], ...], "count": repeats}, ...]
      }
    }

Further top-level sections written by later steps (a batching comparison, throughput
estimates) are kept (the known ones checked, see below). Edges are directed (PyG ``edge_index`` columns). Each entry
of ``plan.packs`` is one pack strategy: ``items`` lists the size tuples in the pack with
how many graphs of that size it takes, ``count`` how many packs of that shape the plan uses.
Efficiencies are fractions against the limits (node-only / edge-only baselines: the
ignored component against its largest sum).

What :func:`check_config` verifies; anything else is one ``ValueError`` naming the field
(for a derived field, the stored and the true value):

* the schema, its version (1: a file of any other version was written by a development
  version before the first release and is refused) and every field's type;
* the plan packs the stored histogram exactly, within its limits (``plan.limits``);
* ``dataset``: ``name``, ``split``, ``source`` and ``provenance`` are text, ``options`` an
  object, and ``graphs``, ``largest_nodes``, ``largest_edges`` and ``distinct_tuples`` are the
  stored histogram's;
* every field of ``metrics`` is recomputed from the plan and compared (floats within a
  relative 1e-9, everything else exactly, with its JSON type: ``1.0`` is not ``1``);
* every field of ``bounds``, as below;
* the ``batching`` section, when present, has its documented form: every field the report
  and the pages read (each strategy's settings, the run, the table) of its type and range
  (:func:`packing.batching.check_batching_section`); its numbers come from a simulation
  and are not recomputed. A ``throughput`` section must be an object; its fields are the
  ``throughput`` package's to check (``throughput.check_throughput_section``).

``tool``, ``created``, the certificate's ``converged`` and ``stopped`` and any other
section are kept as given.

How a stored bound is verified: the volume and large-items bounds are recomputed (a
millisecond). An LP bound comes with its certificate, the duals ``y`` of the LP (one per
histogram row): ``sum count_i y_i / z``, with ``z`` the most one pack can be worth under
``y``, proves the bound whatever produced the duals (Farley's bound, see
:mod:`packing.column_generation`). Loading recomputes ``z`` (no table for the volume
bound's duals, else one knapsack: 0.3-1.4 s for ogbg-molhiv / ogbg-molpcba at 1-2x their
data-default limits, milliseconds for QM9 and AFLOW; bounded in the worst case by the
knapsack's table limits) instead of trusting the file or rerunning the column
generation; the stored ``pricing_bound`` must be that ``z`` and the stored ``bound`` what
it proves, and ``bounds.lp``, ``best``, ``name_of_best`` and the metrics must follow.
Duals may be any finite numbers >= 0: the bound does not change with their scale, and
duals of extreme magnitude are scaled by a power of two before use, so none overflows.

>>> from packing import PackLimits, SizeHistogram, pack
>>> hist = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2])
>>> plan = pack(hist, PackLimits(5, 6, 4))
>>> config = export_config(plan, hist, {"dataset": "toy"})
>>> check_config(config) == plan, config["metrics"]["packs"]
(True, 2)
"""
from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Any

from .batching import check_batching_section
from .bounds import Bounds, lower_bounds
from .histogram import SizeHistogram
from .fields import EDITED, check_object
from .column_generation import lp_bound_from_certificate
from .metrics import BOUND_COLUMN, METRIC_NAMES
from .plan import PackingPlan
from .version import __version__

SCHEMA = "graph-packing-config"
#: The only version read: files of the development versions before the first release are refused.
SCHEMA_VERSION = 1
TOOL_NAME = "graph-packing"
_CORE = ("schema", "schema_version", "tool", "created", "dataset", "histogram", "metrics", "bounds", "plan")


def _check_throughput_object(section: Any) -> None:
    """A ``throughput`` section is an object; the ``throughput`` package checks its fields."""
    if not isinstance(section, dict):
        raise ValueError(f"throughput must be an object, got {type(section).__name__}.")


_SECTION_CHECKS = {"batching": check_batching_section, "throughput": _check_throughput_object}


def _metrics(plan: PackingPlan) -> dict[str, Any]:
    summary = plan.summary()
    return {
        **{name: summary[name] for name in METRIC_NAMES},
        BOUND_COLUMN: plan.bound_name,
        "strategies": plan.num_strategies,
        "tight_limits": list(plan.tight_limits),
        "graph_capacity": plan.graph_capacity,
        "broken_limits": plan.broken_limits(),
    }


def _bounds_section(bounds: Bounds) -> dict[str, Any]:
    certificate = bounds.lp_result.certificate() if bounds.lp is not None and bounds.lp_result is not None else None
    return {**bounds.to_dict(), "lp_certificate": certificate}


def _same(stored: Any, true: Any) -> bool:
    """Whether a stored value is the true one: numbers within a relative 1e-9 where the
    true value is a float, anything else equal and of the same JSON type (``1.0`` is not
    ``1``, ``true`` is not ``1``), lists and objects item by item.

    >>> _same(0.1 + 0.2, 0.3), _same(True, 1), _same([6, 8.0], [6, 8]), _same({"a": 1}, {"a": 1})
    (True, False, False, True)
    """
    if isinstance(true, float):
        return isinstance(stored, (int, float)) and not isinstance(stored, bool) and \
            math.isclose(stored, true, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(true, (list, tuple)):
        return isinstance(stored, list) and len(stored) == len(true) and all(map(_same, stored, true))
    if isinstance(true, dict):
        return isinstance(stored, dict) and stored.keys() == true.keys() and \
            all(_same(stored[key], value) for key, value in true.items())
    return type(stored) is type(true) and stored == true


def _check_same(section: dict[str, Any], where: str, name: str, true: Any) -> None:
    """Refuse ``section[name]`` (a derived field, ``where`` names the section) unless it
    is ``true`` (:func:`_same`)."""
    if name not in section:
        raise ValueError(f"{where}.{name} is missing; {EDITED}.")
    if not _same(section[name], true):
        raise ValueError(f"The configuration's {where}.{name} ({section[name]!r}) does not match its plan and "
                         f"histogram ({true!r}); {EDITED}.")


def _dataset_summary(hist: SizeHistogram) -> dict[str, int]:
    """The size summary a configuration's ``dataset`` holds: that of its stored histogram."""
    return {"graphs": hist.num_graphs, "largest_nodes": hist.largest_nodes, "largest_edges": hist.largest_edges,
            "distinct_tuples": hist.num_tuples}


def _check_dataset(data: Any, hist: SizeHistogram) -> None:
    """The dataset object: its names are text, its options an object, its size summary
    that of the stored histogram."""
    if not isinstance(data, dict):
        raise ValueError(f"dataset must be an object with name, split, options, source and provenance; {EDITED}.")
    for name in ("name", "split", "source", "provenance"):
        if not isinstance(data.get(name), str):
            raise ValueError(f"dataset.{name} must be text, got {data.get(name)!r}; {EDITED}.")
    if not isinstance(data.get("options"), dict):
        raise ValueError(f"dataset.options must be an object, got {data.get('options')!r}; {EDITED}.")
    for name, true in _dataset_summary(hist).items():
        _check_same(data, "dataset", name, int(true))


def _check_metrics(stored: Any, plan: PackingPlan) -> None:
    """Every stored metric must be the plan's."""
    check_object(stored, "metrics")
    for name, true in _metrics(plan).items():
        _check_same(stored, "metrics", name, true)


def _stored_bounds(data: Any, hist: SizeHistogram, plan: PackingPlan) -> Bounds:
    """The bounds section checked against the stored histogram: the cheap bounds
    recomputed, an LP bound proven by its certificate (see the module docstring)."""
    if not isinstance(data, dict):
        raise ValueError("bounds must be an object with volume, large_items, lp, best and name_of_best.")
    fresh = lower_bounds(hist, plan.limits, unlimited=plan.method.unlimited)
    for name in ("volume", "large_items", "large_items_by"):
        if not _same(data.get(name), getattr(fresh, name)):
            raise ValueError(f"bounds.{name} is {data.get(name)!r}, but the stored graphs give "
                             f"{getattr(fresh, name)!r}; {EDITED}.")
    if data.get("lp") is None:
        if data.get("lp_certificate") is not None:
            raise ValueError(f"bounds.lp_certificate must be null when bounds.lp is (no LP bound was proved); "
                             f"{EDITED}.")
        return fresh
    if plan.method.unlimited is not None:
        raise ValueError("bounds.lp is for plans that keep every limit, not for a 1D baseline.")
    result = lp_bound_from_certificate(hist, plan.limits, data.get("lp_certificate"))
    if not _same(data["lp"], result.bound):
        raise ValueError(f"bounds.lp ({data['lp']!r}) differs from the bound of its certificate ({result.bound:,}); "
                         f"{EDITED}.")
    return Bounds(fresh.volume, fresh.large_items, result.bound, fresh.large_items_by, None, result, fresh.limits,
                  fresh.fingerprint)


def export_config(
    plan: PackingPlan, hist: SizeHistogram, info: dict[str, Any], sections: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON-safe configuration of ``plan`` for the graphs of ``hist`` (schema above).

    ``info`` describes the dataset as the loaders do (``dataset``, ``split``, ``options``,
    ``source``, ``provenance``; see ``data_loaders.load_histogram``). ``sections`` adds
    further top-level sections (their names must not clash with the schema's). Raises
    ``ValueError`` if the plan does not pack ``hist`` exactly.

    >>> from packing import PackLimits, pack
    >>> hist = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2])
    >>> config = export_config(pack(hist, PackLimits(5, 6, 4)), hist, {"dataset": "toy"})
    >>> config["dataset"]["name"], config["dataset"]["graphs"], config["plan"]["limits"], config["metrics"]["packs"]
    ('toy', 4, {'max_nodes': 5, 'max_edges': 6, 'max_graphs': 4}, 2)
    """
    plan.check(hist)
    clash = set(sections or {}) & set(_CORE)
    if clash:
        raise ValueError(f"Extra sections may not replace {', '.join(sorted(clash))}.")
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": TOOL_NAME, "version": __version__},
        "created": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "dataset": {
            "name": str(info.get("dataset", "unnamed")),
            "split": str(info.get("split", "all")),
            "options": dict(info.get("options") or {}),
            "source": str(info.get("source", "unknown")),
            "provenance": str(info.get("provenance", "")),
            **_dataset_summary(hist),
        },
        "histogram": {
            "num_nodes": hist.num_nodes.tolist(),
            "num_edges": hist.num_edges.tolist(),
            "count": hist.counts.tolist(),
        },
        "metrics": _metrics(plan),
        "bounds": _bounds_section(plan.bounds),
        "plan": plan.to_dict(),
        **(sections or {}),
    }


def config_histogram(config: dict[str, Any]) -> SizeHistogram:
    """The size histogram stored in a configuration (``ValueError`` naming what is wrong).

    >>> hist = config_histogram({"histogram": {"num_nodes": [2, 3], "num_edges": [2, 4], "count": [2, 2]}})
    >>> hist.num_graphs, hist.total_nodes
    (4, 10)
    >>> config_histogram({"histogram": {"num_nodes": [2.5], "num_edges": [2], "count": [1]}})
    Traceback (most recent call last):
    ...
    ValueError: histogram.num_nodes must be a list of integers.
    """
    data = config.get("histogram") if isinstance(config, dict) else None
    if not isinstance(data, dict):
        raise ValueError("histogram must be an object with num_nodes, num_edges and count lists.")
    columns = []
    for name in ("num_nodes", "num_edges", "count"):
        values = data.get(name)
        if not isinstance(values, list) or not all(type(v) is int for v in values):
            raise ValueError(f"histogram.{name} must be a list of integers.")
        columns.append(values)
    try:
        return SizeHistogram.from_counts(*columns)
    except ValueError as error:
        raise ValueError(f"histogram: {error}") from None


def _plan(data: Any) -> PackingPlan:
    """The stored plan; its errors name the field under ``plan``."""
    try:
        return PackingPlan.from_dict(data)
    except ValueError as error:
        raise ValueError(f"plan: {error}") from None


def check_config(config: dict[str, Any]) -> PackingPlan:
    """Verify a configuration read from a file (:func:`packing.io.load_config` reads it)
    and rebuild its plan, carrying the stored bounds.

    Checks the schema, every field's type, that the plan packs the stored histogram
    exactly within the limits, that the stored bounds hold (see the module docstring) and
    that the stored metrics are those of the plan; any problem is one ``ValueError`` naming
    the field. A ``throughput`` section is only checked to be an object.

    >>> from packing import PackLimits, pack
    >>> hist = SizeHistogram.from_sizes([3, 2, 3, 2], [4, 2, 4, 2])
    >>> plan = check_config(export_config(pack(hist, PackLimits(5, 6, 4)), hist, {}))
    >>> plan.num_packs, str(plan.limits)
    (2, '5 nodes, 6 edges, 4 graphs')
    """
    if config.get("schema") != SCHEMA or "schema_version" not in config:
        raise ValueError(f"Not a graph packing configuration (schema {config.get('schema')!r}, schema_version "
                         f"{config.get('schema_version')!r}).")
    version = config["schema_version"]
    if type(version) is not int or version != SCHEMA_VERSION:
        raise ValueError(f"Configuration schema version {version!r} is not supported (this tool reads version "
                         f"{SCHEMA_VERSION}): the file was written by an earlier development version; "
                         "export it again.")
    missing = [key for key in ("histogram", "metrics", "bounds", "plan") if key not in config]
    if missing:
        raise ValueError(f"The configuration lacks {', '.join(missing)}; {EDITED}.")
    plan = _plan(config["plan"])
    hist = config_histogram(config)
    plan.check(hist)
    _check_dataset(config.get("dataset"), hist)
    for name, check in _SECTION_CHECKS.items():
        if name in config:
            check(config[name])
    plan = plan.with_bounds(_stored_bounds(config["bounds"], hist, plan))
    bounds = config["bounds"]
    if not (_same(bounds.get("best"), plan.lower_bound) and _same(bounds.get("name_of_best"), plan.bound_name)):
        raise ValueError(f"bounds.best / name_of_best ({bounds.get('best')!r}, {bounds.get('name_of_best')!r}) "
                         f"must name the best bound, {plan.bound_name} ({plan.lower_bound:,}); {EDITED}.")
    _check_metrics(config["metrics"], plan)
    return plan
