"""Calibrations for tests: a small GIN timed on this CPU now, and the same calibration as a
slower machine would have measured it."""
from __future__ import annotations

import dataclasses
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from throughput import Calibration, calibrate
from throughput.calibration import CALIBRATIONS_ENV
from throughput.shapes import default_shapes

#: Eight shapes up to 2,048 nodes: a GIN (hidden 64, 3 layers) step takes 1-10 ms on this CPU.
SHAPES = default_shapes(8, max_nodes=2048, max_edges=16_384, max_graphs=64)


def calibrated_now(budget: float = 0.3) -> Calibration:
    """GIN (hidden 64, 3 layers, eager, 1 thread) calibrated on this CPU now."""
    return calibrate("gin", 64, 3, "cpu", SHAPES, budget=budget, threads=1, loaders=False)


def scaled(calibration: Calibration, factors: float | Sequence[float]) -> Calibration:
    """The same calibration with its step times multiplied by ``factors``: one number for
    every shape (a slower machine's), or one per shape (a machine whose load changed)."""
    each = [factors] * len(calibration.timings) if isinstance(factors, (int, float)) else list(factors)
    timings = [dataclasses.replace(t, median=t.median * f, p25=t.p25 * f, p75=t.p75 * f, fastest=t.fastest * f)
               for t, f in zip(calibration.timings, each, strict=True)]
    return Calibration.from_timings(
        calibration.model, calibration.hidden, calibration.layers, calibration.device, calibration.mode, timings,
        device_info=calibration.device_info, versions=calibration.versions, model_info=calibration.model_info,
        timing=calibration.timing, created=calibration.created)


def past_band(band: float) -> float:
    """How much slower a calibration must be to fail a check of this ``band``: 3x, or twice
    the band where this machine's noise widened it."""
    return max(3.0, 2 * (1 + band))


@contextmanager
def throughput_page_of_a_fresh_server(team_folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AppTest]:
    """The dashboard opened on the Throughput page as by a fresh server process (nothing
    checked yet: Streamlit's caches cleared before and after) whose team folder of
    calibrations is ``team_folder``."""
    monkeypatch.setenv(CALIBRATIONS_ENV, str(team_folder))
    st.cache_resource.clear()
    st.cache_data.clear()
    try:
        at = AppTest.from_file("../app.py", default_timeout=180)
        at.run()
        at.switch_page("pages/throughput_page.py").run()
        assert not at.exception, [e.value for e in at.exception]
        yield at
    finally:
        st.cache_resource.clear()
        st.cache_data.clear()
