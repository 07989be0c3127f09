"""Packing speed and quality on real OGB histograms, a synthetic ogbg-ppa-shaped one and a
random adversarial one; histogram building from 10 million per-graph sizes.

Prints a table and writes benchmarks/results/packing.csv. Run from the repo root:

    .venv/bin/python -m benchmarks.bench_packing
"""
from __future__ import annotations

import os
import time

import numpy as np
import pandas as pd

from benchmarks.synthetic import adversarial_random, ppa_like
from benchmarks.timing import save_results, timed
from data_loaders import load_histogram
from packing import PackLimits, PackMethod, SizeHistogram, pack, sweep


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
        limits = PackLimits.for_histogram(hist)
        seconds, plan = timed(lambda: pack(hist, limits, PackMethod("best_fit", "product")), 15, warmup=True)
        record(f"{name} train, one pack at max limits (best fit, product)", seconds, 0.020, plan)
        seconds, plan = timed(lambda: pack(hist, limits, PackMethod("best")), 3, warmup=True)
        record(f"{name} train, best of all + exact-fill improvement", seconds, None, plan, plan.method.label)

    seconds, plan = timed(lambda: pack(ppa, PackLimits(300, 36_138, 256)), 3, warmup=True)
    record(f"SYNTHETIC ppa-like ({ppa.num_tuples} tuples), best fit, product", seconds, 2.0, plan,
           "synthetic, not ogbg-ppa")

    hist, limits = adversarial_random()
    seconds, plan = timed(lambda: pack(hist, limits, PackMethod("best")), 3, warmup=True)
    record(f"SYNTHETIC random {hist.num_tuples} tuples, best of all + exact fill", seconds, 2.0, plan,
           "issue 8's adversarial histogram (seed 0)")

    rng = np.random.default_rng(0)
    nodes, edges = rng.integers(1, 300, 10_000_000), rng.integers(0, 600, 10_000_000)
    seconds, built = timed(lambda: SizeHistogram.from_sizes(nodes, edges), 3)
    record(f"histogram of 10,000,000 per-graph sizes ({built.num_tuples:,} tuples)", seconds, 2.0)

    node_limits = np.linspace(313, 4 * 313, 48).round().astype(int)
    edge_limits = np.linspace(636, 4 * 636, 45).round().astype(int)
    start = time.perf_counter()
    frame = sweep(molpcba, node_limits, edge_limits, 256, PackMethod("best_fit", "product"), workers=os.cpu_count())
    seconds = time.perf_counter() - start
    best = frame.loc[frame["harmonic_mean"].idxmax()]
    record(f"ogbg-molpcba sweep of {len(frame)} limit pairs ({os.cpu_count()} processes)", seconds, 10.0,
           note=f"best harmonic mean {100 * best.harmonic_mean:.2f}% at ({best.max_nodes}, {best.max_edges})")

    table = pd.DataFrame(rows)
    save_results(table, "packing")
    return table


if __name__ == "__main__":
    main()
