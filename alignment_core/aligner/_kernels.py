"""Compiled sentence-level kernels (numba) over the flat corpus layout.

Layout (all 0-based):

* pair ``n`` has ``N = src_off[n+1] - src_off[n]`` source and ``M = tgt_off[n+1] - tgt_off[n]``
  target tokens;
* ``cells[cell_off[n] + i * (M + 1) + j]`` is the index into the sparse translation table of
  the word pair (source i, target j); row ``i = N`` is the source NULL word, column ``j = M``
  the target NULL word;
* a *direction* generates the "emitted" side from the "state" side: ``transposed = False`` is
  source→target (states = source positions, one alignment per target word), ``True`` is
  target→source;
* ``weights[n]`` scales pair n's expected counts; 0 skips the pair (hand-aligned pairs, whose
  counts are observed instead).

The HMM's forward-backward and Viterbi kernels live in ``_hmm_kernels`` (same conventions);
``get_kernels`` hands out both modules' kernels as one namespace.

Every kernel has an exact plain-Python twin: ``get_kernels(plain=True)`` returns the kernels'
Python originals, each calling the Python originals of the kernels it calls (``_plain_twins``).
"""

from __future__ import annotations

import math
from types import FunctionType, SimpleNamespace

import numpy as np
from numba.core.dispatcher import Dispatcher

from alignment_core.aligner import _csr_kernels, _hmm_kernels
from alignment_core.aligner._jit import jit, jit_part
from alignment_core.aligner.kernel_choice import _PLAIN, use_plain_kernels  # noqa: F401 (re-exported)

_TINY = 1e-300


@jit
def cell_keys(src, src_off, tgt, tgt_off, cell_off, n_tgt_vocab, out):
    """Write ``src_id * n_tgt_vocab + tgt_id`` for every cell (NULL id 0 on the null row/col)."""
    for n in range(len(src_off) - 1):
        s0 = src_off[n]
        t0 = tgt_off[n]
        N = src_off[n + 1] - s0
        M = tgt_off[n + 1] - t0
        base = cell_off[n]
        for i in range(N + 1):
            e = np.int64(src[s0 + i]) if i < N else np.int64(0)
            for j in range(M + 1):
                f = np.int64(tgt[t0 + j]) if j < M else np.int64(0)
                out[base + i * (M + 1) + j] = e * n_tgt_vocab + f


