"""A small IBM Model 1 for the aligner's second pass (Moore 2002; hunalign's dictionary step).

Trained by EM on the first pass's confident beads of the *same* document pair, so it needs no
outside data. Vectorised numpy: every (sentence pair, source word incl. NULL, target word)
cell is one entry; E and M steps are ``bincount``s. The caller bounds the cells (the
aligner samples its training beads, ``ParallelConfig.ibm1_max_cells``), so memory does not
grow with the documents. The words of a document are flat arrays (``Words``: word ids and
each sentence's offsets), a few bytes a word. The result is turned into sentence vectors
(``translation_vectors``) so that the DP's bilinear lexical score can read it:
``x · y = Σ_f (Σ_e t(f|e)) · idf(f)`` over the words f of the target sentence.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from alignment_core.sentalign.lexical import fold, tokens

NULL = 0
# Rows of translation vectors computed at a time (bounds scipy's temporaries).
VECTOR_CHUNK = 8192


class Words(NamedTuple):
    """A document's words as ids (1-based; 0 is NULL): sentence k is
    ``ids[ptr[k]:ptr[k + 1]]``, so the words of consecutive sentences are one slice."""

    ptr: np.ndarray  # (n + 1,) int64
    ids: np.ndarray  # int32
    vocab: int  # ids are < vocab

    def span(self, first: int, last: int) -> np.ndarray:
        """The words of sentences ``first`` .. ``last`` (a view)."""
        return self.ids[self.ptr[first] : self.ptr[last + 1]]


def word_ids(sentences: Sequence[str]) -> Words:
    """Folded tokens of every sentence, numbered in order of first appearance."""
    vocab: dict[str, int] = {}
    ids = array("i")
    ptr = array("q", [0])
    for sentence in sentences:
        ids.extend(vocab.setdefault(fold(w), len(vocab) + 1) for w in tokens(sentence))
        ptr.append(len(ids))
    return Words(
        np.frombuffer(ptr, dtype=np.int64), np.frombuffer(ids, dtype=np.int32), len(vocab) + 1
    )


def idf(words: Words) -> np.ndarray:
    """``log(1 + sentences / document frequency)`` of every word id."""
    n = len(words.ptr) - 1
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(words.ptr))
    seen = np.unique(rows * words.vocab + words.ids)
    df = np.bincount(seen % words.vocab, minlength=words.vocab).astype(np.float64)
    return np.log(1.0 + n / np.maximum(df, 1.0))


def train_ibm1(
    pairs: Sequence[tuple[Sequence[int], Sequence[int]]], n_src: int, n_tgt: int, iterations: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """t(f | e) over word ids (source id 0 is NULL) as sparse triples ``(e, f, prob)``."""
    es: list[np.ndarray] = []
    fs: list[np.ndarray] = []
    sizes: list[int] = []
    for src, tgt in pairs:
        if not len(tgt):
            continue
        s = np.concatenate([[NULL], np.asarray(src, dtype=np.int32)]).astype(np.int32)
        t = np.asarray(tgt, dtype=np.int32)
        es.append(np.tile(s, len(t)))
        fs.append(np.repeat(t, len(s)))
        sizes.extend([len(s)] * len(t))
    if not es:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0)
    # one group per target word occurrence: its cells are consecutive
    group = np.repeat(np.arange(len(sizes), dtype=np.int32), sizes)
    keys, cell = np.unique(
        np.concatenate(es).astype(np.int64) * n_tgt + np.concatenate(fs), return_inverse=True
    )
    del es, fs
    cell = cell.astype(np.int32)
    key_e = keys // n_tgt
    t = np.ones(len(keys))
    for _ in range(iterations):
        tc = t[cell]
        tot = np.bincount(group, weights=tc, minlength=len(sizes))
        tc /= tot[group]
        counts = np.bincount(cell, weights=tc, minlength=len(keys))
        denom = np.bincount(key_e, weights=counts, minlength=n_src)
        t = counts / denom[key_e]
    return key_e, keys % n_tgt, t


def translation_vectors(
    src_words: Words,
    tgt_words: Words,
    table: tuple[np.ndarray, np.ndarray, np.ndarray],
    tgt_idf: np.ndarray,
    *,
    min_prob: float = 0.05,
):
    """CSR vectors ``(indptr, indices, values)``: source sentence → Σ_e t(·|e) over target
    words (probabilities below ``min_prob`` dropped), target sentence → its bag of words, both
    weighted by ``tgt_idf``. Computed ``VECTOR_CHUNK`` sentences at a time."""
    e, f, p = table
    keep = (p >= min_prob) & (e != NULL)
    n_src, n_tgt = src_words.vocab, len(tgt_idf)
    trans = sp.csr_matrix((p[keep], (e[keep], f[keep])), shape=(n_src, n_tgt))
    weigh = sp.diags(tgt_idf)
    src_vec = _chunked(src_words, lambda bag: bag @ trans @ weigh)
    tgt_vec = _chunked(tgt_words, lambda bag: bag @ weigh)
    return src_vec, tgt_vec


def _chunked(words: Words, product) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = len(words.ptr) - 1
    parts = []
    for first in range(0, n, VECTOR_CHUNK):
        last = min(n, first + VECTOR_CHUNK)
        ptr = words.ptr[first : last + 1] - words.ptr[first]
        ids = words.ids[words.ptr[first] : words.ptr[last]]
        # (a copy: summing duplicates works in place, and ``ids`` is a view of the document)
        bag = sp.csr_matrix((np.ones(len(ids)), ids.copy(), ptr), shape=(last - first, words.vocab))
        bag.sum_duplicates()
        parts.append(_triples(product(bag)))
    if not parts:
        return np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32), np.zeros(0)
    ptr = [np.zeros(1, dtype=np.int64)]
    base = 0
    for part_ptr, _, _ in parts:
        ptr.append(part_ptr[1:] + base)
        base += int(part_ptr[-1])
    return (
        np.concatenate(ptr),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
    )


def _triples(mat) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mat = sp.csr_matrix(mat)
    mat.sum_duplicates()
    mat.sort_indices()
    return (
        mat.indptr.astype(np.int64),
        mat.indices.astype(np.int32),
        mat.data.astype(np.float64),
    )
