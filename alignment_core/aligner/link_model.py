"""Seeds that learn from the annotators: a supervised link model trained on gold pairs.

    from alignment_core.aligner.link_model import train_seed_model, SeedResources
    resources = SeedResources.load(folder)   # at the edge; or installed.installed_resources()
    model = train_seed_model(pairs, {index: Alignment, ...}, link_config=LinkModelConfig(seed=0),
                             resources=resources)
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
  (``kind == "hmm"``, ``info["reason"]``); for English pairs, given the built-in model, that
  seeds instead, pooled with a model of the few gold pairs (from two) at a weight chosen by
  cross-validation from ``link_config.FEW_GOLD_WEIGHTS``.

Where each part lives (one job each): ``link_config`` (the settings), ``seed_resources`` (the
outside resources as one value, built at the edge), ``link_inputs`` (per-cell inputs, labels and
figures), ``link_classifiers`` (the trees, fold averages and stages), ``link_training``
(``train_seed_model``), ``pair_inputs`` (a pair's inputs that depend on it alone, computed
once), ``seed_model`` (``SeedModel``, ``uncertainty``), ``installed`` (the
edge's reader of the installed resources, and the worker's ``preload``). This module gathers
their public names.
"""

from alignment_core.aligner.installed import installed_resources, preload
from alignment_core.aligner.link_classifiers import FoldAverage, LinkStages, Views
from alignment_core.aligner.link_config import (
    MIN_GOLD_PAIRS,
    THRESHOLDS,
    UNUSED_COLUMNS,
    LinkModelConfig,
)
from alignment_core.aligner.link_inputs import (
    GOLD_HMM_NAMES,
    best_threshold,
    cell_labels,
    hmm_evidence,
    link_figures,
)
from alignment_core.aligner.link_training import train_seed_model
from alignment_core.aligner.seed_model import SeedModel, uncertainty
from alignment_core.aligner.seed_resources import EVIDENCE_KEYS, SeedResources

__all__ = [
    "EVIDENCE_KEYS",
    "GOLD_HMM_NAMES",
    "MIN_GOLD_PAIRS",
    "THRESHOLDS",
    "UNUSED_COLUMNS",
    "FoldAverage",
    "LinkModelConfig",
    "LinkStages",
    "SeedModel",
    "SeedResources",
    "Views",
    "best_threshold",
    "cell_labels",
    "hmm_evidence",
    "installed_resources",
    "link_figures",
    "preload",
    "train_seed_model",
    "uncertainty",
]
