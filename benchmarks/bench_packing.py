"""Packing speed and quality on real OGB histograms, a synthetic ogbg-ppa-shaped one, a
random adversarial one and 100,000 random distinct sizes (issue 37); histogram building
from 10 million per-graph sizes; memory for a billion graphs of one size.

The two cases of issue 22 run side by side with the code of commit ``BASELINE`` (before the
issue): the ogbg-molpcba sweep of 2,160 limit pairs (1x-4x the largest graph, best fit,
product, ``os.cpu_count()`` processes for both) and best fit on the ppa-shaped histogram.
Each version runs in its own fresh Python whose only project code is a copy of its
``packing`` package (``git archive BASELINE packing`` for the old one), the runs
alternate old, new, old, new, ..., and the median of each side is compared in the same
run: on a shared machine only ratios taken together mean something. The sweep's cells
must match cell by cell.

Best fit against the published algorithm with the same heuristic (issue 22): the packs of
each on every case here, on Table 2's (the same two OGB histograms) and on the four QM9
constructions, at the data-default limits (the largest graph, 256 graphs per pack), and
on QM9 radius graphs at 2x and 3x those limits as well; and on 100 random histograms drawn
like the random case (seeds 0-99), summarised per heuristic.

Prints a table and writes benchmarks/results/packing.csv, packing_side_by_side.csv,
best_fit_vs_published.csv, best_fit_vs_published_seeds.csv and best_fit_pack_ranking.csv.
Run from the repo root:

    .venv/bin/python -m benchmarks.bench_packing
"""
from __future__ import annotations

import os
import statistics
import tempfile
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.synthetic import adversarial_random, ppa_like
from benchmarks.timing import (histogram_payload, packing_copy, save_results, side_by_side, take_no_options,
                               timed)
from data_loaders import load_histogram
from packing import HEURISTICS, MAX_PACK_LIMIT, PackLimits, PackMethod, SizeHistogram, default_limits, pack, sweep
from packing.api import FULL_SEARCH_UP_TO_TUPLES, count_tuple_packs


BASELINE = "6c031ef"  # main before issue 22
RANKING_BASELINE = "4943874"  # main while best fit ranked open packs by the heuristic of their room
MOLPCBA_NODE_LIMITS = np.linspace(313, 4 * 313, 48).round().astype(int).tolist()
MOLPCBA_EDGE_LIMITS = np.linspace(636, 4 * 636, 45).round().astype(int).tolist()
ROUNDS = 3  # alternating runs per version
DISTINCT_TUPLES = 100_000  # issue 37's large histogram: 100,000 distinct sizes, one graph each
RANDOM_SEEDS = 100  # random histograms on which best fit meets the published algorithm

# Runs in a fresh Python against one version of ``packing`` (the old one too, so it uses
# only what both have): a sweep, or one best-fit plan (median of 3 after a warm-up run).
ISOLATED_RUN = """
import json, statistics, sys, time
from packing import PackLimits, PackMethod, SizeHistogram, pack, sweep
job = json.load(sys.stdin)
hist = SizeHistogram.from_counts(job["nodes"], job["edges"], job["counts"])
method = PackMethod("best_fit", job["heuristic"])
if job["kind"] == "sweep":
    start = time.perf_counter()
    frame = sweep(hist, job["node_limits"], job["edge_limits"], 256, method, workers=job["workers"])
    seconds, result = time.perf_counter() - start, frame["packs"].tolist()
else:
    limits, times = PackLimits(*job["limits"]), []
    pack(hist, limits, method)
    for _ in range(3):
        start = time.perf_counter()
        result = pack(hist, limits, method).num_packs
        times.append(time.perf_counter() - start)
    seconds = statistics.median(times)
print(json.dumps({"seconds": seconds, "result": result}))
"""


def distinct_random(tuples: int = DISTINCT_TUPLES, seed: int = 0) -> SizeHistogram:
    """``tuples`` distinct random sizes (up to 399 nodes and 999 edges), one graph each, the
    first of 300,000 draws in draw order (synthetic; issue 37's "large histogram").

    >>> distinct_random(1_000).num_graphs
    1000
    """
    rng = np.random.default_rng(seed)
    nodes, edges = rng.integers(1, 400, 300_000), rng.integers(0, 1000, 300_000)
    _, first = np.unique(np.stack([nodes, edges], 1), axis=0, return_index=True)
    keep = np.sort(first)[:tuples]
    return SizeHistogram.from_counts(nodes[keep], edges[keep], np.ones(keep.size, dtype=np.int64))


