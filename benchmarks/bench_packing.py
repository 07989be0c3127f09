"""Packing speed and quality on real OGB histograms and a synthetic ogbg-ppa-shaped one.

Prints a table and writes benchmarks/results/packing.csv. Run from the repo root:

    .venv/bin/python -m benchmarks.bench_packing
"""
from __future__ import annotations

import os
import time

import numpy as np
import pandas as pd

from benchmarks.synthetic import ppa_like
from benchmarks.timing import save_results, timed
from data_loaders import load_histogram
from packing import pack, sweep


def main() -> pd.DataFrame:
    molhiv, _ = load_histogram("ogbg-molhiv", split="train")
    molpcba, _ = load_histogram("ogbg-molpcba", split="train")
    ppa = ppa_like()
    rows = []

    def record(case: str, seconds: float, target: float | None, plan=None, note: str = "") -> None:
        row = {"case": case, "seconds": round(seconds, 4), "target_seconds": target,
               "meets_target": None if target is None else seconds <= target, "note": note}
        if plan is not None:
            row.update(packs=plan.num_packs, lower_bound=plan.lower_bound, gap_pct=round(100 * plan.gap, 3),
                       node_eff_pct=round(100 * plan.node_efficiency, 2),
                       edge_eff_pct=round(100 * plan.edge_efficiency, 2))
        rows.append(row)
        print(f"{case:<58} {seconds:8.3f} s  target {target if target is not None else '-':>5}  {note}")

    for name, hist in (("ogbg-molhiv", molhiv), ("ogbg-molpcba", molpcba)):
        limits = (hist.max_nodes, hist.max_edges, 256)
        seconds, plan = timed(lambda: pack(hist, *limits, heuristic="product", algorithm="best_fit"), 15, warmup=True)
        record(f"{name} train, one pack at max limits (best fit, product)", seconds, 0.020, plan)
        seconds, plan = timed(lambda: pack(hist, *limits, algorithm="best"), 3, warmup=True)
        record(f"{name} train, best of all + exact-fill improvement", seconds, None, plan,
               f"{plan.heuristic}/{plan.algorithm}")

    seconds, plan = timed(lambda: pack(ppa, 300, 36_138, 256, heuristic="product", algorithm="best_fit"), 3, warmup=True)
    record(f"SYNTHETIC ppa-like ({ppa.num_tuples} tuples), best fit, product", seconds, 2.0, plan,
           "synthetic, not ogbg-ppa")

    node_limits = np.linspace(313, 4 * 313, 48).round().astype(int)
    edge_limits = np.linspace(636, 4 * 636, 45).round().astype(int)
    start = time.perf_counter()
    frame = sweep(molpcba, node_limits, edge_limits, 256, "product", "best_fit", workers=os.cpu_count())
    seconds = time.perf_counter() - start
    best = frame.loc[frame["harmonic_mean"].idxmax()]
    record(f"ogbg-molpcba sweep of {len(frame)} limit pairs ({os.cpu_count()} processes)", seconds, 10.0,
           note=f"best harmonic mean {100 * best.harmonic_mean:.2f}% at ({best.max_nodes}, {best.max_edges})")

    table = pd.DataFrame(rows)
    save_results(table, "packing")
    return table


if __name__ == "__main__":
    main()
