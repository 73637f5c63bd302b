"""The supervised link model's settings (``LinkModelConfig``) and the constants they are
chosen against: when the HMM alone seeds, the decoding thresholds tried, and the input columns
no classifier ever chose on Edinburgh++ (``UNUSED_COLUMNS``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

TokenPairs = Sequence[tuple[Sequence[str], Sequence[str]]]


# Fewer gold pairs than this and the classifier has too few links to learn from (a pair has
# ~20 links): the HMM alone seeds. 20 pairs ≈ 400 links, ~8k cells.
MIN_GOLD_PAIRS = 20
# With the built-in English model and fewer gold pairs than ``MIN_GOLD_PAIRS``, the project's
# gold still counts from its ``FEWEST_POOLED_GOLD``-th pair (cross-fitting needs two): a model
# fitted on it pools with the built-in one, the built-in weight chosen from these by
# cross-validation on the gold (``link_training._chosen_weight``: the largest within one
# standard error of the fewest out-of-fold edits), decoded at the built-in model's threshold.
# Not below ½: with a handful of pairs the project's own model is too weak to outweigh the
# built-in one. At ½, a convention the gold shows consistently (its model says ~0 where the
# built-in one says ~1) falls below the threshold; at 1 the seeds are the built-in model's.
# The fixed ½ this replaced cost in the built-in model's own genre (Edinburgh++ test, 5.16
# edits per pair alone: 5.41–5.60 with 5–19 train gold pairs; the rule keeps 5.16) for a gain
# out of genre (MSR RTE2 dev A, 4.82 → 4.47–4.48 with 5–10 pairs; the rule 4.63–4.64).
# Figures: docs/benchmarks.md. With ``MIN_GOLD_PAIRS`` or more, the same rule chooses from all
# of ``builtin.WEIGHTS``.
FEW_GOLD_WEIGHTS = (0.5, 0.75, 1.0)
FEWEST_POOLED_GOLD = 2
# The second stage's context of the first stage's probabilities (``features``): "basic" is
# ``CONTEXT_NAMES``, "rich" ``RICH_CONTEXT_NAMES`` (ranks, diagonals, jumps).
CONTEXTS = ("basic", "rich")
# Threshold candidates for decoding.
THRESHOLDS = np.round(np.arange(0.05, 0.951, 0.01), 2)
# Columns of the classifiers' (symmetrised) input that a stage leaves out (``skip_unused``):
# no classifier of that stage chose one of them for a split in 16 fits (all of Edinburgh++'s
# train gold, and the three folds of an outer split of it; four fold classifiers each), on
# either of two machines (an AMD one without AVX-512 and an Intel one with it: last-bit
# differences in the features let six more columns win a split on the second). A column no
# split chooses does not change the trees, so leaving them out gives the same model, bit for
# bit, and fits that bin and scan fewer columns. Three duplicate an earlier column exactly
# (abs(position_diff) is position_diff_abs, min(post_forward,post_backward) is post_min,
# min(viterbi_forward,viterbi_backward) is viterbi_both); the others say what other columns
# say better (an identical word pair is also 1 in every WordNet column and in the spelling's).
_NEVER_CHOSEN = (
    "abs(position_diff)",
    "min(post_forward,post_backward)",
    "min(viterbi_forward,viterbi_backward)",
    "min(thesaurus_row_phrase,thesaurus_column_phrase)",
    "min(source_closed,target_closed)",
)
UNUSED_COLUMNS: dict[str, frozenset[str]] = {
    "first stage": frozenset(
        (
            *_NEVER_CHOSEN,
            "max(viterbi_forward,viterbi_backward)",
            "identical",
            "identical_casefold",
            "wordnet_synonym",
            "wordnet_same_lemma",
            "min(source_digit,target_digit)",
            "min(row_identical_count,column_identical_count)",
        )
    ),
    "second stage": frozenset((*_NEVER_CHOSEN, "identical_casefold", "wordnet_synonym")),
    "sure or possible": frozenset(
        (
            *_NEVER_CHOSEN,
            "max(viterbi_forward,viterbi_backward)",
            "min(row_identical_count,column_identical_count)",
        )
    ),
}


@dataclass(frozen=True)
class LinkModelConfig:
    """Settings of the supervised link model (all JSON-able).

    * ``min_gold_pairs``: below this many gold pairs, the HMM alone seeds.
    * ``folds``: cross-validation folds over the gold pairs (threshold tuning, reported figures).
    * ``seed``: the random state of fold assignment and of the classifiers.
    * ``max_iter``, ``learning_rate``, ``max_leaf_nodes``, ``min_samples_leaf``,
      ``l2_regularization``: the gradient-boosted trees' settings.
    * ``threshold``: a fixed decoding threshold (None: tuned by cross-validation).
    * ``stages``: 2 stacks a second classifier on the first one's out-of-fold probabilities
      of the cell's neighbours, row and column (phrase blocks, competing candidates); 1 does
      without.
    * ``lexicon``: add what the gold says about the cell's words (``features.GoldLexicon``:
      how often this word pair, and each word, was linked in the gold).
    * ``widen``: the second stage also classifies the cells beside one the first stage
      links with at least this probability (1 = only the first stage's candidates).
    * ``gold_hmm``: add the posteriors and links of an HMM trained with the gold as counts
      (cross-fitted: a fold's rows get an HMM that counted the other folds' gold only).
    * ``gold_hmm_base_forms``: that HMM reads WordNet's base forms of the words (when WordNet
      is used), so the gold's "released"/"available" also counts for "releases"/"available".
    * ``wordnet``: add how the two words relate in English WordNet (``aligner.wordnet``:
      synonyms, related words, the same lemma, what their definitions say), when its data is
      installed.
    * ``vectors``: add how close the two words' meanings are by GloVe's word vectors
      (``aligner.vectors``: cosine, its gap to the row's and column's best, the words'
      surroundings, one word against the other's phrase), when they are installed.
    * ``thesaurus``: add whether the Moby thesaurus lists one word under the other, or a
      phrase of 2–4 words around one side's word under the other's (``aligner.thesaurus``),
      when it is installed.
    * ``word_classes``: add each word's parts of speech by WordNet (when it is used) and its
      class if it is an English function word (``aligner.wordclass``).
    * ``tags``: add the classes of each word's Penn Treebank tags by a lexicon
      (``aligner.tags``), when it is installed.
    * ``symmetric``: the classifiers see features that do not depend on which sentence is
      the source (``features.Symmetriser``), so what the gold says of a cell teaches both
      sides at once.
    * ``workers``: threads fitting a stage's fold classifiers side by side (None: one per
      core). Four folds keep two cores busy in two rounds, and each classifier sees ¾ of the
      gold.
    * ``first_stage_iter``: the first stage's trees when a second stage follows (its
      probabilities are only the second stage's context; 20 did as well as 40).
    * ``pseudo_gold``: after fitting, align the pairs without gold and train the gold HMM and
      the gold lexicon that seed again on the gold plus those links (when either is used).
    * ``context``: what the second stage reads of the first stage's probabilities around
      the cell (``CONTEXTS``): "basic", its neighbours' and its row's and column's best and
      sum; "rich" adds the cell's rank in its row and column, whether the cells on each
      diagonal are likely links, and how far the cell lies from where the neighbouring rows'
      and columns' best links put it (repeated words).
    * ``spelling``: add spelling that survives misspellings (``features.SPELLING_NAMES``:
      the words' character trigram overlap and common suffix). Off: on Edinburgh++'s MTC
      test pairs (MT output) it changed nothing (6.30 edits per pair either way) and on MSR
      RTE2 dev it gave 4.26 against 4.22 (fold seed 0; docs/benchmarks.md).
    * ``joint_sure``: a predicted link is sure when P(sure | link) reaches a threshold tuned
      on the out-of-fold predicted links that are gold links, after the link threshold (the
      most labels right among them); False: ½. Off: on Edinburgh++ test it labelled 93.7 %
      of the right links right against 93.9 % at ½ (fold seed 0; MSR RTE2 dev 99.5 % both).
    * ``skip_unused``: each stage's classifiers leave out the input columns no classifier of
      that stage chose on Edinburgh++'s train gold (``UNUSED_COLUMNS``): the same trees there,
      fitted faster. (A single stage keeps all its columns: the list is a first stage's.)
    """

    min_gold_pairs: int = MIN_GOLD_PAIRS
    folds: int = 4
    seed: int = 0
    max_iter: int = 40
    learning_rate: float = 0.2
    max_leaf_nodes: int = 31
    min_samples_leaf: int = 20
    l2_regularization: float = 1.0
    threshold: float | None = None
    stages: int = 2
    lexicon: bool = True
    gold_hmm: bool = True
    gold_hmm_base_forms: bool = True
    widen: float = 0.3
    wordnet: bool = True
    vectors: bool = True
    thesaurus: bool = True
    word_classes: bool = True
    tags: bool = True
    symmetric: bool = True
    workers: int | None = None
    first_stage_iter: int = 20
    pseudo_gold: bool = True
    skip_unused: bool = True
    context: str = "rich"
    joint_sure: bool = False
    spelling: bool = False

    def __post_init__(self) -> None:
        problems = []
        if self.min_gold_pairs < 2:
            problems.append("min_gold_pairs must be >= 2")
        if self.folds < 2:
            problems.append("folds must be >= 2")
        if min(self.max_iter, self.first_stage_iter, self.min_samples_leaf) < 1:
            problems.append("max_iter, first_stage_iter and min_samples_leaf must be >= 1")
        if self.max_leaf_nodes < 2:
            problems.append("max_leaf_nodes must be >= 2")
        if not 0.0 < self.learning_rate <= 1.0:
            problems.append("learning_rate must lie in (0, 1]")
        if self.workers is not None and self.workers < 1:
            problems.append("workers must be >= 1 (None: one per core)")
        if self.stages not in (1, 2):
            problems.append("stages must be 1 or 2")
        if self.context not in CONTEXTS:
            problems.append(f"context must be one of {', '.join(CONTEXTS)}")
        if self.threshold is not None and not 0.0 < self.threshold < 1.0:
            problems.append("threshold must lie in (0, 1)")
        if problems:
            raise ValueError("LinkModelConfig: " + "; ".join(problems))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def first_stage(self) -> LinkModelConfig:
        """The settings of a first stage that feeds a second: ``first_stage_iter`` trees."""
        return replace(self, max_iter=self.first_stage_iter)
