"""The two sides of a size tuple, named once: the side a 1D baseline leaves unlimited, a
histogram's marginal, the limit that closes a pack.

>>> NODES, EDGES, SIDES
('nodes', 'edges', ('nodes', 'edges'))
"""
NODES = "nodes"
EDGES = "edges"
SIDES: tuple[str, str] = (NODES, EDGES)
