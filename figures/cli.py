"""Command line of the figures package: ``python -m figures report config.json --out report.html``
writes the one-file report (:mod:`figures.report`) of a saved configuration."""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pandas as pd

from packing import load_config, write_replacing
from packing.cli import check_out

from .pdf import report_pdf
from .report import build_report

SWEEP_COLUMNS = ("max_nodes", "max_edges", "harmonic_mean", "node_efficiency", "edge_efficiency", "packs",
                 "lower_bound", "gap", "feasible")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m figures", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    report = commands.add_parser("report", help="write the one-file HTML report of a configuration",
                                 description="Write one self-contained HTML file (works offline) with the dataset, "
                                             "statistics, histogram, chosen limits and method, packs, batching and "
                                             "throughput sections of a configuration exported by the dashboard or "
                                             "`python -m packing pack --out`.")
    report.add_argument("config", help="configuration JSON (verified on load)")
    report.add_argument("--out", required=True, help="the file to write: report.html, or report.pdf (printed by "
                                                     "Chromium, as PNG export: apt-get install -y chromium or "
                                                     "BROWSER_PATH)")
    report.add_argument("--sweep", help="a sweep table (`python -m packing sweep ... --out sweep.csv` or .json) for "
                                        "the heatmap with the chosen cell")
    return parser


def read_sweep(path: str) -> pd.DataFrame:
    """A sweep frame from the CSV or JSON ``python -m packing sweep --out`` writes;
    ``ValueError`` naming the missing columns otherwise.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "sweep.csv").write_text(",".join(SWEEP_COLUMNS) + "\\n64,128,0.9,0.9,0.9,10,9,0.1,True")
    ...     read_sweep(str(Path(tmp) / "sweep.csv"))[["max_nodes", "max_edges", "packs", "feasible"]]
       max_nodes  max_edges  packs  feasible
    0         64        128     10      True
    """
    if not Path(path).is_file():
        raise ValueError(f"No sweep file at {path}" + (" (it is a folder)" if Path(path).is_dir() else "") +
                         "; write one with python -m packing sweep ... --out sweep.csv.")
    try:
        frame = pd.read_json(path, orient="records", precise_float=True) if Path(path).suffix == ".json" else pd.read_csv(path)
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a sweep table: it is not a text (CSV) file.") from None
    except ValueError as error:  # pandas' parser errors
        kind = "a JSON list of rows" if Path(path).suffix == ".json" else "a CSV table"
        raise ValueError(f"{path} is not a sweep table ({kind}): {str(error).strip()}") from None
    missing = [column for column in SWEEP_COLUMNS if column not in frame.columns]
    if missing:
        raise ValueError(f"{path} is not a sweep table: it has no column {', '.join(missing)}.")
    if frame.empty:
        raise ValueError(f"{path} has a sweep table's columns but no rows; write it again with python -m packing "
                         "sweep ... --out sweep.csv.")
    wrong = [column for column in SWEEP_COLUMNS if not (
        pd.api.types.is_bool_dtype(frame[column]) if column == "feasible" else
        pd.api.types.is_integer_dtype(frame[column]) if column in ("max_nodes", "max_edges") else
        pd.api.types.is_numeric_dtype(frame[column]))]
    if wrong:
        raise ValueError(f"{path} is not a sweep table: column {', '.join(wrong)} holds values of the wrong type "
                         "(limits are whole numbers, feasible is True or False, the metrics are numbers).")
    for column in ("max_nodes", "max_edges"):
        if (frame[column] < 1).any():
            row = int(frame.index[(frame[column] < 1).to_numpy().argmax()])
            raise ValueError(f"{path} is not a sweep table: row {row + 1} has {column} {frame.at[row, column]}, "
                             "below 1 (was the file edited?).")
    repeated = frame.duplicated(["max_nodes", "max_edges"])
    if repeated.any():
        row = int(frame.index[repeated.to_numpy().argmax()])
        raise ValueError(f"{path} is not a sweep table: row {row + 1} repeats the cell of "
                         f"{frame.at[row, 'max_nodes']} nodes and {frame.at[row, 'max_edges']} edges (a sweep has "
                         "one row per limit pair; were two files joined?).")
    feasible = frame[frame["feasible"]]
    for column, low, high in (("node_efficiency", 0, 1), ("edge_efficiency", 0, 1), ("harmonic_mean", 0, 1),
                              ("gap", 0, float("inf")), ("lower_bound", 1, float("inf"))):
        outside = ~feasible[column].between(low, high)
        if outside.any():
            row = feasible.index[outside.to_numpy().argmax()]
            raise ValueError(f"{path} is not a sweep table: row {row + 1} has {column} {float(frame.at[row, column]):g}, "
                             f"outside {low} to {high:g} (was the file edited?).")
    return frame


def run(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 written, 2 bad input, said on stderr
    as ``error: ...``).

    >>> run(["report", "config.json", "--out", "report.txt"])  # "error: --out must end in .html or .pdf" on stderr
    2
    """
    args = build_parser().parse_args(argv)
    out = Path(args.out)
    try:
        check_out(out, (".html", ".pdf"), inputs=[args.config, args.sweep])
        config, plan = load_config(Path(args.config))
        sweep = read_sweep(args.sweep) if args.sweep else None
        page = build_report(config, plan, sweep, file_name=Path(args.config).name)
        data = report_pdf(page) if out.suffix == ".pdf" else page.encode("utf-8")
        write_replacing(out, data)
    except (ValueError, OSError, subprocess.TimeoutExpired) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({len(data) / 1e6:.1f} MB)")
    return 0