@jit
def unique_keys(raw, n_src_vocab, n_tgt_vocab, inverse):
    """Sorted distinct keys of ``raw`` (``src * n_tgt_vocab + tgt``), writing each element's
    index among them to ``inverse`` (int32). Two counting-sort passes: O(n + vocabularies)."""
    n = len(raw)
    cnt = np.zeros(n_tgt_vocab + 1, dtype=np.int64)
    for x in range(n):
        cnt[raw[x] % n_tgt_vocab + 1] += 1
    for v in range(n_tgt_vocab):
        cnt[v + 1] += cnt[v]
    by_tgt = np.empty(n, dtype=np.int32)
    for x in range(n):
        f = raw[x] % n_tgt_vocab
        by_tgt[cnt[f]] = x
        cnt[f] += 1
    cnt2 = np.zeros(n_src_vocab + 1, dtype=np.int64)
    for x in range(n):
        cnt2[raw[x] // n_tgt_vocab + 1] += 1
    for v in range(n_src_vocab):
        cnt2[v + 1] += cnt2[v]
    order = np.empty(n, dtype=np.int32)
    for y in range(n):
        x = by_tgt[y]
        e = raw[x] // n_tgt_vocab
        order[cnt2[e]] = x
        cnt2[e] += 1
    uniq = np.empty(n, dtype=np.int64)
    u = -1
    last = np.int64(-1)
    for y in range(n):
        x = order[y]
        key = raw[x]
        if key != last:
            u += 1
            uniq[u] = key
            last = key
        inverse[x] = u
    return uniq[: u + 1].copy()


@jit
def ibm1_estep(src_off, tgt_off, cells, cell_off, weights, lo, hi, transposed, t, counts):
    """IBM Model 1 E-step over pairs lo..hi-1; adds expected counts, returns the weighted log-lik."""
    ll = 0.0
    for n in range(lo, hi):
        w = weights[n]
        if w == 0.0:
            continue
        N = src_off[n + 1] - src_off[n]
        M = tgt_off[n + 1] - tgt_off[n]
        if N == 0 or M == 0:
            continue
        if transposed:
            S, E, ss, se = M, N, 1, M + 1
        else:
            S, E, ss, se = N, M, M + 1, 1
        base = cell_off[n]
        for e in range(E):
            tot = 0.0
            for s in range(S + 1):
                tot += t[cells[base + s * ss + e * se]]
            if tot < _TINY:
                tot = _TINY
            ll += w * math.log(tot / (S + 1))
            scale = w / tot
            for s in range(S + 1):
                k = cells[base + s * ss + e * se]
                counts[k] += t[k] * scale
    return ll


@jit
def normalize_t(counts, cond, n_cond, valid, alpha, t_out):
    """M-step: ``t_out[k] = (counts[k] + alpha) / Σ (counts + alpha)`` over valid entries sharing
    ``cond[k]`` (add-alpha smoothing, Moore 2004; 0 if that sum is 0). Invalid entries get 0."""
    tot = np.zeros(n_cond)
    for k in range(len(counts)):
        if valid[k]:
            tot[cond[k]] += counts[k] + alpha
    for k in range(len(counts)):
        z = tot[cond[k]]
        t_out[k] = (counts[k] + alpha) / z if valid[k] and z > 0.0 else 0.0


@jit
def ibm1_decode(
    src_off, tgt_off, cells, cell_off, lo, hi, transposed, t, out, out_off, post, post_off
):
    """IBM1 best state per emitted position (-1 = NULL) and, if ``post`` is non-empty, posteriors."""
    write_post = len(post) > 0
    for n in range(lo, hi):
        N = src_off[n + 1] - src_off[n]
        M = tgt_off[n + 1] - tgt_off[n]
        if transposed:
            S, E, ss, se, ps, pe = M, N, 1, M + 1, 1, M
        else:
            S, E, ss, se, ps, pe = N, M, M + 1, 1, M, 1
        base = cell_off[n]
        o = out_off[n]
        for e in range(E):
            bestv = t[cells[base + S * ss + e * se]]
            arg = -1
            tot = bestv
            for s in range(S):
                v = t[cells[base + s * ss + e * se]]
                tot += v
                if v > bestv:
                    bestv = v
                    arg = s
            out[o + e] = arg
            if write_post:
                inv = 1.0 / tot if tot > 0.0 else 0.0
                for s in range(S):
                    post[post_off[n] + s * ps + e * pe] = t[cells[base + s * ss + e * se]] * inv


@jit
def observed_counts(
    src_off,
    tgt_off,
    cells,
    cell_off,
    pair_idx,
    link_s,
    link_t,
    link_w,
    link_off,
    transposed,
    jclass,
    jofs,
    end_jump,
    t_counts,
    jump_counts,
    row_counts,
):
    """Whole counts from hand alignments (seeds/004), for one direction.

    Gold pair g is corpus pair ``pair_idx[g]`` with links ``link_s/link_t[link_off[g]:...]``
    (source, target positions) of weight ``link_w``. Each emitted word carries one unit of
    count, split over its links in proportion to their weights; a word without links counts
    once for NULL. Jumps go from the previous emitted word's linked states (or position -1)
    to this word's, weighted by both shares; NULL-aligned words keep the previous states.
    """
    maxS = _largest_gold_pair(src_off, tgt_off, pair_idx)
    W = np.zeros((maxS, maxS))
    prev = np.zeros(maxS + 1)
    cur = np.zeros(maxS + 1)
    for g in range(len(pair_idx)):
        n = pair_idx[g]
        N = src_off[n + 1] - src_off[n]
        M = tgt_off[n + 1] - tgt_off[n]
        if transposed:
            S, E, ss, se = M, N, 1, M + 1
        else:
            S, E, ss, se = N, M, M + 1, 1
        _link_weights(W, S, E, link_s, link_t, link_w, link_off[g], link_off[g + 1], transposed)
        _count_gold_pair(
            W, prev, cur, cells, cell_off[n], S, E, ss, se, jclass, jofs, end_jump,
            t_counts, jump_counts, row_counts,
        )  # fmt: skip


@jit_part
def _largest_gold_pair(src_off, tgt_off, pair_idx):
    """The longest sentence of the gold pairs (at least 1): the size of the work buffers."""
    longest = 1
    for g in range(len(pair_idx)):
        n = pair_idx[g]
        longest = max(longest, max(src_off[n + 1] - src_off[n], tgt_off[n + 1] - tgt_off[n]))
    return longest


@jit_part
def _link_weights(W, S, E, link_s, link_t, link_w, lo, hi, transposed):
    """``W[s, e]``: the summed weight of the gold links lo..hi-1 between state s and emitted
    word e (the rest of the S×E block 0)."""
    for s in range(S):
        for e in range(E):
            W[s, e] = 0.0
    for k in range(lo, hi):
        if transposed:
            W[link_t[k], link_s[k]] += link_w[k]
        else:
            W[link_s[k], link_t[k]] += link_w[k]


@jit_part
def _count_gold_pair(
    W, prev, cur, cells, base, S, E, ss, se, jclass, jofs, end_jump, t_counts, jump_counts,
    row_counts,
):  # fmt: skip
    """One gold pair's whole counts (see ``observed_counts``) from its link weights ``W``."""
    for p in range(S + 1):
        prev[p] = 0.0
    prev[0] = 1.0
    for e in range(E):
        tot = 0.0
        for s in range(S):
            tot += W[s, e]
        if tot <= 0.0:
            t_counts[cells[base + S * ss + e * se]] += 1.0
            continue
        for p in range(S + 1):
            cur[p] = 0.0
        for s in range(S):
            share = W[s, e] / tot
            if share == 0.0:
                continue
            t_counts[cells[base + s * ss + e * se]] += share
            cur[s + 1] = share
            if S < 2:
                continue
            for p in range(S + 1):
                if prev[p] > 0.0:
                    jump_counts[jclass[s - p + 1 + jofs]] += prev[p] * share
                    row_counts[S, p] += prev[p] * share
        for p in range(S + 1):
            prev[p] = cur[p]
    if end_jump and S >= 2:
        for p in range(S + 1):
            if prev[p] > 0.0:
                jump_counts[jclass[S - p + 1 + jofs]] += prev[p]
                row_counts[S, p] += prev[p]


@jit
def jump_mstep(class_counts, row_counts, w_old, jclass, jofs, end_jump, n_iter):
    """M-step for the jump weights: MM iterations (Hunter 2004) on the row-normalised model.

    Maximises ``sum_k c_k log w_k - sum_(S,p) n_(S,p) log Z_(S,p)(w)``; every iteration raises
    it, so EM stays monotone. Classes seen in no row keep the smallest visited weight.
    """
    C = len(w_old)
    n_end = 1 if end_jump else 0
    w = w_old.copy()
    maxS = row_counts.shape[0] - 1
    for _ in range(n_iter):
        D = np.zeros(C)
        for S in range(1, maxS + 1):
            for p in range(S + 1):
                nr = row_counts[S, p]
                if nr <= 0.0:
                    continue
                z = 0.0
                for i in range(S + n_end):
                    z += w[jclass[i - p + 1 + jofs]]
                for i in range(S + n_end):
                    D[jclass[i - p + 1 + jofs]] += nr / z
        total = 0.0
        low = np.inf
        for k in range(C):
            if D[k] > 0.0:
                w[k] = class_counts[k] / D[k]
                total += w[k]
                if 0.0 < w[k] < low:
                    low = w[k]
        if total <= 0.0:
            return w_old.copy()
        for k in range(C):
            if D[k] <= 0.0:
                w[k] = low if low < np.inf else w[k]
        s = 0.0
        for k in range(C):
            s += w[k]
        for k in range(C):
            w[k] /= s
    return w


@jit
def jump_loglik(class_counts, row_counts, w, jclass, jofs, end_jump):
    """``sum_k c_k log w_k - sum_(S,p) n_(S,p) log Z_(S,p)``: the jump part of a complete log-lik."""
    n_end = 1 if end_jump else 0
    ll = 0.0
    for k in range(len(w)):
        if class_counts[k] > 0.0:
            ll += class_counts[k] * math.log(max(w[k], _TINY))
    for S in range(1, row_counts.shape[0]):
        for p in range(S + 1):
            nr = row_counts[S, p]
            if nr > 0.0:
                z = 0.0
                for i in range(S + n_end):
                    z += w[jclass[i - p + 1 + jofs]]
                ll -= nr * math.log(max(z, _TINY))
    return ll


_NAMES = (
    "cell_keys",
    "unique_keys",
    "ibm1_estep",
    "normalize_t",
    "ibm1_decode",
    "observed_counts",
    "jump_mstep",
    "jump_loglik",
    "edit_distances",
)


@jit
def edit_distances(a, la, b, lb, out):
    """Levenshtein distance of many word pairs: row k of ``a`` (its first ``la[k]`` codes)
    against row k of ``b`` (``lb[k]``), written to ``out[k]``; one row of the DP at a time."""
    width = a.shape[1]
    prev = np.empty(width + 1, dtype=np.int64)
    cur = np.empty(width + 1, dtype=np.int64)
    for k in range(a.shape[0]):
        n, m = la[k], lb[k]
        for c in range(m + 1):
            prev[c] = c
        for r in range(1, n + 1):
            cur[0] = r
            for c in range(1, m + 1):
                cost = 0 if a[k, r - 1] == b[k, c - 1] else 1
                best = prev[c - 1] + cost
                if prev[c] + 1 < best:
                    best = prev[c] + 1
                if cur[c - 1] + 1 < best:
                    best = cur[c - 1] + 1
                cur[c] = best
            for c in range(m + 1):
                prev[c] = cur[c]
        out[k] = prev[m]


def get_kernels(plain: bool | None = None) -> SimpleNamespace:
    """The kernels, compiled or (``plain``; default: what ``use_plain_kernels`` chose) their
    Python originals."""
    if plain is None:
        plain = _PLAIN["default"]
    if plain:
        found = {n: _plain_twins(globals())[n] for n in _NAMES}
        twins = _plain_twins(vars(_hmm_kernels))
        found.update(hmm_forward_backward=twins["hmm_forward_backward"])
        found.update(hmm_viterbi=twins["hmm_viterbi"])
        csr = _plain_twins(vars(_csr_kernels))
        found.update({n: csr[n] for n in _csr_kernels.CSR_NAMES})
        return SimpleNamespace(**found)
    found = {n: globals()[n] for n in _NAMES}
    found.update(
        hmm_forward_backward=_hmm_kernels.hmm_forward_backward,
        hmm_viterbi=_hmm_kernels.hmm_viterbi,
    )
    found.update({n: getattr(_csr_kernels, n) for n in _csr_kernels.CSR_NAMES})
    return SimpleNamespace(**found)


_TWINS: dict[str, dict[str, object]] = {}


def _plain_twins(module: dict[str, object]) -> dict[str, object]:
    """A module's namespace in which every kernel is its plain-Python original, calling the
    plain originals of the kernels it calls (a kernel's ``py_func`` alone would call their
    compiled versions): the plain twin of a kernel split into parts is plain throughout."""
    key = str(module["__name__"])
    if key not in _TWINS:
        twins = dict(module)
        for name, value in module.items():
            if isinstance(value, Dispatcher):
                f = value.py_func
                twins[name] = FunctionType(f.__code__, twins, f.__name__, f.__defaults__)
        _TWINS[key] = twins
    return _TWINS[key]
