"""Seeds that learn from the annotators: a supervised link model trained on gold pairs.

    from alignment_core.aligner.link_model import train_seed_model
    model = train_seed_model(pairs, {index: Alignment, ...}, link_config=LinkModelConfig(seed=0))
    model.kind                    # "supervised", or "hmm" when there was too little gold
    model.align(pairs)            # list[Alignment] with sure and possible links
    model.probabilities(pairs)    # list of N×M float32 link probabilities
    model.info["cv"]              # cross-validated figures on the gold pairs

How it works. The HMM aligner (IBM1 → HMM both ways) is trained *unsupervised* on every pair,
so the evidence it gives on gold pairs looks like the evidence it gives elsewhere (an HMM that
had counted the gold would be over-sure exactly on the pairs the classifier learns from). Each
cell of each gold pair becomes a row of ``features.FEATURE_NAMES`` — both directions'
posteriors and Viterbi links, identity, spelling, position, neighbouring posteriors,
punctuation, frequency — plus what the gold says about its words (``features.GoldLexicon``:
how often this word pair and each word were linked, counted out of fold while training), how
the two words relate in English WordNet (``wordnet``: synonyms, related words, one lemma,
what their definitions say), how close their meanings are by GloVe's word vectors
(``vectors``: learnt from billions of words, they reach pairs no WordNet pointer joins),
whether the Moby thesaurus lists one word, or a short phrase around it, under the other
(``thesaurus``: "die" / "pass away"), what part of speech each word can be and which function
word it is (``wordclass``: the article beside a linked noun), which Penn Treebank tags a
lexicon gives it (``tags``), and is labelled "linked" when it is a gold link (sure
or possible). The classifiers see these features symmetrised (``features.Symmetriser``): an
alignment is a symmetric relation, so "forward posterior 0.8, backward 0.2" and "forward 0.2,
backward 0.8" teach the same thing. Cells with no evidence at all (``features.candidate_cells``)
are never linked, which makes the classifiers 4× cheaper.

* Link classifier: scikit-learn's ``HistGradientBoostingClassifier``, in two stages (the
  second also sees the first stage's out-of-fold probabilities around the cell, its row and
  column: phrase blocks and competing candidates), each run on one OpenMP thread. Chosen
  over logistic regression because the evidence interacts (a posterior of 0.4 means one
  thing between two identical neighbours and another for a punctuation mark), the features
  have unrelated scales (no scaling needed for trees), and histogram boosting fits ~100k
  candidate cells in a few seconds. No early stopping (its validation split would draw random
  numbers): fixed ``max_iter`` and ``random_state`` make it deterministic for a seed.
* What seeds is the mean of the k classifiers fitted in cross-validation (``FoldAverage``),
  not a refit on all the gold: the threshold is tuned on their out-of-fold probabilities, so
  it suits them, and no fit is spent twice. The k fits of a stage run in threads, one core
  each (``workers``); the result does not depend on how many.
* Decoding: a cell is linked when its probability reaches a threshold tuned on out-of-fold
  probabilities (k-fold cross-validation over the gold pairs) to minimise the annotators'
  edits (|seed Δ gold| over sure+possible links).
* Sure or possible: a second classifier, trained on the gold links only, gives P(sure | link);
  a predicted link is sure when that reaches 0.5.
* The model's own links count too: once the classifiers are fitted, the model aligns the
  pairs without gold, and the gold HMM and the gold lexicon that seed are trained again on the
  gold and those links (``pseudo_gold``). What the model found with confidence in one pair
  (a word pair the vectors or the thesaurus vouched for, say) then counts as evidence for the
  same words in the others. The classifiers are not refitted, and the cross-validated figures
  are those of the first round.
* Too little gold (fewer than ``min_gold_pairs``, default ``MIN_GOLD_PAIRS``): the model falls
  back to the HMM alone — trained with the gold as observed counts, as before — and says so
  (``kind == "hmm"``, ``info["reason"]``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from alignment_core.aligner.config import AlignerConfig
from alignment_core.aligner.features import (
    CONTEXT_NAMES,
    FEATURE_NAMES,
    LEXICON_NAMES,
    NEIGHBOURS,
    CellGrid,
    GoldLexicon,
    Symmetriser,
    TokenStats,
    candidate_cells,
    cell_features,
    context_features,
)
from alignment_core.aligner.model import AlignerModel, pair_chunks
from alignment_core.aligner.tags import TAG_NAMES, TagLexicon, shared_tags, tag_features
from alignment_core.aligner.thesaurus import (
    THESAURUS_NAMES,
    Thesaurus,
    shared_thesaurus,
    thesaurus_features,
)
from alignment_core.aligner.vectors import (
    VECTOR_NAMES,
    WordVectors,
    shared_vectors,
    vector_features,
)
from alignment_core.aligner.wordclass import WORD_CLASS_NAMES, word_class_features
from alignment_core.aligner.wordnet import (
    WORDNET_NAMES,
    WordNet,
    base_form_pairs,
    shared_wordnet,
    wordnet_features,
)
from alignment_core.alignment import Alignment
from alignment_core.progress import Progress, part, silent

TokenPairs = Sequence[tuple[Sequence[str], Sequence[str]]]

# Fewer gold pairs than this and the classifier has too few links to learn from (a pair has
# ~20 links): the HMM alone seeds. 20 pairs ≈ 400 links, ~8k cells.
MIN_GOLD_PAIRS = 20
# Threshold candidates for decoding.
THRESHOLDS = np.round(np.arange(0.05, 0.951, 0.01), 2)
# The ``info`` keys that say which outside evidence a supervised model read: its name, "off",
# or that it was not installed.
EVIDENCE_KEYS = ("wordnet", "vectors", "thesaurus", "tags")
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
        if self.threshold is not None and not 0.0 < self.threshold < 1.0:
            problems.append("threshold must lie in (0, 1)")
        if problems:
            raise ValueError("LinkModelConfig: " + "; ".join(problems))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def first_stage(self) -> LinkModelConfig:
        """The settings of a first stage that feeds a second: ``first_stage_iter`` trees."""
        return replace(self, max_iter=self.first_stage_iter)


def _classifier(cfg: LinkModelConfig):
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(
        max_iter=cfg.max_iter,
        learning_rate=cfg.learning_rate,
        max_leaf_nodes=cfg.max_leaf_nodes,
        min_samples_leaf=cfg.min_samples_leaf,
        l2_regularization=cfg.l2_regularization,
        early_stopping=False,
        random_state=cfg.seed,
    )


def _train_hmm(pairs: TokenPairs, config: AlignerConfig, gold, progress: Progress, share: float):
    """``train()`` reporting on the first ``share`` of ``progress``."""
    from alignment_core.aligner.training import train

    return train(pairs, config=config, gold=gold or None, progress=part(progress, 0.0, share))


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


def _identical_cells(pairs: TokenPairs) -> np.ndarray:
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


class SeedModel:
    """What seeds a project: the HMM alone (``kind == "hmm"``) or the HMM's evidence read by
    the supervised link classifier (``kind == "supervised"``)."""

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
        tags: TagLexicon | None = None,
        threshold: float = 0.5,
        info: dict[str, Any] | None = None,
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
        self.tags = tags
        self.threshold = threshold
        self.info = dict(info or {})

    def predict(self, pairs: TokenPairs) -> tuple[list[Alignment], list[np.ndarray]]:
        """Alignments (sure and possible links) and N×M float32 link probabilities, per pair.

        The HMM fallback gives its symmetrised links (all sure) and the mean posteriors."""
        if self.kind == "hmm":
            return self.hmm.align(pairs), self.hmm.posteriors(pairs)
        alignments: list[Alignment] = []
        matrices: list[np.ndarray] = []
        for lo, hi in pair_chunks(pairs):  # bounded memory, as the HMM's own decoding
            chunk = pairs[lo:hi]
            X, grid = self.cell_inputs(chunk)
            prob, p_sure = self.stages.predict(X, grid, self.threshold)
            linked = prob >= self.threshold
            sure = p_sure >= 0.5
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

    def cell_inputs(self, pairs: TokenPairs) -> tuple[np.ndarray, CellGrid]:
        """The supervised model's input per cell of ``pairs``: the cell features, then the
        gold lexicon's, the gold HMM's, WordNet's, the word vectors' and the thesaurus's
        columns, as in training."""
        X, grid = _features(self.hmm, self.stats, pairs)
        blocks = [X]  # joined once at the end: each join copies every column
        if self.lexicon is not None:
            blocks.append(self.lexicon.features(grid, *self.stats.word_ids(pairs)))
        if self.gold_hmm is not None:
            seen = base_form_pairs(pairs, self.wordnet) if self.gold_hmm_base_forms else pairs
            blocks.append(hmm_evidence(self.gold_hmm, seen))
        blocks += _knowledge_features(
            grid, pairs, self.wordnet, self.vectors, self.thesaurus, self.word_classes, self.tags
        )
        return np.hstack(blocks), grid

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


def train_seed_model(
    pairs: TokenPairs,
    gold: Mapping[int, Alignment] | None = None,
    *,
    config: AlignerConfig | None = None,
    link_config: LinkModelConfig | None = None,
    progress: Progress | None = None,
) -> SeedModel:
    """Train the seeding model on ``pairs`` (all of them: their sentences train the HMM) with
    ``gold`` (0-based indices into ``pairs`` → hand alignments).

    With at least ``link_config.min_gold_pairs`` gold pairs: the supervised link model (see the
    module notes); ``info["cv"]`` holds its cross-validated figures on the gold pairs beside
    the HMM's intersection on the same pairs (``info["cv_hmm"]``). Otherwise the HMM alone.
    ``progress(fraction, message)`` is called as work advances (fraction 0–1).
    """
    cfg = config or AlignerConfig()
    lcfg = link_config or LinkModelConfig()
    report = progress or silent
    gold = dict(gold or {})
    for n in gold:
        if not 0 <= int(n) < len(pairs):
            raise ValueError(f"gold alignment for pair index {n}, but there are {len(pairs)} pairs")
    if len(gold) < lcfg.min_gold_pairs:
        hmm = _train_hmm(pairs, cfg, gold, report, 1.0)
        reason = (
            f"{len(gold)} gold pair(s), fewer than the {lcfg.min_gold_pairs} the supervised "
            "model needs: the HMM alone seeds" + (" (gold as counts)" if gold else "")
        )
        return SeedModel(kind="hmm", hmm=hmm, info={"gold_pairs": len(gold), "reason": reason})

    hmm = _train_hmm(pairs, cfg, None, report, 0.6)
    report(0.6, f"features of {len(gold)} gold pairs")
    stats = TokenStats(pairs)
    gold_idx = sorted(int(n) for n in gold)
    gold_pairs = [pairs[n] for n in gold_idx]
    gold_alignments = [gold[n] for n in gold_idx]
    for n, (s, t), a in zip(gold_idx, gold_pairs, gold_alignments, strict=True):
        try:
            a.validate(len(s), len(t))
        except ValueError as exc:
            raise ValueError(f"gold alignment of pair {n}: {exc}") from exc
    X, grid = _features(hmm, stats, gold_pairs)
    linked, sure = cell_labels(grid, [len(t) for _, t in gold_pairs], gold_alignments)
    identical = _identical_cells(gold_pairs)
    candidates = candidate_cells(X)
    blocks = [X]  # the feature columns, joined once below

    # k-fold cross-validation over gold pairs: out-of-fold probabilities tune the threshold
    # and feed the second stage (so it learns from first-stage output as it will look on
    # pairs the first stage never saw); the gold lexicon of a fold's rows is counted on the
    # other folds, as it will be on pairs that are not gold
    rng = np.random.default_rng(lcfg.seed)
    fold_of_pair = rng.permutation(len(gold_idx)) % lcfg.folds
    fold = fold_of_pair[grid.pair]
    lexicon = None
    if lcfg.lexicon:
        src_words, tgt_words = stats.word_ids(gold_pairs)
        lex = np.zeros((len(X), len(LEXICON_NAMES)), dtype=np.float32)
        for k in range(lcfg.folds):
            counted = GoldLexicon(grid, src_words, tgt_words, linked, fold != k, len(stats.index))
            rows = fold == k
            lex[rows] = counted.features(grid, src_words, tgt_words)[rows]
        blocks.append(lex)
        everything = np.ones(len(X), dtype=bool)
        lexicon = GoldLexicon(grid, src_words, tgt_words, linked, everything, len(stats.index))
    wordnet = shared_wordnet() if lcfg.wordnet else None
    vectors = shared_vectors() if lcfg.vectors else None
    thesaurus = shared_thesaurus() if lcfg.thesaurus else None
    tags = shared_tags() if lcfg.tags else None
    gold_hmm = None
    base_forms = lcfg.gold_hmm and lcfg.gold_hmm_base_forms and wordnet is not None
    seen = base_form_pairs(pairs, wordnet) if base_forms else pairs

    def gold_hmms() -> tuple[np.ndarray, AlignerModel]:
        """The HMM with gold as counts (seeds/004) knows the gold's word pairs; a fold's rows
        get the evidence of an HMM that counted the other folds' gold only (on base forms,
        the gold's word pairs also count for their other inflections). And the one that
        counted all the gold, which seeds."""
        evidence = np.zeros((len(X), len(GOLD_HMM_NAMES)), dtype=np.float32)
        for k in range(lcfg.folds):
            others = {gold_idx[n]: gold_alignments[n] for n in np.flatnonzero(fold_of_pair != k)}
            hmm_k = _train_hmm(seen, cfg, others, lambda f, m: None, 0.0)
            members = [seen[gold_idx[n]] for n in np.flatnonzero(fold_of_pair == k)]
            evidence[fold == k] = hmm_evidence(hmm_k, members)
        return evidence, _train_hmm(seen, cfg, gold, lambda f, m: None, 0.0)

    # the HMMs train (compiled kernels, mostly outside the GIL) in a thread while this one
    # reads the outside resources (Python): on two cores, side by side
    with ThreadPoolExecutor(max_workers=1) as beside:
        hmms = beside.submit(gold_hmms) if lcfg.gold_hmm else None
        if hmms is not None:
            report(0.6, f"{lcfg.folds + 1} HMMs with the gold as counts")
        knowledge = _knowledge_features(
            grid,
            gold_pairs,
            wordnet,
            vectors,
            thesaurus,
            lcfg.word_classes,
            tags,
            lambda what: report(0.6, what),
        )
        if hmms is not None:
            evidence, gold_hmm = hmms.result()
            blocks.append(evidence)
    blocks += knowledge
    X = np.hstack(blocks)
    names = (
        *FEATURE_NAMES,
        *(LEXICON_NAMES if lcfg.lexicon else ()),
        *(GOLD_HMM_NAMES if lcfg.gold_hmm else ()),
        *(WORDNET_NAMES if wordnet is not None else ()),
        *(VECTOR_NAMES if vectors is not None else ()),
        *(THESAURUS_NAMES if thesaurus is not None else ()),
        *(WORD_CLASS_NAMES if lcfg.word_classes else ()),
        *(TAG_NAMES if tags is not None else ()),
    )
    views = Views.of(names, lcfg.symmetric)
    workers = lcfg.workers or os.cpu_count() or 1
    stage_names = ("first stage", "second stage")[: lcfg.stages] + ("sure or possible",)
    # the input columns each stage's classifiers read (None: all). The first stage's inputs
    # are the cell features' view; the later stages' also the first stage's context
    later = views.first_names + views.context_names
    columns = {
        name: _kept(views.first_names if name == "first stage" else later, UNUSED_COLUMNS[name])
        if lcfg.skip_unused and lcfg.stages == 2
        else None
        for name in stage_names
    }

    def out_of_fold(
        name: str,
        inputs: np.ndarray,
        labels: np.ndarray,
        within: np.ndarray,
        only: np.ndarray | None = None,
        scored: np.ndarray | None = None,
    ) -> tuple[np.ndarray, FoldAverage]:
        """Per fold k, a classifier fitted on the ``within`` rows of the other folds (and in
        ``only``, if given) scores fold k's ``within`` rows (those in ``scored``, if given).
        The out-of-fold probabilities, and the fold classifiers as one averaged model."""
        step = stage_names.index(name)
        settings = lcfg if step or lcfg.stages == 1 else lcfg.first_stage()
        report(0.6 + 0.4 * step / len(stage_names), f"fitting the link model: {name}")
        train_rows = [within & (fold != k) & (True if only is None else only) for k in folds]
        test_rows = [within & (fold == k) & (True if scored is None else scored) for k in folds]
        keep = columns[name]
        models = _in_threads(
            lambda rows: _fit(settings, _take(inputs, rows, keep), labels[rows], only is not None),
            train_rows,
            workers,
        )
        out = np.zeros(len(inputs))
        scores = _in_threads(
            lambda k: _proba(models[k], _take(inputs, test_rows[k], keep)), list(folds), workers
        )
        for rows, score in zip(test_rows, scores, strict=True):
            out[rows] = score
        return out, FoldAverage(models, workers, keep, inputs.shape[1])

    folds = range(lcfg.folds)
    # the classifiers' inputs are formed on the rows a stage reads only (the others stay 0)
    first_input = _on_rows(views.first(X[candidates]), candidates)
    stage_input, rows = first_input, candidates
    oof, first = out_of_fold("first stage", first_input, linked, rows)
    second = None
    if lcfg.stages == 2:
        context = context_features(oof, grid)
        rows = candidates | _beside_a_likely_link(context, lcfg.widen)
        added = rows & ~candidates
        first_input[added] = views.first(X[added])
        stage_input = _on_rows(np.hstack([first_input[rows], views.context(context[rows])]), rows)
        oof, second = out_of_fold("second stage", stage_input, linked, rows)
    threshold = lcfg.threshold if lcfg.threshold is not None else best_threshold(oof, linked)
    predicted = oof >= threshold
    # P(sure | link) is only ever read where a link is predicted
    oof_sure, sure_classifier = out_of_fold(
        "sure or possible", stage_input, sure, rows, only=linked, scored=predicted
    )
    cv = link_figures(predicted, linked, identical, len(gold_idx))
    both = predicted & linked
    cv["sure_accuracy"] = (
        float(np.mean((oof_sure[both] >= 0.5) == sure[both])) if both.any() else None
    )
    viterbi_both = X[:, FEATURE_NAMES.index("viterbi_both")] > 0.5
    cv_hmm = link_figures(viterbi_both, linked, identical, len(gold_idx))

    model = SeedModel(
        kind="supervised",
        hmm=hmm,
        stats=stats,
        stages=LinkStages(first, second, sure_classifier, lcfg.widen, views),
        lexicon=lexicon,
        gold_hmm=gold_hmm,
        gold_hmm_base_forms=base_forms,
        wordnet=wordnet,
        vectors=vectors,
        thesaurus=thesaurus,
        word_classes=lcfg.word_classes,
        tags=tags,
        threshold=threshold,
    )
    # second round: the model's links on the pairs without gold count as gold for the
    # gold HMM and the gold lexicon that seed (the classifiers stay as fitted)
    unlabelled = [n for n in range(len(pairs)) if n not in gold] if lcfg.pseudo_gold else []
    predicted: list[Alignment] = []
    if unlabelled and (lexicon is not None or gold_hmm is not None):
        report(0.95, f"the model's links on the {len(unlabelled)} pairs without gold, as counts")
        predicted = model.align([pairs[n] for n in unlabelled])
        counted = {**dict(zip(unlabelled, predicted, strict=True)), **gold}
        if gold_hmm is not None:  # on the pairs (or base forms) the first one read
            model.gold_hmm = _train_hmm(seen, cfg, counted, lambda f, m: None, 0.0)
        if lexicon is not None:
            model.lexicon = _lexicon_of(stats, pairs, counted)

    report(1.0, "trained")
    model.info = {
        "gold_pairs": len(gold_idx),
        "pseudo_gold_pairs": len(predicted),
        "pseudo_gold_links": sum(len(a.all_links) for a in predicted),
        "threshold": threshold,
        "folds": lcfg.folds,
        "wordnet": _note(lcfg.wordnet, wordnet),
        "vectors": _note(lcfg.vectors, vectors),
        "thesaurus": _note(lcfg.thesaurus, thesaurus),
        "tags": _note(lcfg.tags, tags),
        "cv": cv,
        "cv_hmm": cv_hmm,
        "link_config": lcfg.to_dict(),
    }
    return model


def _lexicon_of(stats: TokenStats, pairs: TokenPairs, alignments: Mapping[int, Alignment]):
    """The gold lexicon counted on every cell of ``alignments``' pairs."""
    idx = sorted(alignments)
    chosen = [pairs[n] for n in idx]
    grid = CellGrid.of([(len(s), len(t)) for s, t in chosen])
    linked, _ = cell_labels(grid, [len(t) for _, t in chosen], [alignments[n] for n in idx])
    src_words, tgt_words = stats.word_ids(chosen)
    everything = np.ones(len(grid), dtype=bool)
    return GoldLexicon(grid, src_words, tgt_words, linked, everything, len(stats.index))


