"""Table 2 of Krell et al. (2022) for ogbg-molhiv and ogbg-molpcba: the paper's numbers, the
published algorithm reproduced (``algorithm="published"``), and ours, at the dataset-max
limits with 256 graphs per pack.

The paper measures efficiencies against the tight limits (the largest sums its packs use);
the reproduction is shown in that convention, so it can be compared digit for digit. Ours
are measured against the limits chosen (a stricter measure), as everywhere in this tool.
Prints a table and writes benchmarks/results/table2.csv:

    .venv/bin/python -m benchmarks.table2
"""
from __future__ import annotations

import pandas as pd

from benchmarks.timing import save_results, take_no_options
from data_loaders import load_histogram
from packing import PackLimits, PackMethod, compare, pack, published_table
from packing.published import PAPER_TABLE2


def _pct(value: float) -> float:
    return round(100 * value, 2)


def main() -> pd.DataFrame:
    rows = []
    for name, paper in PAPER_TABLE2.items():
        hist, _ = load_histogram(name, split="train")
        limits = PackLimits.for_histogram(hist)
        published = published_table(hist, limits, dataset=name).set_index("heuristic")
        ours = compare(hist, limits)
        best_fit = ours[ours["algorithm"] == "best_fit"].set_index("heuristic")
        baselines = ours[ours["method"].isin(["none", "node_only", "edge_only"])].set_index("method")
        for method, (paper_node, paper_edge) in paper.items():
            row = {"dataset": name, "method": method, "paper_node_pct": paper_node, "paper_edge_pct": paper_edge}
            if method in published.index:
                reproduced = published.loc[method]
                node, edge = round(reproduced["tight_node_pct"], 1), round(reproduced["tight_edge_pct"], 1)
                # The paper's Minimum row (the public code's min computes max) next to our real min.
                heuristic = "min" if method == "paper_min" else method
                ours_row = best_fit.loc[heuristic]
                row.update(published_node_pct=node, published_edge_pct=edge, published_packs=int(reproduced["packs"]),
                           matches_paper=(node, edge) == (paper_node, paper_edge), our_method=f"{heuristic} / best_fit")
            else:
                ours_row = baselines.loc[method]
                row["our_method"] = method
            row.update(our_node_pct=_pct(ours_row["node_efficiency"]), our_edge_pct=_pct(ours_row["edge_efficiency"]),
                       our_packs=int(ours_row["packs"]), lower_bound=int(ours_row["lower_bound"]))
            rows.append(row)
        best = pack(hist, limits, PackMethod("best"))
        rows.append({"dataset": name, "method": "best of all", "our_method": best.method.label,
                     "our_node_pct": _pct(best.node_efficiency), "our_edge_pct": _pct(best.edge_efficiency),
                     "our_packs": best.num_packs, "lower_bound": best.lower_bound})
    frame = pd.DataFrame(rows)
    with pd.option_context("display.width", 250, "display.max_columns", 20):
        print(frame.to_string(index=False))
    save_results(frame, "table2")
    return frame


if __name__ == "__main__":
    take_no_options(__doc__, "benchmarks/results/table2.csv")
    main()
