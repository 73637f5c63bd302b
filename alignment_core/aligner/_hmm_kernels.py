"""Compiled HMM kernels: forward-backward (E-step, posteriors) and Viterbi.

Layout and direction conventions as in ``_kernels``. States: real positions ``0..S-1`` and
null states that remember the last real position ``p`` (coded ``p = i + 1``; ``p = 0`` is the
virtual position -1 before the first word). Transition matrix of a pair, ``A[p, i]``:

* ``i < S``: ``(1 - p0) · w[c(i - (p - 1))] / Z_p`` — a jump to real position i;
* ``i = S``: ``w[c(S - (p - 1))] / Z_p`` — the jump to the virtual end position S after the
  last word (``end_jump``; 1 otherwise), so the sentence's end is anchored like its start;
* ``Z_p = Σ_{i=0..S-1 (or S with end_jump)} w[c(i - (p - 1))]``; into the empty word: ``p0``,
  keeping p. With the end jump the model is deficient (as IBM 3/4 are): EM still climbs it.

A pair with one real state (S = 1, e.g. an identity-lexicon entry) uses no jump parameters:
its transitions are ``1 - p0`` and its end factor 1, so it carries no ordering evidence.
"""

from __future__ import annotations

import math

import numpy as np

from alignment_core.aligner._jit import jit, jit_part

_TINY = 1e-300
_NEG_INF = -np.inf


@jit
def _largest_pair(src_off, tgt_off, lo, hi, transposed):
    """(most states, most emissions) over pairs lo..hi-1: the size of the work buffers."""
    maxS = 1
    maxE = 1
    for n in range(lo, hi):
        N = src_off[n + 1] - src_off[n]
        M = tgt_off[n + 1] - tgt_off[n]
        S, E = (M, N) if transposed else (N, M)
        maxS = max(maxS, S)
        maxE = max(maxE, E)
    return maxS, maxE


@jit_part
def _emissions(em, t, cells, base, S, E, ss, se):
    """``em[e, s]``: t(emitted word e | state word s) of one pair; ``s = S`` is the NULL word."""
    for e in range(E):
        for s in range(S + 1):
            em[e, s] = t[cells[base + s * ss + e * se]]


@jit_part
def _transitions(A, S, jw, jclass, jofs, p0, end_jump):
    """The pair's transition matrix ``A[p, i]`` (see the module notes); ``A[p, S]`` is the end
    factor."""
    n_end = 1 if end_jump else 0
    for p in range(S + 1):
        if S < 2:  # one real state: no jump parameters
            for i in range(S):
                A[p, i] = 1.0 - p0
            A[p, S] = 1.0
            continue
        z = 0.0
        for i in range(S + n_end):
            z += jw[jclass[i - p + 1 + jofs]]
        f = 1.0 / z if z > 0.0 else 0.0
        for i in range(S):
            A[p, i] = (1.0 - p0) * jw[jclass[i - p + 1 + jofs]] * f
        A[p, S] = jw[jclass[S - p + 1 + jofs]] * f if end_jump else 1.0


@jit_part
def _last_position(prev, ar, an, e, S):
    """``prev[p]``: the scaled forward mass at emitted position e whose last real position is
    p (p = 0: none yet; p = i + 1: real state i, or a null state that remembers it)."""
    prev[0] = an[e, 0]
    for p in range(1, S + 1):
        prev[p] = ar[e, p - 1] + an[e, p]


@jit_part
def _forward(prev, ar, an, scale, em, A, S, E, p0, w, ll):
    """The scaled forward pass (alpha sums to 1 at every e; ``scale[e]`` keeps the factor):
    ``ar`` real states, ``an`` null states. Returns ``ll`` plus w · the log of each scale."""
    for p in range(S + 1):
        prev[p] = 0.0
    prev[0] = 1.0
    for e in range(E):
        if e > 0:
            _last_position(prev, ar, an, e - 1, S)
        c = 0.0
        for i in range(S):
            acc_i = 0.0
            for p in range(S + 1):
                acc_i += prev[p] * A[p, i]
            ar[e, i] = acc_i * em[e, i]
            c += ar[e, i]
        enull = p0 * em[e, S]
        for p in range(S + 1):
            an[e, p] = enull * prev[p]
            c += an[e, p]
        if c < _TINY:
            c = _TINY
        scale[e] = c
        inv = 1.0 / c
        for i in range(S):
            ar[e, i] *= inv
        for p in range(S + 1):
            an[e, p] *= inv
        ll += w * math.log(c)
    return ll


@jit_part
def _end_factor(prev, ar, an, A, S, E):
    """The scaled probability of ending after the last emitted position (at least _TINY)."""
    _last_position(prev, ar, an, E - 1, S)
    cend = 0.0
    for p in range(S + 1):
        cend += prev[p] * A[p, S]
    if cend < _TINY:
        cend = _TINY
    return cend


