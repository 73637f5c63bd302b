"""``SeedModel``: what seeds a project, the HMM alone or the HMM's evidence read by the fitted
link classifiers; and ``uncertainty``, how unsure a pair's link probabilities are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from alignment_core.aligner.features import (
    CellGrid,
    GoldLexicon,
    TokenStats,
)
from alignment_core.aligner.gc_pause import fewer_collections
from alignment_core.aligner.link_classifiers import LinkStages
from alignment_core.aligner.link_inputs import hmm_cell_features, hmm_evidence, knowledge_block
from alignment_core.aligner.model import AlignerModel, pair_chunks
from alignment_core.aligner.pair_inputs import PairInputs
from alignment_core.aligner.tags import TagLexicon
from alignment_core.aligner.thesaurus import Thesaurus
from alignment_core.aligner.vectors import WordVectors
from alignment_core.aligner.wordnet import WordNet, base_form_pairs
from alignment_core.alignment import Alignment

TokenPairs = Sequence[tuple[Sequence[str], Sequence[str]]]

# The link classifiers read pairs holding at most this many grid cells at a time. A cell's
# inputs take about 1 kB while they are read (a few hundred float32 columns, the stages' views
# of them, scikit-learn's float64 copy of the rows a tree reads), against the HMM decoding's
# 40 bytes (``model.CHUNK_CELLS``): at the HMM's 2,000,000 cells, the second round of a
# 20,000-pair training took its process from 2.0 to 4.5 GB. The predictions do not depend on it.
PREDICT_CELLS = 200_000


class SeedModel:
    """What seeds a project: the HMM alone (``kind == "hmm"``), the HMM's evidence read by
    the supervised link classifier (``kind == "supervised"``), or by the built-in model's
    (``kind == "builtin"``, ``aligner.builtin``). A supervised model may pool with the
    built-in one: its link probability is then ``builtin_weight · built-in + (1 −
    builtin_weight) · own``, the built-in model reading its columns (``builtin_columns``) of
    the same inputs."""

    def __init__(
        self,
        *,
        kind: str,
        hmm: AlignerModel,
        stats: TokenStats | None = None,
        stages: LinkStages | None = None,
        lexicon: GoldLexicon | None = None,
        gold_hmm: AlignerModel | None = None,
        gold_hmm_base_forms: bool = False,
        wordnet: WordNet | None = None,
        vectors: WordVectors | None = None,
        thesaurus: Thesaurus | None = None,
        word_classes: bool = False,
        spelling: bool = False,
        tags: TagLexicon | None = None,
        threshold: float = 0.5,
        sure_threshold: float = 0.5,
        info: dict[str, Any] | None = None,
        builtin: Any = None,
        builtin_weight: float = 0.0,
        builtin_columns: np.ndarray | None = None,
        inputs: PairInputs | None = None,
    ) -> None:
        self.kind = kind
        self.hmm = hmm
        self.stats = stats
        self.stages = stages
        self.lexicon = lexicon
        self.gold_hmm = gold_hmm
        self.gold_hmm_base_forms = gold_hmm_base_forms
        self.wordnet = wordnet
        self.vectors = vectors
        self.thesaurus = thesaurus
        self.word_classes = word_classes
        self.spelling = spelling
        self.tags = tags
        self.threshold = threshold
        # a predicted link is sure from this P(sure | link) (tuned with the link threshold)
        self.sure_threshold = sure_threshold
        self.info = dict(info or {})
        self.builtin = builtin
        self.builtin_weight = builtin_weight
        self.builtin_columns = builtin_columns
        # the pairs' rows of the inputs that depend on the pair alone (the HMM's cell
        # features, the outside resources' columns), kept from training (``pair_inputs``)
        self.inputs = inputs if inputs is not None else PairInputs(budget=0)
        # a supervised model's out-of-fold link probability, label and gold pair per gold
        # cell (what a threshold is chosen on: ``builtin_build`` reads it)
        self.out_of_fold: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def predict(self, pairs: TokenPairs) -> tuple[list[Alignment], list[np.ndarray]]:
        """Alignments (sure and possible links) and N×M float32 link probabilities, per pair.

        The HMM fallback gives its symmetrised links (all sure) and the mean posteriors."""
        with fewer_collections():  # see gc_pause
            return self._predict(pairs)

    def _predict(self, pairs: TokenPairs) -> tuple[list[Alignment], list[np.ndarray]]:
        if self.kind == "hmm":
            return self.hmm.align(pairs), self.hmm.posteriors(pairs)
        alignments: list[Alignment] = []
        matrices: list[np.ndarray] = []
        for lo, hi in pair_chunks(pairs, PREDICT_CELLS):  # bounded memory
            chunk = pairs[lo:hi]
            X, grid = self.cell_inputs(chunk)
            prob, p_sure = self.link_probabilities(X, grid)
            linked = prob >= self.threshold
            sure = p_sure >= self.sure_threshold
            for n, (s, t) in enumerate(chunk):
                lo_c, hi_c = int(grid.offsets[n]), int(grid.offsets[n + 1])
                cells = np.flatnonzero(linked[lo_c:hi_c])
                is_sure = sure[lo_c:hi_c][cells]
                cols = max(len(t), 1)
                links = [(int(c // cols), int(c % cols)) for c in cells]
                alignments.append(
                    Alignment.from_sets(
                        [lk for lk, k in zip(links, is_sure, strict=True) if k],
                        [lk for lk, k in zip(links, is_sure, strict=True) if not k],
                    )
                )
                matrices.append(prob[lo_c:hi_c].reshape(len(s), len(t)).astype(np.float32))
        return alignments, matrices

    def link_probabilities(self, X: np.ndarray, grid: CellGrid) -> tuple[np.ndarray, np.ndarray]:
        """Per cell: the link probability and P(sure | link) (where it may be linked), from
        the model's own stages, the built-in model's, or both pooled."""
        w = self.builtin_weight if self.builtin is not None else 0.0
        if w >= 1.0 or self.stages is None:
            return self.builtin_probabilities(X, grid, self.threshold)
        prob, sure = self.stages.predict(X, grid, 0.0 if w > 0 else self.threshold)
        if w <= 0:
            return prob, sure
        prob_b, sure_b = self.builtin_probabilities(X, grid, 0.0)
        return w * prob_b + (1 - w) * prob, w * sure_b + (1 - w) * sure

    def builtin_probabilities(self, X: np.ndarray, grid: CellGrid, threshold: float):
        """The built-in model's link probabilities and P(sure | link) on its columns of ``X``."""
        columns = self.builtin_columns
        return self.builtin.stages.predict(X if columns is None else X[:, columns], grid, threshold)

    def cell_inputs(self, pairs: TokenPairs) -> tuple[np.ndarray, CellGrid]:
        """The supervised model's input per cell of ``pairs``: the cell features, then the
        gold lexicon's, the gold HMM's, WordNet's, the word vectors' and the thesaurus's
        columns, as in training. The rows that depend on the pair alone are read from
        ``inputs`` where kept."""
        grid = CellGrid.of([(len(s), len(t)) for s, t in pairs])
        blocks = [self.inputs.rows("cells", pairs, self.hmm_cells)]
        # joined once at the end: each join copies every column
        if self.lexicon is not None:
            blocks.append(self.lexicon.features(grid, *self.stats.word_ids(pairs)))
        if self.gold_hmm is not None:
            seen = base_form_pairs(pairs, self.wordnet) if self.gold_hmm_base_forms else pairs
            blocks.append(hmm_evidence(self.gold_hmm, seen))
        blocks.append(self.inputs.rows("knowledge", pairs, self.knowledge))
        return np.hstack(blocks), grid

    def hmm_cells(self, pairs: TokenPairs) -> np.ndarray:
        """The cell features of ``pairs`` by the model's (unsupervised) HMM."""
        return hmm_cell_features(self.hmm, self.stats, pairs)[0]

    def knowledge(self, pairs: TokenPairs) -> np.ndarray:
        """The outside resources' and the word classes' columns of ``pairs``, joined."""
        return knowledge_block(
            pairs,
            self.wordnet,
            self.vectors,
            self.thesaurus,
            self.word_classes,
            self.tags,
            self.spelling,
        )

    def align(self, pairs: TokenPairs) -> list[Alignment]:
        return self.predict(pairs)[0]

    def probabilities(self, pairs: TokenPairs) -> list[np.ndarray]:
        return self.predict(pairs)[1]


def uncertainty(matrix: np.ndarray) -> float:
    """How unsure a pair's link probabilities are: the summed binary entropy of its cells (in
    bits) per token (N + M), so long pairs are not unsure just for being long."""
    p = np.clip(np.asarray(matrix, dtype=np.float64), 1e-9, 1 - 1e-9)
    tokens = sum(p.shape) if p.ndim == 2 else 0
    if not tokens or p.size == 0:
        return 0.0
    h = -(p * np.log2(p) + (1 - p) * np.log2(1 - p))
    return float(h.sum() / tokens)
