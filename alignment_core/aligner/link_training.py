"""``train_seed_model``: the supervised link model trained on the gold (how it works: see
``link_model``). The steps, each a function: check the gold; the HMM alone when there is too
little of it; otherwise the unsupervised HMM's evidence on the gold pairs' cells
(``GoldCells``), the columns the gold and the outside resources add (``_input_columns``), the
classifier stages fitted fold by fold (``_FoldFitter``, ``_fit_stages``), and a second round on
the model's own links (``_count_own_links``).

The built-in English model (``aligner.builtin``; given as ``builtin``, for English pairs):
with no gold (or one pair) it seeds instead of the HMM (``kind == "builtin"``,
``_builtin_alone``); from the second gold pair it pools with a model trained on the gold, its
weight chosen by cross-validation on that gold (``_pooled``, ``_chosen_weight``: the largest
weight within one standard error of the fewest out-of-fold edits; below ``min_gold_pairs``
from ``FEW_GOLD_WEIGHTS`` only), decoded at the built-in threshold; ``info["builtin_weight"]``,
``info["builtin_cv_edits"]`` and ``info["builtin_weight_rule"]`` say what was chosen and how.
So the first gold pairs count where they contradict the built-in model, and leave it alone
where they agree. When it cannot read the inputs (a resource missing or off) it is not used,
and ``info["builtin_not_used"]`` says why."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from alignment_core.aligner.builtin import BUILTIN_LINK_CONFIG, WEIGHTS, BuiltinModel
from alignment_core.aligner.config import AlignerConfig
from alignment_core.aligner.features import (
    FEATURE_NAMES,
    LEXICON_NAMES,
    SPELLING_NAMES,
    CellGrid,
    GoldLexicon,
    TokenStats,
    candidate_cells,
    context_features,
)
from alignment_core.aligner.gc_pause import fewer_collections
from alignment_core.aligner.link_classifiers import (
    FoldAverage,
    LinkStages,
    Views,
    beside_a_likely_link,
    fit_classifier,
    import_trees,
    kept_columns,
    on_rows,
    probability,
    take_rows,
)
from alignment_core.aligner.link_config import (
    FEW_GOLD_WEIGHTS,
    FEWEST_POOLED_GOLD,
    UNUSED_COLUMNS,
    LinkModelConfig,
)
from alignment_core.aligner.link_inputs import (
    GOLD_HMM_NAMES,
    best_sure_threshold,
    best_threshold,
    cell_labels,
    hmm_cell_features,
    hmm_evidence,
    identical_cells,
    knowledge_block,
    lexicon_of,
    link_figures,
)
from alignment_core.aligner.model import AlignerModel
from alignment_core.aligner.pair_inputs import PairInputs
from alignment_core.aligner.seed_model import SeedModel
from alignment_core.aligner.seed_resources import EVIDENCE_KEYS, SeedResources, note
from alignment_core.aligner.tags import TAG_NAMES
from alignment_core.aligner.thesaurus import THESAURUS_NAMES
from alignment_core.aligner.threads import in_threads
from alignment_core.aligner.training import train
from alignment_core.aligner.vectors import VECTOR_NAMES
from alignment_core.aligner.wordclass import WORD_CLASS_NAMES
from alignment_core.aligner.wordnet import WORDNET_NAMES, base_form_pairs
from alignment_core.alignment import Alignment
from alignment_core.progress import Progress, part, silent

TokenPairs = Sequence[tuple[Sequence[str], Sequence[str]]]


def train_seed_model(
    pairs: TokenPairs,
    gold: Mapping[int, Alignment] | None = None,
    *,
    config: AlignerConfig | None = None,
    link_config: LinkModelConfig | None = None,
    resources: SeedResources | None = None,
    progress: Progress | None = None,
    builtin: BuiltinModel | None = None,
    corpus: CorpusEvidence | None = None,
) -> SeedModel:
    """Train the seeding model on ``pairs`` (all of them: their sentences train the HMM) with
    ``gold`` (0-based indices into ``pairs`` → hand alignments).

    ``corpus``: the unsupervised HMM and word counts of a larger corpus that ``pairs`` are a
    sample of, trained elsewhere (a project seeded in chunks over the workers:
    ``annotator.seeding.chunked_steps``). The model then reads their evidence, as it will on
    every pair it seeds, and ``pairs`` train the rest only: the HMMs with the gold as counts
    and the second round on the model's own links. Only where the gold trains a model
    (``trains_on_gold``).

    With at least ``link_config.min_gold_pairs`` gold pairs: the supervised link model (see the
    module notes); ``info["cv"]`` holds its cross-validated figures on the gold pairs beside
    the HMM's intersection on the same pairs (``info["cv_hmm"]``). Otherwise the HMM alone,
    or the built-in model (alone, or pooled with the few gold pairs). ``resources``: the
    outside resources the model may read (those ``link_config`` turns on); None reads none.
    ``progress(fraction, message)`` is called as work advances (fraction 0–1). ``builtin``:
    the built-in English model (for English pairs; see the module notes)."""
    with fewer_collections():  # see gc_pause
        return _train_seed_model(
            pairs, gold, config, link_config, resources, progress, builtin, corpus
        )


@dataclass(frozen=True)
class CorpusEvidence:
    """The unsupervised HMM of a corpus and its casefolded word counts (``train_seed_model``'s
    ``corpus``)."""

    hmm: AlignerModel
    stats: TokenStats


def trains_on_gold(
    n_gold: int,
    builtin: BuiltinModel | None,
    link_config: LinkModelConfig | None = None,
    resources: SeedResources | None = None,
) -> bool:
    """Whether ``n_gold`` gold pairs train a link model of their own (``train_seed_model``'s
    rule): at least ``min_gold_pairs`` of them, or fewer pooled with the built-in model."""
    lcfg = link_config or LinkModelConfig()
    if n_gold >= lcfg.min_gold_pairs:
        return True
    use = (resources or SeedResources()).used_by(lcfg.wordnet, lcfg.vectors, lcfg.thesaurus,
                                                 lcfg.tags)  # fmt: skip
    return _pools_few_gold(range(n_gold), builtin, lcfg, use)


def _train_seed_model(pairs, gold, config, link_config, resources, progress, builtin, corpus):
    cfg = config or AlignerConfig()
    lcfg = link_config or LinkModelConfig()
    report = progress or silent
    gold, every = _checked_gold(pairs, gold), resources or SeedResources()
    use = every.used_by(lcfg.wordnet, lcfg.vectors, lcfg.thesaurus, lcfg.tags)
    few = len(gold) < lcfg.min_gold_pairs
    if few and not _pools_few_gold(gold, builtin, lcfg, use):
        if corpus is not None:
            raise ValueError(f"{len(gold)} gold pair(s) train no link model of their own")
        return _too_little_gold(pairs, gold, cfg, lcfg, every, builtin, report)
    lcfg = _few_gold_settings(lcfg, len(gold), builtin) if few else lcfg
    t = _train_on_gold(pairs, gold, cfg, lcfg, use, report, corpus)
    fitted, cells = t.fitted, t.cells
    pooled = _pooled(fitted, cells, t.X, t.names, builtin, lcfg, few) if builtin else None
    model = SeedModel(
        kind="supervised",
        hmm=t.hmm,
        stats=t.stats,
        stages=fitted.stages,
        lexicon=t.lexicon,
        gold_hmm=t.gold_hmm,
        gold_hmm_base_forms=t.base_forms,
        wordnet=use.wordnet,
        vectors=use.vectors,
        thesaurus=use.thesaurus,
        word_classes=lcfg.word_classes,
        spelling=lcfg.spelling,
        tags=use.tags,
        threshold=fitted.threshold,
        sure_threshold=fitted.sure_threshold,
        inputs=t.inputs,
    )
    _pool_with(model, pooled, builtin)
    model.out_of_fold = (fitted.oof, cells.linked, cells.grid.pair)  # see SeedModel
    own = _count_own_links(model, pairs, gold, t.seen, t.stats, cfg, lcfg, report)
    report(1.0, "trained")
    model.info = _supervised_info(len(cells.index), fitted, own, lcfg, use)
    model.info.update(pooled.info(builtin) if pooled is not None else {})
    return model


@dataclass
class _OnGold:
    """What training on the gold made: the unsupervised HMM, the token statistics, the gold
    cells and their inputs (``X``, column ``names``), the gold lexicon and gold HMM, the pairs
    the gold HMM reads (``seen``: base forms or not), the fitted stages, and each pair's rows
    kept for the predictions that follow (``inputs``)."""

    hmm: AlignerModel
    stats: TokenStats
    cells: GoldCells
    X: np.ndarray
    names: tuple[str, ...]
    lexicon: GoldLexicon | None
    gold_hmm: AlignerModel | None
    base_forms: bool
    seen: TokenPairs
    fitted: _Fitted
    inputs: PairInputs


def _train_on_gold(pairs, gold, cfg, lcfg, use: SeedResources, report, corpus) -> _OnGold:
    """The unsupervised HMM, the gold cells' inputs and the classifier stages fitted on them.
    Three threads share the cores until the fits: this one trains the unsupervised HMM (unless
    ``corpus`` brings it, with the word counts) and reads its evidence on the gold cells; one
    trains the HMMs with the gold as counts (they need no other HMM); one reads the outside
    resources' columns (Python: WordNet's lookups), for the gold pairs, then for the others."""
    inputs = PairInputs()
    GoldFolds.of(pairs, gold, lcfg)  # the gold checked before any thread reads it
    base_forms = lcfg.gold_hmm and lcfg.gold_hmm_base_forms and use.wordnet is not None
    with ThreadPoolExecutor(1) as beside, ThreadPoolExecutor(1) as counting:
        knowledge, the_others = _knowledge_beside(beside, pairs, gold, inputs, lcfg, use)
        counted = counting.submit(_gold_hmms, pairs, gold, cfg, lcfg, base_forms, use.wordnet)
        hmm = corpus.hmm if corpus else _train_hmm(pairs, cfg, None, report, 0.6)
        report(0.6, f"features of {len(gold)} gold pairs; the HMMs with the gold as counts")
        stats = corpus.stats if corpus else TokenStats(pairs)
        cells = GoldCells.of(pairs, gold, hmm, stats, lcfg)
        inputs.keep("cells", cells.pairs, cells.X)
        X, names, lexicon, gold_hmm, seen = _input_columns(
            cells, stats, lcfg, use, knowledge, counted
        )
        the_others(hmm, stats)
        fitted = _fit_stages(
            cells, X, Views.of(names, lcfg.symmetric, lcfg.context == "rich"), lcfg, report
        )
    return _OnGold(hmm, stats, cells, X, names, lexicon, gold_hmm, base_forms, seen, fitted, inputs)


def _knowledge_beside(beside, pairs, gold, inputs: PairInputs, lcfg, use: SeedResources):
    """In ``beside``: the outside resources' columns of the gold pairs (in index order) and,
    when the model's own links are counted (``pseudo_gold``: every other pair is aligned
    then), of the other pairs and their cell features by the unsupervised HMM, kept in
    ``inputs`` while there is room. The gold pairs' columns, to come, and what asks for the
    others' (when the fits begin: until then, this thread's Python would hold back the gold
    inputs the fits wait for)."""
    index = sorted(int(n) for n in gold)
    others = [n for n in range(len(pairs)) if n not in gold] if lcfg.pseudo_gold else []

    def columns(chosen: list[int]) -> np.ndarray:
        chosen_pairs = [pairs[n] for n in chosen]
        block = knowledge_block(
            chosen_pairs,
            use.wordnet,
            use.vectors,
            use.thesaurus,
            lcfg.word_classes,
            use.tags,
            lcfg.spelling,
        )
        inputs.keep("knowledge", chosen_pairs, block)
        return block

    def the_others(hmm: AlignerModel, stats: TokenStats) -> None:
        room = inputs.budget - sum(len(pairs[n][0]) * len(pairs[n][1]) for n in index)
        sizes = np.cumsum([len(pairs[n][0]) * len(pairs[n][1]) for n in others])
        chosen = [pairs[n] for n in others[: int(np.searchsorted(sizes, room, side="right"))]]
        if chosen:
            beside.submit(columns, others[: len(chosen)])
            beside.submit(lambda: inputs.keep("cells", chosen, _hmm_cells(hmm, stats, chosen)))

    return beside.submit(columns, index), the_others


def _pools_few_gold(gold, builtin: BuiltinModel | None, lcfg, use: SeedResources) -> bool:
    """With fewer gold pairs than a model of the project's own needs, does the gold still
    count, pooled with the built-in model (``FEW_GOLD_WEIGHTS``)? When there are at least
    ``FEWEST_POOLED_GOLD`` pairs (cross-fitting needs two) and the built-in model can read
    the inputs."""
    if builtin is None or len(gold) < FEWEST_POOLED_GOLD:
        return False
    return builtin.unusable(input_names(lcfg, use)) is None


def _few_gold_settings(lcfg: LinkModelConfig, n_gold: int, builtin: BuiltinModel):
    """At most a fold per gold pair; the built-in model's threshold (too few pairs to tune
    one on)."""
    threshold = builtin.threshold if lcfg.threshold is None else lcfg.threshold
    return replace(lcfg, folds=min(lcfg.folds, n_gold), threshold=threshold)


def _pool_with(model: SeedModel, pooled: _Pooled | None, builtin: BuiltinModel | None) -> None:
    """The model pools with the built-in one as ``pooled`` chose (when it may)."""
    if pooled is not None and pooled.weight is not None:
        model.builtin, model.builtin_weight = builtin, pooled.weight
        model.builtin_columns, model.threshold = pooled.columns, pooled.threshold
        if pooled.weight > 0:  # the sure threshold was tuned on the model's own P(sure | link)
            model.sure_threshold = 0.5


@dataclass
class _Pooled:
    """How the model pools with the built-in one: the weight (None: not used, ``problem``
    says why), the threshold, the built-in model's columns of the inputs, and the edits per
    gold pair out of fold at each weight tried."""

    weight: float | None
    threshold: float
    columns: np.ndarray | None
    edits: dict[str, float]
    cv: dict[str, Any] | None
    problem: str | None = None
    cv_project_only: dict[str, Any] | None = None
    rule: str | None = None  # how the weight was chosen, in words

    def info(self, builtin: BuiltinModel) -> dict[str, Any]:
        if self.weight is None:
            return {"builtin_not_used": self.problem}
        return {
            "builtin_version": builtin.version,
            "builtin_weight": self.weight,
            "builtin_cv_edits": self.edits,
            "cv_project_only": self.cv_project_only,
            "cv": self.cv,
            "threshold": self.threshold,
            "builtin_weight_rule": self.rule,
        }


def _pooled(fitted, cells: GoldCells, X: np.ndarray, names, builtin: BuiltinModel, lcfg, few):
    """The built-in model's weight beside the one fitted on the gold, chosen on the gold's
    out-of-fold probabilities (the built-in model never saw this gold): each weight tried
    (``WEIGHTS``; with ``few`` gold pairs ``FEW_GOLD_WEIGHTS``) gets its edits per gold pair,
    decoded at the built-in model's threshold (the setting's, if fixed), and
    ``_chosen_weight`` picks the weight.

    Why the built-in threshold, not one tuned on the gold: a threshold tuned on tens of pairs
    is noisy, and at weight 1 it turns the built-in model into a worse one (on Edinburgh++
    test, 5.24 edits per pair with a threshold tuned on 20–100 train pairs against 5.16);
    out of genre (MSR RTE2 dev A) the pooled figures with the built-in threshold were as good
    from 50 pairs on. At weight 1 the seeds are then the built-in model's own."""
    problem = builtin.unusable(names)
    if problem is not None:
        return _Pooled(None, fitted.threshold, None, {}, None, problem)
    columns = builtin.columns_in(names)
    own = fitted.oof
    theirs, _ = builtin.stages.predict(X if columns is None else X[:, columns], cells.grid, 1.0)
    threshold = builtin.threshold if lcfg.threshold is None else lcfg.threshold
    n_gold = len(cells.index)
    tried = {}
    for w in FEW_GOLD_WEIGHTS if few else WEIGHTS:
        wrong = ((w * theirs + (1 - w) * own) >= threshold) != cells.linked
        tried[w] = np.bincount(cells.grid.pair, weights=wrong, minlength=n_gold)
    weight = _chosen_weight(tried)
    predicted = (weight * theirs + (1 - weight) * own) >= threshold
    cv = link_figures(predicted, cells.linked, cells.identical, n_gold)
    edits = {str(w): float(per_pair.mean()) for w, per_pair in tried.items()}
    rule = _weight_rule(tried, n_gold, threshold, lcfg, few)
    return _Pooled(weight, threshold, columns, edits, cv, None, fitted.cv, rule)


