"""Features of a sentence pair: do the two sentences say the same thing? (seed 002)

Hatzivassiloglou, Klavans & Eskin (1999) compare short passages by the overlap of words, noun
phrases, WordNet synonyms, verb classes and proper nouns; the MT-metric paraphrase work
(Madnani et al. 2012) adds n-gram precision and recall in both directions. Here, per pair
(``FEATURE_NAMES``, all floats):

* lengths: the two token counts, their difference and ratio;
* n-gram overlap (n = 1…4) of lowercased tokens: precision against each side, and unigram
  overlap of base forms (WordNet's morphy when given, else a 5-letter prefix);
* content words (no stop words), proper nouns (capitalised words inside a sentence), numbers:
  overlap, and how many of each side find no partner — a number one sentence has and the
  other lacks is the strongest sign of "not the same";
* synonyms: content words without an exact partner that find one through WordNet (synonym,
  one pointer, same lemma) or the thesaurus; word vectors: the mean best cosine of each
  side's words against the other's, and the cosine of the two sentences' mean vectors;
* the longest common token subsequence and a character-level similarity.

Outside knowledge is an *argument* (``Resources``), loaded at the edge (the CLI), never from a
global here; without it the synonym and vector features are 0 (and say so by being constant).
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|\w+(?:'\w+)?|[^\w\s]", re.UNICODE)
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "as",
        "into",
        "onto",
        "about",
        "over",
        "after",
        "before",
        "between",
        "during",
        "under",
        "than",
        "then",
        "that",
        "this",
        "these",
        "those",
        "there",
        "here",
        "it",
        "its",
        "it's",
        "he",
        "she",
        "they",
        "them",
        "his",
        "her",
        "their",
        "we",
        "our",
        "you",
        "your",
        "i",
        "me",
        "my",
        "be",
        "is",
        "are",
        "was",
        "were",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "done",
        "has",
        "have",
        "had",
        "having",
        "will",
        "would",
        "shall",
        "should",
        "can",
        "could",
        "may",
        "might",
        "must",
        "not",
        "no",
        "nor",
        "so",
        "too",
        "very",
        "also",
        "just",
        "only",
        "s",
        "'s",
        "said",
        "says",
        "say",
    ]
)


@dataclass(frozen=True)
class Resources:
    """Optional outside knowledge (``alignment_core.aligner``'s readers): any may be None."""

    wordnet: Any = None
    vectors: Any = None
    thesaurus: Any = None

    @classmethod
    def load(cls) -> Resources:
        """Whatever is installed (the CLI's edge; tests build their own)."""
        from alignment_core.aligner.thesaurus import Thesaurus
        from alignment_core.aligner.vectors import WordVectors
        from alignment_core.aligner.wordnet import WordNet

        return cls(WordNet.load(), WordVectors.load(), Thesaurus.load())


@dataclass(frozen=True)
class Sentence:
    tokens: tuple[str, ...]  # as written
    lower: tuple[str, ...]
    content: frozenset[str]
    names: frozenset[str]
    numbers: frozenset[str]


def analyse(text: str) -> Sentence:
    toks = tuple(_TOKEN.findall(text))
    lower = tuple(t.lower() for t in toks)
    words = [t for t in lower if t[0].isalnum()]
    content = frozenset(w for w in words if w not in STOP_WORDS and not w[0].isdigit())
    names = frozenset(
        t.lower() for k, t in enumerate(toks) if k > 0 and t[:1].isupper() and t.isalpha()
    )
    numbers = frozenset(t.replace(",", "") for t in toks if t[0].isdigit())
    return Sentence(toks, lower, content, names, numbers)


FEATURE_NAMES: tuple[str, ...] = (
    "len1", "len2", "len_diff", "len_ratio",
    "p1_1", "p2_1", "p1_2", "p2_2", "p1_3", "p2_3", "p1_4", "p2_4",
    "base_p1", "base_p2",
    "content_p1", "content_p2", "content_jaccard",
    "names_jaccard", "names_only1", "names_only2",
    "numbers_n1", "numbers_n2", "numbers_jaccard", "numbers_only1", "numbers_only2",
    "numbers_equal",
    "syn_p1", "syn_p2",
    "vec_best1", "vec_best2", "vec_mean_cos",
    "lcs1", "lcs2", "char_ratio",
)  # fmt: skip


def _ngrams(seq: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(seq[k : k + n]) for k in range(len(seq) - n + 1))


def _overlap(a: Counter, b: Counter) -> tuple[float, float]:
    common = sum((a & b).values())
    return (common / sum(a.values()) if a else 0.0, common / sum(b.values()) if b else 0.0)


def _jaccard(a: frozenset, b: frozenset) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for k, y in enumerate(b):
            cur.append(prev[k] + 1 if x == y else max(prev[k + 1], cur[k]))
        prev = cur
    return prev[-1]


class FeatureExtractor:
    """Pair features with caches per word (base forms, relations, vectors)."""

    def __init__(self, resources: Resources | None = None) -> None:
        self.res = resources or Resources()
        self._base: dict[str, str] = {}
        self._rel: dict[tuple[str, str], bool] = {}

    def base(self, word: str) -> str:
        if word not in self._base:
            wn = self.res.wordnet
            self._base[word] = wn.base_form(word) if wn is not None else word[:5]
        return self._base[word]

    def related(self, a: str, b: str) -> bool:
        key = (a, b) if a < b else (b, a)
        if key not in self._rel:
            found = False
            wn, th = self.res.wordnet, self.res.thesaurus
            if wn is not None:
                rel = wn.relation(a, b)
                found = bool(rel.synonym or rel.same_lemma or rel.related)
            if not found and th is not None:
                found = bool(th.related(a, b, wn))
            self._rel[key] = found
        return self._rel[key]

    def _syn(self, a: frozenset[str], b: frozenset[str]) -> float:
        """Share of ``a``'s content words matched in ``b`` exactly, by base form or through
        a synonym relation."""
        if not a:
            return 1.0
        hits = 0
        b_base = {self.base(w) for w in b}
        for w in a:
            if w in b or self.base(w) in b_base or any(self.related(w, v) for v in b - a):
                hits += 1
        return hits / len(a)

    def _vectors(self, s1: Sentence, s2: Sentence) -> tuple[float, float, float]:
        vec = self.res.vectors
        if vec is None or not s1.content or not s2.content:
            return 0.0, 0.0, 0.0
        e1, k1 = vec.embed(sorted(s1.content))
        e2, k2 = vec.embed(sorted(s2.content))
        e1 = np.asarray(e1, dtype=np.float64)[np.asarray(k1, dtype=bool)]
        e2 = np.asarray(e2, dtype=np.float64)[np.asarray(k2, dtype=bool)]
        if not len(e1) or not len(e2):
            return 0.0, 0.0, 0.0
        sim = e1 @ e2.T
        m1, m2 = e1.mean(0), e2.mean(0)
        cos = float(m1 @ m2 / (np.linalg.norm(m1) * np.linalg.norm(m2) + 1e-12))
        return float(sim.max(1).mean()), float(sim.max(0).mean()), cos

    def features(self, text1: str, text2: str) -> np.ndarray:
        s1, s2 = analyse(text1), analyse(text2)
        n1, n2 = len(s1.lower), len(s2.lower)
        out: list[float] = [n1, n2, abs(n1 - n2), min(n1, n2) / max(n1, n2, 1)]
        for n in (1, 2, 3, 4):
            out.extend(_overlap(_ngrams(s1.lower, n), _ngrams(s2.lower, n)))
        b1 = Counter(self.base(w) for w in s1.lower if w[0].isalnum())
        b2 = Counter(self.base(w) for w in s2.lower if w[0].isalnum())
        out.extend(_overlap(b1, b2))
        common = len(s1.content & s2.content)
        out.extend(
            [
                common / len(s1.content) if s1.content else 1.0,
                common / len(s2.content) if s2.content else 1.0,
                _jaccard(s1.content, s2.content),
                _jaccard(s1.names, s2.names),
                len(s1.names - s2.names - s2.content),
                len(s2.names - s1.names - s1.content),
                len(s1.numbers),
                len(s2.numbers),
                _jaccard(s1.numbers, s2.numbers),
                len(s1.numbers - s2.numbers),
                len(s2.numbers - s1.numbers),
                float(s1.numbers == s2.numbers),
                self._syn(s1.content, s2.content),
                self._syn(s2.content, s1.content),
            ]
        )
        out.extend(self._vectors(s1, s2))
        lcs = _lcs(s1.lower, s2.lower)
        out.extend([lcs / max(n1, 1), lcs / max(n2, 1)])
        out.append(difflib.SequenceMatcher(None, text1.lower(), text2.lower()).ratio())
        return np.array(out, dtype=np.float64)

    def matrix(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        if not pairs:
            return np.zeros((0, len(FEATURE_NAMES)))
        return np.vstack([self.features(a, b) for a, b in pairs])