def billion_of_one_size() -> tuple[float, float, object]:
    """Seconds and peak traced memory (MB) of best of all on 1,000,000,000 graphs of one size
    under the largest limits (all of them fit one pack), and the plan."""
    hist = SizeHistogram.from_counts([3], [2], [1_000_000_000])
    tracemalloc.start()
    try:
        seconds, plan = timed(lambda: pack(hist, PackLimits(MAX_PACK_LIMIT, MAX_PACK_LIMIT, MAX_PACK_LIMIT),
                                           PackMethod("best")), 1)
        peak = tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()
    return seconds, peak, plan


def side_by_side_rows(molpcba: SizeHistogram, ppa: SizeHistogram, rounds: int = ROUNDS) -> list[dict]:
    """The issue-22 cases (and the default 12 x 12 sweep, which has no target), old code
    against new in alternating fresh processes."""
    workers = os.cpu_count() or 1
    default_nodes, default_edges = default_limits(molpcba)
    cases = [
        (f"ogbg-molpcba sweep of {len(MOLPCBA_NODE_LIMITS) * len(MOLPCBA_EDGE_LIMITS):,} limit pairs, best fit, "
         f"product ({workers} processes)", molpcba,
         {"kind": "sweep", "node_limits": MOLPCBA_NODE_LIMITS, "edge_limits": MOLPCBA_EDGE_LIMITS,
          "workers": workers}, 0.25),
        ("ogbg-molpcba default sweep (12 x 12 limit pairs, 1x-4x the maxima), best fit, product (default workers)",
         molpcba, {"kind": "sweep", "node_limits": default_nodes, "edge_limits": default_edges, "workers": None},
         None),
        (f"SYNTHETIC ppa-like ({ppa.num_tuples:,} tuples), best fit, product, one plan", ppa,
         {"kind": "pack", "limits": [300, 36_138, 256]}, 0.5),
    ]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        codes = {"old": packing_copy(Path(folder) / "old", BASELINE), "new": packing_copy(Path(folder) / "new")}
        for case, hist, job, target in cases:
            payload = {**job, **histogram_payload(hist), "heuristic": "product"}
            runs = side_by_side(codes, ISOLATED_RUN, payload, rounds)
            old = statistics.median(run["seconds"] for run in runs["old"])
            new = statistics.median(run["seconds"] for run in runs["new"])
            same = runs["old"][0]["result"] == runs["new"][0]["result"]
            rows.append({"case": case, "old_seconds": round(old, 3), "new_seconds": round(new, 3),
                         "new_over_old": round(new / old, 3), "target_ratio": target,
                         "meets_target": None if target is None else new / old <= target, "same_result": same,
                         "old_runs": [round(run["seconds"], 3) for run in runs["old"]],
                         "new_runs": [round(run["seconds"], 3) for run in runs["new"]],
                         "load_average": round(os.getloadavg()[0], 2)})
            print(f"{case:<70} old {old:7.3f} s  new {new:7.3f} s  new/old {new / old:5.3f} "
                  f"(target <= {target if target is not None else '-'})  same result: {same}")
    return rows


QM9_CONSTRUCTIONS = ({"graph": "bonds"}, {"graph": "full"}, {"graph": "radius", "cutoff": 5.0}, {"graph": "knn"})


def packs_of_both(hist: SizeHistogram, limits: PackLimits, heuristic: str) -> tuple[int, int]:
    """The packs of best fit and of the published algorithm with ``heuristic``."""
    return (count_tuple_packs(hist, limits, PackMethod("best_fit", heuristic)),
            count_tuple_packs(hist, limits, PackMethod("published", heuristic)))


def best_fit_against_published(cases: list[tuple[str, SizeHistogram, PackLimits]]) -> pd.DataFrame:
    """Packs of best fit and of the published algorithm, per case and heuristic."""
    rows = []
    for case, hist, limits in cases:
        for heuristic in HEURISTICS:
            ours, published = packs_of_both(hist, limits, heuristic)
            rows.append({"case": case, "limits": f"{limits.max_nodes} / {limits.max_edges} / {limits.max_graphs}",
                         "heuristic": heuristic, "best_fit_packs": ours, "published_packs": published,
                         "best_fit_minus_published": ours - published,
                         "difference_pct": round(100 * (ours - published) / published, 3)})
    frame = pd.DataFrame(rows)
    behind = frame[frame["best_fit_minus_published"] > 0]
    print(f"\nbest fit against the published algorithm: behind in {len(behind)} of {len(frame)} (case, heuristic)")
    if not behind.empty:
        print(behind.to_string(index=False))
    save_results(frame, "best_fit_vs_published")
    return frame


