"""Lexical evidence that needs no downloaded model: numbers, names, cognates, shared words.

Every sentence becomes a sparse vector over *keys* both languages can share:

* ``N:1956`` — a number (digits kept, separators dropped), weight ``w_number``;
* ``C:hima`` — a cognate key: the first ``prefix`` letters of a word of at least ``min_len``
  letters, lower-cased and with accents stripped (``Expedition`` / ``expédition`` → ``expe``),
  weight ``w_cognate``, times ``w_name`` when the word is capitalised inside the sentence;
* ``P:?`` — telling punctuation (``? ! : ( " %``), weight ``w_punct``.

Only keys seen on both sides of the document pair are kept (a key one language never uses
only dilutes the cosine), and each is weighted by its inverse document frequency within the
pair, so a key in every sentence says little.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

_TOKEN = re.compile(r"\w+|[?!:(\"%«»„“]", re.UNICODE)
_DIGITS = re.compile(r"\d")


@dataclass(frozen=True)
class LexicalConfig:
    prefix: int = 4
    min_len: int = 4
    w_number: float = 3.0
    w_cognate: float = 1.0
    w_name: float = 1.5
    w_punct: float = 0.5
    idf: bool = True


@functools.lru_cache(maxsize=1 << 17)
def fold(word: str) -> str:
    """Lower-case without accents: ``Éboulement`` → ``eboulement``."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def tokens(sentence: str) -> list[str]:
    return _TOKEN.findall(sentence)


def sentence_keys(sentence: str, cfg: LexicalConfig) -> Counter[str]:
    """The weighted keys of one sentence (before the document-level idf)."""
    keys: Counter[str] = Counter()
    for pos, tok in enumerate(tokens(sentence)):
        if _DIGITS.search(tok):
            keys["N:" + "".join(ch for ch in tok if ch.isdigit())] += cfg.w_number
        elif tok.isalpha():
            if len(tok) < cfg.min_len:
                continue
            w = cfg.w_cognate
            if pos > 0 and tok[0].isupper():
                w *= cfg.w_name
            keys["C:" + fold(tok)[: cfg.prefix]] += w
        elif not tok[0].isalnum() and tok != "_":
            keys["P:" + tok.replace("«", '"').replace("»", '"').replace("„", '"')] += cfg.w_punct
    return keys


def vectorise(
    src: Sequence[str], tgt: Sequence[str], cfg: LexicalConfig | None = None
) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """CSR vectors ``(indptr, indices, values)`` of both sides over their shared keys.

    Each side's keys are kept as flat arrays (a key number and a weight per sentence and key),
    never as one dictionary per sentence: a 160,000-sentence document costs a few bytes per
    key, not a Python object per sentence."""
    cfg = cfg or LexicalConfig()
    s_rows, s_keys, s_w, s_vocab = _flat_keys(src, cfg)
    t_rows, t_keys, t_w, t_vocab = _flat_keys(tgt, cfg)
    shared = sorted(set(s_vocab) & set(t_vocab))
    total = len(src) + len(tgt)
    df_s = np.bincount(s_keys, minlength=len(s_vocab))
    df_t = np.bincount(t_keys, minlength=len(t_vocab))
    s_map = np.full(len(s_vocab), -1, dtype=np.int64)
    t_map = np.full(len(t_vocab), -1, dtype=np.int64)
    idf = np.ones(len(shared))
    for n, k in enumerate(shared):
        a, b = s_vocab[k], t_vocab[k]
        s_map[a], t_map[b] = n, n
        if cfg.idf:
            idf[n] = math.log(1.0 + total / (df_s[a] + df_t[b]))
    return (
        _csr(len(src), s_rows, s_map[s_keys], s_w, idf),
        _csr(len(tgt), t_rows, t_map[t_keys], t_w, idf),
    )


def _flat_keys(sentences: Sequence[str], cfg: LexicalConfig):
    """Row, key number and weight of every (sentence, key), and the side's key numbering."""
    vocab: dict[str, int] = {}
    rows, keys, weights = array("q"), array("q"), array("d")
    for row, sentence in enumerate(sentences):
        for key, w in sentence_keys(sentence, cfg).items():
            rows.append(row)
            keys.append(vocab.setdefault(key, len(vocab)))
            weights.append(w)
    return (
        np.frombuffer(rows, dtype=np.int64),
        np.frombuffer(keys, dtype=np.int64),
        np.frombuffer(weights, dtype=np.float64),
        vocab,
    )


def _csr(count: int, rows: np.ndarray, index: np.ndarray, weights: np.ndarray, idf: np.ndarray):
    """Rows of (shared index, weight × idf), sorted by index; keys not shared left out."""
    keep = index >= 0
    rows, index, weights = rows[keep], index[keep], weights[keep]
    order = np.lexsort((index, rows))
    ptr = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=count), out=ptr[1:])
    return ptr, index[order].astype(np.int32), weights[order] * idf[index[order]]


def hstack_csr(parts: Sequence[tuple[tuple[np.ndarray, ...], int]]):
    """The rows of several CSR matrices side by side: ``parts`` are ``(matrix, column
    offset)``; row r of the result holds row r of each matrix in turn, its columns shifted by
    that matrix's offset (each block's columns must stay below the next block's offset, so
    the row stays sorted). Built in one go, without intermediate matrices."""
    ptrs = [p for (p, _, _), _ in parts]
    ptr = np.sum(ptrs, axis=0)
    idx = np.empty(ptr[-1], dtype=np.int32)
    val = np.empty(ptr[-1], dtype=np.float64)
    before = ptr[:-1].copy()  # where each row's next block starts
    for (p, i, v), offset in parts:
        # entry k of this block's row r lands at before[r] + (k - p[r])
        dest = np.arange(len(i), dtype=np.int64)
        dest += np.repeat(before - p[:-1], np.diff(p))
        idx[dest] = i + offset
        val[dest] = v
        before += np.diff(p)
    return ptr, idx, val