def _chosen_weight(edits: Mapping[float, np.ndarray]) -> float:
    """The largest built-in weight whose out-of-fold edits (per gold pair) exceed the fewest
    by at most one standard error of the per-pair difference: the one-standard-error rule
    (as the built-in threshold's, ``builtin_build.robust_threshold``), toward the model that
    needs no evidence from the project. The weight falls only where the project's gold says
    clearly that the built-in model is wrong for it (a convention of its own, another genre);
    a handful of pairs in the built-in model's own genre, which only add noise, leave it at 1.
    Ties go to the larger weight. The standard error is the sample one (``ddof=1``): with two
    or three gold pairs the population one is far too small (two Edinburgh++ test pairs took
    a weight of ½, 5.54 edits per pair against the built-in model's 5.16)."""
    best = min(edits, key=lambda w: (float(edits[w].mean()), -w))
    for w in sorted(edits, reverse=True):
        excess = edits[w] - edits[best]
        spread = excess.std(ddof=1) if len(excess) > 1 else 0.0
        if excess.mean() <= spread / np.sqrt(len(excess)):
            return w
    return best


def _weight_rule(tried, n_gold: int, threshold: float, lcfg: LinkModelConfig, few: bool) -> str:
    """How the built-in weight was chosen, in words (``info["builtin_weight_rule"]``)."""
    folds = f"the project's model fitted in {lcfg.folds} folds"
    return (
        f"cross-validation on the {n_gold} gold pair(s) ({folds}): the largest built-in "
        f"weight of {', '.join(str(w) for w in tried)} whose out-of-fold edits per pair exceed "
        f"the fewest by at most one standard error, decoded at threshold {threshold}"
        + (
            f" (fewer than {lcfg.min_gold_pairs} gold pairs: the higher weights only)"
            if few
            else ""
        )
    )


