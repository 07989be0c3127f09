"""Histograms of OGB data sets (and PyG's QM9): local folders first, download otherwise.

Order: a folder in :func:`~data_loaders.paths.data_root` or the shared data folder with
OGB's raw count lists (fast path, no torch), else one with a processed PyG file (sizes from
its ``slices``), else a download through ogb / PyG (:mod:`.ogb_online`).
"""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from packing import SizeHistogram

from .errors import DatasetUnavailableError
from .ogb_layout import OGB_LAYOUTS, has_raw_sizes, raw_split_histograms, read_split_files, split_histograms
from .ogb_online import build_graphprop, build_pcqm4mv2, build_pyg_qm9, numpy_splits, staged_download
from .paths import data_root, shared_data_root
from .pyg_sizes import dataset_file, sizes_from_collated
from .registry import DatasetSpec
from .torch_safe import safe_torch_load

#: Folder name under the data root for each non-OGB downloadable data set.
_PYG_DIRS = {"qm9-pyg": "qm9-pyg"}

Loaded = tuple[dict[str, SizeHistogram], str, str]


def _folder_name(spec: DatasetSpec) -> str:
    return OGB_LAYOUTS[spec.name].dir_name if spec.name in OGB_LAYOUTS else _PYG_DIRS[spec.name]


def _has_files(folder: Path) -> bool:
    return any(path.is_file() for path in folder.rglob("*"))


def _processed_splits(folder: Path, spec: DatasetSpec) -> dict[str, np.ndarray]:
    if spec.name == "pcqm4mv2":
        split_file = folder / "split_dict.pt"
        return numpy_splits(safe_torch_load(split_file)) if split_file.is_file() else {}
    if spec.name in OGB_LAYOUTS:
        return read_split_files(folder, OGB_LAYOUTS[spec.name].split_type)
    return {}


def _read_local(folder: Path, spec: DatasetSpec) -> dict[str, SizeHistogram] | None:
    """Split histograms from a local folder, or ``None`` if it holds no usable sizes."""
    layout = OGB_LAYOUTS.get(spec.name)
    if layout is not None and has_raw_sizes(folder):
        return raw_split_histograms(folder, layout)
    if (folder / "processed").is_dir():
        try:
            processed = dataset_file(folder)
        except ValueError:
            return None
        data, slices = safe_torch_load(processed)[:2]
        nodes, edges = sizes_from_collated(data, slices)
        return split_histograms(nodes, edges, _processed_splits(folder, spec))
    return None


def local_folders(spec: DatasetSpec) -> list[Path]:
    """Folders searched for ``spec``'s files: the data root, then the shared data folder.

    >>> from .registry import get_spec
    >>> [p.name for p in local_folders(get_spec("ogbg-molhiv"))]
    ['ogbg_molhiv', 'ogbg_molhiv']
    """
    name = _folder_name(spec)
    return [data_root() / name, shared_data_root() / name]


def load_ogb_family(spec: DatasetSpec, allow_download: bool = True) -> Loaded:
    """Histograms of every split of ``spec``, with the source and a provenance sentence."""
    for folder in local_folders(spec):
        if folder.is_dir():
            hists = _read_local(folder, spec)
            if hists is not None:
                return hists, "local files", f"{spec.name} sizes read from the local folder {folder}."
    target = local_folders(spec)[0]
    if target.is_dir():
        if _has_files(target):
            raise ValueError(
                f"The folder {target} exists but holds neither OGB's raw size lists nor a "
                "processed file; complete it or remove it so that the data set can be downloaded."
            )
        shutil.rmtree(target)  # an empty leftover would make ogb prompt on stdin
    if not allow_download:
        raise DatasetUnavailableError(
            spec.name, spec.download_size, "downloads are switched off",
            f"place the prepared folder at {target} (set GRAPH_PACKING_DATA to change where)",
            advice="Allow them (leave out --no-download; allow_download=True in Python)")
    build = {"pcqm4mv2": build_pcqm4mv2, "qm9-pyg": build_pyg_qm9}.get(spec.name) \
        or build_graphprop(spec.name)
    nodes, edges, splits = staged_download(spec.name, spec.download_size, target, build)
    library = "PyG" if spec.name in _PYG_DIRS else "ogb"
    provenance = f"{spec.name} downloaded through {library} into {target}; sizes from its slices."
    return split_histograms(nodes, edges, splits), "download", provenance
