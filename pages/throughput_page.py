"""Throughput page: time per step, per epoch and per training run, graphs per second and
speed-ups of every batching strategy on a calibrated device (``throughput``). It starts on
a calibration checked on this machine (the shipped one of this CPU when it passes its
check, else one measured here at first use); the others are shipped with the tool,
uploaded from the user's own GPU machine, or measured on this machine now. A number from
another device's calibration is labelled as that device's."""
from __future__ import annotations

import json
import math
from typing import Any

import streamlit as st

import figures.throughput as throughput_figures
from packing import BatchShape
from packing.words import run_length_words, short_run_note, three_digits
from pages import cache, state
from pages.header import page_header
from pages.packing_row import packing_row
from pages.pricing import (MAX_WORKERS, MEASURED_NOW, calibrations, chosen_key, loader_workers, machine,
                           measured_here, model_time_only, pricing)
from pages.run_controls import run_controls
from pages.widgets import md_text, mirrored_choice, percent_column, run_page, share_shown, show_error, table_in_two
from throughput import (ROWS, Calibration, MachineCalibration, calibrate, devices_note, extrapolation_note,
                        load_calibration)
from throughput.estimate import MODEL_TIME_ONLY, wall_time
from throughput.report import one_off_notes, wall_note
from throughput.shapes import default_shapes

#: Plain session key owned by no widget: what the estimate shown last priced with (its
#: calibration, baseline and check; :func:`pages.pricing.pricing`).
SETTINGS = "throughput"
#: Calibration ids (this machine's, this session's) and where this session's are kept.
THIS_MACHINE, SESSION, SESSION_CALIBRATIONS = state.THIS_MACHINE, state.SESSION, state.SESSION_CALIBRATIONS


def _grid(name: str, duration: str, budget: float, shapes: list[BatchShape]) -> tuple[str, dict]:
    """A calibration grid's choice: its label, which names the largest shape it times, and
    its settings (the shapes and the seconds per shape)."""
    largest = max(shape.num_nodes for shape in shapes)
    return f"{name}: {len(shapes)} shapes up to {largest:,} nodes ({duration})", {"shapes": shapes, "budget": budget}


GRIDS = dict([_grid("quick", "about 15 s", 0.3, default_shapes(8, max_nodes=4096, max_edges=32_768, max_graphs=256)),
              _grid("standard", "about a minute", 1.0, default_shapes(24))])
GPU_HOWTO = (
    "On your GPU machine, in this project, run `python -m throughput calibrate --model gin --device cuda --out "
    "my_gpu.json` (about a minute; `--mode compile` also prices torch.compile, `--mode cudagraph` the step captured "
    "as a CUDA graph) and upload `my_gpu.json` here.")
#: Time columns: their values are rounded to three significant digits before they are shown
#: (printf's %g wrote a run of days as 5.76e+04).
_SECONDS = {"format": "localized"}
_TIME_COLUMNS = ("steady_epoch_s", "first_epoch_s", "run_s", "compile_seconds", "capture_seconds",
                 "loader_epoch_s", "wall_steady_epoch_s", "wall_run_s")
#: The band column's words where a shape is larger than any timed.
EXTRAPOLATED_BAND = "none: extrapolated"
COLUMNS = {
    "strategy": st.column_config.TextColumn("Strategy", width="medium"),
    "steps_per_epoch": st.column_config.NumberColumn("Steps per epoch", format="localized",
                                                     help="optimizer steps per pass over the data, to one decimal "
                                                          "as in the report: a batch can span two epochs"),
    "step_ms": st.column_config.NumberColumn("Step (ms)", format="%.2f", help="mean model step, compilations aside"),
    "steady_epoch_s": st.column_config.NumberColumn("Steady epoch (s)", help="every shape compiled", **_SECONDS),
    "first_epoch_s": st.column_config.NumberColumn("First epoch (s)", help="with its compilations", **_SECONDS),
    "run_s": st.column_config.NumberColumn("Whole run (s)", help="every compilation once", **_SECONDS),
    "run_band": st.column_config.TextColumn("Whole run, band (s)", alignment="right",
                                            help="error band: each step within the cost model's held-out error, each "
                                                 "compilation between the fastest and the slowest measured; none "
                                                 "where a shape is larger than any timed"),
    "compile_seconds": st.column_config.NumberColumn("Compilation in the run (s)", **_SECONDS),
    "compilations": st.column_config.NumberColumn("Compilations", format="localized"),
    "graphs_per_second": st.column_config.NumberColumn("Graphs/s", format="localized",
                                                       help="graphs of the run / its time"),
    "speedup_steady": st.column_config.NumberColumn("Speed-up, steady", format="%.2fx", help="over your batching"),
    "speedup_run": st.column_config.NumberColumn("Speed-up, run", format="%.2fx", help="over your batching"),
    "wait_share": percent_column("Waiting", help="device time spent waiting for the step's largest batch"),
    "extrapolated": st.column_config.CheckboxColumn("Extrapolated", help="a shape larger than any timed"),
}