def _knowledge_features(
    grid: CellGrid,
    pairs: TokenPairs,
    wordnet: WordNet | None,
    vectors: WordVectors | None,
    thesaurus: Thesaurus | None,
    word_classes: bool,
    tags: TagLexicon | None,
    say: Callable[[str], None] = lambda what: None,
) -> list[np.ndarray]:
    """The columns of the outside resources in use and of the word classes, in the order
    training and prediction share (``WORDNET_NAMES``, ``VECTOR_NAMES``, ``THESAURUS_NAMES``,
    ``WORD_CLASS_NAMES``, ``TAG_NAMES``); ``say`` hears what is being computed."""
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
    return blocks


def _note(wanted: bool, resource: Any) -> str:
    """What the model says of an outside resource: its name, "off", or that it is missing."""
    if not wanted:
        return "off"
    return resource.name if resource is not None else "not installed: the model went without"


def _features(hmm: AlignerModel, stats: TokenStats, pairs: TokenPairs):
    evidence = Evidence.of(hmm, pairs)
    return cell_features(
        pairs,
        forward=evidence.forward,
        backward=evidence.backward,
        forward_states=evidence.forward_states,
        backward_states=evidence.backward_states,
        stats=stats,
    )


def preload() -> dict[str, float]:
    """Import scikit-learn and read the installed outside resources now, so that the first
    supervised model trained in this process does not wait for them. Seconds per item
    (``sklearn`` and the ``EVIDENCE_KEYS``); a resource that is not installed reads as None,
    as it would at training. A worker calls it at start (``annotator.signals``): the first
    retrain in a fresh process otherwise pays 2–3 s for it (2.2–2.6 s on a 2-core machine)."""
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    import sklearn.ensemble  # noqa: F401 - what ``_fit`` reads; its import is the slow part

    seconds["sklearn"] = time.perf_counter() - start
    loaders = (shared_wordnet, shared_vectors, shared_thesaurus, shared_tags)
    for key, load in zip(EVIDENCE_KEYS, loaders, strict=True):
        start = time.perf_counter()
        load()
        seconds[key] = time.perf_counter() - start
    return seconds


