"""Word- and phrase-level counts of many (test, reference) pairs in one compiled pass.

:func:`count_pairs` packs every pair into flat arrays (``encoding``) and runs :func:`_count_kernel`
once; the result is one row of raw counts per pair (columns ``WORD_COLUMNS`` then
``PHRASE_COLUMNS``). Ratios are formed by ``word.py`` / ``phrase.py``. ``_count_kernel.py_func``
is the same computation in plain Python; the tests hold both against set-based brute force.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from numba import njit

from alignment_core.agreement.encoding import LinkPacker, TokenEncoder
from alignment_core.alignment import Alignment
from alignment_core.phrases import (
    BOOL,
    I32,
    I64,
    INT,
    U8_GRID,
    _atoms,
    _box_compatible,
    _box_consistent,
    _profiles,
    _same_text,
)

ScoreItem = tuple[Sequence[str], Sequence[str], Alignment, Alignment]
"""(source tokens, target tokens, test alignment A, reference alignment B)."""

WORD_COLUMNS = (
    "test_sure",  # |A_S|
    "test_links",  # |A_P|
    "ref_sure",  # |B_S|
    "ref_links",  # |B_P|
    "test_sure_matched",  # |A_S ∩ B_P|
    "ref_sure_matched",  # |A_P ∩ B_S|
    "links_matched",  # |A_P ∩ B_P|
)
PHRASE_COLUMNS = (
    "test_sure_atoms",  # |atom(A_S)|
    "test_sure_atoms_matched",  # |atom(A_S) ∩ compat(B)|
    "ref_sure_atoms",  # |atom(B_S)|
    "ref_sure_atoms_matched",  # |compat(A) ∩ atom(B_S)|
    "test_atoms",  # |atom(A_P)|
    "test_atoms_matched",  # |atom(A_P) ∩ cons(B_P)|
    "ref_atoms",  # |atom(B_P)|
    "ref_atoms_matched",  # |cons(A_P) ∩ atom(B_P)|
)
_NW = len(WORD_COLUMNS)


# atom profile (4), other profile (4), grid, mask, compat, text pieces (4), keep, out, col
_ATOM_HITS_SIG = (I32,) * 8 + (U8_GRID, INT, BOOL) + (I32,) * 4 + (BOOL, I64, INT)


@njit(_ATOM_HITS_SIG, cache=True)
def _atom_hits(
    rmin, rmax, cmin, cmax, ormin, ormax, ocmin, ocmax, grid, mask, compat, sp, ss, tp, ts, keep,
    out, col,
):  # fmt: skip
    """out[col] += atoms of the first profile kept by the identity filter; out[col+1] += those
    of them that match the other alignment: consistent with the other (``o*``) profile, or with
    ``compat`` compatible with it (``o*`` then profile its SURE links and its links are the
    ``mask`` bit of ``grid``)."""
    n = rmin.size
    i1 = np.empty(n, np.int32)
    i2 = np.empty(n, np.int32)
    j1 = np.empty(n, np.int32)
    j2 = np.empty(n, np.int32)
    k = _atoms(rmin, rmax, cmin, cmax, i1, i2, j1, j2)
    for t in range(k):
        if not keep and _same_text(sp, ss, i1[t], i2[t], tp, ts, j1[t], j2[t]):
            continue
        out[col] += 1
        if compat:
            hit = _box_compatible(
                ormin, ormax, ocmin, ocmax, grid, mask, i1[t], i2[t], j1[t], j2[t]
            )
        else:
            hit = _box_consistent(ormin, ormax, ocmin, ocmax, i1[t], i2[t], j1[t], j2[t])
        if hit:
            out[col + 1] += 1


@njit((INT, INT, INT, I32, I32, I64, U8_GRID, I32, I32, I32, I32, BOOL, I64), cache=True)
def _phrase_counts(k, n, m, links_i, links_j, offsets, grid, sp, s0, tp, t0, keep_identical, row):
    """The eight phrase columns of pair k into ``row[_NW:]``. ``grid`` has bit s set on the
    cells of link set s (0 A_S, 1 A_P, 2 B_S, 3 B_P)."""
    a = offsets[4 * k]
    a_s = _profiles(links_i[a : offsets[4 * k + 1]], links_j[a : offsets[4 * k + 1]], n, m)
    a = offsets[4 * k + 1]
    a_p = _profiles(links_i[a : offsets[4 * k + 2]], links_j[a : offsets[4 * k + 2]], n, m)
    a = offsets[4 * k + 2]
    b_s = _profiles(links_i[a : offsets[4 * k + 3]], links_j[a : offsets[4 * k + 3]], n, m)
    a = offsets[4 * k + 3]
    b_p = _profiles(links_i[a : offsets[4 * k + 4]], links_j[a : offsets[4 * k + 4]], n, m)
    a_p_bit = np.int64(2)
    b_p_bit = np.int64(8)
    # sure columns: atom(A_S) vs compat(B) (B_S profile, B_P bit); atom(B_S) vs compat(A)
    a0, a1, a2, a3 = a_s
    b0, b1, b2, b3 = b_s
    _atom_hits(
        a0, a1, a2, a3, b0, b1, b2, b3, grid, b_p_bit, True, sp, s0, tp, t0, keep_identical, row,
        _NW,
    )  # fmt: skip
    _atom_hits(
        b0, b1, b2, b3, a0, a1, a2, a3, grid, a_p_bit, True, sp, s0, tp, t0, keep_identical, row,
        _NW + 2,
    )  # fmt: skip
    # possible columns: atom(A_P) vs cons(B_P), atom(B_P) vs cons(A_P)
    a0, a1, a2, a3 = a_p
    b0, b1, b2, b3 = b_p
    _atom_hits(
        a0, a1, a2, a3, b0, b1, b2, b3, grid, b_p_bit, False, sp, s0, tp, t0, keep_identical, row,
        _NW + 4,
    )  # fmt: skip
    _atom_hits(
        b0, b1, b2, b3, a0, a1, a2, a3, grid, a_p_bit, False, sp, s0, tp, t0, keep_identical, row,
        _NW + 6,
    )  # fmt: skip


@njit((I64, I64, I32, I32, I64, I32, I32, I64, I32, I32, I64, BOOL, BOOL), cache=True)
def _count_kernel(
    ns, ms, sp, ss, ss_off, tp, ts, ts_off, links_i, links_j, offsets, keep_identical, do_phrase
):
    """Counts per pair. ``links_*`` hold four link sets per pair in the order A_S, A_P, B_S, B_P:
    set s of pair k is ``offsets[4k+s] : offsets[4k+s+1]``."""
    npairs = ns.size
    out = np.zeros((npairs, _NW + 8), np.int64)
    nmax = 1
    mmax = 1
    for k in range(npairs):
        nmax = max(nmax, ns[k])
        mmax = max(mmax, ms[k])
    grid = np.zeros((nmax, mmax), np.uint8)
    for k in range(npairs):
        n = ns[k]
        m = ms[k]
        s0 = ss[ss_off[k] : ss_off[k] + n + 1]
        t0 = ts[ts_off[k] : ts_off[k] + m + 1]
        row = out[k]
        # word level: mark each cell with one bit per set, then count over the link lists
        for s in range(4):
            for q in range(offsets[4 * k + s], offsets[4 * k + s + 1]):
                grid[links_i[q], links_j[q]] |= np.uint8(1 << s)
        for s in range(4):
            for q in range(offsets[4 * k + s], offsets[4 * k + s + 1]):
                i = links_i[q]
                j = links_j[q]
                if not keep_identical and _same_text(sp, s0, i, i, tp, t0, j, j):
                    continue
                g = grid[i, j]
                if s == 0:
                    row[0] += 1
                    row[4] += (g >> 3) & 1  # A_S ∩ B_P
                elif s == 1:
                    row[1] += 1
                    row[5] += (g >> 2) & 1  # A_P ∩ B_S
                    row[6] += (g >> 3) & 1  # A_P ∩ B_P
                elif s == 2:
                    row[2] += 1
                else:
                    row[3] += 1
        if do_phrase:
            _phrase_counts(
                k, n, m, links_i, links_j, offsets, grid, sp, s0, tp, t0, keep_identical, row
            )
        # the grid keeps each set's bit for the phrase pass (B_P and A_P boundary links)
        for s in range(4):
            for q in range(offsets[4 * k + s], offsets[4 * k + s + 1]):
                grid[links_i[q], links_j[q]] = 0
    return out


def count_pairs(
    items: Iterable[ScoreItem], *, include_identical: bool = False, phrases: bool = True
) -> np.ndarray:
    """Raw counts for each (source, target, test, reference) item: an int64 array of shape
    (pairs, 15), columns ``WORD_COLUMNS + PHRASE_COLUMNS`` (phrase columns stay 0 unless
    ``phrases``). Links outside a pair's grid raise ValueError."""
    enc = TokenEncoder()
    sp: list[int] = []
    ss: list[int] = []
    tp: list[int] = []
    ts: list[int] = []
    ss_off: list[int] = []
    ts_off: list[int] = []
    ns: list[int] = []
    ms: list[int] = []
    packer = LinkPacker()
    for source, target, test, ref in items:
        ns.append(len(source))
        ms.append(len(target))
        ss_off.append(len(ss))
        ts_off.append(len(ts))
        enc.extend(source, sp, ss)
        enc.extend(target, tp, ts)
        packer.add(test.sure)
        packer.add(test.all_links)
        packer.add(ref.sure)
        packer.add(ref.all_links)
    li, lj, offsets = packer.arrays()
    n_arr = np.asarray(ns, np.int64)
    m_arr = np.asarray(ms, np.int64)
    if li.size:  # the kernel does not bounds-check: every link inside its own pair's grid
        per_link = np.repeat(np.repeat(np.arange(len(ns)), 4), np.diff(offsets))
        bad = (li < 0) | (lj < 0) | (li >= n_arr[per_link]) | (lj >= m_arr[per_link])
        if bad.any():
            q = int(np.argmax(bad))
            k = int(per_link[q])
            raise ValueError(
                f"pair #{k + 1}: link {li[q]}-{lj[q]} lies outside its {ns[k]} × {ms[k]} grid"
            )
    return _count_kernel(
        n_arr,
        m_arr,
        np.asarray(sp, np.int32),
        np.asarray(ss, np.int32),
        np.asarray(ss_off, np.int64),
        np.asarray(tp, np.int32),
        np.asarray(ts, np.int32),
        np.asarray(ts_off, np.int64),
        li,
        lj,
        offsets,
        include_identical,
        phrases,
    )