def _builtin_alone(pairs, gold, cfg, lcfg, resources: SeedResources, builtin, report):
    """Too little gold for a model of the project's own: the built-in model reads the
    unsupervised HMM's evidence on these pairs (as it did on Edinburgh++'s when fitted)."""
    hmm = _train_hmm(pairs, cfg, None, report, 0.9)
    reason = (
        f"{len(gold)} gold pair(s), fewer than the {lcfg.min_gold_pairs} a model of the "
        f"project's own needs: the built-in English model {builtin.version} seeds"
    )
    report(1.0, "trained")
    return builtin_seed_model(hmm, TokenStats(pairs), resources, builtin, len(gold), reason)


def builtin_problem(builtin: BuiltinModel, resources: SeedResources) -> str | None:
    """Why ``builtin`` cannot read its inputs with ``resources`` (a resource missing or off),
    or None when it can."""
    return builtin.unusable(input_names(BUILTIN_LINK_CONFIG, resources))


def builtin_seed_model(
    hmm: AlignerModel,
    stats: TokenStats,
    resources: SeedResources,
    builtin: BuiltinModel,
    n_gold: int,
    reason: str,
) -> SeedModel:
    """The built-in model seeding alone on the evidence of ``hmm``, the unsupervised HMM of
    the corpus whose casefolded word counts are ``stats``: what ``train_seed_model`` gives
    with too little gold, and what a project seeded in chunks over the workers builds from
    its workspace's HMM (``annotator.seeding.chunked_steps``)."""
    use = resources.used_by(True, True, True, True)
    return SeedModel(
        kind="builtin",
        hmm=hmm,
        stats=stats,
        wordnet=use.wordnet,
        vectors=use.vectors,
        thesaurus=use.thesaurus,
        word_classes=BUILTIN_LINK_CONFIG.word_classes,
        tags=use.tags,
        threshold=builtin.threshold,
        builtin=builtin,
        builtin_weight=1.0,
        info={
            "gold_pairs": n_gold,
            "reason": reason,
            "builtin_version": builtin.version,
            "builtin_weight": 1.0,
            "threshold": builtin.threshold,
            **{k: note(True, getattr(use, k)) for k in EVIDENCE_KEYS},
        },
    )