def _capture_columns() -> dict[str, Any]:
    """:data:`COLUMNS` of a cudagraph estimate: its one-off costs are CUDA graph captures,
    and the share of steps that are not captured (PyG's DataLoader runs eagerly)."""
    words = {"steady_epoch_s": ("Steady epoch (s)", "every shape captured"),
             "first_epoch_s": ("First epoch (s)", "with its captures"), "run_s": ("Whole run (s)", "every capture once")}
    columns: dict[str, Any] = {}
    for name, config in COLUMNS.items():
        if name in words:
            columns[name] = st.column_config.NumberColumn(words[name][0], help=words[name][1], **_SECONDS)
        elif name == "run_band":
            columns[name] = st.column_config.TextColumn(
                "Whole run, band (s)", alignment="right", help="error band: each step within the cost model's held-out "
                "error, each capture between the fastest and the slowest measured; none where a shape is larger than "
                "any timed")
        elif name == "compile_seconds":
            columns["capture_seconds"] = st.column_config.NumberColumn("CUDA graph captures in the run (s)", **_SECONDS)
            columns["captures"] = st.column_config.NumberColumn("Captures", format="localized",
                                                                help="one per distinct padded shape and device")
            columns["eager_step_share"] = percent_column(
                "Not captured", help="steps priced eager: PyG's DataLoader gives every batch its own shape, which a "
                                     "captured step cannot replay")
        elif name != "compilations":
            columns[name] = config
    return columns


#: The columns of a cudagraph estimate (:func:`_capture_columns`).
CAPTURE_COLUMNS = _capture_columns()

#: The columns of the estimate shown first (the rest below, under "More columns").
MAIN_COLUMNS = ["strategy", "steps_per_epoch", "step_ms", "steady_epoch_s", "run_s", "speedup_steady", "speedup_run"]
#: The wall-time columns, shown first when the page shows wall time (the model's below).
WALL_COLUMNS = {
    "wall_steady_epoch_s": st.column_config.NumberColumn("Wall, steady epoch (s)", help="model step and loading",
                                                         **_SECONDS),
    "wall_run_s": st.column_config.NumberColumn("Wall, whole run (s)", help="model step, loading and one-off costs",
                                                **_SECONDS),
    "wall_run_band": st.column_config.TextColumn("Wall, whole run, band (s)", alignment="right",
                                                 help="the model's band and the loaders' held-out error together"),
    "wall_speedup_steady": st.column_config.NumberColumn("Wall speed-up, steady", format="%.2fx",
                                                         help="over your batching, in wall time"),
    "wall_speedup_run": st.column_config.NumberColumn("Wall speed-up, run", format="%.2fx",
                                                      help="over your batching, in wall time"),
    "bound_by": st.column_config.TextColumn("Bound by", help="which of the two sets a steady epoch's pace: the "
                                                             "loader (shared by its workers) or the model step"),
    "loader_share": percent_column("Not in the model", help="share of the wall time the step waits for batches"),
    "loader_epoch_s": st.column_config.NumberColumn("Loading per epoch (s)", help="every worker's loading, summed",
                                                    **_SECONDS),
}
WALL_MAIN = ["strategy", "wall_steady_epoch_s", "wall_run_s", "wall_speedup_steady", "wall_speedup_run", "bound_by",
             "loader_share"]


def _bands(table: Any, low: str, high: str) -> list[str]:
    """A band column in words; none where a shape is larger than any timed (no band holds
    there, as the chart and the note say)."""
    return [EXTRAPOLATED_BAND if out else f"{three_digits(lo)} to {three_digits(hi)}" if math.isfinite(lo) else ""
            for lo, hi, out in zip(table[low], table[high], table["extrapolated"])]


