"""What the link model reads and is scored on, per cell of a grid of pairs: the HMM's evidence
(``Evidence``, ``hmm_evidence``), the gold's labels (``cell_labels``), the outside resources'
columns (``knowledge_features``, ``knowledge_block``), and the figures a prediction earns against the gold
(``link_figures``, ``best_threshold``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from alignment_core.aligner.features import (
    CellGrid,
    GoldLexicon,
    LexiconCounts,
    TokenStats,
    cell_features,
    spelling_features,
)
from alignment_core.aligner.link_config import THRESHOLDS
from alignment_core.aligner.model import AlignerModel, pair_chunks
from alignment_core.aligner.tags import TagLexicon, tag_features
from alignment_core.aligner.thesaurus import Thesaurus, thesaurus_features
from alignment_core.aligner.vectors import WordVectors, vector_features
from alignment_core.aligner.wordclass import word_class_features
from alignment_core.aligner.wordnet import WordNet, wordnet_features
from alignment_core.alignment import Alignment

TokenPairs = Sequence[tuple[Sequence[str], Sequence[str]]]


@dataclass
class Evidence:
    """The HMM's view of some pairs: both directions' posteriors and Viterbi states."""

    forward: list[np.ndarray]
    backward: list[np.ndarray]
    forward_states: list[np.ndarray]
    backward_states: list[np.ndarray]

    @classmethod
    def of(cls, hmm: AlignerModel, pairs: TokenPairs) -> Evidence:
        fwd, bwd = hmm.directional_posteriors(pairs)
        fs, bs = hmm.viterbi(pairs)
        return cls(fwd, bwd, fs, bs)


def cell_labels(
    grid: CellGrid, widths: Sequence[int], gold: Sequence[Alignment]
) -> tuple[np.ndarray, np.ndarray]:
    """Per cell of ``grid``: linked (any gold link) and sure (a sure gold link), as bools.
    ``widths[n]`` is pair n's target length M."""
    cells, kinds = [], []
    for n, alignment in enumerate(gold):
        base, cols = int(grid.offsets[n]), int(widths[n])
        for links, kind in ((alignment.sure, True), (alignment.possible, False)):
            cells.extend(base + i * cols + j for i, j in links)
            kinds.extend([kind] * len(links))
    linked = np.zeros(len(grid), dtype=bool)
    sure = np.zeros(len(grid), dtype=bool)
    idx = np.asarray(cells, dtype=np.int64)
    linked[idx] = True
    sure[idx[np.asarray(kinds, dtype=bool)]] = True
    return linked, sure


def identical_cells(pairs: TokenPairs) -> np.ndarray:
    """Per cell: its two words are the same once casefolded (the "identical links")."""
    return np.concatenate(
        [
            (
                np.array([w.casefold() for w in s], dtype=object)[:, None]
                == np.array([w.casefold() for w in t], dtype=object)[None, :]
            ).ravel()
            for s, t in pairs
        ]
        or [np.zeros(0, dtype=bool)]
    ).astype(bool)


def link_figures(
    predicted: np.ndarray, linked: np.ndarray, identical: np.ndarray, n_pairs: int
) -> dict[str, float | None]:
    """Edits per pair (|predicted Δ gold|), and precision/recall/F1 of the predicted links
    against every gold link, over all links and over non-identical ones."""
    out: dict[str, float | None] = {
        "edits_per_pair": float(np.count_nonzero(predicted != linked)) / max(n_pairs, 1)
    }
    for name, mask in (("all", slice(None)), ("nonident", ~identical)):
        p, g = predicted[mask], linked[mask]
        hit = float(np.count_nonzero(p & g))
        precision = hit / np.count_nonzero(p) if np.count_nonzero(p) else None
        recall = hit / np.count_nonzero(g) if np.count_nonzero(g) else None
        f1 = (
            2 * precision * recall / (precision + recall)
            if precision is not None and recall is not None and precision + recall > 0
            else None
        )
        out.update({f"{name}_precision": precision, f"{name}_recall": recall, f"{name}_f1": f1})
    return out


def best_threshold(
    probability: np.ndarray, linked: np.ndarray, thresholds: np.ndarray = THRESHOLDS
) -> float:
    """The threshold (from ``thresholds``) with the fewest edits; ties go to the lowest."""
    order = np.argsort(probability, kind="stable")
    p_sorted = probability[order]
    pos_sorted = linked[order].astype(np.int64)
    # cells below t: their positives are misses; cells at or above t: negatives are extras
    below = np.searchsorted(p_sorted, thresholds, side="left")
    cum_pos = np.concatenate([[0], np.cumsum(pos_sorted)])
    misses = cum_pos[below]
    above_total = len(p_sorted) - below
    extras = above_total - (cum_pos[-1] - cum_pos[below])
    edits = misses + extras
    return float(thresholds[int(np.argmin(edits))])


def best_sure_threshold(
    p_sure: np.ndarray, sure: np.ndarray, thresholds: np.ndarray = THRESHOLDS
) -> float:
    """The threshold on P(sure | link) (from ``thresholds``) that labels the most of these
    links right (``p_sure`` of the predicted links that are gold links, ``sure`` their gold
    labels); ties go to the one nearest ½, and ½ when there is nothing to learn from."""
    if not len(p_sure):
        return 0.5
    order = np.argsort(p_sure, kind="stable")
    p_sorted = p_sure[order]
    sure_sorted = sure[order].astype(np.int64)
    below = np.searchsorted(p_sorted, thresholds, side="left")
    cum_sure = np.concatenate([[0], np.cumsum(sure_sorted)])
    # below t: the sure ones are labelled wrong; at or above t: the possible ones
    wrong = cum_sure[below] + (len(p_sorted) - below) - (cum_sure[-1] - cum_sure[below])
    fewest = np.flatnonzero(wrong == wrong.min())
    return float(thresholds[fewest[np.argmin(np.abs(thresholds[fewest] - 0.5))]])


