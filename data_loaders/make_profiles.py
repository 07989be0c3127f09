"""Regenerate the shipped size profiles from ``shared/data`` and qm9pack.

Usage: ``python -m data_loaders.make_profiles`` (write) or ``... --check`` (compare with the
shipped files, exit status 1 on any difference). Only derived counts are written.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from packing import SizeHistogram
from packing.io import load_size_table, save_histogram

from .aflow import DEFAULT_K, aflow_frame_sizes, subset_frames
from .ogb_layout import OGB_LAYOUTS, raw_split_histograms
from .paths import PROFILES_DIR, shared_data_root
from .profiles import profile_name
from .qm9 import qm9_sizes

OGB_BUNDLED = ("ogbg-molhiv", "ogbg-molpcba")
QM9_BUNDLED = ({"graph": "bonds"}, {"graph": "full"}, {"graph": "radius", "cutoff": 5.0},
               {"graph": "knn", "k": 8})


def ogb_profiles(root: Path) -> dict[str, SizeHistogram]:
    """Profiles of every split of the bundled OGB data sets, from their raw files."""
    result = {}
    for name in OGB_BUNDLED:
        layout = OGB_LAYOUTS[name]
        for split, hist in raw_split_histograms(root / layout.dir_name, layout).items():
            result[profile_name(name, split, {})] = hist
    return result


def aflow_profiles(root: Path) -> dict[str, SizeHistogram]:
    """Profiles of the AFLOW subsets and their union, k = 24."""
    return {
        profile_name("aflow", split, {"k": DEFAULT_K}): SizeHistogram.from_sizes(*aflow_frame_sizes(frame))
        for split, frame in subset_frames(root).items()
    }


def qm9_profiles(constructions: tuple[dict, ...] = QM9_BUNDLED) -> dict[str, SizeHistogram]:
    """Profiles of QM9 for the given constructions (default parameters)."""
    return {
        profile_name("qm9", "all", options): SizeHistogram.from_sizes(*qm9_sizes(**options))
        for options in constructions
    }


def compute_profiles(root: Path | None = None) -> dict[str, SizeHistogram]:
    """Every shipped profile, computed from scratch: file name -> histogram."""
    root = root or shared_data_root()
    return {**ogb_profiles(root), **aflow_profiles(root), **qm9_profiles()}


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check`` verify) the profiles; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m data_loaders.make_profiles", description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    profiles = compute_profiles()
    different = []
    for name, hist in sorted(profiles.items()):
        path = PROFILES_DIR / name
        if args.check:
            if not path.is_file() or load_size_table(path) != hist:
                different.append(name)
        else:
            save_histogram(hist, path)
        print(f"{name}: {hist.num_graphs} graphs, {hist.num_tuples} tuples")
    if different:
        print("Differs from the shipped file: " + ", ".join(different), file=sys.stderr)
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