def option_label(key: str, cal: Calibration, team: frozenset[str], this: MachineCalibration) -> str:
    """How calibration ``key`` is listed (``team``: the names from the team's folder;
    ``this``: whether this machine's was measured here or is a shipped one checked here)."""
    if key == THIS_MACHINE:
        return f"this machine ({'measured here' if this.measured else 'shipped for this CPU, checked here'}): {cal.label}"
    if key.startswith(SESSION):
        return key[len(SESSION):]
    return f"{'team folder' if key in team else 'shipped'}: {cal.label}"


def add_calibration(label: str, calibration: Calibration) -> None:
    st.session_state.setdefault(SESSION_CALIBRATIONS, {})[SESSION + label] = calibration
    state.throughput_settings()["calibration"] = SESSION + label


def _save_calibration(key: str) -> None:
    """Choose calibration ``key`` (the recommendation is then priced on it)."""
    state.throughput_settings()["calibration"] = key


def _save(name: str, key: str) -> None:
    state.throughput_settings()[name] = st.session_state[key]


def time_controls(cal: Calibration) -> bool:
    """The loader workers and the one-click choice of model time only; whether the page
    shows wall time (never for a calibration without loader timings: an info line says so)."""
    untimed = cal.loaders is None
    left, right = st.columns([1, 3])
    left.number_input("Loader workers", min_value=0, max_value=MAX_WORKERS, value=loader_workers(), step=1,
                      key="tp_workers", on_change=_save, args=("workers", "tp_workers"), disabled=untimed,
                      help="DataLoader(num_workers=...): 0 builds every batch in the training process; with workers "
                           "the loading overlaps the model step.")
    right.toggle("Model time only", value=model_time_only(), key="tp_model_only", on_change=_save,
                 args=("model_only", "tp_model_only"), disabled=untimed,
                 help="Forward, backward and optimizer step alone: loading and collating batches left out.")
    if untimed:
        st.info(MODEL_TIME_ONLY, icon=":material/info:")
        return False
    return not model_time_only()


def controls(options: dict[str, Calibration], team: frozenset[str],
             this: MachineCalibration) -> tuple[str, Calibration, str]:
    """The calibration and the current batching select boxes (``team``: the names from the
    team's folder, ``this``: this machine's calibration); the calibration's id, the
    calibration and the baseline."""
    saved = state.throughput_settings()
    chosen = chosen_key(options)
    left, right = st.columns([3, 1.4])
    left.selectbox("Calibration", list(options), format_func=lambda key: option_label(key, options[key], team, this),
                   on_change=_save, args=("calibration", "tp_calibration"),
                   **mirrored_choice("tp_calibration", list(options), chosen),
                   help="Step times of a real PyG model measured on one device; every number on this page comes "
                        "from it.")
    right.selectbox("Your current batching", list(ROWS), format_func=throughput_figures.label, on_change=_save,
                    args=("baseline", "tp_baseline"), **mirrored_choice("tp_baseline", list(ROWS), saved["baseline"]),
                    help="The speed-ups compare every strategy with this one.")
    return chosen, options[chosen], saved["baseline"]


def describe(cal: Calibration) -> None:
    """Where the numbers come from: device, versions, model, mode, date, fit and its error."""
    info, versions, model = cal.device_info, cal.versions, cal.model_info
    threads = f", {info['threads']} torch threads" if info.get("type") == "cpu" else ""
    held_out = cal.fit.held_out
    st.markdown(
        f"**Device:** {md_text(cal.device_name)} ({md_text(info.get('type', '?'))}{threads}). **Measured** "
        f"{md_text(cal.created)} with torch {md_text(versions.get('torch'))}, PyG {md_text(versions.get('torch_geometric'))}, "
        f"CUDA {md_text(versions.get('cuda') or 'none')}.  \n"
        f"**Model:** {md_text(cal.model)}, hidden {cal.hidden}, {cal.layers} layers ({model.get('parameters', 0):,} "
        f"parameters), forward + backward + Adam, {cal.mode}. **Timed** at {len(cal.timings)} padded shapes up to "
        f"{BatchShape(*cal.shape_range)}.  \n"
        f"**Cost model** ({cal.fit.form}): `{cal.fit.describe()}`; error on held-out shapes: median "
        f"{held_out['median']:.1%}, 90th percentile {held_out['p90']:.1%} (the error bars).")
    if cal.capture is not None:
        cost = cal.capture
        st.caption(f"CUDA graph (data_loaders.CapturedStep): the step is captured once per padded shape and replayed; "
                   f"a capture (warm-up steps, capture, first replay) took {cost['seconds']:.3g} s (quartiles "
                   f"{cost['p25']:.3g}-{cost['p75']:.3g} s), the error bars take each one anywhere from "
                   f"{cost['low']:.3g} to {cost['high']:.3g} s. Steps that are not captured (PyG's DataLoader) are "
                   "priced by the eager steps timed at the same shapes.")
    if cal.compile is not None:
        cost = cal.compile
        fastest, slowest = cal.compile_band
        st.caption(f"torch.compile (dynamic=False): a process's first compilation {cost['first_seconds']:.3g} s "
                   f"({cal.cold_words}), later ones {cost['seconds']:.3g} s (warm: quartiles "
                   f"{cost['p25']:.3g}-{cost['p75']:.3g} s); after {cost['recompile_limit']} shapes new ones run "
                   "eagerly. A compilation costs more or less with what the process compiled before, so the error "
                   f"bars take each one anywhere from {fastest:.3g} to {slowest:.3g} s.")