def knowledge_features(
    grid: CellGrid,
    pairs: TokenPairs,
    wordnet: WordNet | None,
    vectors: WordVectors | None,
    thesaurus: Thesaurus | None,
    word_classes: bool,
    tags: TagLexicon | None,
    say: Callable[[str], None] = lambda what: None,
    spelling: bool = False,
) -> list[np.ndarray]:
    """The columns of the outside resources in use, of the word classes and of the spelling,
    in the order training and prediction share (``WORDNET_NAMES``, ``VECTOR_NAMES``,
    ``THESAURUS_NAMES``, ``WORD_CLASS_NAMES``, ``TAG_NAMES``, ``SPELLING_NAMES``); ``say``
    hears what is being computed."""
    blocks = []
    if wordnet is not None:
        say("WordNet relations of the gold pairs' words")
        blocks.append(wordnet_features(grid, pairs, wordnet))
    if vectors is not None:
        say("word vectors of the gold pairs' words")
        blocks.append(vector_features(grid, pairs, vectors))
    if thesaurus is not None:
        say("the thesaurus on the gold pairs' words and phrases")
        blocks.append(thesaurus_features(grid, pairs, thesaurus, wordnet))
    if word_classes:
        say("word classes of the gold pairs' words")
        blocks.append(word_class_features(grid, pairs, wordnet))
    if tags is not None:
        say("the tag lexicon on the gold pairs' words")
        blocks.append(tag_features(grid, pairs, tags))
    if spelling:
        blocks.append(spelling_features(grid, pairs))
    return blocks


def knowledge_block(
    pairs: TokenPairs,
    wordnet: WordNet | None,
    vectors: WordVectors | None,
    thesaurus: Thesaurus | None,
    word_classes: bool,
    tags: TagLexicon | None,
    spelling: bool = False,
) -> np.ndarray:
    """``knowledge_features`` of ``pairs`` joined into one block (cells × their columns, 0
    columns when none is used)."""
    grid = CellGrid.of([(len(s), len(t)) for s, t in pairs])
    blocks = knowledge_features(
        grid, pairs, wordnet, vectors, thesaurus, word_classes, tags, spelling=spelling
    )
    return np.hstack(blocks) if blocks else np.zeros((len(grid), 0), dtype=np.float32)


def hmm_cell_features(hmm: AlignerModel, stats: TokenStats, pairs: TokenPairs):
    evidence = Evidence.of(hmm, pairs)
    return cell_features(
        pairs,
        forward=evidence.forward,
        backward=evidence.backward,
        forward_states=evidence.forward_states,
        backward_states=evidence.backward_states,
        stats=stats,
    )


GOLD_HMM_NAMES = ("gold_hmm_forward", "gold_hmm_backward", "gold_hmm_both")


def hmm_evidence(hmm: AlignerModel, pairs: TokenPairs) -> np.ndarray:
    """Per cell of ``pairs`` (the ``CellGrid`` layout): ``GOLD_HMM_NAMES`` from ``hmm``."""
    if not pairs:
        return np.zeros((0, len(GOLD_HMM_NAMES)), dtype=np.float32)
    ev = Evidence.of(hmm, pairs)
    grid = CellGrid.of([(len(s), len(t)) for s, t in pairs])
    fwd = np.concatenate([f.ravel() for f in ev.forward])
    bwd = np.concatenate([b.ravel() for b in ev.backward])
    fstates = np.concatenate([np.asarray(x, dtype=np.int64) for x in ev.forward_states])
    bstates = np.concatenate([np.asarray(x, dtype=np.int64) for x in ev.backward_states])
    both = (fstates[grid.col] == grid.i) & (bstates[grid.row] == grid.j)
    return np.column_stack([fwd, bwd, both]).astype(np.float32)


# Cells a block of ``lexicon_of`` counts at a time (about 100 bytes a cell while counted: at
# once, the model's own links on 20,000 pairs took 0.95 GB).
LEXICON_CELLS = 500_000


def lexicon_of(stats: TokenStats, pairs: TokenPairs, alignments: Mapping[int, Alignment]):
    """The gold lexicon counted on every cell of ``alignments``' pairs, a block of at most
    ``LEXICON_CELLS`` cells at a time (the same lexicon, bit for bit, as all at once)."""
    idx = sorted(alignments)
    counts = LexiconCounts(len(stats.index))
    for lo, hi in pair_chunks([pairs[n] for n in idx], LEXICON_CELLS):
        chosen = [pairs[n] for n in idx[lo:hi]]
        grid = CellGrid.of([(len(s), len(t)) for s, t in chosen])
        widths = [len(t) for _, t in chosen]
        linked, _ = cell_labels(grid, widths, [alignments[n] for n in idx[lo:hi]])
        everything = np.ones(len(grid), dtype=bool)
        counts.add(grid, *stats.word_ids(chosen), linked, everything)
    return GoldLexicon.of_counts(counts)
