"""Command line of the figures package: ``python -m figures report config.json --out report.html``
writes the one-file report (:mod:`figures.report`) of a saved configuration."""
from __future__ import annotations

import argparse
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from packing.cli_args import check_out
from packing.io import write_replacing
from throughput import load_checked_config

from .pdf import report_pdf
from .report import build_report

SWEEP_COLUMNS = ("max_nodes", "max_edges", "harmonic_mean", "node_efficiency", "edge_efficiency", "packs",
                 "lower_bound", "gap", "feasible")
#: Columns ``python -m packing sweep`` writes that a table may lack (older files).
OPTIONAL_COLUMNS = ("max_graphs", "packing_factor", "bound", "method")
TEXT_COLUMNS = ("bound", "method")
MAX_TEXT = 200
WHOLE_COLUMNS = ("max_nodes", "max_edges", "max_graphs", "packs", "lower_bound")
#: The range of each numeric column.
RANGES = {"max_nodes": (1, math.inf), "max_edges": (1, math.inf), "max_graphs": (1, math.inf),
          "packs": (1, math.inf), "lower_bound": (1, math.inf), "gap": (0, math.inf),
          "packing_factor": (0, math.inf), "node_efficiency": (0, 1), "edge_efficiency": (0, 1),
          "harmonic_mean": (0, 1)}


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
    """A sweep frame from the CSV or JSON ``python -m packing sweep --out`` writes, every
    column of its type and range (:func:`column_problem`); otherwise ``ValueError`` naming
    the missing column, or the column, row and value that are wrong.

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
    for column in dict.fromkeys(("feasible", *SWEEP_COLUMNS, *OPTIONAL_COLUMNS)):  # feasible first: it says which cells need metrics
        if column in frame.columns:
            problem = column_problem(frame, column)
            if problem:
                raise ValueError(f"{path} is not a sweep table: {problem}; write it again with python -m packing "
                                 "sweep ... --out sweep.csv.")
    frame["feasible"] = frame["feasible"].astype(str) == "True"  # a column with a typo is read as text
    repeated = frame.duplicated(["max_nodes", "max_edges"])
    if repeated.any():
        row = int(frame.index[repeated.to_numpy().argmax()])
        raise ValueError(f"{path} is not a sweep table: row {row + 1} repeats the cell of "
                         f"{frame.at[row, 'max_nodes']} nodes and {frame.at[row, 'max_edges']} edges (a sweep has "
                         "one row per limit pair; were two files joined?).")
    return frame


def _shown(value: object) -> str:
    """A cell's value as the message shows it: numbers as ``g``, text quoted and cut short."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        return repr(str(value)[:40])
    return f"{float(value):g}"


def column_problem(frame: pd.DataFrame, column: str) -> str:
    """What is wrong with a sweep table's ``column`` (its first bad row, the value and the
    rule), "" when nothing is: limits and packs are whole numbers, the efficiencies
    fractions, ``feasible`` True or False, text short; a cell no pack could fill
    (``feasible`` False) may leave its metrics empty.

    >>> frame = pd.DataFrame({"feasible": [True, True], "packs": [3, float("inf")], "method": ["best fit", "x"]})
    >>> column_problem(frame, "packs"), column_problem(frame, "method")
    ('row 2 has packs inf, not a whole number', '')
    """
    values = frame[column]
    if column == "feasible":
        wrong = ~values.map(lambda value: isinstance(value, (bool, np.bool_)) or value in ("True", "False"))
        return _first(frame, column, wrong, "column feasible holds values of the wrong type (True or False)")
    if column in TEXT_COLUMNS:
        return _first(frame, column, values.notna() & (values.astype(str).str.len() > MAX_TEXT),
                      f"longer than {MAX_TEXT} characters")
    numbers = pd.to_numeric(values, errors="coerce")
    if pd.api.types.is_bool_dtype(values) or not pd.api.types.is_numeric_dtype(values):
        wrong = values.notna() if pd.api.types.is_bool_dtype(values) else numbers.isna() & values.notna()
        return _first(frame, column, wrong, f"column {column} holds values of the wrong type (limits are whole "
                                            "numbers, feasible is True or False, the metrics are numbers)")
    return _number_problem(frame, column, numbers.astype(float))


def _number_problem(frame: pd.DataFrame, column: str, numbers: pd.Series) -> str:
    """The first empty cell of a numeric column where one is needed, else its first value
    that is infinite, not whole where it should be, or out of range."""
    needed = (frame["feasible"].astype(str) == "True") | (column in ("max_nodes", "max_edges", "max_graphs"))
    whole = column in WHOLE_COLUMNS
    low, high = RANGES[column]
    finite = numbers.notna() & np.isfinite(numbers.fillna(0))
    unfit = numbers.notna() & ~finite | (finite & (numbers.where(finite, 0) % 1 != 0) if whole else False)
    return (_first(frame, column, numbers.isna() & needed, "empty in a cell packs could fill")
            or _first(frame, column, unfit, "not a whole number" if whole else "not a finite number")
            or _first(frame, column, finite & ~numbers.between(low, high),
                      f"below {low}" if high == math.inf else f"outside {low} to {high}"))


def _first(frame: pd.DataFrame, column: str, wrong: pd.Series, words: str) -> str:
    """The first row flagged in ``wrong`` with its value and ``words``; "" when none is."""
    if not wrong.any():
        return ""
    row = int(wrong.to_numpy().argmax())
    return f"row {row + 1} has {column} {_shown(frame[column].iloc[row])}, {words}"


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
        config, plan = load_checked_config(Path(args.config))
        sweep = read_sweep(args.sweep) if args.sweep else None
        page = build_report(config, plan, sweep, file_name=Path(args.config).name)
        data = report_pdf(page) if out.suffix == ".pdf" else page.encode("utf-8")
        write_replacing(out, data)
    except (ValueError, OSError, subprocess.TimeoutExpired) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({len(data) / 1e6:.1f} MB)")
    return 0