def _too_little_gold(pairs, gold, cfg, lcfg, every: SeedResources, builtin, report) -> SeedModel:
    """The built-in model when there is one and it can read its inputs; else the HMM alone
    (saying why the built-in model was not used, when there was one)."""
    problem = None
    if builtin is not None:
        problem = builtin_problem(builtin, every)
        if problem is None:
            return _builtin_alone(pairs, gold, cfg, lcfg, every, builtin, report)
    model = _hmm_alone(pairs, gold, cfg, lcfg, report)
    if problem:
        model.info["builtin_not_used"] = problem
    return model


def _supervised_info(n_gold: int, fitted, own: list, lcfg, use: SeedResources) -> dict:
    """What a supervised model says of itself (``SeedModel.info``)."""
    return {
        "gold_pairs": n_gold,
        "pseudo_gold_pairs": len(own),
        "pseudo_gold_links": sum(len(a.all_links) for a in own),
        "threshold": fitted.threshold,
        "sure_threshold": fitted.sure_threshold,
        "folds": lcfg.folds,
        "wordnet": note(lcfg.wordnet, use.wordnet),
        "vectors": note(lcfg.vectors, use.vectors),
        "thesaurus": note(lcfg.thesaurus, use.thesaurus),
        "tags": note(lcfg.tags, use.tags),
        "cv": fitted.cv,
        "cv_hmm": fitted.cv_hmm,
        "link_config": lcfg.to_dict(),
    }