def upload_calibration() -> None:
    """Take a calibration file from the user's own machine (checked before it is listed)."""
    upload = st.file_uploader("Upload a calibration JSON (python -m throughput calibrate ... --out file.json)",
                              type=["json"], key="tp_upload")
    session = st.session_state.setdefault(SESSION_CALIBRATIONS, {})
    if upload is None or any(key.startswith(f"{SESSION}uploaded {upload.name}:") for key in session):
        return
    try:
        cal = load_calibration(upload.getvalue())
    except ValueError as error:
        show_error(error, f"{upload.name} is not a usable calibration")
        return
    add_calibration(f"uploaded {upload.name}: {cal.label}", cal)
    st.rerun()


def calibrate_here() -> None:
    """Measure a calibration on this machine's CPU now, with a progress bar."""
    session = st.session_state.setdefault(SESSION_CALIBRATIONS, {})
    measured = [label for label in session if measured_here(label)]
    # open once a calibration was measured here: its download button is inside
    with st.expander("Calibrate this machine now", icon=":material/speed:", expanded=bool(measured)):
        columns = st.columns([2, 1, 1, 1])
        grid = columns[0].selectbox("Shapes", list(GRIDS), key="tp_grid")
        model = columns[1].selectbox("Model", ["gin", "schnet"], key="tp_model")
        hidden = columns[2].number_input("Hidden", min_value=1, max_value=1024, value=64, key="tp_hidden")
        layers = columns[3].number_input("Layers", min_value=1, max_value=16, value=3, key="tp_layers")
        st.caption("Times forward + backward + Adam step of the model at each shape on this machine's CPU. Other "
                   "work on the machine slows the steps down: calibrate when it is quiet.")
        if st.button("Calibrate this machine now", key="tp_calibrate", icon=":material/play_arrow:"):
            settings = GRIDS[grid]
            bar = st.progress(0.0, text="Starting...")

            def progress(done: int, total: int, shape: tuple[int, int, int]) -> None:
                words = "done" if done == total else f"shape {done + 1} of {total}: {BatchShape(*shape)}"
                bar.progress(done / total, text=words)

            cal = calibrate(model, int(hidden), int(layers), "cpu", settings["shapes"], budget=settings["budget"],
                            progress=progress)
            add_calibration(f"{MEASURED_NOW}: {cal.label}", cal)
            st.rerun()
        for label in measured:
            cal = session[label]
            st.download_button(f"Download {cal.filename}", json.dumps(cal.to_dict(), indent=1),
                               file_name=cal.filename, mime="application/json", key=f"tp_download_{label}",
                               on_click="ignore", icon=":material/download:")
        this = cache.machine_calibration()
        if this.measured:
            st.download_button(f"Download this machine's calibration ({this.calibration.filename})",
                               json.dumps(this.calibration.to_dict(), indent=1), file_name=this.calibration.filename,
                               mime="application/json", key="tp_download_machine", on_click="ignore",
                               icon=":material/download:")