@jit_part
def _backward(beta, g, em, A, scale, S, E, p0, cend):
    """The scaled backward pass: ``beta[e, p]`` depends only on the last real position p."""
    for p in range(S + 1):
        beta[E - 1, p] = A[p, S] / cend
    for e in range(E - 2, -1, -1):
        for i in range(S):
            g[i] = em[e + 1, i] * beta[e + 1, i + 1]
        nul = p0 * em[e + 1, S]
        inv = 1.0 / scale[e + 1]
        for p in range(S + 1):
            b = nul * beta[e + 1, p]
            for i in range(S):
                b += A[p, i] * g[i]
            beta[e, p] = b * inv


@jit_part
def _count_translations(counts, cells, base, ss, se, S, E, w, ar, an, beta):
    """Add the pair's weighted expected translation counts (the NULL word's too)."""
    for e in range(E):
        gn = 0.0
        for p in range(S + 1):
            gn += an[e, p] * beta[e, p]
        counts[cells[base + S * ss + e * se]] += w * gn
        for s in range(S):
            counts[cells[base + s * ss + e * se]] += w * ar[e, s] * beta[e, s + 1]


@jit_part
def _count_jumps(
    acc, prev, g, ar, an, em, beta, scale, A, S, E, cend, w, jclass, jofs, end_jump,
    jump_counts, row_counts,
):  # fmt: skip
    """Add the pair's weighted expected jumps per class to ``jump_counts`` and out of each
    (S, p) row to ``row_counts[S, p]``."""
    for p in range(S + 1):
        for i in range(S + 1):
            acc[p, i] = 0.0
    for p in range(S + 1):
        prev[p] = 0.0
    prev[0] = 1.0
    for e in range(E):
        if e > 0:
            _last_position(prev, ar, an, e - 1, S)
        inv = 1.0 / scale[e]
        for i in range(S):
            g[i] = em[e, i] * beta[e, i + 1] * inv
        for p in range(S + 1):
            if prev[p] == 0.0:
                continue
            for i in range(S):
                acc[p, i] += prev[p] * g[i]
    if end_jump:
        _last_position(prev, ar, an, E - 1, S)
        for p in range(S + 1):
            acc[p, S] = prev[p] / cend
    n_end = 1 if end_jump else 0
    for p in range(S + 1):
        tot = 0.0
        for i in range(S + n_end):
            x = w * acc[p, i] * A[p, i]
            jump_counts[jclass[i - p + 1 + jofs]] += x
            tot += x
        row_counts[S, p] += tot


@jit
def hmm_forward_backward(
    src_off, tgt_off, cells, cell_off, weights, lo, hi, transposed, t, jw, jclass, jofs, p0,
    end_jump, collect, counts, jump_counts, row_counts, post, post_off,
):  # fmt: skip
    """HMM forward-backward over pairs lo..hi-1 (scaled). Returns the weighted log-likelihood.

    With ``collect`` it adds weighted expected translation counts to ``counts``, expected
    jumps per class to ``jump_counts`` and expected jumps out of each (S, p) row to
    ``row_counts[S, p]``. When ``post`` is non-empty it writes the link posteriors of pair n
    as an N x M source-major block at ``post[post_off[n]:]`` (NULL excluded).
    """
    maxS, maxE = _largest_pair(src_off, tgt_off, lo, hi, transposed)
    em = np.empty((maxE, maxS + 1))
    ar = np.empty((maxE, maxS))
    an = np.empty((maxE, maxS + 1))
    beta = np.empty((maxE, maxS + 1))
    scale = np.empty(maxE)
    A = np.empty((maxS + 1, maxS + 1))
    acc = np.empty((maxS + 1, maxS + 1))
    prev = np.empty(maxS + 1)
    g = np.empty(maxS)
    write_post = len(post) > 0
    ll = 0.0
    for n in range(lo, hi):
        w = weights[n]
        N = src_off[n + 1] - src_off[n]
        M = tgt_off[n + 1] - tgt_off[n]
        if w == 0.0 or N == 0 or M == 0:
            continue
        if transposed:
            S, E, ss, se, ps, pe = M, N, 1, M + 1, 1, M
        else:
            S, E, ss, se, ps, pe = N, M, M + 1, 1, M, 1
        base = cell_off[n]
        _emissions(em, t, cells, base, S, E, ss, se)
        _transitions(A, S, jw, jclass, jofs, p0, end_jump)
        ll = _forward(prev, ar, an, scale, em, A, S, E, p0, w, ll)
        cend = _end_factor(prev, ar, an, A, S, E)
        ll += w * math.log(cend)
        if not collect and not write_post:
            continue
        _backward(beta, g, em, A, scale, S, E, p0, cend)
        if write_post:
            po = post_off[n]
            for e in range(E):
                for s in range(S):
                    post[po + s * ps + e * pe] = ar[e, s] * beta[e, s + 1]
        if collect:
            _count_translations(counts, cells, base, ss, se, S, E, w, ar, an, beta)
            if S >= 2:  # one real state uses no jump parameters
                _count_jumps(
                    acc, prev, g, ar, an, em, beta, scale, A, S, E, cend, w, jclass, jofs,
                    end_jump, jump_counts, row_counts,
                )  # fmt: skip
    return ll