def _one_thread():
    """scikit-learn's OpenMP threads, limited to one: on a machine whose cores are busy (a
    worker beside the web server, CI) two spinning OpenMP threads ran the trees 10–15× slower
    than one; with one the cost is predictable. scikit-learn is imported first: the limit
    only reaches an OpenMP runtime that is already loaded (else the first fit ran unlimited)."""
    import sklearn.ensemble  # noqa: F401
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="openmp")


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


def _by_column(X: np.ndarray) -> np.ndarray:
    """``X`` as the trees read it fastest: float64 (their own type: no copy inside
    scikit-learn) in column-major order. Binning and tree traversal read one feature at a time;
    on Edinburgh++'s cells, scoring ran 2.5× and fitting 1.2× faster than on row-major input.
    The result is the same, bit for bit."""
    return np.asfortranarray(X, dtype=np.float64)


def _proba(classifier: Any, X: np.ndarray) -> np.ndarray:
    if not len(X):
        return np.zeros(0)
    with _one_thread():
        return classifier.predict_proba(_by_column(X))[:, 1]


def _fit(lcfg: LinkModelConfig, X: np.ndarray, y: np.ndarray, sure_model: bool):
    """A fitted classifier; a label with one value only (e.g. gold without possible links)
    gets a constant."""
    if len(y) == 0 or y.all() or not y.any():
        return _Constant(1.0 if len(y) == 0 or y.all() else 0.0)
    if sure_model:  # fewer rows, an easier question: half the trees
        lcfg = replace(lcfg, max_iter=max(lcfg.max_iter // 2, 1))
    with _one_thread():
        return _classifier(lcfg).fit(_by_column(X), y)


@dataclass(frozen=True)
class Views:
    """What the classifiers see of the cell features (``first``) and of the first stage's
    context (``context``): the features themselves, or their symmetrised form; and the names
    of the columns each gives."""

    first: Any
    context: Any
    first_names: tuple[str, ...] = ()
    context_names: tuple[str, ...] = ()

    @classmethod
    def of(cls, names: Sequence[str], symmetric: bool) -> Views:
        if not symmetric:
            return cls(_same, _same, tuple(names), CONTEXT_NAMES)
        first, context = Symmetriser(names), Symmetriser(CONTEXT_NAMES)
        return cls(first, context, tuple(first.names), tuple(context.names))


def _kept(names: Sequence[str], unused: frozenset[str]) -> np.ndarray | None:
    """The indices of ``names`` not in ``unused`` (None: all of them)."""
    keep = [k for k, name in enumerate(names) if name not in unused]
    return None if len(keep) == len(names) else np.asarray(keep, dtype=np.int64)


def _take(X: np.ndarray, rows: np.ndarray, columns: np.ndarray | None) -> np.ndarray:
    """``X[rows]`` (a bool mask), only its ``columns`` if given."""
    if columns is None:
        return X[rows]
    return X[np.ix_(np.flatnonzero(rows), columns)]


def _same(X: np.ndarray) -> np.ndarray:
    return X


@dataclass
class LinkStages:
    """The fitted classifiers: first stage (cell features), optional second stage (plus the
    first stage's probabilities around each cell), and P(sure | link)."""

    first: Any
    second: Any
    sure: Any
    widen: float = 1.0
    views: Views = Views(_same, _same)

    def predict(
        self, X: np.ndarray, grid: CellGrid, threshold: float = 0.0
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per cell: the link probability, and P(sure | link) where the link probability
        reaches ``threshold`` (0 elsewhere)."""
        rows = candidate_cells(X)
        stage_input = self.views.first(X[rows])  # only the rows a classifier reads
        prob = np.zeros(len(X))
        prob[rows] = _proba(self.first, stage_input)
        if self.second is not None:
            context = context_features(prob, grid)
            wider = rows | _beside_a_likely_link(context, self.widen)
            # the candidates' view is already computed: only the cells beside a likely link
            # are new (both in cell order, so the candidates keep their relative order)
            was_candidate = rows[wider]
            view = np.empty((int(wider.sum()), stage_input.shape[1]), dtype=stage_input.dtype)
            view[was_candidate] = stage_input
            view[~was_candidate] = self.views.first(X[wider & ~rows])
            rows = wider
            stage_input = np.hstack([view, self.views.context(context[rows])])
            prob = np.zeros(len(X))
            prob[rows] = _proba(self.second, stage_input)
        sure = np.zeros(len(X))
        linked = prob[rows] >= threshold
        sure[np.flatnonzero(rows)[linked]] = _proba(self.sure, stage_input[linked])
        return prob, sure


def _on_rows(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``values`` (one row per True in ``rows``) in an array of ``len(rows)`` rows whose other
    rows are 0: the features of the cells a classifier reads, at their cells' positions."""
    out = np.zeros((len(rows), values.shape[1]), dtype=values.dtype)
    out[rows] = values
    return out


def _beside_a_likely_link(context: np.ndarray, widen: float) -> np.ndarray:
    """Cells next to one the first stage links with probability ≥ ``widen``: the second
    stage also looks at them (phrase blocks reach cells with no HMM evidence of their own)."""
    neighbours = context[:, 1 : 1 + len(NEIGHBOURS)].max(axis=1) if len(context) else context
    return np.asarray(neighbours >= widen, dtype=bool).reshape(-1)


def _in_threads(fn: Callable[[Any], Any], items: Sequence[Any], workers: int) -> list[Any]:
    """``[fn(x) for x in items]``, run in up to ``workers`` threads. The trees' fitting and
    scoring release the GIL, and each thread keeps its own one-thread OpenMP limit
    (``_one_thread``), so the folds share the cores without the spinning of nested OpenMP
    threads; the results do not depend on ``workers``."""
    if workers <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(max_workers=min(workers, len(items))) as pool:
        return list(pool.map(fn, items))


class FoldAverage:
    """The classifiers fitted in cross-validation, one per fold, read as one: their mean
    probability. This, not a refit on all the gold, is what seeds: the decoding threshold is
    tuned on out-of-fold probabilities, which come from classifiers of this size, and a refit
    would cost another fit per stage."""

    def __init__(
        self,
        models: Sequence[Any],
        workers: int = 1,
        columns: np.ndarray | None = None,
        n_inputs: int | None = None,
    ) -> None:
        self.models = list(models)
        self.workers = workers
        self.columns = columns  # the input columns the models read (None: all)
        # the width of the input it takes (the models read ``columns`` of it)
        self.n_features_in_ = n_inputs or getattr(self.models[0], "n_features_in_", None)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        X = _by_column(X if self.columns is None else X[:, self.columns])  # once for all
        scores = _in_threads(lambda m: _proba(m, X), self.models, self.workers)
        p = np.mean(scores, axis=0)
        return np.column_stack([1 - p, p])


class _Constant:
    """A stand-in classifier for a label with one class only (e.g. gold with no possible link)."""

    def __init__(self, value: float) -> None:
        self.value = value

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return np.column_stack([np.full(len(X), 1 - self.value), np.full(len(X), self.value)])
