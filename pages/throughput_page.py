"""Throughput page: time per step and per epoch, graphs per second and speed-up of every
batching strategy on a calibrated device (``throughput``). The calibration is one shipped
with the tool, a file uploaded from the user's own GPU machine, or one measured on this
machine now."""
from __future__ import annotations

import json

import streamlit as st

from pages import cache, throughput_figures
from pages.packing_row import packing_row
from pages.widgets import current_dataset, mirrored, mirrored_choice, run_page, show_error
from throughput import ROWS, Calibration, calibrate, default_calibration, load_calibration, shipped_calibrations
from throughput.shapes import default_shapes

#: Plain session key owned by no widget: the estimate shown last, as the keyword arguments of
#: ``throughput.estimate`` (calibration, batch_size, devices, seed, baseline), for the Export page.
SETTINGS = "throughput"
#: Calibrations of this session (uploaded or measured now), by the label they are listed under.
SESSION_CALIBRATIONS = "tp_calibrations"
CHOICE = "tp_choice"  # label of the chosen calibration
GRIDS = {
    "quick: 8 shapes up to 4,096 nodes (about 15 s)": {"count": 8, "max_nodes": 4096, "max_edges": 32_768,
                                                        "max_graphs": 256, "budget": 0.3},
    "standard: 24 shapes up to 32,768 nodes (about a minute)": {"count": 24, "budget": 1.0},
}
GPU_HOWTO = (
    "On your GPU machine, in this project, run `python -m throughput calibrate --model gin --device cuda --out "
    "my_gpu.json` (about a minute; `--mode compile` also prices torch.compile) and upload `my_gpu.json` here.")
COLUMNS = {
    "strategy": st.column_config.TextColumn("Strategy"),
    "steps_per_epoch": st.column_config.NumberColumn("Steps per epoch", format="%.1f"),
    "step_ms": st.column_config.NumberColumn("Step (ms)", format="%.2f", help="mean model step, compilations aside"),
    "epoch_seconds": st.column_config.NumberColumn("Epoch (s)", format="%.3g"),
    "epoch_low": st.column_config.NumberColumn("Epoch, low (s)", format="%.3g", help="error band of the cost model"),
    "epoch_high": st.column_config.NumberColumn("Epoch, high (s)", format="%.3g"),
    "compile_seconds_per_epoch": st.column_config.NumberColumn("Compilation (s per epoch)", format="%.3g"),
    "graphs_per_second": st.column_config.NumberColumn("Graphs/s", format="%.0f"),
    "speedup": st.column_config.NumberColumn("Speed-up", format="%.2fx", help="over your current batching"),
    "wait_share": st.column_config.NumberColumn("Waiting", format="percent",
                                                help="device time spent waiting for the step's largest batch"),
    "extrapolated": st.column_config.CheckboxColumn("Extrapolated", help="a shape larger than any timed"),
}


@st.cache_data(show_spinner=False)
def shipped() -> dict[str, Calibration]:
    """The shipped calibrations, by label, this machine's CPU first."""
    first = default_calibration()
    paths = [first, *(path for path in shipped_calibrations() if path != first)]
    return {f"shipped: {cal.label}": cal for cal in map(load_calibration, paths)}


def calibrations() -> dict[str, Calibration]:
    """Every calibration the user can choose: shipped, then this session's."""
    return {**shipped(), **st.session_state.setdefault(SESSION_CALIBRATIONS, {})}


def add_calibration(label: str, calibration: Calibration) -> None:
    st.session_state.setdefault(SESSION_CALIBRATIONS, {})[label] = calibration
    st.session_state[CHOICE] = label


def choose_calibration(column) -> Calibration:
    """The calibration select box in ``column``; the chosen calibration."""
    options = calibrations()
    chosen = st.session_state.get(CHOICE)
    if chosen not in options:
        chosen = next(iter(options))
    column.selectbox("Calibration", list(options), on_change=lambda: st.session_state.update(
        {CHOICE: st.session_state["tp_calibration"]}), **mirrored_choice("tp_calibration", list(options), chosen),
        help="Step times of a real PyG model measured on one device; every number on this page comes from it.")
    return options[chosen]


