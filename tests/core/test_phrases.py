"""Phrase extraction (SPEC §4): the paper's example and brute force over every box."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alignment_core import phrases
from alignment_core.phrases import (
    PhrasePair,
    atomic_phrases,
    composite_phrases,
    consistent_phrases,
    is_consistent,
    is_identical,
    non_identical,
)

SRC = ["and", "reached", "an", "agreement"]
TGT = ["and", "arrived", "at", "a", "deal"]
LINKS = {(0, 0), (1, 1), (1, 2), (3, 4)}  # and–and, reached–arrived, reached–at, agreement–deal


def box(src_words: str, tgt_words: str) -> PhrasePair:
    """The box spanning the given contiguous words of SRC / TGT."""
    s, t = src_words.split(), tgt_words.split()
    i1 = next(i for i in range(len(SRC)) if SRC[i : i + len(s)] == s)
    j1 = next(j for j in range(len(TGT)) if TGT[j : j + len(t)] == t)
    return PhrasePair(i1, i1 + len(s) - 1, j1, j1 + len(t) - 1)


# -- brute force: the definitions read literally, over every box ----------------------------


def brute_consistent(links: set, n: int, m: int) -> set:
    out = set()
    for i1 in range(n):
        for i2 in range(i1, n):
            for j1 in range(m):
                for j2 in range(j1, m):
                    if brute_is_consistent(links, (i1, i2, j1, j2)):
                        out.add((i1, i2, j1, j2))
    return out


def brute_is_consistent(links: set, b: tuple) -> bool:
    i1, i2, j1, j2 = b
    inside = [(i, j) for i, j in links if i1 <= i <= i2 and j1 <= j <= j2]
    if not inside:
        return False  # (a) at least one link
    for i, j in links:  # (b) no link leaves the box
        if (i1 <= i <= i2) != (j1 <= j <= j2):
            return False
    src_aligned = {i for i, _ in links}
    tgt_aligned = {j for _, j in links}
    # (c) the four boundary words are aligned
    return {i1, i2} <= src_aligned and {j1, j2} <= tgt_aligned


def brute_atomic(links: set, n: int, m: int) -> set:
    cons = brute_consistent(links, n, m)

    def strictly_inside(a: tuple, b: tuple) -> bool:
        return a != b and b[0] <= a[0] and a[1] <= b[1] and b[2] <= a[2] and a[3] <= b[3]

    return {b for b in cons if not any(strictly_inside(a, b) for a in cons)}


@st.composite
def grids(draw, max_n: int = 7, max_m: int = 7):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(1, max_m))
    density = draw(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.8, 1.0]))
    seed = draw(st.integers(0, 2**32 - 1))
    cells = np.random.default_rng(seed).random((n, m)) < density
    return {(int(i), int(j)) for i, j in zip(*np.nonzero(cells), strict=True)}, n, m


# -- the paper's worked example -------------------------------------------------------------


def test_paper_example_consistent_and_not() -> None:
    cons = set(consistent_phrases(LINKS, len(SRC), len(TGT)))
    assert box("and reached", "and arrived at") in cons
    assert box("and reached", "and arrived") not in cons  # reached–at leaves the box
    assert box("and reached an", "and arrived at") not in cons  # unaligned "an" on the boundary


def test_paper_example_atomic_and_composite() -> None:
    atoms = set(atomic_phrases(LINKS, len(SRC), len(TGT)))
    assert atoms == {box("and", "and"), box("reached", "arrived at"), box("agreement", "deal")}
    composite = set(composite_phrases(LINKS, len(SRC), len(TGT)))
    assert box("and reached", "and arrived at") in composite
    assert composite.isdisjoint(atoms)
    assert composite | atoms == set(consistent_phrases(LINKS, len(SRC), len(TGT)))


def test_paper_example_identity_filter() -> None:
    atoms = atomic_phrases(LINKS, len(SRC), len(TGT))
    assert set(non_identical(SRC, TGT, atoms)) == {
        box("reached", "arrived at"),
        box("agreement", "deal"),
    }


# -- against brute force --------------------------------------------------------------------


@settings(max_examples=3000, deadline=None)
@given(grids())
def test_consistent_matches_brute_force(grid) -> None:
    links, n, m = grid
    assert set(consistent_phrases(links, n, m)) == brute_consistent(links, n, m)


@settings(max_examples=3000, deadline=None)
@given(grids())
def test_atomic_matches_brute_force(grid) -> None:
    links, n, m = grid
    atoms = atomic_phrases(links, n, m)
    assert set(atoms) == brute_atomic(links, n, m)
    assert len(atoms) == len(set(atoms))


@settings(max_examples=500, deadline=None)
@given(grids(max_n=6, max_m=6), st.data())
def test_is_consistent_matches_brute_force(grid, data) -> None:
    links, n, m = grid
    i1 = data.draw(st.integers(0, n - 1))
    i2 = data.draw(st.integers(i1, n - 1))
    j1 = data.draw(st.integers(0, m - 1))
    j2 = data.draw(st.integers(j1, m - 1))
    b = PhrasePair(i1, i2, j1, j2)
    assert is_consistent(links, n, m, b) == brute_is_consistent(links, b)


@settings(max_examples=300, deadline=None)
@given(grids())
def test_plain_python_path_matches_compiled(grid) -> None:
    """The kernels' ``py_func`` (plain Python, the reference path) give the same boxes."""
    links, n, m = grid
    li = np.array([i for i, _ in sorted(links)], np.int32)
    lj = np.array([j for _, j in sorted(links)], np.int32)
    prof = phrases._profiles.py_func(li, lj, n, m)
    for name, compiled in (("rmin", 0), ("rmax", 1), ("cmin", 2), ("cmax", 3)):
        assert np.array_equal(prof[compiled], phrases._profiles(li, lj, n, m)[compiled]), name
    size = n * (n + 1) // 2
    out = [np.empty(size, np.int32) for _ in range(4)]
    k = phrases._scan_spans.py_func(*prof, False, *out)
    assert {tuple(int(a[t]) for a in out) for t in range(k)} == brute_consistent(links, n, m)
    out = [np.empty(n, np.int32) for _ in range(4)]
    k = phrases._atoms.py_func(*prof, *out)
    assert {tuple(int(a[t]) for a in out) for t in range(k)} == brute_atomic(links, n, m)


def test_no_length_limit_on_long_diagonal() -> None:
    n = 120
    links = {(i, i) for i in range(n)}
    assert len(consistent_phrases(links, n, n)) == n * (n + 1) // 2
    assert len(atomic_phrases(links, n, n)) == n


def test_full_block_has_one_phrase_pair() -> None:
    links = {(i, j) for i in range(4) for j in range(3)}
    assert consistent_phrases(links, 4, 3) == [PhrasePair(0, 3, 0, 2)]
    assert atomic_phrases(links, 4, 3) == [PhrasePair(0, 3, 0, 2)]


def test_empty_alignment_has_no_phrases() -> None:
    assert consistent_phrases(set(), 3, 4) == []
    assert atomic_phrases(set(), 3, 4) == []


def test_link_outside_grid_is_rejected() -> None:
    with pytest.raises(ValueError, match="outside"):
        consistent_phrases({(3, 0)}, 3, 4)


def test_identity_is_casefolded_text() -> None:
    src = ["New York", "City"]
    tgt = ["new", "york", "town"]
    assert is_identical(src, tgt, PhrasePair(0, 0, 0, 1))  # "new york" both sides
    assert not is_identical(src, tgt, PhrasePair(0, 1, 0, 2))
    assert is_identical(["The"], ["the"], PhrasePair(0, 0, 0, 0))
