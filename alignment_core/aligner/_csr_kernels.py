"""Compiled kernels over the translation table in CSR layout (``csr_table``).

The table's entries are sorted by (source id, target id): row ``s`` (a source word) holds the
entries ``row_off[s]:row_off[s + 1]``, and ``col[k]`` is entry k's target id. Source id 0 and
target id 0 are the NULL word (``vocab.NULL_ID``).

Like ``_kernels``, every kernel has a plain-Python twin (``get_kernels(plain=True)``).
"""

from __future__ import annotations

import numpy as np

from alignment_core.aligner._jit import jit


@jit
def find_entry(row_off, col, s, t):
    """Entry index of (source id ``s``, target id ``t``), or -1 when they never co-occurred."""
    if s < 0 or s >= len(row_off) - 1:
        return -1
    lo = row_off[s]
    hi = row_off[s + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        if col[mid] < t:
            lo = mid + 1
        else:
            hi = mid
    if lo < row_off[s + 1] and col[lo] == t:
        return lo
    return -1


@jit
def lookup_cells(src, src_off, tgt, tgt_off, cell_off, row_off, col, out):
    """Every cell's entry index (-1 where the word pair is not in the table); same cell layout
    as ``_kernels.cell_keys`` (row N and column M are the NULL word)."""
    for n in range(len(src_off) - 1):
        s0 = src_off[n]
        t0 = tgt_off[n]
        N = src_off[n + 1] - s0
        M = tgt_off[n + 1] - t0
        base = cell_off[n]
        for i in range(N + 1):
            e = src[s0 + i] if i < N else 0
            for j in range(M + 1):
                f = tgt[t0 + j] if j < M else 0
                out[base + i * (M + 1) + j] = find_entry(row_off, col, e, f)


@jit
def add_sorted(acc, lo, entries, values):
    """``acc[entries[x] - lo] += values[x]`` for every x (entries distinct), in order of x."""
    for x in range(len(entries)):
        acc[entries[x] - lo] += values[x]


@jit
def row_sums(acc, lo, row_off, col, r0, r1, alpha, out):
    """Forward M-step sums: ``out[r - r0] = Σ (acc + alpha)`` over row r's entries that emit a
    real word (target id ≠ 0), for rows r0..r1-1 (``acc`` starts at entry ``lo``)."""
    for r in range(r0, r1):
        z = 0.0
        for k in range(row_off[r], row_off[r + 1]):
            if col[k] != 0:
                z += acc[k - lo] + alpha
        out[r - r0] = z


@jit
def col_sums(acc, lo, first_real, col, alpha, tot):
    """Backward M-step sums: ``tot[col[k]] += acc + alpha`` for entries k ≥ ``first_real``
    (entries before it belong to the NULL source row, which is never emitted backward)."""
    for x in range(len(acc)):
        k = lo + x
        if k >= first_real:
            tot[col[k]] += acc[x] + alpha


@jit
def normalise_block(acc, lo, row_off, col, r0, r1, forward, first_real, z_rows, z_cols, alpha, t):
    """``t[k] = (acc + alpha) / z`` for the entries of rows r0..r1-1 (z of the row forward, of
    the column backward; invalid entries and z = 0 give 0)."""
    for r in range(r0, r1):
        for k in range(row_off[r], row_off[r + 1]):
            if forward:
                z = z_rows[r - r0]
                ok = col[k] != 0
            else:
                z = z_cols[col[k]]
                ok = k >= first_real
            t[k] = (acc[k - lo] + alpha) / z if ok and z > 0.0 else 0.0


@jit
def log_prior_sum(t, row_off, col, forward, first_real):
    """``Σ log t`` over valid entries (forward: target id ≠ 0; backward: source id ≠ 0)."""
    total = 0.0
    for k in range(len(t)):
        ok = col[k] != 0 if forward else k >= first_real
        if ok:
            v = t[k]
            total += np.log(v if v > 1e-300 else 1e-300)
    return total


CSR_NAMES = (
    "find_entry",
    "lookup_cells",
    "add_sorted",
    "row_sums",
    "col_sums",
    "normalise_block",
    "log_prior_sum",
)
