"""The controls of the simulated training run, shared by the Batching and Throughput pages:
batch size, run length (epochs or steps), data-parallel devices, packs per batch and seed.
They show and write ``state.run_settings()``, so a change on one page is the setting of
the other (and of the Export page and the link)."""
from __future__ import annotations

import streamlit as st

from pages import state
from pages.widgets import mirrored, mirrored_choice

#: Widget key -> run setting it edits.
_KEYS = {"run_batch_size": "batch_size", "run_devices": "devices", "run_seed": "seed",
         "run_packs_per_batch": "packs_per_batch"}


def _save(key: str) -> None:
    value = st.session_state[key]
    state.set_run_settings(**{_KEYS[key]: None if value is None else int(value)})


def _save_length() -> None:
    epochs, steps = state.run_length_options(state.run_settings())[st.session_state["run_length"]]
    state.set_run_settings(epochs=epochs, steps=steps)


def run_controls(seed: bool = True) -> dict:
    """Draw the run's controls in one row (``seed``: with the seed box); the run settings."""
    settings = state.run_settings()
    lengths = state.run_length_options(settings)
    columns = st.columns(5 if seed else 4)
    low, high = state.RUN_BOUNDS["batch_size"]
    columns[0].number_input("Batch size (graphs)", min_value=low, max_value=high, step=1, on_change=_save,
                            args=("run_batch_size",), **mirrored("run_batch_size", settings["batch_size"]),
                            help="Graphs per batch of the batching you compare with; static batches take batch "
                                 "size - 1 real graphs (one slot is the padding graph).")
    columns[1].selectbox("Training run", list(lengths), on_change=_save_length,
                         **mirrored_choice("run_length", list(lengths), state.run_length_label(settings)),
                         help="Epochs (each a fresh random order of the graphs) or optimizer steps. Compilations "
                              "are paid once per run, so the run's length decides what they cost per epoch; "
                              "2,000,000 steps is the run of Speckhard et al.")
    low, high = state.RUN_BOUNDS["devices"]
    columns[2].number_input("Data-parallel devices", min_value=low, max_value=high, step=1, on_change=_save,
                            args=("run_devices",), **mirrored("run_devices", settings["devices"]),
                            help="Each step takes one batch per device and waits for the slowest.")
    low, high = state.RUN_BOUNDS["packs_per_batch"]
    columns[3].number_input("Packs per batch", min_value=low, max_value=high, step=1, on_change=_save,
                            args=("run_packs_per_batch",), placeholder="≈ batch size",
                            **mirrored("run_packs_per_batch", settings["packs_per_batch"]),
                            help="Packs of the chosen limits in one batch. Empty: as many as carry about batch "
                                 "size graphs, so packing takes about as many steps as the others.")
    if seed:
        low, high = state.RUN_BOUNDS["seed"]
        columns[4].number_input("Seed", min_value=low, max_value=high, step=1, on_change=_save, args=("run_seed",),
                                **mirrored("run_seed", settings["seed"]),
                                help="Seed of the epoch orders and of the dynamic target's 1,000-graph sample.")
    return dict(state.run_settings())