def best_fit_against_published_on_seeds(seeds: int = RANDOM_SEEDS) -> pd.DataFrame:
    """Best fit minus the published algorithm on ``seeds`` random histograms drawn as the
    benchmark's random case is (seed 0 is that case), summarised per heuristic: how far
    apart the two are when neither has an edge built in."""
    differences = {heuristic: [] for heuristic in HEURISTICS}
    for seed in range(seeds):
        hist, limits = adversarial_random(seed)
        for heuristic in HEURISTICS:
            ours, published = packs_of_both(hist, limits, heuristic)
            differences[heuristic].append(ours - published)
    rows = []
    for heuristic, values in differences.items():
        values = np.array(values)
        rows.append({"heuristic": heuristic, "seeds": seeds, "mean_difference": round(float(values.mean()), 2),
                     "behind": int((values > 0).sum()), "equal": int((values == 0).sum()),
                     "ahead": int((values < 0).sum()), "fewest": int(values.min()), "most": int(values.max()),
                     "seed_0": int(values[0])})
    frame = pd.DataFrame(rows)
    print(f"\nbest fit minus the published algorithm (packs) on {seeds} random histograms (seeds 0-{seeds - 1}):")
    print(frame.to_string(index=False))
    save_results(frame, "best_fit_vs_published_seeds")
    return frame


# Runs in a fresh Python against one version of ``packing``: best-fit counts for many
# (histogram, limits, heuristic) jobs.
ISOLATED_COUNTS = """
import json, sys
from packing import PackLimits, PackMethod, SizeHistogram
from packing.api import count_tuple_packs
counts = []
for job in json.load(sys.stdin)["jobs"]:
    hist = SizeHistogram.from_counts(job["nodes"], job["edges"], job["counts"])
    counts.append([count_tuple_packs(hist, PackLimits(*limits), PackMethod("best_fit", job["heuristic"]))
                   for limits in job["limits"]])
print(json.dumps({"counts": counts}))
"""


def pack_ranking_against_baseline(seeds: int = RANDOM_SEEDS) -> pd.DataFrame:
    """Best fit now (open packs ranked by :func:`packing.greedy.tightest_room`) against
    ``RANKING_BASELINE`` (ranked by the heuristic of their room), each in a fresh Python
    with its own ``packing``: on ``seeds`` random histograms, and on every real histogram
    here over a 6 x 6 sweep (every other limit of its default 12 x 12 grid), per heuristic."""
    heuristics = tuple(HEURISTICS)
    random = [(hist, [limits]) for hist, limits in map(adversarial_random, range(seeds))]
    sets = [(f"random, seeds 0-{seeds - 1}", random)]
    for name, options in [("ogbg-molhiv", {"split": "train"}), ("ogbg-molpcba", {"split": "train"})] + [
            ("qm9", options) for options in QM9_CONSTRUCTIONS]:
        hist, _ = load_histogram(name, **options)
        node_limits, edge_limits = default_limits(hist)
        grid = [PackLimits(int(n), int(e)) for n in node_limits[::2] for e in edge_limits[::2]]
        sets.append((f"{name} {options.get('graph', 'train')}, 6 x 6 sweep", [(hist, grid)]))
    jobs = [{**histogram_payload(hist), "heuristic": heuristic,
             "limits": [[limit.max_nodes, limit.max_edges, limit.max_graphs] for limit in grid]}
            for _, cases in sets for hist, grid in cases for heuristic in heuristics]
    with tempfile.TemporaryDirectory() as folder:
        codes = {"old": packing_copy(Path(folder) / "old", RANKING_BASELINE), "new": packing_copy(Path(folder) / "new")}
        runs = side_by_side(codes, ISOLATED_COUNTS, {"jobs": jobs}, rounds=1)
    old, new = iter(runs["old"][0]["counts"]), iter(runs["new"][0]["counts"])
    rows = []
    for name, cases in sets:
        per_heuristic = {heuristic: ([], []) for heuristic in heuristics}
        for _ in cases:
            for heuristic in heuristics:
                per_heuristic[heuristic][0].extend(next(old))
                per_heuristic[heuristic][1].extend(next(new))
        for heuristic, (before, after) in per_heuristic.items():
            before, after = np.array(before), np.array(after)
            change = after - before
            rows.append({"case": name, "heuristic": heuristic, "counts": change.size,
                         "fewer_packs": int((change < 0).sum()), "more_packs": int((change > 0).sum()),
                         "largest_change": int(change.max()),
                         "total_change_pct": round(100 * change.sum() / before.sum(), 4)})
    frame = pd.DataFrame(rows)
    print(f"\nbest fit ranking open packs by their tightest room against {RANKING_BASELINE} (by the heuristic):")
    print(frame.to_string(index=False))
    save_results(frame, "best_fit_pack_ranking")
    return frame


