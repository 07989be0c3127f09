"""Layout shared by every figure."""
LAYOUT = dict(margin=dict(l=60, r=20, t=50, b=50), template="plotly_white")