def _train_hmm(pairs: TokenPairs, config: AlignerConfig, gold, progress: Progress, share: float):
    """``train()`` reporting on the first ``share`` of ``progress``."""
    return train(pairs, config=config, gold=gold or None, progress=part(progress, 0.0, share))


def _quiet(fraction: float, message: str) -> None:
    """A progress callback that hears nothing (the gold HMMs train beside other work)."""


def _checked_gold(pairs: TokenPairs, gold: Mapping[int, Alignment] | None) -> dict:
    """``gold`` as a dict, every index checked to name one of ``pairs``."""
    gold = dict(gold or {})
    for n in gold:
        if not 0 <= int(n) < len(pairs):
            raise ValueError(f"gold alignment for pair index {n}, but there are {len(pairs)} pairs")
    return gold


def _hmm_alone(pairs, gold, cfg: AlignerConfig, lcfg: LinkModelConfig, report) -> SeedModel:
    """Too little gold for the classifiers: the HMM seeds, the gold as observed counts."""
    hmm = _train_hmm(pairs, cfg, gold, report, 1.0)
    reason = (
        f"{len(gold)} gold pair(s), fewer than the {lcfg.min_gold_pairs} the supervised "
        "model needs: the HMM alone seeds" + (" (gold as counts)" if gold else "")
    )
    return SeedModel(kind="hmm", hmm=hmm, info={"gold_pairs": len(gold), "reason": reason})