def published_cases(molhiv: SizeHistogram, molpcba: SizeHistogram, ppa: SizeHistogram) -> list:
    """bench_packing's and table2's cases and the QM9 constructions at their data-default
    limits, then QM9 radius graphs at 2x and 3x."""
    cases = [("ogbg-molhiv train", molhiv, PackLimits.for_histogram(molhiv)),
             ("ogbg-molpcba train", molpcba, PackLimits.for_histogram(molpcba)),
             ("SYNTHETIC ppa-like", ppa, PackLimits(300, 36_138, 256)),
             ("SYNTHETIC random 2,000 tuples", *adversarial_random())]
    qm9 = {options["graph"]: load_histogram("qm9", **options)[0] for options in QM9_CONSTRUCTIONS}
    cases += [(f"QM9 {graph}", hist, PackLimits.for_histogram(hist)) for graph, hist in qm9.items()]
    radius = qm9["radius"]
    base = PackLimits.for_histogram(radius)
    for times in (2, 3):
        cases.append((f"QM9 radius, {times}x limits", radius,
                      PackLimits(times * base.max_nodes, times * base.max_edges, base.max_graphs)))
    return cases


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
    frame = sweep(molpcba, MOLPCBA_NODE_LIMITS, MOLPCBA_EDGE_LIMITS, 256, PackMethod("best_fit", "product"),
                  workers=os.cpu_count())
    best = frame.loc[frame["harmonic_mean"].idxmax()]
    print(f"ogbg-molpcba sweep: best harmonic mean {100 * best.harmonic_mean:.2f}% at "
          f"({best.max_nodes}, {best.max_edges})")

    hist, limits = adversarial_random()
    seconds, plan = timed(lambda: pack(hist, limits, PackMethod("best")), 3, warmup=True)
    record(f"SYNTHETIC random {hist.num_tuples} tuples, best of all + exact fill", seconds, 2.0, plan,
           "issue 8's adversarial histogram (seed 0)")

    large = distinct_random()
    seconds, plan = timed(lambda: pack(large, method=PackMethod("best_fit", "product")), 3, warmup=True)
    record(f"SYNTHETIC random {large.num_tuples:,} distinct tuples, best fit, product", seconds, 10.0, plan,
           "issue 37; limits: the largest graph, 256 graphs")
    seconds, plan = timed(lambda: pack(large, method=PackMethod("best")), 1)
    record(f"SYNTHETIC random {large.num_tuples:,} distinct tuples, best of all + exact fill", seconds, None, plan,
           f"issue 37; {plan.method.label}; {len(plan.skipped)} methods skipped above "
           f"{FULL_SEARCH_UP_TO_TUPLES:,} distinct sizes")
    seconds, peak, plan = billion_of_one_size()
    record("1,000,000,000 graphs of one size, best of all, largest limits", seconds, None, plan,
           f"issue 37; peak traced memory {peak:.2f} MB, {plan.num_strategies} distinct pack(s)")

    rng = np.random.default_rng(0)
    nodes, edges = rng.integers(1, 300, 10_000_000), rng.integers(0, 600, 10_000_000)
    seconds, built = timed(lambda: SizeHistogram.from_sizes(nodes, edges), 3)
    record(f"histogram of 10,000,000 per-graph sizes ({built.num_tuples:,} tuples)", seconds, 2.0)

    best_fit_against_published(published_cases(molhiv, molpcba, ppa))
    best_fit_against_published_on_seeds()
    pack_ranking_against_baseline()
    print("\nside by side with commit", BASELINE)
    save_results(pd.DataFrame(side_by_side_rows(molpcba, ppa)), "packing_side_by_side")

    table = pd.DataFrame(rows)
    save_results(table, "packing")
    return table


if __name__ == "__main__":
    take_no_options(__doc__, "benchmarks/results/packing.csv, packing_side_by_side.csv and best_fit_*.csv")
    main()