def upload_calibration() -> None:
    """Take a calibration file from the user's own machine (checked before it is listed)."""
    upload = st.file_uploader("Upload a calibration JSON (python -m throughput calibrate ... --out file.json)",
                              type=["json"], key="tp_upload")
    if upload is None or any(label.startswith(f"uploaded {upload.name}:") for label in calibrations()):
        return
    try:
        cal = load_calibration(upload.getvalue())
    except ValueError as error:
        show_error(error, f"{upload.name} is not a usable calibration")
        return
    add_calibration(f"uploaded {upload.name}: {cal.label}", cal)
    st.rerun()


def describe(cal: Calibration) -> None:
    """Where the numbers come from: device, versions, model, mode, date, fit and its error."""
    info, versions, model = cal.device_info, cal.versions, cal.model_info
    threads = f", {info['threads']} torch threads" if info.get("type") == "cpu" else ""
    held_out = cal.fit.held_out
    nodes, edges, graphs = cal.shape_range
    st.markdown(
        f"**Device:** {cal.device_name} ({info.get('type', '?')}{threads}). **Measured** {cal.created} with torch "
        f"{versions.get('torch')}, PyG {versions.get('torch_geometric')}, CUDA {versions.get('cuda') or 'none'}.  \n"
        f"**Model:** {cal.model}, hidden {cal.hidden}, {cal.layers} layers ({model.get('parameters', 0):,} "
        f"parameters), forward + backward + Adam, {cal.mode}. **Timed** at {len(cal.timings)} padded shapes up to "
        f"{nodes:,} nodes, {edges:,} edges, {graphs:,} graphs.  \n"
        f"**Cost model** ({cal.fit.form}): `{cal.fit.describe()}`; error on held-out shapes: median "
        f"{held_out['median']:.1%}, 90th percentile {held_out['p90']:.1%} (the error bars).")
    if cal.compile is not None:
        st.caption(f"torch.compile (dynamic=False): {cal.compile['seconds']:.3g} s per new shape (the first of a "
                   f"process {cal.compile['first_seconds']:.3g} s); after {cal.compile['recompile_limit']} shapes "
                   "new ones run eagerly.")


def controls() -> tuple[Calibration, dict]:
    """The calibration, batch size, devices and current batching (defaults from the Batching
    page); the calibration and the other settings."""
    batching = st.session_state.get("batching") or {}
    saved = st.session_state.setdefault(SETTINGS + "_controls", {
        "batch_size": int(batching.get("batch_size", 32)), "devices": int(batching.get("devices", 1)),
        "baseline": "pyg_dataloader"})

    def save(name: str, key: str) -> None:
        saved[name] = st.session_state[key]

    columns = st.columns([3, 1, 1, 1.4])
    cal = choose_calibration(columns[0])
    columns[1].number_input("Batch size (graphs)", min_value=2, max_value=4096, step=1, on_change=save,
                            args=("batch_size", "tp_batch_size"), **mirrored("tp_batch_size", saved["batch_size"]))
    columns[2].number_input("Devices", min_value=1, max_value=64, step=1, on_change=save,
                            args=("devices", "tp_devices"), **mirrored("tp_devices", saved["devices"]),
                            help="Data-parallel devices: a step waits for the slowest of its device batches.")
    columns[3].selectbox("Your current batching", list(ROWS), format_func=throughput_figures.label, on_change=save,
                         args=("baseline", "tp_baseline"), **mirrored_choice("tp_baseline", list(ROWS),
                                                                               saved["baseline"]),
                         help="The speed-up compares every strategy with this one.")
    return cal, {"batch_size": int(saved["batch_size"]), "devices": int(saved["devices"]),
                 "baseline": saved["baseline"], "seed": int(batching.get("seed", 0))}


