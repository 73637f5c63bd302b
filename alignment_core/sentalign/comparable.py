"""Sentence pairs from comparable documents (seeds 001, 002): same topic, different text, any
order.

Every source sentence is scored against every target sentence by a similarity model built
from what the seeds used, then pairs are kept by mutual-best matching above a threshold:

* a weighted Dice overlap of the two sentences' *keys* — content words (a 5-letter folded
  prefix stands in for the stem, so "expedition" / "expeditions" / "Expedition" meet), numbers
  and names (capitalised words inside a sentence) weighing more; each key weighted by its
  inverse document frequency over both documents (a word in every sentence says little);
* for each sentence's best few candidates, a soft overlap that also counts a word matched
  through WordNet, the thesaurus or a word-vector cosine ≥ 0.6 (``paraphrase.Resources``,
  optional arguments built at the edge) — the score is the larger of the two.

The score is in [0, 1]; ``ComparableConfig.threshold`` was chosen on pairs built from
Edinburgh++'s MTC sentences (``benchmarks/sentalign.py --only comparable``): words only,
threshold 0.2 → P 0.989 / R 0.975; 0.3 → 0.992 / 0.949; 0.4 → 0.991 / 0.822. The resources
raise recall a little but cost precision there (0.943-0.960: a distractor meets synonyms
too), so the CLI reads them only on request (``--resources``).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from alignment_core.paraphrase.features import STOP_WORDS, Resources
from alignment_core.sentalign.lexical import fold

_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class ComparableConfig:
    threshold: float = 0.2
    candidates: int = 3  # best candidates per sentence re-scored with the resources
    w_number: float = 2.0
    w_name: float = 1.5
    prefix: int = 5
    vector_min: float = 0.6


@dataclass(frozen=True)
class ComparablePair:
    src: int
    tgt: int
    score: float


def _keys(sentence: str, cfg: ComparableConfig) -> Counter[str]:
    keys: Counter[str] = Counter()
    for pos, tok in enumerate(_WORD.findall(sentence)):
        low = tok.lower()
        if tok.isdigit() or any(ch.isdigit() for ch in tok):
            keys["N:" + low] += cfg.w_number
        elif low not in STOP_WORDS and len(low) > 1:
            w = cfg.w_name if pos > 0 and tok[0].isupper() else 1.0
            keys["W:" + fold(low)[: cfg.prefix]] += w
    return keys


def similarity_matrix(
    src: Sequence[str],
    tgt: Sequence[str],
    *,
    config: ComparableConfig | None = None,
    resources: Resources | None = None,
) -> np.ndarray:
    """(n, m) scores in [0, 1]: weighted Dice of keys, raised by the soft overlap for each
    sentence's best candidates when resources are given."""
    cfg = config or ComparableConfig()
    n, m = len(src), len(tgt)
    if n == 0 or m == 0:
        return np.zeros((n, m))
    sk = [_keys(s, cfg) for s in src]
    tk = [_keys(t, cfg) for t in tgt]
    df: Counter[str] = Counter(k for keys in sk + tk for k in keys)
    total = n + m
    idf = {k: math.log(1.0 + total / c) for k, c in df.items()}
    vocab = {k: i for i, k in enumerate(df)}
    S = np.zeros((n, len(vocab)))
    T = np.zeros((m, len(vocab)))
    for row, keys in enumerate(sk):
        for k, w in keys.items():
            S[row, vocab[k]] = w * idf[k]
    for row, keys in enumerate(tk):
        for k, w in keys.items():
            T[row, vocab[k]] = w * idf[k]
    # weighted Dice: 2 Σ min(s, t) / (Σ s + Σ t)
    inter = np.zeros((n, m))
    for i in range(n):
        inter[i] = np.minimum(S[i][None, :], T).sum(1)
    mass = S.sum(1)[:, None] + T.sum(1)[None, :]
    sim = np.where(mass > 0, 2 * inter / np.maximum(mass, 1e-12), 0.0)
    if resources is not None and (resources.wordnet or resources.vectors or resources.thesaurus):
        soft = _SoftOverlap(resources, cfg)
        todo = set()
        k = min(cfg.candidates, m)
        for i in range(n):
            todo.update((i, int(j)) for j in np.argsort(-sim[i])[:k])
        k = min(cfg.candidates, n)
        for j in range(m):
            todo.update((int(i), j) for i in np.argsort(-sim[:, j])[:k])
        for i, j in todo:
            sim[i, j] = max(sim[i, j], soft.score(src[i], tgt[j]))
    return sim


class _SoftOverlap:
    """Dice over content words where a word may also meet a synonym (WordNet, thesaurus) or a
    close word vector on the other side."""

    def __init__(self, res: Resources, cfg: ComparableConfig) -> None:
        from alignment_core.paraphrase.features import FeatureExtractor

        self.fx = FeatureExtractor(res)
        self.res = res
        self.cfg = cfg

    def _words(self, text: str) -> list[str]:
        return [w.lower() for w in _WORD.findall(text) if w.lower() not in STOP_WORDS]

    def _matched(self, a: list[str], b: list[str]) -> int:
        vec = self.res.vectors
        hits = 0
        bset = set(b)
        bbase = {self.fx.base(w) for w in b}
        for w in a:
            if (
                w in bset
                or self.fx.base(w) in bbase
                or any(self.fx.related(w, v) for v in bset)
                or vec is not None
                and any(vec.similarity(w, v) >= self.cfg.vector_min for v in b)
            ):
                hits += 1
        return hits

    def score(self, s: str, t: str) -> float:
        a, b = self._words(s), self._words(t)
        if not a or not b:
            return 0.0
        return (self._matched(a, b) + self._matched(b, a)) / (len(a) + len(b))


def match_comparable(
    src: Sequence[str],
    tgt: Sequence[str],
    *,
    config: ComparableConfig | None = None,
    resources: Resources | None = None,
) -> list[ComparablePair]:
    """Mutual-best pairs scoring at least the threshold, sorted by source index."""
    cfg = config or ComparableConfig()
    sim = similarity_matrix(src, tgt, config=cfg, resources=resources)
    if sim.size == 0:
        return []
    best_t = sim.argmax(1)
    best_s = sim.argmax(0)
    out = []
    for i, j in enumerate(best_t):
        if best_s[j] == i and sim[i, j] >= cfg.threshold and sim[i, j] > 0:
            out.append(ComparablePair(i, int(j), float(sim[i, j])))
    return out
