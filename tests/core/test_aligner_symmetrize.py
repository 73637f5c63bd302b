"""Symmetrisation heuristics against hand-worked examples (Koehn's grow-diag-final pseudo-code)."""

from __future__ import annotations

import pytest

from alignment_core.aligner.symmetrize import (
    METHODS,
    grow_diag,
    links_from_states,
    symmetrize,
)

# A 6×6 example worked by hand, chosen so that all five heuristics differ.
#   forward  (target j -> source i):  j0→0  j1→1  j2→2  j3→NULL  j4→3  j5→5
#   backward (source i -> target j):  i0→0  i1→1  i2→3  i3→0     i4→0  i5→NULL
FORWARD_STATES = [0, 1, 2, -1, 3, 5]
BACKWARD_STATES = [0, 1, 3, 0, 0, -1]
N = M = 6

INTERSECT = {(0, 0), (1, 1)}
# grow-diag, by hand: (1,1)'s neighbour (2,2) [source 2 free] -> (2,2)'s neighbour (2,3)
# [target 3 free] -> (2,3)'s diagonal (3,4) [source 3 free]. (5,5), (3,0), (4,0) touch no
# aligned cell, so growing stops there.
GROW_DIAG = INTERSECT | {(2, 2), (2, 3), (3, 4)}
# final: forward first: (5,5) has both words free -> in. Backward: (3,0) both words already
# aligned -> out; (4,0) source 4 free -> in.
GROW_DIAG_FINAL = GROW_DIAG | {(5, 5), (4, 0)}
# final-and: (5,5) both free -> in; (4,0) target 0 is aligned -> out.
GROW_DIAG_FINAL_AND = GROW_DIAG | {(5, 5)}
UNION = GROW_DIAG | {(5, 5), (3, 0), (4, 0)}


@pytest.fixture
def directional():
    return links_from_states(FORWARD_STATES, BACKWARD_STATES)


def test_links_from_states(directional):
    fwd, bwd = directional
    assert fwd == {(0, 0), (1, 1), (2, 2), (3, 4), (5, 5)}
    assert bwd == {(0, 0), (1, 1), (2, 3), (3, 0), (4, 0)}


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("intersect", INTERSECT),
        ("union", UNION),
        ("grow-diag", GROW_DIAG),
        ("grow-diag-final", GROW_DIAG_FINAL),
        ("grow-diag-final-and", GROW_DIAG_FINAL_AND),
    ],
)
def test_heuristics_hand_worked(directional, method, expected):
    fwd, bwd = directional
    assert symmetrize(fwd, bwd, N, M, method) == expected


def test_all_methods_are_distinct_here(directional):
    fwd, bwd = directional
    results = [frozenset(symmetrize(fwd, bwd, N, M, m)) for m in METHODS]
    assert len(set(results)) == len(METHODS)


def test_ordering_between_heuristics(directional):
    fwd, bwd = directional
    inter = symmetrize(fwd, bwd, N, M, "intersect")
    gd = symmetrize(fwd, bwd, N, M, "grow-diag")
    gdfa = symmetrize(fwd, bwd, N, M, "grow-diag-final-and")
    gdf = symmetrize(fwd, bwd, N, M, "grow-diag-final")
    union = symmetrize(fwd, bwd, N, M, "union")
    assert inter <= gd <= gdfa <= gdf <= union


def test_grow_diag_needs_a_free_word():
    # The union point (1,0) touches (0,0) but both its words are already aligned: not added.
    fwd = {(0, 0), (1, 1), (1, 0)}
    bwd = {(0, 0), (1, 1)}
    assert grow_diag(fwd, bwd, 2, 2) == {(0, 0), (1, 1)}


def test_grow_without_diagonal_neighbour_stops():
    # (2,2) is only diagonal to (1,1)... it is still a neighbour in grow-diag.
    fwd = {(0, 0), (1, 1), (2, 2)}
    bwd = {(0, 0), (1, 1)}
    assert grow_diag(fwd, bwd, 3, 3) == {(0, 0), (1, 1), (2, 2)}
    # ...but not when it is two cells away.
    fwd = {(0, 0), (2, 2)}
    bwd = {(0, 0)}
    assert grow_diag(fwd, bwd, 3, 3) == {(0, 0)}


def test_empty_inputs():
    for method in METHODS:
        assert symmetrize(set(), set(), 3, 4, method) == set()


def test_unknown_method():
    with pytest.raises(ValueError, match="unknown symmetrisation"):
        symmetrize(set(), set(), 1, 1, "grow")