@dataclass
class GoldCells:
    """The gold pairs' cells as the classifiers learn from them: the HMM's cell features
    (``X``, one row per cell of ``grid``), their labels, and the fold of each pair and cell.

    k-fold cross-validation over gold pairs: out-of-fold probabilities tune the threshold and
    feed the second stage (so it learns from first-stage output as it will look on pairs the
    first stage never saw); the gold lexicon of a fold's rows is counted on the other folds, as
    it will be on pairs that are not gold."""

    index: list[int]  # the gold pairs' indices into all the pairs, ascending
    pairs: list  # the gold pairs
    alignments: list[Alignment]
    X: np.ndarray
    grid: CellGrid
    linked: np.ndarray
    sure: np.ndarray
    identical: np.ndarray
    candidates: np.ndarray
    fold_of_pair: np.ndarray
    fold: np.ndarray

    @classmethod
    def of(cls, pairs, gold, hmm: AlignerModel, stats: TokenStats, lcfg) -> GoldCells:
        folds = GoldFolds.of(pairs, gold, lcfg)
        gold_pairs = [pairs[n] for n in folds.index]
        X, grid = hmm_cell_features(hmm, stats, gold_pairs)
        linked, sure = cell_labels(grid, [len(t) for _, t in gold_pairs], folds.alignments)
        identical = identical_cells(gold_pairs)
        candidates = candidate_cells(X)
        return cls(
            folds.index, gold_pairs, folds.alignments, X, grid, linked, sure, identical,
            candidates, folds.fold_of_pair, folds.fold,
        )  # fmt: skip


@dataclass
class GoldFolds:
    """The gold pairs (their indices, ascending, and alignments, checked against the pairs)
    and the cross-validation fold of each pair and of each of its cells (``GoldCells``'
    order): what the gold HMMs need, known before any HMM is trained."""

    index: list[int]
    alignments: list[Alignment]
    fold_of_pair: np.ndarray
    fold: np.ndarray

    @classmethod
    def of(cls, pairs, gold, lcfg) -> GoldFolds:
        index = sorted(int(n) for n in gold)
        alignments = [gold[n] for n in index]
        for n, a in zip(index, alignments, strict=True):
            try:
                a.validate(len(pairs[n][0]), len(pairs[n][1]))
            except ValueError as exc:
                raise ValueError(f"gold alignment of pair {n}: {exc}") from exc
        rng = np.random.default_rng(lcfg.seed)
        fold_of_pair = rng.permutation(len(index)) % lcfg.folds
        sizes = [len(pairs[n][0]) * len(pairs[n][1]) for n in index]
        return cls(index, alignments, fold_of_pair, np.repeat(fold_of_pair, sizes))


def _lexicon_columns(cells: GoldCells, stats: TokenStats, lcfg) -> tuple[np.ndarray, GoldLexicon]:
    """The gold lexicon's columns, each fold's rows counted on the other folds' gold; and the
    lexicon counted on all of it, which seeds."""
    src_words, tgt_words = stats.word_ids(cells.pairs)
    grid, linked, fold = cells.grid, cells.linked, cells.fold
    lex = np.zeros((len(cells.X), len(LEXICON_NAMES)), dtype=np.float32)
    for k in range(lcfg.folds):
        counted = GoldLexicon(grid, src_words, tgt_words, linked, fold != k, len(stats.index))
        rows = fold == k
        lex[rows] = counted.features(grid, src_words, tgt_words)[rows]
    everything = np.ones(len(cells.X), dtype=bool)
    return lex, GoldLexicon(grid, src_words, tgt_words, linked, everything, len(stats.index))


def _hmm_cells(hmm: AlignerModel, stats: TokenStats, pairs: TokenPairs) -> np.ndarray:
    return hmm_cell_features(hmm, stats, pairs)[0]


def _gold_hmm_columns(folds: GoldFolds, seen, gold, cfg, lcfg) -> tuple[np.ndarray, AlignerModel]:
    """The HMM with gold as counts (seeds/004) knows the gold's word pairs; a fold's rows get
    the evidence of an HMM that counted the other folds' gold only (on base forms, the gold's
    word pairs also count for their other inflections). And the one that counted all the
    gold, which seeds."""
    evidence = np.zeros((len(folds.fold), len(GOLD_HMM_NAMES)), dtype=np.float32)
    for k in range(lcfg.folds):
        chosen = np.flatnonzero(folds.fold_of_pair != k)
        others = {folds.index[n]: folds.alignments[n] for n in chosen}
        hmm_k = _train_hmm(seen, cfg, others, _quiet, 0.0)
        members = [seen[folds.index[n]] for n in np.flatnonzero(folds.fold_of_pair == k)]
        evidence[folds.fold == k] = hmm_evidence(hmm_k, members)
    return evidence, _train_hmm(seen, cfg, gold, _quiet, 0.0)


def _gold_hmms(pairs, gold, cfg, lcfg, base_forms: bool, wordnet) -> tuple:
    """The pairs the gold HMMs read (WordNet's base forms, or the pairs), and, when the model
    reads them, the gold HMMs' columns of the gold cells and the gold HMM that seeds (None,
    None otherwise). They need no other HMM: a thread trains them beside the unsupervised
    one."""
    seen = base_form_pairs(pairs, wordnet) if base_forms else pairs
    counted = (
        _gold_hmm_columns(GoldFolds.of(pairs, gold, lcfg), seen, gold, cfg, lcfg)
        if lcfg.gold_hmm
        else (None, None)
    )
    import_trees()  # whichever thread is free first imports them (the other one waits)
    return (seen, *counted)