def main() -> None:
    loaded = page_header(
        "Throughput",
        "Time per training step, per epoch and per training run of every batching strategy on a calibrated "
        "device: each simulated batch (Batching page) costs the step time the calibration measured for its padded "
        "shape and, in wall time (shown by default), the loading its loader timings measured; model time only "
        "(forward, backward, optimizer step) is one click away.")
    if loaded is None:
        return
    _, hist, _ = loaded
    this = machine()
    files = cache.calibration_options()
    for problem in [*files.problems, *([this.unchecked] if this.unchecked else [])]:
        st.warning(md_text(problem), icon=":material/warning:")
    options = calibrations(this.calibration, files.found)
    key, cal, baseline = controls(options, files.team, this)
    run = run_controls(seed=False)
    wall = time_controls(cal)
    row = packing_row(hist, run)
    chosen = state.choice()
    if chosen.is_recommended and chosen.recommended_for[1] != key:
        st.button(f"Recommend for this calibration ({md_text(cal.device_name)}, {cal.mode})", on_click=_save_calibration,
                  args=(key,), key="tp_recommend", icon=":material/auto_awesome:",
                  help="The packing row is the configuration with the least padding at this batch size. This searches "
                       "the limits and packs per step whose steady epoch is the shortest on this calibration instead "
                       "(in wall time with the packed loader and the loader workers below, or in model time where "
                       "the page shows it or the calibration timed no loaders); the sidebar's configuration follows "
                       "it.")
    with share_shown("Pricing every strategy with the calibration") as progress:
        table = wall_time(cache.throughput_table(hist, cal, run, baseline, row.request, progress), loader_workers())
    priced = st.session_state[SETTINGS] = pricing(key, cal, this)
    foreign, check_words = priced["foreign"], priced["check_words"]
    if foreign:
        st.warning(f"**These are the numbers of {md_text(cal.device_name)}** (measured {md_text(cal.created[:10])}), "
                   f"not of this machine. {md_text(check_words)}", icon=":material/warning:")
    st.plotly_chart(throughput_figures.epoch_figure(table, wall), key="tp_epoch_chart")
    if wall:
        st.info(wall_note(table), icon=":material/timer:")
    for one_off in one_off_notes(table, throughput_figures.label):
        st.info(one_off, icon=":material/timer:")
    extrapolated = extrapolation_note(table, throughput_figures.label)
    if extrapolated:
        st.warning(extrapolated, icon=":material/warning:")
    for note in (devices_note(table), short_run_note(table, throughput_figures.label)):
        if note:
            st.info(note, icon=":material/info:")
    shown = table.assign(strategy=[throughput_figures.label(s) for s in table["strategy"]],
                         steps_per_epoch=table["steps_per_epoch"].round(1),  # localized: 1,234.5, as the report
                         graphs_per_second=table["graphs_per_second"].round(),
                         **{name: table[name].map(lambda v: float(f"{v:.3g}")) for name in _TIME_COLUMNS},
                         run_band=_bands(table, "run_low", "run_high"),
                         wall_run_band=_bands(table, "wall_run_low", "wall_run_high"))
    captured = cal.mode == "cudagraph"
    columns = {**(WALL_COLUMNS if wall else {}), **(CAPTURE_COLUMNS if captured else COLUMNS)}
    one_off = "captures" if captured else "compilations"
    table_in_two(shown[list(columns)], WALL_MAIN if wall else MAIN_COLUMNS,
                 f"More columns: steps, model time, loading, bands, {one_off}" if wall else
                 f"More columns: first epoch, bands, {one_off}, waiting", column_config=columns,
                 column_order=["strategy", *WALL_MAIN[1:], *(c for c in columns if c not in WALL_MAIN)] if wall
                 else None)
    st.caption(f"{row.note} Run: {run_length_words(table.attrs['run'])} on "
               f"{run['devices']:,} device(s), batch size {run['batch_size']:,}. Error bars: the cost model's "
               "90th-percentile error on held-out shapes, as a factor (t / (1 + e) to t x (1 + e)). In compile mode "
               "every new padded shape of a device is one torch.compile compilation at the measured cost (its first "
               "at a fresh process's cost), paid once per run; in cudagraph mode one CUDA graph capture, and PyG's "
               "DataLoader, whose batches change shape, is priced eager.")
    if not foreign:  # the warning above said it
        st.caption(f"**Calibration check:** {md_text(check_words)}")
    st.subheader("Calibration")
    describe(cal)
    gpus = sorted({c.device_name for c in options.values() if c.device_info.get("type") == "cuda"})
    st.info((f"GPU calibrations to choose from: {md_text(', '.join(gpus))}. For another GPU: " if gpus else
             "No GPU calibration ships with the tool: we publish only numbers measured on a named device. ")
            + GPU_HOWTO, icon=":material/info:")
    upload_calibration()
    calibrate_here()


run_page(main)