@jit_part
def _log_emissions(lem, t, cells, base, S, E, ss, se):
    """``lem[e, s]``: log t(emitted word e | state word s), at least log(_TINY)."""
    for e in range(E):
        for s in range(S + 1):
            lem[e, s] = math.log(max(t[cells[base + s * ss + e * se]], _TINY))


@jit_part
def _log_transitions(lA, S, jw, jclass, jofs, p0, end_jump):
    """The log of the transition matrix (see the module notes); -inf where it is 0."""
    n_end = 1 if end_jump else 0
    for p in range(S + 1):
        if S < 2:
            for i in range(S):
                lA[p, i] = math.log(1.0 - p0)
            lA[p, S] = 0.0
            continue
        z = 0.0
        for i in range(S + n_end):
            z += jw[jclass[i - p + 1 + jofs]]
        for i in range(S + 1):
            if i == S and not end_jump:
                lA[p, i] = 0.0
                continue
            a = jw[jclass[i - p + 1 + jofs]] / z if z > 0.0 else 0.0
            if i < S:
                a *= 1.0 - p0
            lA[p, i] = math.log(a) if a > 0.0 else _NEG_INF


@jit_part
def _viterbi_forward(dr, dn, br, bn, best, barg, lem, lA, S, E, lp0):
    """Best log scores of reaching each real state (``dr``) and null state (``dn``) at each
    emitted position, with back-pointers (``br``, ``bn``). State codes: real state i -> i,
    null state with last position p -> S + p."""
    for p in range(S + 1):
        best[p] = _NEG_INF
        barg[p] = S + p
    best[0] = 0.0
    for e in range(E):
        if e > 0:
            best[0] = dn[e - 1, 0]
            barg[0] = S
            for p in range(1, S + 1):
                if dr[e - 1, p - 1] >= dn[e - 1, p]:
                    best[p] = dr[e - 1, p - 1]
                    barg[p] = p - 1
                else:
                    best[p] = dn[e - 1, p]
                    barg[p] = S + p
        for i in range(S):
            m = _NEG_INF
            arg = barg[0]
            for p in range(S + 1):
                v = best[p] + lA[p, i]
                if v > m:
                    m = v
                    arg = barg[p]
            dr[e, i] = m + lem[e, i]
            br[e, i] = arg
        lnull = lp0 + lem[e, S]
        for p in range(S + 1):
            dn[e, p] = best[p] + lnull
            bn[e, p] = barg[p]


@jit_part
def _viterbi_trace(out, o, dr, dn, br, bn, lA, S, E):
    """The best last state (with the end factor), then back-pointers to the first: ``out[o +
    e]`` = the real state at emitted position e, or -1 for a null one."""
    m = _NEG_INF
    state = S
    for i in range(S):
        v = dr[E - 1, i] + lA[i + 1, S]
        if v > m:
            m = v
            state = i
    for p in range(S + 1):
        v = dn[E - 1, p] + lA[p, S]
        if v > m:
            m = v
            state = S + p
    for e in range(E - 1, -1, -1):
        if state < S:
            out[o + e] = state
            state = br[e, state]
        else:
            out[o + e] = -1
            state = bn[e, state - S]


@jit
def hmm_viterbi(
    src_off, tgt_off, cells, cell_off, lo, hi, transposed, t, jw, jclass, jofs, p0, end_jump,
    out, out_off,
):  # fmt: skip
    """Viterbi state per emitted position of pairs lo..hi-1: ``out[out_off[n] + e]`` = state or -1.

    Ties go to the lower state index, a real state before a null one.
    """
    maxS, maxE = _largest_pair(src_off, tgt_off, lo, hi, transposed)
    lem = np.empty((maxE, maxS + 1))
    dr = np.empty((maxE, maxS))
    dn = np.empty((maxE, maxS + 1))
    br = np.empty((maxE, maxS), dtype=np.int64)
    bn = np.empty((maxE, maxS + 1), dtype=np.int64)
    lA = np.empty((maxS + 1, maxS + 1))
    best = np.empty(maxS + 1)
    barg = np.empty(maxS + 1, dtype=np.int64)
    lp0 = math.log(max(p0, _TINY))
    for n in range(lo, hi):
        N = src_off[n + 1] - src_off[n]
        M = tgt_off[n + 1] - tgt_off[n]
        if transposed:
            S, E, ss, se = M, N, 1, M + 1
        else:
            S, E, ss, se = N, M, M + 1, 1
        o = out_off[n]
        if S == 0 or E == 0:
            for e in range(E):
                out[o + e] = -1
            continue
        _log_emissions(lem, t, cells, cell_off[n], S, E, ss, se)
        _log_transitions(lA, S, jw, jclass, jofs, p0, end_jump)
        _viterbi_forward(dr, dn, br, bn, best, barg, lem, lA, S, E, lp0)
        _viterbi_trace(out, o, dr, dn, br, bn, lA, S, E)
