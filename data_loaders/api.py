"""``load_histogram``: the one call the dashboard makes to open a data set.

Sources are tried in order: the bundled profile (instant, offline), the on-disk cache,
then the data set's own source (local files, qm9pack, a download); what was computed is
cached. ``info["source"]`` says which one answered.
"""
from __future__ import annotations

import time
from typing import Any

from packing import SizeHistogram

from .aflow import aflow_frame_sizes, subset_frames
from .cache import cache_key, cache_path, load_cached, try_save_cached
from .ogb_loader import load_ogb_family
from .paths import shared_data_root
from .profiles import bundled_histogram
from .qm9 import qm9_sizes
from .registry import DatasetSpec, check_options_apply, check_split, effective_options, get_spec, resolve_options
from .smiles import Progress


def _compute_qm9(options: dict[str, Any], progress: Progress | None) -> tuple[SizeHistogram, str, str]:
    hist = SizeHistogram.from_sizes(*qm9_sizes(**options, progress=progress))
    if options["graph"] == "radius":
        note = f"QM9 radius graphs (cutoff {options['cutoff']} Å) computed from qm9pack's XYZ coordinates."
        return hist, "computed from coordinates", note
    return hist, "local files", f"QM9 {options['graph']} graphs computed from the qm9pack package data."


def _compute_aflow(split: str, options: dict[str, Any]) -> tuple[SizeHistogram, str, str]:
    folder = shared_data_root() / "aflow"
    if not folder.is_dir():
        raise ValueError(
            f"The AFLOW subsets are not at {folder}; use the bundled profile, or load your own "
            "AFLOW export with load_user_file."
        )
    frame = subset_frames()[split]
    hist = SizeHistogram.from_sizes(*aflow_frame_sizes(frame, k=options["k"]))
    return hist, "local files", f"AFLOW {split} computed from {folder} with k = {options['k']}."


def _compute(spec: DatasetSpec, split: str, options: dict[str, Any], allow_download: bool,
             use_cache: bool, progress: Progress | None) -> tuple[SizeHistogram, str, str]:
    """Histogram from the data set's own source; OGB-style loads cache every split (as far
    as the cache can be written)."""
    if spec.family == "qm9":
        return _compute_qm9(options, progress)
    if spec.family == "aflow":
        return _compute_aflow(split, options)
    hists, source, provenance = load_ogb_family(spec, allow_download=allow_download)
    if split not in hists:
        raise ValueError(f"{spec.name}: the data found has no {split!r} split ({provenance})")
    if use_cache:
        for other, hist in hists.items():
            if other != split:
                try_save_cached(cache_key(spec.name, other, options), hist, provenance)
    return hists[split], source, provenance


def load_histogram(
    name: str,
    split: str = "train",
    *,
    use_bundled: bool = True,
    use_cache: bool = True,
    allow_download: bool = True,
    progress: Progress | None = None,
    **options: Any,
) -> tuple[SizeHistogram, dict[str, Any]]:
    """The size histogram of data set ``name`` and an ``info`` dict about where it came from.

    Looks in the bundled profiles, then the on-disk cache, then local files, then downloads.

    Args:
        name: a registered data set (``list_datasets()``), e.g. ``"ogbg-molhiv"``.
        split: the split; data sets without a ``"train"`` split (QM9, AFLOW) use their
            first split, ``"all"``, when it is left at ``"train"``.
        use_bundled: look in the shipped profiles first.
        use_cache: read and write the on-disk histogram cache.
        allow_download: download a data set that is not on disk.
        progress: ``progress(stage, fraction)`` hears the stages of slow computations (QM9
            radius graphs, SMILES parsing).
        **options: the data set's options (``DatasetSpec.options``), e.g. ``graph="knn", k=4``.

    Returns:
        ``(histogram, info)``. ``info`` has ``dataset``, ``split``, ``options`` (those that
        change the histogram), ``source`` (``"bundled profile"``, ``"cache"``, ``"local
        files"``, ``"download"`` or ``"computed from coordinates"``), ``provenance`` (a
        sentence), ``graphs``, ``seconds`` and, when the result could not be cached,
        ``warning``.

    Raises:
        ValueError: an unknown data set, split or option, an option value out of range, or an
            option given where it does not apply (QM9's k for bond graphs).
        DatasetUnavailableError: the data is not on disk and cannot (or may not) be downloaded.

    >>> hist, info = load_histogram("ogbg-molhiv", split="train")
    >>> hist.num_graphs, hist.largest_nodes, info["source"]
    (32901, 222, 'bundled profile')
    >>> load_histogram("qm9", graph="knn", k=4)[1]["split"]
    'all'
    """
    start = time.perf_counter()
    spec = get_spec(name)
    if split == "train" and "train" not in spec.splits:
        split = spec.splits[0]
    check_split(spec, split)
    resolved = resolve_options(spec, options)
    check_options_apply(spec, options, resolved)
    effective = effective_options(spec, resolved)
    found = bundled_histogram(name, split, effective) if use_bundled else None
    warning = None
    if found is not None:
        hist, source, provenance = found[0], "bundled profile", found[1]
    else:
        key = cache_key(name, split, effective)
        cached = load_cached(key) if use_cache else None
        if cached is not None:
            hist, source = cached[0], "cache"
            provenance = f"From the histogram cache ({cache_path(key).name}). {cached[1]}"
        else:
            hist, source, provenance = _compute(spec, split, effective, allow_download, use_cache, progress)
            if use_cache:
                warning = try_save_cached(key, hist, provenance)
    info = {
        "dataset": name, "split": split, "options": effective, "source": source,
        "provenance": provenance, "graphs": hist.num_graphs,
        "seconds": time.perf_counter() - start,
    }
    return hist, info if warning is None else {**info, "warning": warning}
