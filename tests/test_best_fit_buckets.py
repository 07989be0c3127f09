"""Property tests: best fit's bucket search picks the group the numpy ranking puts first.

:class:`packing.greedy._OpenGroups` keeps best fit's open groups in buckets by remaining
nodes as well (once many are open); :meth:`fits_in_turn` must choose exactly what
:meth:`ranked_fits` (one query over all groups) chooses, ties included, after any mix of
groups joining and leaving, so every plan stays the same.
"""
from hypothesis import given, settings
from hypothesis import strategies as st

from packing.greedy import BEST_FIT, _OpenGroups
from packing.heuristics import HEURISTICS
from packing.limits import PackLimits

SETTINGS = settings(max_examples=150, deadline=None)
MAX_NODES = 24  # above BUCKET_VISITS, so that searches also run out of buckets and ask numpy

# best fit ranks groups by their room relative to the limits: edge limits below, near and
# far above the node limit put the tighter side on either side, with many ties
limits = st.integers(MAX_NODES // 2, 40 * MAX_NODES).map(lambda edges: PackLimits(MAX_NODES, edges))
states = st.tuples(st.integers(0, MAX_NODES), st.integers(0, 40), st.integers(0, 3))
# ("add", state, packs) opens packs in a group; ("take", which, packs) takes packs from the
# which-th open group (modulo the number open), as the greedy pass does.
steps = st.lists(st.one_of(st.tuples(st.just("add"), states, st.integers(1, 3)),
                           st.tuples(st.just("take"), st.integers(0, 1000), st.integers(1, 3))), max_size=60)
files_from = st.integers(0, 8)  # BUCKETS_FROM (1,024 in real runs; the node limit, 24, also counts)
queries = st.lists(st.tuples(st.integers(1, MAX_NODES), st.integers(0, 45)), min_size=1, max_size=8)


def _groups_after(pack_limits, history, buckets_from) -> _OpenGroups:
    groups = _OpenGroups(HEURISTICS["product"], BEST_FIT, pack_limits)
    groups.BUCKETS_FROM = buckets_from
    for node, (kind, what, packs) in enumerate(history):
        if kind == "add":
            groups.add(what, node, packs)
        elif groups.slot_of:
            slot = sorted(groups.slot_of.values())[what % len(groups.slot_of)]
            groups.take(slot, min(packs, groups.total[slot]))
    if groups.buckets is None:  # fewer groups than BUCKETS_FROM were ever open
        groups._file_groups()
    return groups


@SETTINGS
@given(limits, steps, files_from, queries)
def test_bucket_search_picks_the_first_ranked_group(pack_limits, history, buckets_from, asked):
    groups = _groups_after(pack_limits, history, buckets_from)
    for nodes, edges in asked:
        ranked = groups.ranked_fits(nodes, edges, True)
        assert next(groups.fits_in_turn(nodes, edges), -1) == (ranked[0] if ranked else -1)
        assert groups.could_fit(nodes, edges) == bool(ranked)


@SETTINGS
@given(limits, steps, files_from)
def test_least_and_most_edges_from_each_node_count_are_exact(pack_limits, history, buckets_from):
    groups = _groups_after(pack_limits, history, buckets_from)
    for nodes in range(MAX_NODES + 1):
        edges = [state[1] for state in groups.slot_of if state[0] >= nodes]
        assert groups.least_from[nodes] == (min(edges) if edges else groups.no_edges)
        assert groups.most_from[nodes] == (max(edges) if edges else -1)


@SETTINGS
@given(limits, steps, files_from, queries)
def test_groups_in_turn_follow_the_full_ranking(pack_limits, history, buckets_from, asked):
    nodes, edges = asked[0]
    groups = _groups_after(pack_limits, history, buckets_from)
    ranked = groups.ranked_fits(nodes, edges, False)
    in_turn = []
    for slot in groups.fits_in_turn(nodes, edges):
        in_turn.append(slot)
        groups.take(slot, groups.total[slot])  # used up, as the greedy pass uses a group
    assert in_turn == ranked


def test_equal_tightest_room_goes_to_fewer_remaining_nodes_across_buckets():
    # with 100 edges per pack, 10 edges left (10 %) is the tighter side of 5 and 3 nodes left
    groups = _OpenGroups(HEURISTICS["product"], BEST_FIT, PackLimits(MAX_NODES, 100))
    for node, state in enumerate([(5, 8, 0), (5, 10, 0), (3, 10, 1), (3, 10, 0)]):
        groups.add(state, node, 1)
    groups._file_groups()
    first = next(groups.fits_in_turn(1, 9))
    assert groups.state[first] == (3, 10, 0) == groups.state[groups.ranked_fits(1, 9, True)[0]]
