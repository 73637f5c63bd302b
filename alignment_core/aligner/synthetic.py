"""A seeded synthetic paraphrase corpus with known alignments, for speed and sanity checks.

Each pair: a source sentence drawn from a Zipfian vocabulary; the target copies it, replacing
words by one of their synonyms (distinct word types), swapping neighbours, dropping a few
words and inserting a few unrelated ones. The gold alignment links every copied or replaced
word to its origin (all sure, 0-based); dropped and inserted words are unaligned.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from alignment_core.alignment import Alignment


@dataclass
class SyntheticCorpus:
    """Token pairs and their gold alignments, index for index."""

    pairs: list[tuple[list[str], list[str]]]
    gold: list[Alignment]


def synthetic_corpus(
    n_pairs: int = 20_000,
    *,
    vocab_size: int = 20_000,
    min_len: int = 15,
    max_len: int = 25,
    zipf_exponent: float = 1.0,
    substitution_rate: float = 0.2,
    synonyms_per_word: int = 2,
    swap_rate: float = 0.1,
    deletion_rate: float = 0.02,
    insertion_rate: float = 0.02,
    seed: int = 0,
) -> SyntheticCorpus:
    """Generate ``n_pairs`` pairs (source length uniform in [min_len, max_len]).

    * words ``w0 … w{vocab_size-1}`` with probability ∝ 1 / (rank + 1) ** ``zipf_exponent``;
    * each target token is, with ``substitution_rate``, one of the word's
      ``synonyms_per_word`` synonyms (``w12~0``, ``w12~1``), else the word itself;
    * each adjacent pair of target tokens is swapped with ``swap_rate`` (no token moves more
      than one place); each source word is dropped with ``deletion_rate``, and after each
      token an unrelated word is inserted with ``insertion_rate``.
    """
    rng = np.random.default_rng(seed)
    ranks = np.arange(1, vocab_size + 1, dtype=np.float64)
    probs = ranks**-zipf_exponent
    probs /= probs.sum()
    words = [f"w{k}" for k in range(vocab_size)]
    pairs: list[tuple[list[str], list[str]]] = []
    gold: list[Alignment] = []
    lengths = rng.integers(min_len, max_len + 1, size=n_pairs)
    total = int(lengths.sum())
    draws = rng.choice(vocab_size, size=total, p=probs)
    inserted = rng.choice(vocab_size, size=total, p=probs)
    keep = rng.random(total) >= deletion_rate
    substitute = rng.random(total) < substitution_rate
    synonym = rng.integers(synonyms_per_word, size=total)
    insert = rng.random(total) < insertion_rate
    swaps = rng.random(2 * total) < swap_rate
    start = 0
    for length in lengths.tolist():
        source = [words[k] for k in draws[start : start + length].tolist()]
        target: list[tuple[str, int]] = []  # (token, source position or -1)
        for i in range(length):
            x = start + i
            if keep[x]:
                token = f"{source[i]}~{synonym[x]}" if substitute[x] else source[i]
                target.append((token, i))
            if insert[x]:
                target.append((words[inserted[x]], -1))
        _swap_neighbours(target, swaps, 2 * start)
        start += length
        pairs.append((source, [tok for tok, _ in target]))
        gold.append(Alignment.from_sets((i, j) for j, (_, i) in enumerate(target) if i >= 0))
    return SyntheticCorpus(pairs, gold)


def _swap_neighbours(target: list, swaps: np.ndarray, offset: int) -> None:
    """Swap adjacent tokens of ``target`` in place, left to right, where ``swaps[offset + j]``
    says so for the pair at j, j+1; a token that moved is not swapped again."""
    j = 0
    while j < len(target) - 1:
        if swaps[offset + j]:
            target[j], target[j + 1] = target[j + 1], target[j]
            j += 2
        else:
            j += 1
