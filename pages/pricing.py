"""What the Throughput page prices with, for that page and the Export page alike: this
machine's calibration (checked, or measured here at first use), the calibrations to choose
from, the one chosen in the session's settings and its check on this machine. The Export
page prices with the same choice, so its file and report are the same whichever page a
link opened."""
from __future__ import annotations

from typing import Any

import streamlit as st

from packing import BatchShape
from pages import cache, state
from throughput import Calibration, CalibrationCheck, MachineCalibration
from throughput.check import noise_note

#: Calibration ids (this machine's, this session's) and where this session's are kept.
THIS_MACHINE, SESSION, SESSION_CALIBRATIONS = state.THIS_MACHINE, state.SESSION, state.SESSION_CALIBRATIONS
#: The most loader worker processes the Throughput page prices.
MAX_WORKERS = 64
#: The label of a calibration measured on the Throughput page (before its own label).
MEASURED_NOW = "measured now"


def loader_workers() -> int:
    """The loader worker processes the wall time is priced with (the Throughput page's
    choice, kept in the session's settings; 0 until chosen)."""
    return int(state.throughput_settings().get("workers", 0))


def model_time_only() -> bool:
    """Whether the Throughput page shows model time only (its one-click choice; wall time
    by default)."""
    return bool(state.throughput_settings().get("model_only", False))


def priced_workers() -> int | None:
    """The loader workers that recommendations and priced sweeps price a step with: the
    Throughput page's (the step's wall time with the packed loader, where the calibration
    timed its loaders), None while that page shows model time only (the model's step)."""
    return None if model_time_only() else loader_workers()


def machine() -> MachineCalibration:
    """This machine's calibration; the first time in this server process it is checked or
    measured here, with a progress bar."""
    if cache.machine_calibration_ready():
        return cache.machine_calibration()
    bar = st.progress(0.0, text="First use on this machine: checking the shipped calibration of this CPU...")

    def progress(done: int, total: int, shape: tuple[int, int, int]) -> None:
        bar.progress(done / total, text=f"First use: calibrating this machine, shape {min(done + 1, total)} of "
                                        f"{total} ({BatchShape(*shape)})")

    found = cache.machine_calibration(progress)
    bar.empty()
    return found


def calibrations(this: Calibration, from_files: dict[str, Calibration]) -> dict[str, Calibration]:
    """Every calibration the user can choose, by id: this machine's, those from files
    (:func:`pages.cache.calibration_options`) but the one this machine's already is (a
    shipped file that passed its check), then this session's."""
    files = {key: cal for key, cal in from_files.items() if not cal.same_measurement(this)}
    return {THIS_MACHINE: this, **files, **st.session_state.setdefault(SESSION_CALIBRATIONS, {})}


def measured_here(key: str) -> bool:
    """Whether calibration ``key`` was measured on this machine in this session."""
    return key.startswith(SESSION + MEASURED_NOW)


def check_of(key: str, cal: Calibration, this: MachineCalibration) -> tuple[CalibrationCheck | None, str]:
    """The check of the chosen calibration on this machine and the sentence shown for it."""
    if key == THIS_MACHINE:
        if this.measured:  # measured here now; the check in the reason was of the shipped one it replaced
            return None, f"Calibration of this machine: {this.reason}"
        return this.check, f"{this.check.describe()} {this.reason}"
    if measured_here(key):
        return None, f"Measured on this machine in this session ({cal.created[11:16]} UTC).{noise_note(cal)}"
    try:
        check = cache.calibration_check(cal)
    except ValueError as error:
        return None, f"Not checked on this machine: {error}"
    if check.within_band:
        return check, check.describe()
    return check, f"{check.describe()} This calibration does not hold on this machine."


def chosen_key(options: dict[str, Calibration]) -> str:
    """The id of the calibration chosen in the session's settings, this machine's when that
    one is not (or no longer) offered."""
    saved = state.throughput_settings()["calibration"]
    return saved if saved in options else THIS_MACHINE


def pricing(key: str, cal: Calibration, this: MachineCalibration) -> dict[str, Any]:
    """What an estimate with calibration ``key`` says of itself: the calibration, the
    session's baseline, its check on this machine and the sentence for it, and whether its
    numbers are another device's (``foreign``)."""
    check, check_words = check_of(key, cal, this)
    own = key == THIS_MACHINE or measured_here(key)
    return {"calibration": cal, "baseline": state.throughput_settings()["baseline"], "check": check,
            "check_words": check_words, "foreign": not own and (check is None or not check.within_band)}


def chosen_pricing() -> dict[str, Any]:
    """:func:`pricing` of the calibration chosen in the session's settings (the Throughput
    page's choice), for a page that shows no calibration box."""
    this = machine()
    options = calibrations(this.calibration, cache.calibration_options().found)
    key = chosen_key(options)
    return pricing(key, options[key], this)
