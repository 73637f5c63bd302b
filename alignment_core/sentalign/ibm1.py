"""A small IBM Model 1 for the aligner's second pass (Moore 2002; hunalign's dictionary step).

Trained by EM on the first pass's confident beads of the *same* document pair, so it needs no
outside data. Vectorised numpy: every (sentence pair, source word incl. NULL, target word)
cell is one entry; E and M steps are ``bincount``s. The result is turned into sentence vectors
(``translation_vectors``) so that the DP's bilinear lexical score can read it:
``x · y = Σ_f (Σ_e t(f|e)) · idf(f)`` over the words f of the target sentence.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

NULL = 0


def train_ibm1(
    pairs: Sequence[tuple[Sequence[int], Sequence[int]]], n_src: int, n_tgt: int, iterations: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """t(f | e) over word ids (source id 0 is NULL) as sparse triples ``(e, f, prob)``."""
    es: list[np.ndarray] = []
    fs: list[np.ndarray] = []
    groups: list[np.ndarray] = []
    g = 0
    for src, tgt in pairs:
        if not len(tgt):
            continue
        s = np.concatenate([[NULL], np.asarray(src, dtype=np.int64)])
        t = np.asarray(tgt, dtype=np.int64)
        es.append(np.repeat(s[None, :], len(t), axis=0).ravel())
        fs.append(np.repeat(t, len(s)))
        groups.append(np.repeat(np.arange(g, g + len(t)), len(s)))
        g += len(t)
    if not es:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0)
    e = np.concatenate(es)
    f = np.concatenate(fs)
    group = np.concatenate(groups)
    keys, cell = np.unique(e * n_tgt + f, return_inverse=True)
    key_e = keys // n_tgt
    t = np.ones(len(keys))
    for _ in range(iterations):
        tc = t[cell]
        tot = np.bincount(group, weights=tc, minlength=g)
        counts = np.bincount(cell, weights=tc / tot[group], minlength=len(keys))
        denom = np.bincount(key_e, weights=counts, minlength=n_src)
        t = counts / denom[key_e]
    return key_e, keys % n_tgt, t


def translation_vectors(
    src_ids: Sequence[Sequence[int]],
    tgt_ids: Sequence[Sequence[int]],
    table: tuple[np.ndarray, np.ndarray, np.ndarray],
    tgt_idf: np.ndarray,
    n_src: int,
    *,
    min_prob: float = 0.05,
):
    """CSR vectors ``(indptr, indices, values)``: source sentence → Σ_e t(·|e) over target
    words (probabilities below ``min_prob`` dropped), target sentence → its bag of words, both
    weighted by ``tgt_idf``."""
    e, f, p = table
    keep = (p >= min_prob) & (e != NULL)
    n_tgt = len(tgt_idf)
    trans = sp.csr_matrix((p[keep], (e[keep], f[keep])), shape=(n_src, n_tgt))
    idf = sp.diags(tgt_idf)
    src_vec = _bag(src_ids, n_src) @ trans @ idf
    tgt_vec = _bag(tgt_ids, n_tgt) @ idf
    return _triples(src_vec), _triples(tgt_vec)


def _bag(sentences: Sequence[Sequence[int]], vocab: int) -> sp.csr_matrix:
    rows = np.repeat(np.arange(len(sentences)), [len(s) for s in sentences])
    cols = np.fromiter((w for s in sentences for w in s), dtype=np.int64, count=len(rows))
    return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(sentences), vocab))


def _triples(mat) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mat = sp.csr_matrix(mat)
    mat.sum_duplicates()
    mat.sort_indices()
    return (
        mat.indptr.astype(np.int64),
        mat.indices.astype(np.int64),
        mat.data.astype(np.float64),
    )