def _input_columns(cells, stats, lcfg, use: SeedResources, knowledge, counted):
    """Every input column of the gold cells (the HMM's cell features, the gold lexicon's, the
    gold HMMs' and the outside resources', these two to come from other threads: ``counted``
    from ``_gold_hmms``, ``knowledge``), their names, the gold lexicon and gold HMM that seed
    (None when not used), and the pairs the gold HMM reads."""
    blocks = [cells.X]  # joined once below: each join copies every column
    lexicon = None
    if lcfg.lexicon:
        lex, lexicon = _lexicon_columns(cells, stats, lcfg)
        blocks.append(lex)
    import_trees()  # unless the gold HMMs' thread, done first, is at it: the fits need them
    seen, evidence, gold_hmm = counted.result()
    blocks += [evidence] if evidence is not None else []
    blocks.append(knowledge.result())
    return np.hstack(blocks), input_names(lcfg, use), lexicon, gold_hmm, seen


def input_names(lcfg: LinkModelConfig, use: SeedResources) -> tuple[str, ...]:
    """The names of the classifiers' input columns (before symmetrising), in their order, for
    these settings and the resources in use."""
    return (
        *FEATURE_NAMES,
        *(LEXICON_NAMES if lcfg.lexicon else ()),
        *(GOLD_HMM_NAMES if lcfg.gold_hmm else ()),
        *(WORDNET_NAMES if use.wordnet is not None else ()),
        *(VECTOR_NAMES if use.vectors is not None else ()),
        *(THESAURUS_NAMES if use.thesaurus is not None else ()),
        *(WORD_CLASS_NAMES if lcfg.word_classes else ()),
        *(TAG_NAMES if use.tags is not None else ()),
        *(SPELLING_NAMES if lcfg.spelling else ()),
    )


