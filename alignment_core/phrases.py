"""Consistent and atomic phrase pairs of a word alignment (SPEC §4).

A phrase pair is a box ``[i1..i2] × [j1..j2]`` (0-based, both ends inclusive) over an alignment
L. It is *consistent* with L when (a) it holds at least one link, (b) no link leaves it and (c) the
four boundary words x_i1, x_i2, y_j1, y_j2 each have a link. A consistent pair is *atomic* when no
strictly smaller consistent pair lies inside it. No length limit.
A box is *compatible* with an alignment B (the sure columns of phrase agreement) when it is
consistent with some L with B_S ⊆ L ⊆ B_P: no sure link of B crosses its edge and each boundary
word has a link of B_P inside the box.

Two facts make extraction cheap (and are checked against brute force in the tests):

* a consistent box is fixed by its source span: its target span must be exactly the range of
  the targets linked to rows i1..i2 (a wider span would put an unaligned word or a link from
  outside on its boundary), so there are at most N(N+1)/2 consistent pairs;
* a consistent box lies inside another iff its source span does, so the atomic pairs are the
  inclusion-minimal consistent source spans: for each start i1 only the first consistent end can
  be atomic, and it is atomic iff every later start's first consistent end lies beyond it.

Alignments reach the kernels as *profiles*: for each source row the min/max linked target
(``m`` / ``-1`` when unaligned) and for each target column the min/max linked source (``n`` /
``-1``). The kernels are numba-compiled; each ``_kernel.py_func`` is the same code in plain
Python, which the tests run as the reference path.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np
from numba import njit, types

from alignment_core.alignment import Link

# Every kernel is compiled eagerly for ONE signature. Besides failing loudly on a wrong dtype, this
# keeps numba's on-disk cache to a single entry per function: processes that share the tree
# (parallel test runs, web workers) then never race to number different signatures.
I32 = types.int32[:]
I64 = types.int64[:]
U8 = types.uint8[:]
INT = types.int64
F64 = types.float64
BOOL = types.boolean


class PhrasePair(NamedTuple):
    """A box over the alignment grid: source tokens src_start..src_end, target tokens
    tgt_start..tgt_end (0-based, inclusive)."""

    src_start: int
    src_end: int
    tgt_start: int
    tgt_end: int


# -- kernels ----------------------------------------------------------------------------------


@njit((I32, I32, INT, INT), cache=True)
def _profiles(li, lj, n, m):
    """Row and column profiles of the links (li[k], lj[k]) in an n × m grid."""
    rmin = np.full(n, m, np.int32)
    rmax = np.full(n, -1, np.int32)
    cmin = np.full(m, n, np.int32)
    cmax = np.full(m, -1, np.int32)
    for k in range(li.size):
        i = li[k]
        j = lj[k]
        if j < rmin[i]:
            rmin[i] = j
        if j > rmax[i]:
            rmax[i] = j
        if i < cmin[j]:
            cmin[j] = i
        if i > cmax[j]:
            cmax[j] = i
    return rmin, rmax, cmin, cmax


@njit((I32, I32, I32, I32, BOOL, I32, I32, I32, I32), cache=True)
def _scan_spans(rmin, rmax, cmin, cmax, first_only, out_i1, out_i2, out_j1, out_j2):
    """Write the consistent boxes (by source start, then end) into the out arrays; return count.

    With ``first_only`` only the first consistent end of each start is written (the only
    candidates for atomic pairs). The out arrays need n(n+1)/2 slots (n with ``first_only``).
    """
    n = rmin.size
    count = 0
    for i1 in range(n):
        if rmax[i1] < 0:  # unaligned word on the boundary
            continue
        lo = 0
        hi = -1  # target span [lo, hi] of rows i1..i2; empty while hi < lo
        cm = n  # min / max source row linked to any column in [lo, hi]
        cx = -1
        for i2 in range(i1, n):
            if rmax[i2] < 0:
                continue
            if hi < lo:
                lo = rmin[i2]
                hi = rmax[i2]
                for j in range(lo, hi + 1):
                    cm = min(cm, cmin[j])
                    cx = max(cx, cmax[j])
            else:
                if rmin[i2] < lo:
                    for j in range(rmin[i2], lo):
                        cm = min(cm, cmin[j])
                        cx = max(cx, cmax[j])
                    lo = rmin[i2]
                if rmax[i2] > hi:
                    for j in range(hi + 1, rmax[i2] + 1):
                        cm = min(cm, cmin[j])
                        cx = max(cx, cmax[j])
                    hi = rmax[i2]
            if cm < i1:  # a link from above the span: no longer span can repair it
                break
            if cx <= i2:
                out_i1[count] = i1
                out_i2[count] = i2
                out_j1[count] = lo
                out_j2[count] = hi
                count += 1
                if first_only:
                    break
    return count


@njit((I32, I32, I32, I32, I32, I32, I32, I32), cache=True)
def _atoms(rmin, rmax, cmin, cmax, out_i1, out_i2, out_j1, out_j2):
    """Write the atomic boxes (sorted by source start) into the out arrays (n slots); return count."""
    n = rmin.size
    k = _scan_spans(rmin, rmax, cmin, cmax, True, out_i1, out_i2, out_j1, out_j2)
    # keep a first end only if every later start's first end lies beyond it
    keep = 0
    best = n
    flags = np.zeros(k, np.bool_)
    for t in range(k - 1, -1, -1):
        if out_i2[t] < best:
            flags[t] = True
            keep += 1
            best = out_i2[t]
    w = 0
    for t in range(k):
        if flags[t]:
            out_i1[w] = out_i1[t]
            out_i2[w] = out_i2[t]
            out_j1[w] = out_j1[t]
            out_j2[w] = out_j2[t]
            w += 1
    return keep


@njit((I32, I32, I32, I32, INT, INT, INT, INT), cache=True)
def _box_consistent(rmin, rmax, cmin, cmax, i1, i2, j1, j2):
    """True when the box [i1..i2] × [j1..j2] is consistent with the profiled alignment."""
    if rmax[i1] < 0 or rmax[i2] < 0 or cmax[j1] < 0 or cmax[j2] < 0:
        return False  # unaligned boundary word (this also guarantees at least one link)
    for i in range(i1, i2 + 1):
        if rmax[i] >= 0 and (rmin[i] < j1 or rmax[i] > j2):
            return False
    for j in range(j1, j2 + 1):  # noqa: SIM110 - plain loops compile in numba, all(genexpr) does not
        if cmax[j] >= 0 and (cmin[j] < i1 or cmax[j] > i2):
            return False
    return True


U8_GRID = types.uint8[:, ::1]


@njit((I32, I32, I32, I32, U8_GRID, INT, INT, INT, INT, INT), cache=True)
def _box_compatible(srmin, srmax, scmin, scmax, grid, mask, i1, i2, j1, j2):
    """True when the box [i1..i2] × [j1..j2] is compatible with an alignment B (SPEC §4): no SURE
    link of B crosses its edge, and each of the four boundary words has a link of B_P inside it.

    ``s*`` profile B_S; B_P is read from ``grid`` (cells whose ``mask`` bit is set), because a
    row's min/max link cannot tell whether it has a link *inside* the box.
    """
    for i in range(i1, i2 + 1):  # a sure link of a row inside leaves through a column outside
        if srmax[i] >= 0 and (srmin[i] < j1 or srmax[i] > j2):
            return False
    for j in range(j1, j2 + 1):
        if scmax[j] >= 0 and (scmin[j] < i1 or scmax[j] > i2):
            return False
    for i in (i1, i2):
        hit = False
        for j in range(j1, j2 + 1):
            if grid[i, j] & mask:
                hit = True
                break
        if not hit:
            return False
    for j in (j1, j2):
        hit = False
        for i in range(i1, i2 + 1):
            if grid[i, j] & mask:
                hit = True
                break
        if not hit:
            return False
    return True


@njit((I32, I32, INT, INT, I32, I32, INT, INT), cache=True)
def _same_text(sp, ss, i1, i2, tp, ts, j1, j2):
    """True when source tokens i1..i2 and target tokens j1..j2 have the same casefolded text.

    ``sp`` / ``tp`` are piece ids and ``ss`` / ``ts`` the offset of each token's pieces
    (length n + 1): see :func:`alignment_core.agreement.encoding.TokenEncoder`.
    """
    a = ss[i1]
    b = ts[j1]
    length = ss[i2 + 1] - a
    if ts[j2 + 1] - b != length:
        return False
    for k in range(length):  # noqa: SIM110 - as above
        if sp[a + k] != tp[b + k]:
            return False
    return True


# -- public API -------------------------------------------------------------------------------


def link_arrays(links: Iterable[Link], n_source: int, n_target: int) -> tuple[np.ndarray, ...]:
    """The links as two int32 arrays (sources, targets), checked against an n × m grid."""
    pairs = list(links)
    li = np.fromiter((i for i, _ in pairs), np.int32, len(pairs))
    lj = np.fromiter((j for _, j in pairs), np.int32, len(pairs))
    if pairs and (li.min() < 0 or lj.min() < 0 or li.max() >= n_source or lj.max() >= n_target):
        raise ValueError(f"a link lies outside the {n_source} × {n_target} grid")
    return li, lj


def _profile(links: Iterable[Link], n_source: int, n_target: int) -> tuple[np.ndarray, ...]:
    li, lj = link_arrays(links, n_source, n_target)
    return _profiles(li, lj, n_source, n_target)


def _boxes(i1: np.ndarray, i2: np.ndarray, j1: np.ndarray, j2: np.ndarray, k: int):
    return [
        PhrasePair(int(a), int(b), int(c), int(d))
        for a, b, c, d in zip(i1[:k], i2[:k], j1[:k], j2[:k], strict=True)
    ]


def consistent_phrases(links: Iterable[Link], n_source: int, n_target: int) -> list[PhrasePair]:
    """Every phrase pair consistent with ``links`` in an n_source × n_target grid (SPEC §4),
    sorted by source span."""
    prof = _profile(links, n_source, n_target)
    size = n_source * (n_source + 1) // 2
    out = [np.empty(size, np.int32) for _ in range(4)]
    k = _scan_spans(*prof, False, *out)
    return _boxes(*out, k)


def atomic_phrases(links: Iterable[Link], n_source: int, n_target: int) -> list[PhrasePair]:
    """The atomic phrase pairs of ``links``: consistent, with no strictly smaller consistent pair
    inside. They are sorted by source span and never overlap."""
    prof = _profile(links, n_source, n_target)
    out = [np.empty(n_source, np.int32) for _ in range(4)]
    k = _atoms(*prof, *out)
    return _boxes(*out, k)


def composite_phrases(links: Iterable[Link], n_source: int, n_target: int) -> list[PhrasePair]:
    """The consistent phrase pairs that are not atomic."""
    links = list(links)
    atoms = set(atomic_phrases(links, n_source, n_target))
    return [b for b in consistent_phrases(links, n_source, n_target) if b not in atoms]


def is_consistent(links: Iterable[Link], n_source: int, n_target: int, box: PhrasePair) -> bool:
    """True when ``box`` (0-based, inclusive) is a phrase pair consistent with ``links``."""
    i1, i2, j1, j2 = box
    if not (0 <= i1 <= i2 < n_source and 0 <= j1 <= j2 < n_target):
        raise ValueError(f"box {tuple(box)} is not inside the {n_source} × {n_target} grid")
    return bool(_box_consistent(*_profile(links, n_source, n_target), i1, i2, j1, j2))


def is_compatible(
    sure: Iterable[Link], all_links: Iterable[Link], n_source: int, n_target: int, box: PhrasePair
) -> bool:
    """True when ``box`` is compatible with the alignment B whose sure links are ``sure`` and
    whose links (sure and possible, B_P) are ``all_links`` (SPEC §4): it is consistent with SOME
    alignment L with B_S ⊆ L ⊆ B_P. Equivalently — the reading used here — no sure link crosses
    the box's edge (exactly one of its two indices inside) and each of the four boundary words
    has a link of B_P inside the box. Every box consistent with B_P is compatible."""
    i1, i2, j1, j2 = box
    if not (0 <= i1 <= i2 < n_source and 0 <= j1 <= j2 < n_target):
        raise ValueError(f"box {tuple(box)} is not inside the {n_source} × {n_target} grid")
    if any((i1 <= i <= i2) != (j1 <= j <= j2) for i, j in sure):
        return False
    inside = [(i, j) for i, j in all_links if i1 <= i <= i2 and j1 <= j <= j2]
    return {i1, i2} <= {i for i, _ in inside} and {j1, j2} <= {j for _, j in inside}


def phrase_text(tokens: Sequence[str], start: int, end: int) -> str:
    """The casefolded text of tokens start..end (inclusive), joined by single spaces."""
    return " ".join(tokens[start : end + 1]).casefold()


def is_identical(source: Sequence[str], target: Sequence[str], box: PhrasePair) -> bool:
    """True when the box's source and target phrases have the same casefolded text (SPEC §4);
    for one-word boxes this is the word-level test x_i.casefold() == y_j.casefold()."""
    i1, i2, j1, j2 = box
    return phrase_text(source, i1, i2) == phrase_text(target, j1, j2)


def non_identical(
    source: Sequence[str], target: Sequence[str], boxes: Iterable[PhrasePair]
) -> list[PhrasePair]:
    """The boxes whose source and target phrase texts differ (casefolded)."""
    return [b for b in boxes if not is_identical(source, target, b)]