def calibrate_here() -> None:
    """Measure a calibration on this machine's CPU now, with a progress bar."""
    with st.expander("Calibrate this machine now", icon=":material/speed:"):
        columns = st.columns([2, 1, 1, 1])
        grid = columns[0].selectbox("Shapes", list(GRIDS), key="tp_grid")
        model = columns[1].selectbox("Model", ["gin", "schnet"], key="tp_model")
        hidden = columns[2].number_input("Hidden", min_value=1, max_value=1024, value=64, key="tp_hidden")
        layers = columns[3].number_input("Layers", min_value=1, max_value=16, value=3, key="tp_layers")
        st.caption("Times forward + backward + Adam step of the model at each shape on this machine's CPU. Other "
                   "work on the machine slows the steps down: calibrate when it is quiet.")
        if st.button("Calibrate this machine now", key="tp_calibrate", icon=":material/play_arrow:"):
            settings = GRIDS[grid]
            shapes = default_shapes(settings["count"], **{k: v for k, v in settings.items()
                                                           if k.startswith("max_")})
            bar = st.progress(0.0, text="Starting...")

            def progress(done: int, total: int, shape: tuple[int, int, int]) -> None:
                words = "done" if done == total else f"shape {done + 1} of {total}: {shape[0]:,} nodes, " \
                                                     f"{shape[1]:,} edges, {shape[2]:,} graphs"
                bar.progress(done / total, text=words)

            cal = calibrate(model, int(hidden), int(layers), "cpu", shapes, budget=settings["budget"],
                            progress=progress)
            add_calibration(f"measured now: {cal.label}", cal)
            st.rerun()
        measured = {label: cal for label, cal in calibrations().items() if label.startswith("measured now")}
        for label, cal in measured.items():
            st.download_button(f"Download {cal.filename}", json.dumps(cal.to_dict(), indent=1),
                               file_name=cal.filename, mime="application/json", key=f"tp_download_{label}",
                               on_click="ignore", icon=":material/download:")


def main() -> None:
    st.title("Throughput")
    loaded = current_dataset()
    if loaded is None:
        return
    selection, hist, _ = loaded
    st.caption(
        f"Dataset: {selection.label}: {hist.num_graphs:,} graphs. Time per training step and per epoch of every "
        "batching strategy on a calibrated device: each simulated batch (Batching page) costs the step time the "
        "calibration measured for its padded shape. Model time only (forward, backward, optimizer step); loading "
        "and collating batches is not included.")
    cal, settings = controls()
    row = packing_row(hist, settings["batch_size"])
    table = cache.throughput_table(hist, cal, settings, row.request)
    st.session_state[SETTINGS] = {"calibration": cal, **settings}
    st.plotly_chart(throughput_figures.epoch_figure(table), key="tp_epoch_chart")
    if table["extrapolated"].any():
        st.warning("Some padded shapes are larger than any the calibration timed, so their time is extrapolated; "
                   "calibrate with larger shapes (python -m throughput calibrate --max-nodes ... --max-edges ...).",
                   icon=":material/warning:")
    shown = table.assign(strategy=[throughput_figures.label(s) for s in table["strategy"]])
    st.dataframe(shown[list(COLUMNS)], hide_index=True, width="stretch", column_config=COLUMNS)
    st.caption(f"{row.note} One epoch simulated; error bars: the cost model's 90th-percentile error on "
               "held-out shapes. In compile mode every new padded shape is priced as a torch.compile compilation "
               "(the measured cost), spread over the epoch.")
    st.subheader("Calibration")
    describe(cal)
    gpus = sorted({c.device_name for c in calibrations().values() if c.device_info.get("type") == "cuda"})
    st.info((f"GPU calibrations shipped: {', '.join(gpus)}. For another GPU: " if gpus else
             "No GPU calibration ships with the tool: we publish only numbers measured on a named device. ")
            + GPU_HOWTO, icon=":material/info:")
    upload_calibration()
    calibrate_here()


run_page(main)
