"""Graph packing dashboard (entry point)."""
import streamlit as st

st.title("Graph packing dashboard")
st.write("Choose how to batch small graphs for GNN training: size histograms, tuple packing, limit sweeps.")
