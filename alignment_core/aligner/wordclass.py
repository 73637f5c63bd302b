"""Word classes as evidence for the supervised link model: what part of speech each word can
be, and which English function word it is.

Most of the links the model misses are a function word linked inside a phrase block ("has
released" ↔ "are available", "the man" ↔ "a man"), which annotators link by the class of
the words around a content-word link: an article beside a linked noun goes with the article
(or the noun) beside its partner. The other features see a word's frequency and spelling,
not its class; these say it.

Per word (casefolded), on each side of cell (i, j):

* ``*_noun_share``, ``*_verb_share``, ``*_adj_share``, ``*_adv_share``: the share of the
  word's WordNet synsets (of its base forms, ``WordNet.synsets``) in each part of speech
  ("released": all verb; "light": mostly noun); all 0 for a word WordNet does not know
  (function words, names, numbers) or when no WordNet is given;
* ``*_closed``: 1 when the word is one of ``CLOSED_CLASSES``' English function words;
* ``*_closed_class``: which of them (1–6, in ``CLOSED_CLASSES``' order; 0 for none);

and of the two words together:

* ``pos_cosine``: the cosine of the two words' part-of-speech shares (-1 when either has
  none): a verb against a verb 1, a verb against a noun 0;
* ``same_closed_class``: 1 when both are function words of one class, 0 when of two
  classes, -1 when either is not one.

    word_class_features(grid, pairs, wordnet)   # WORD_CLASS_NAMES per cell of a CellGrid

Chosen on six outer 3-fold splits of Edinburgh++'s train gold (the seed model's notebook,
``benchmarks/seed_learning.md``); the list is English, as are WordNet, the vectors and the
thesaurus: for another language the closed-class columns are all 0 and the trees ignore them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from alignment_core.aligner.features import CellGrid, per_word
from alignment_core.aligner.wordnet import POS, WordNet, synset_pos

# English function words by class (casefolded tokens as Edinburgh++ and MSR tokenise them).
_CLASS_WORDS = {
    "determiner": "a an the this that these those some any no every each either neither all "
    "both half several many much few little more most less least such what which whose",
    "pronoun": "i me my mine myself you your yours yourself yourselves he him his himself she "
    "her hers herself it its itself we us our ours ourselves they them their theirs themselves "
    "one someone somebody something anyone anybody anything everyone everybody everything "
    "nobody nothing who whom",
    "preposition": "of in on at by for with from to into onto upon over under above below "
    "between among through during before after about against without within along across "
    "behind beyond near since until till toward towards via per than like as off out up down "
    "around",
    "conjunction": "and or but nor so yet because although though while whereas if unless "
    "whether when where whenever wherever how why",
    "auxiliary": "be am is are was were been being have has had having do does did doing will "
    "would shall should can could may might must 's 're 've 'd 'll 'm",
    "adverb": "not n't never also just only even still already very too quite rather there "
    "here then now",
}
CLOSED_CLASSES: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (name, tuple(words.split())) for name, words in _CLASS_WORDS.items()
)
WORD_CLASS: dict[str, int] = {
    word: k for k, (_, words) in enumerate(CLOSED_CLASSES, start=1) for word in words
}
_SIDE = (*(f"{pos}_share" for pos in POS), "closed", "closed_class")
WORD_CLASS_NAMES = (
    *(f"source_{name}" for name in _SIDE),
    *(f"target_{name}" for name in _SIDE),
    "pos_cosine",
    "same_closed_class",
)


def word_profile(word: str, wordnet: WordNet | None) -> np.ndarray:
    """The per-word columns (``_SIDE``) of a casefolded word."""
    out = np.zeros(len(_SIDE), dtype=np.float32)
    synsets = wordnet.synsets(word) if wordnet is not None else ()
    for synset in synsets:
        out[synset_pos(synset)] += 1.0
    if synsets:
        out[: len(POS)] /= len(synsets)
    kind = WORD_CLASS.get(word, 0)
    out[len(POS)] = float(kind > 0)
    out[len(POS) + 1] = float(kind)
    return out


def word_class_features(
    grid: CellGrid,
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    wordnet: WordNet | None = None,
) -> np.ndarray:
    """``WORD_CLASS_NAMES`` for every cell of ``grid`` (the cells of ``pairs``), float32."""
    a, b = per_word(grid, pairs, lambda word: word_profile(word, wordnet), len(_SIDE))
    shares_a, shares_b = a[:, : len(POS)], b[:, : len(POS)]
    norms = np.linalg.norm(shares_a, axis=1) * np.linalg.norm(shares_b, axis=1)
    cosine = np.full(len(grid), -1.0, dtype=np.float32)
    np.divide((shares_a * shares_b).sum(axis=1), norms, out=cosine, where=norms > 0)
    kind_a, kind_b = a[:, len(POS) + 1], b[:, len(POS) + 1]
    same = np.where((kind_a > 0) & (kind_b > 0), (kind_a == kind_b).astype(np.float32), -1.0)
    return np.hstack([a, b, cosine[:, None], same[:, None].astype(np.float32)]).astype(
        np.float32, copy=False
    )
