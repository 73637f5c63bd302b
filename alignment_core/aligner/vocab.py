"""Vocabularies and the flat corpus layout the compiled kernels work on.

Every side has its own vocabulary. Ids are 0-based ``int32``; two ids are reserved:

* ``NULL_ID = 0``: the empty word (the HMM's NULL state; never a token);
* ``UNK_ID = 1``: a word the model has not seen (only when aligning new pairs).

A corpus is stored flat: ``src`` holds every source sentence's ids concatenated and
``src_off[n]:src_off[n + 1]`` slices out pair ``n`` (likewise ``tgt``/``tgt_off``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

NULL_ID = 0
UNK_ID = 1
_N_RESERVED = 2


class Vocabulary:
    """A mapping from word strings to ids ``>= 2`` (0 and 1 are NULL and UNK)."""

    def __init__(self, words: Iterable[str] = ()) -> None:
        self.words: list[str] = []
        self._index: dict[str, int] = {}
        for w in words:
            self.add(w)

    def add(self, word: str) -> int:
        """The id of ``word``, adding it if new."""
        idx = self._index.get(word)
        if idx is None:
            idx = len(self.words) + _N_RESERVED
            self._index[word] = idx
            self.words.append(word)
        return idx

    def get(self, word: str) -> int:
        """The id of ``word``, or ``UNK_ID`` when unknown."""
        return self._index.get(word, UNK_ID)

    def __contains__(self, word: object) -> bool:
        return word in self._index

    def __len__(self) -> int:
        """Number of ids including the two reserved ones."""
        return len(self.words) + _N_RESERVED

    def word(self, idx: int) -> str:
        if idx == NULL_ID:
            return "<null>"
        if idx == UNK_ID:
            return "<unk>"
        return self.words[idx - _N_RESERVED]

    def to_array(self) -> np.ndarray:
        """The words (without the reserved ids) as a numpy unicode array, for ``.npz`` files."""
        return np.array(self.words, dtype=np.str_)

    @classmethod
    def from_array(cls, arr: np.ndarray) -> Vocabulary:
        return cls(str(w) for w in arr.tolist())


@dataclass
class FlatCorpus:
    """Sentence pairs as id arrays: ``src[src_off[n]:src_off[n+1]]`` is pair n's source (0-based)."""

    src: np.ndarray  # int32
    src_off: np.ndarray  # int64, length n_pairs + 1
    tgt: np.ndarray  # int32
    tgt_off: np.ndarray  # int64, length n_pairs + 1

    @property
    def n_pairs(self) -> int:
        return len(self.src_off) - 1

    def src_len(self) -> np.ndarray:
        return np.diff(self.src_off)

    def tgt_len(self) -> np.ndarray:
        return np.diff(self.tgt_off)


def normalise_tokens(tokens: Sequence[str], lowercase: bool) -> list[str]:
    """The tokens the model sees: casefolded when ``lowercase``."""
    return [t.casefold() for t in tokens] if lowercase else list(tokens)


def _offsets(lengths: Sequence[int]) -> np.ndarray:
    off = np.zeros(len(lengths) + 1, dtype=np.int64)
    if lengths:
        np.cumsum(np.asarray(lengths, dtype=np.int64), out=off[1:])
    return off


def encode_corpus(
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    src_vocab: Vocabulary,
    tgt_vocab: Vocabulary,
    *,
    grow: bool,
) -> FlatCorpus:
    """Encode token pairs (already normalised). ``grow`` adds new words; otherwise they map to UNK."""
    src_ids: list[int] = []
    tgt_ids: list[int] = []
    src_lens: list[int] = []
    tgt_lens: list[int] = []
    src_map = src_vocab.add if grow else src_vocab.get
    tgt_map = tgt_vocab.add if grow else tgt_vocab.get
    for source, target in pairs:
        src_ids.extend(src_map(w) for w in source)
        tgt_ids.extend(tgt_map(w) for w in target)
        src_lens.append(len(source))
        tgt_lens.append(len(target))
    return FlatCorpus(
        np.asarray(src_ids, dtype=np.int32),
        _offsets(src_lens),
        np.asarray(tgt_ids, dtype=np.int32),
        _offsets(tgt_lens),
    )