@dataclass
class _FoldFitter:
    """Fits one stage's classifiers fold by fold: per fold k, a classifier fitted on the rows
    of the other folds scores fold k's rows."""

    lcfg: LinkModelConfig
    cells: GoldCells
    stage_names: tuple[str, ...]
    columns: dict[str, np.ndarray | None]  # the input columns each stage reads (None: all)
    workers: int
    report: Callable[[float, str], None]

    @classmethod
    def of(cls, lcfg: LinkModelConfig, cells: GoldCells, views: Views, report) -> _FoldFitter:
        stage_names = ("first stage", "second stage")[: lcfg.stages] + ("sure or possible",)
        # the first stage's inputs are the cell features' view; the later stages' also the
        # first stage's context
        later = views.first_names + views.context_names
        columns = {
            name: kept_columns(
                views.first_names if name == "first stage" else later, UNUSED_COLUMNS[name]
            )
            if lcfg.skip_unused and lcfg.stages == 2
            else None
            for name in stage_names
        }
        return cls(lcfg, cells, stage_names, columns, lcfg.workers or os.cpu_count() or 1, report)

    def out_of_fold(
        self,
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
        (models,) = self.fit([_Stage(name, inputs, labels, within, only)])
        return self.score(_Stage(name, inputs, labels, within, only), models, scored)

    def fit(self, stages: Sequence[_Stage]) -> list[list[Any]]:
        """Each stage's fold classifiers (per fold k, fitted on the ``within`` rows of the
        other folds, and in ``only`` if given), all fitted in one pool of ``workers``
        threads, in the order given (the longest first keeps both cores busy to the end)."""
        lcfg, fold, folds = self.lcfg, self.cells.fold, self.lcfg.folds
        jobs = []
        for stage in stages:
            step = self.stage_names.index(stage.name)
            settings = lcfg if step or lcfg.stages == 1 else lcfg.first_stage()
            self.report(
                0.6 + 0.4 * step / len(self.stage_names), f"fitting the link model: {stage.name}"
            )
            for k in range(folds):
                rows = stage.within & (fold != k) & (True if stage.only is None else stage.only)
                jobs.append((stage, settings, rows))
        models = in_threads(
            lambda job: fit_classifier(
                job[1],
                take_rows(job[0].inputs, job[2], self.columns[job[0].name]),
                job[0].labels[job[2]],
                job[0].only is not None,
            ),
            jobs,
            self.workers,
        )
        return [models[n * folds : (n + 1) * folds] for n in range(len(stages))]

    def score(
        self, stage: _Stage, models: list[Any], scored: np.ndarray | None = None
    ) -> tuple[np.ndarray, FoldAverage]:
        """Fold k's ``within`` rows (those in ``scored``, if given) scored by fold k's
        classifier: the out-of-fold probabilities, and the fold classifiers as one model."""
        fold, inputs, keep = self.cells.fold, stage.inputs, self.columns[stage.name]
        test_rows = [
            stage.within & (fold == k) & (True if scored is None else scored)
            for k in range(self.lcfg.folds)
        ]
        out = np.zeros(len(inputs))
        scores = in_threads(
            lambda k: probability(models[k], take_rows(inputs, test_rows[k], keep)),
            list(range(self.lcfg.folds)),
            self.workers,
        )
        for rows, score in zip(test_rows, scores, strict=True):
            out[rows] = score
        return out, FoldAverage(models, self.workers, keep, inputs.shape[1])


@dataclass
class _Stage:
    """What one stage's classifiers learn from: its inputs, labels, the rows it reads
    (``within``) and, if given, the only rows it is fitted on."""

    name: str
    inputs: np.ndarray
    labels: np.ndarray
    within: np.ndarray
    only: np.ndarray | None = None


@dataclass
class _Fitted:
    stages: LinkStages
    threshold: float
    cv: dict[str, Any]
    cv_hmm: dict[str, Any]
    oof: np.ndarray  # the last link stage's out-of-fold probabilities, per gold cell
    sure_threshold: float = 0.5  # a predicted link is sure from this P(sure | link)


def _fit_stages(cells: GoldCells, X: np.ndarray, views: Views, lcfg, report) -> _Fitted:
    """The classifier stages fitted fold by fold, the decoding threshold tuned on their
    out-of-fold probabilities, and the cross-validated figures (the HMM's beside them)."""
    fitter = _FoldFitter.of(lcfg, cells, views, report)
    candidates, linked = cells.candidates, cells.linked
    # the classifiers' inputs are formed on the rows a stage reads only (the others stay 0)
    first_input = on_rows(views.first(X[candidates]), candidates)
    stage_input, rows = first_input, candidates
    oof, first = fitter.out_of_fold("first stage", first_input, linked, rows)
    second = None
    if lcfg.stages == 2:
        context = context_features(oof, cells.grid, views.rich_context)
        rows = candidates | beside_a_likely_link(context, lcfg.widen)
        added = rows & ~candidates
        first_input[added] = views.first(X[added])
        stage_input = on_rows(np.hstack([first_input[rows], views.context(context[rows])]), rows)
    # the second stage and P(sure | link) read the same inputs, and the latter's fits need
    # nothing of the former's: they are fitted side by side (only its scoring waits)
    last = _Stage("second stage", stage_input, linked, rows) if lcfg.stages == 2 else None
    sure_stage = _Stage("sure or possible", stage_input, cells.sure, rows, only=linked)
    fitted = fitter.fit([last, sure_stage] if last is not None else [sure_stage])
    if last is not None:
        oof, second = fitter.score(last, fitted[0])
    threshold = lcfg.threshold if lcfg.threshold is not None else best_threshold(oof, linked)
    predicted = oof >= threshold
    # P(sure | link) is only ever read where a link is predicted
    oof_sure, sure_classifier = fitter.score(sure_stage, fitted[-1], scored=predicted)
    n_gold = len(cells.index)
    cv = link_figures(predicted, linked, cells.identical, n_gold)
    both = predicted & linked
    sure_threshold = 0.5
    if lcfg.joint_sure:
        sure_threshold = best_sure_threshold(oof_sure[both], cells.sure[both])
    cv["sure_accuracy"] = (
        float(np.mean((oof_sure[both] >= sure_threshold) == cells.sure[both]))
        if both.any()
        else None
    )
    viterbi_both = X[:, FEATURE_NAMES.index("viterbi_both")] > 0.5
    cv_hmm = link_figures(viterbi_both, linked, cells.identical, n_gold)
    stages = LinkStages(first, second, sure_classifier, lcfg.widen, views)
    return _Fitted(stages, threshold, cv, cv_hmm, oof, sure_threshold)


def _count_own_links(model: SeedModel, pairs, gold, seen, stats, cfg, lcfg, report) -> list:
    """The second round: the model's links on the pairs without gold count as gold for the
    gold HMM and the gold lexicon that seed (the classifiers stay as fitted). The links it
    counted (none when there is nothing to count them for)."""
    unlabelled = [n for n in range(len(pairs)) if n not in gold] if lcfg.pseudo_gold else []
    if not unlabelled or (model.lexicon is None and model.gold_hmm is None):
        return []
    report(0.95, f"the model's links on the {len(unlabelled)} pairs without gold, as counts")
    predicted = model.align([pairs[n] for n in unlabelled])
    counted = {**dict(zip(unlabelled, predicted, strict=True)), **gold}
    if model.gold_hmm is not None:  # on the pairs (or base forms) the first one read
        model.gold_hmm = _train_hmm(seen, cfg, counted, _quiet, 0.0)
    if model.lexicon is not None:
        model.lexicon = lexicon_of(stats, pairs, counted)
    return predicted
