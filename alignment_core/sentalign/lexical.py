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
    """CSR vectors ``(indptr, indices, values)`` of both sides over their shared keys."""
    cfg = cfg or LexicalConfig()
    sk = [sentence_keys(s, cfg) for s in src]
    tk = [sentence_keys(t, cfg) for t in tgt]
    df_s: Counter[str] = Counter(k for keys in sk for k in keys)
    df_t: Counter[str] = Counter(k for keys in tk for k in keys)
    shared = sorted(set(df_s) & set(df_t))
    index = {k: n for n, k in enumerate(shared)}
    total = len(src) + len(tgt)
    idf = {k: math.log(1.0 + total / (df_s[k] + df_t[k])) if cfg.idf else 1.0 for k in shared}
    return _csr(sk, index, idf), _csr(tk, index, idf)


def _csr(rows: list[Counter[str]], index: dict[str, int], idf: dict[str, float]):
    ptr = [0]
    idx: list[int] = []
    val: list[float] = []
    for keys in rows:
        items = sorted((index[k], w * idf[k]) for k, w in keys.items() if k in index)
        idx.extend(i for i, _ in items)
        val.extend(v for _, v in items)
        ptr.append(len(idx))
    return (
        np.array(ptr, dtype=np.int64),
        np.array(idx, dtype=np.int64),
        np.array(val, dtype=np.float64),
    )


def hstack_csr(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...], offset: int):
    """Rows of ``a`` followed (column-wise) by rows of ``b`` shifted by ``offset`` columns."""
    pa, ia, va = a
    pb, ib, vb = b
    n = len(pa) - 1
    ptr = pa + pb
    idx = np.empty(ptr[-1], dtype=np.int64)
    val = np.empty(ptr[-1], dtype=np.float64)
    for r in range(n):
        la = pa[r + 1] - pa[r]
        s = ptr[r]
        idx[s : s + la] = ia[pa[r] : pa[r + 1]]
        val[s : s + la] = va[pa[r] : pa[r + 1]]
        idx[s + la : ptr[r + 1]] = ib[pb[r] : pb[r + 1]] + offset
        val[s + la : ptr[r + 1]] = vb[pb[r] : pb[r + 1]]
    return ptr, idx, val
