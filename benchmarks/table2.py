"""Our Table 2 next to the published one (Krell et al., 2022) for ogbg-molhiv and
ogbg-molpcba: (node %, edge %) at the dataset-max limits, 256 graphs per pack.

The paper reports efficiencies against the tightest limits its packs used; we report
against the limits chosen (a stricter measure). Prints a table and writes
benchmarks/results/table2.csv:

    .venv/bin/python -m benchmarks.table2
"""
from __future__ import annotations


import pandas as pd

from benchmarks.timing import save_results
from data_loaders import load_histogram
from packing import PackLimits, PackMethod, compare, pack

PUBLISHED = {  # (node %, edge %), Krell et al. Table 2
    "ogbg-molhiv": {"product": (95.6, 90.5), "sum": (97.5, 92.4), "max": (98.5, 93.3), "min": (98.5, 93.3),
                    "node": (98.8, 93.6), "edge": (98.5, 93.3), "none": (11.4, 10.8),
                    "node_only": (98.7, 85.9), "edge_only": (85.8, 93.3)},
    "ogbg-molpcba": {"product": (89.6, 95.1), "sum": (85.4, 90.6), "max": (92.6, 98.3), "min": (92.6, 98.3),
                     "node": (91.5, 97.1), "edge": (90.6, 96.2), "none": (8.21, 8.71),
                     "node_only": (88.3, 84.5), "edge_only": (81.0, 88.1)},
}


def main() -> pd.DataFrame:
    rows = []
    for name, published in PUBLISHED.items():
        hist, _ = load_histogram(name, split="train")
        limits = PackLimits.for_histogram(hist)
        table = compare(hist, limits)
        best_fit = table[table["algorithm"] == "best_fit"].set_index("heuristic")
        baselines = table[table["method"].isin(["none", "node_only", "edge_only"])].set_index("method")
        best = pack(hist, limits, PackMethod("best"))
        for method, (paper_node, paper_edge) in published.items():
            row = best_fit.loc[method] if method in best_fit.index else baselines.loc[method]
            rows.append({
                "dataset": name, "method": method if method in baselines.index else f"{method} / best_fit",
                "paper_node_pct": paper_node, "paper_edge_pct": paper_edge,
                "our_node_pct": round(100 * row["node_efficiency"], 2),
                "our_edge_pct": round(100 * row["edge_efficiency"], 2),
                "our_packs": int(row["packs"]), "lower_bound": int(row["lower_bound"]),
            })
        rows.append({
            "dataset": name, "method": f"best of all ({best.method.label})",
            "our_node_pct": round(100 * best.node_efficiency, 2), "our_edge_pct": round(100 * best.edge_efficiency, 2),
            "our_packs": best.num_packs, "lower_bound": best.lower_bound,
        })
    frame = pd.DataFrame(rows)
    print(frame.to_string(index=False))
    save_results(frame, "table2")
    return frame


if __name__ == "__main__":
    main()
