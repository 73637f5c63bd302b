"""The supervised link model: it learns a planted rule the HMM cannot see, predicts sure vs
possible, falls back to the HMM without enough gold, and is deterministic for a seed."""

from __future__ import annotations

import functools
import sys
from dataclasses import replace

import numpy as np
import pytest

from alignment_core.aligner import AlignerConfig, link_model, train
from alignment_core.aligner.features import LEXICON_NAMES, CellGrid
from alignment_core.aligner.link_model import (
    LinkModelConfig,
    installed_resources,
    preload,
    train_seed_model,
)
from alignment_core.alignment import Alignment

FAST = LinkModelConfig(max_iter=40, min_gold_pairs=20)
CFG = AlignerConfig(threads=1)


def planted_corpus(n_pairs: int, seed: int = 1):
    """Every source word is rare (the HMM learns nothing about it); the target spells it with a
    "q" added, in a locally shuffled order, among filler words. Planted rule: a word links to
    its "q" spelling (sure); the final full stops link as possible; fillers stay unlinked."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnoprstuvwxyz"))
    pairs, gold = [], []
    for _ in range(n_pairs):
        n = int(rng.integers(6, 10))
        source = ["".join(rng.choice(letters, 5)) for _ in range(n)]
        target = [w + "q" for w in source]
        for k in range(0, n - 1, 2):  # local swaps
            if rng.random() < 0.5:
                target[k], target[k + 1] = target[k + 1], target[k]
        for _ in range(int(rng.integers(1, 3))):
            target.insert(int(rng.integers(0, len(target) + 1)), str(rng.choice(["um", "er"])))
        source.append(".")
        target.append(".")
        sure = [(i, target.index(w + "q")) for i, w in enumerate(source[:-1])]
        possible = [(len(source) - 1, len(target) - 1)]
        pairs.append((source, target))
        gold.append(Alignment.from_sets(sure, possible))
    return pairs, gold


def f1(predicted: list[Alignment], gold: list[Alignment]) -> float:
    hit = sum(len(p.all_links & g.all_links) for p, g in zip(predicted, gold, strict=True))
    n_pred = sum(len(p.all_links) for p in predicted)
    n_gold = sum(len(g.all_links) for g in gold)
    return 2 * hit / (n_pred + n_gold)


@pytest.fixture(scope="module")
def planted():
    pairs, gold = planted_corpus(90)
    model = train_seed_model(
        pairs,
        {n: gold[n] for n in range(60)},
        config=CFG,
        resources=installed_resources(),
        link_config=FAST,
    )
    return pairs, gold, model


def test_the_model_recovers_a_planted_rule_the_hmm_cannot_see(planted):
    pairs, gold, model = planted
    assert model.kind == "supervised" and model.info["gold_pairs"] == 60
    held_out = range(60, 90)
    predicted = model.align([pairs[n] for n in held_out])
    hmm = model.hmm.align([pairs[n] for n in held_out])
    ours = f1(predicted, [gold[n] for n in held_out])
    theirs = f1(hmm, [gold[n] for n in held_out])
    assert ours >= 0.95, (ours, theirs)
    assert ours > theirs + 0.1, (ours, theirs)
    # the cross-validated figures on the gold pairs say the same, beside the HMM's
    cv, cv_hmm = model.info["cv"], model.info["cv_hmm"]
    assert cv["all_f1"] >= 0.95 and cv["edits_per_pair"] < cv_hmm["edits_per_pair"]
    assert 0 < model.threshold < 1


def test_sure_and_possible_are_predicted(planted):
    pairs, gold, model = planted
    held_out = list(range(60, 90))
    predicted = model.align([pairs[n] for n in held_out])
    right = total = 0
    for n, alignment in zip(held_out, predicted, strict=True):
        full_stop = (len(pairs[n][0]) - 1, len(pairs[n][1]) - 1)
        assert full_stop in alignment.possible  # the planted possible link
        for link in alignment.all_links & gold[n].all_links:
            total += 1
            right += (link in alignment.sure) == (link in gold[n].sure)
    assert total > 200 and right / total >= 0.95
    assert model.info["cv"]["sure_accuracy"] >= 0.95


def test_probabilities_are_per_cell_matrices(planted):
    pairs, _, model = planted
    alignments, matrices = model.predict(pairs[:3])
    for (s, t), a, m in zip(pairs[:3], alignments, matrices, strict=True):
        assert m.shape == (len(s), len(t)) and m.dtype == np.float32
        assert ((m >= 0) & (m <= 1)).all()
        linked = {(int(i), int(j)) for i, j in zip(*np.nonzero(m >= model.threshold), strict=True)}
        assert linked == set(a.all_links)


def test_wordnet_and_symmetric_features_are_settings_the_model_reports(planted):
    pairs, gold, model = planted
    assert model.info["wordnet"] == "WordNet 3.0" and model.wordnet is not None
    plain = LinkModelConfig(**{**FAST.to_dict(), "wordnet": False, "symmetric": False})
    other = train_seed_model(
        pairs,
        {n: gold[n] for n in range(60)},
        config=CFG,
        resources=installed_resources(),
        link_config=plain,
    )
    assert other.info["wordnet"] == "off" and other.wordnet is None
    # fewer columns without WordNet's; the planted rule is learnt either way
    assert other.stages.first.n_features_in_ < model.stages.first.n_features_in_
    held_out = range(60, 90)
    predicted = other.align([pairs[n] for n in held_out])
    assert f1(predicted, [gold[n] for n in held_out]) > 0.9


def test_the_gold_hmm_reads_base_forms_so_gold_counts_for_other_inflections():
    pairs, gold = planted_corpus(30, seed=5)
    # English inflections beside the planted words: "released" in the source, "releases" in
    # the target, linked in the gold
    pairs = [(s + ["released"], t + ["releases"]) for s, t in pairs]
    gold = [
        Alignment.from_sets(g.sure | {(len(s) - 1, len(t) - 1)}, g.possible)
        for g, (s, t) in zip(gold, pairs, strict=True)
    ]
    gold_map = {n: gold[n] for n in range(25)}
    model = train_seed_model(
        pairs, gold_map, config=CFG, resources=installed_resources(), link_config=FAST
    )
    assert model.gold_hmm_base_forms and model.info["link_config"]["gold_hmm_base_forms"]
    # the gold HMM counted base forms; the HMM that reads the whole corpus, its words
    assert "release" in model.gold_hmm.src_vocab and "released" not in model.gold_hmm.src_vocab
    assert "release" in model.gold_hmm.tgt_vocab and "releases" not in model.gold_hmm.tgt_vocab
    assert "released" in model.hmm.src_vocab and "release" not in model.hmm.src_vocab
    # the inflected pair is linked on pairs outside the gold
    for s, t in pairs[25:]:
        (aligned,) = model.align([(s, t)])
        assert (len(s) - 1, len(t) - 1) in aligned.all_links
    surface = train_seed_model(
        pairs,
        gold_map,
        config=CFG,
        resources=installed_resources(),
        link_config=replace(FAST, gold_hmm_base_forms=False),
    )
    assert not surface.gold_hmm_base_forms and "released" in surface.gold_hmm.src_vocab
    no_wordnet = train_seed_model(
        pairs,
        gold_map,
        config=CFG,
        resources=installed_resources(),
        link_config=replace(FAST, wordnet=False),
    )
    assert not no_wordnet.gold_hmm_base_forms and "released" in no_wordnet.gold_hmm.src_vocab


def test_too_little_gold_falls_back_to_the_hmm_and_says_so():
    pairs, gold = planted_corpus(30)
    few = {n: gold[n] for n in range(5)}
    model = train_seed_model(
        pairs, few, config=CFG, resources=installed_resources(), link_config=FAST
    )
    assert model.kind == "hmm"
    assert "5 gold pair(s)" in model.info["reason"] and "20" in model.info["reason"]
    # the HMM with the gold as counts, as before this model existed
    assert model.align(pairs) == train(pairs, config=CFG, gold=few).align(pairs)
    none = train_seed_model(
        pairs, {}, config=CFG, resources=installed_resources(), link_config=FAST
    )
    assert none.kind == "hmm" and "0 gold pair(s)" in none.info["reason"]
    assert none.align(pairs) == train(pairs, config=CFG).align(pairs)
    _, matrices = none.predict(pairs[:2])
    assert all(
        np.array_equal(m, p) for m, p in zip(matrices, none.hmm.posteriors(pairs[:2]), strict=True)
    )


def test_the_models_own_links_on_pairs_without_gold_count_for_the_gold_evidence(planted):
    """After fitting, the model aligns the 30 pairs without gold and counts its links in the
    gold lexicon and the gold HMM that seed; the classifiers stay as they were fitted."""
    pairs, gold, model = planted
    off = train_seed_model(
        pairs,
        {n: gold[n] for n in range(60)},
        config=CFG,
        resources=installed_resources(),
        link_config=replace(FAST, pseudo_gold=False),
    )
    assert model.info["pseudo_gold_pairs"] == 30 and off.info["pseudo_gold_pairs"] == 0
    first_round = off.align(pairs[60:])  # what the model found before counting its own links
    assert model.info["pseudo_gold_links"] == sum(len(a.all_links) for a in first_round) > 0
    # the first round is untouched: same threshold and cross-validated figures
    assert model.threshold == off.threshold and model.info["cv"] == off.info["cv"]
    # every source word is rare: a word pair of pair 70 was never seen in the gold, but now
    # counts once, linked, wherever the first round linked it
    n = 70
    (source, target) = pairs[n]
    linked = {(i, j) for i, j in first_round[n - 60].all_links if source[i] != "."}
    assert linked
    grid = CellGrid.of([(len(source), len(target))])
    lex_on = model.lexicon.features(grid, *model.stats.word_ids([pairs[n]]))
    lex_off = off.lexicon.features(grid, *off.stats.word_ids([pairs[n]]))
    seen, rate = LEXICON_NAMES.index("gold_pair_seen"), LEXICON_NAMES.index("gold_pair_rate")
    for i, j in linked:
        cell = i * len(target) + j
        assert lex_off[cell, seen] == 0 and lex_on[cell, seen] == pytest.approx(np.log(2))
        assert lex_on[cell, rate] > 0.5 > lex_off[cell, rate]
    # and the gold HMM that seeds is another one, with other evidence on those pairs
    assert model.gold_hmm is not off.gold_hmm
    on_p = model.gold_hmm.posteriors(pairs[60:])
    off_p = off.gold_hmm.posteriors(pairs[60:])
    assert any(not np.allclose(a, b) for a, b in zip(on_p, off_p, strict=True))
    # the gold itself is the same in both: only the pairs without gold were added
    assert model.info["gold_pairs"] == off.info["gold_pairs"] == 60


def test_deterministic_for_a_seed():
    pairs, gold = planted_corpus(40, seed=3)
    gold_map = {n: gold[n] for n in range(25)}
    # the folds are fitted in threads: one thread or two, the same model
    two, one = replace(FAST, workers=2), replace(FAST, workers=1)
    a = train_seed_model(
        pairs, gold_map, config=CFG, resources=installed_resources(), link_config=two
    )
    b = train_seed_model(
        pairs, gold_map, config=CFG, resources=installed_resources(), link_config=one
    )
    assert len(a.stages.first.models) == FAST.folds
    assert (a.stages.first.workers, b.stages.first.workers) == (2, 1)
    assert a.threshold == b.threshold and a.info["cv"] == b.info["cv"]
    pa, pb = a.probabilities(pairs), b.probabilities(pairs)
    assert all(np.array_equal(x, y) for x, y in zip(pa, pb, strict=True))
    assert a.align(pairs) == b.align(pairs)


def test_the_seeding_classifier_is_the_mean_of_the_fold_classifiers(planted):
    pairs, _, model = planted
    # the first stage, which only feeds the second its context, grows fewer trees
    assert {m.n_iter_ for m in model.stages.first.models} == {FAST.first_stage_iter}
    assert {m.n_iter_ for m in model.stages.second.models} == {FAST.max_iter}
    assert FAST.first_stage_iter < FAST.max_iter
    stage = model.stages.second
    assert len(stage.models) == FAST.folds
    X = np.random.default_rng(0).random((50, stage.n_features_in_))
    read = X[:, stage.columns]  # the columns its classifiers read
    each = [m.predict_proba(read)[:, 1] for m in stage.models]
    assert not np.allclose(each[0], each[1])  # the folds saw different gold
    assert np.allclose(stage.predict_proba(X)[:, 1], np.mean(each, axis=0))
    assert np.allclose(stage.predict_proba(X).sum(axis=1), 1.0)


def test_the_trees_read_column_major_input_with_the_same_result(planted):
    from alignment_core.aligner.link_classifiers import by_column

    pairs, _, model = planted
    X, _ = model.cell_inputs(pairs[60:70])
    X = model.stages.views.first(X)
    columns = by_column(X)
    assert columns.flags.f_contiguous and columns.dtype == np.float64
    assert np.array_equal(columns, X)
    # scored by each fold classifier straight from row-major float32, and through the model
    rows = np.ascontiguousarray(X, dtype=np.float32)
    read = rows[:, model.stages.first.columns]
    each = np.mean([m.predict_proba(read)[:, 1] for m in model.stages.first.models], axis=0)
    assert np.array_equal(model.stages.first.predict_proba(rows)[:, 1], each)


def test_each_stage_leaves_out_the_columns_listed_as_unused(planted):
    from alignment_core.aligner.features import FEATURE_NAMES
    from alignment_core.aligner.link_model import GOLD_HMM_NAMES, UNUSED_COLUMNS, Views
    from alignment_core.aligner.tags import TAG_NAMES
    from alignment_core.aligner.thesaurus import THESAURUS_NAMES
    from alignment_core.aligner.vectors import VECTOR_NAMES
    from alignment_core.aligner.wordclass import WORD_CLASS_NAMES
    from alignment_core.aligner.wordnet import WORDNET_NAMES

    # every listed name is a column of the inputs with all the evidence (a misspelt name
    # would leave out nothing)
    every = (
        *FEATURE_NAMES,
        *LEXICON_NAMES,
        *GOLD_HMM_NAMES,
        *WORDNET_NAMES,
        *VECTOR_NAMES,
        *THESAURUS_NAMES,
        *WORD_CLASS_NAMES,
        *TAG_NAMES,
    )
    views = Views.of(every, symmetric=True)
    assert UNUSED_COLUMNS["first stage"] <= set(views.first_names)
    for later in ("second stage", "sure or possible"):
        assert UNUSED_COLUMNS[later] <= set(views.first_names + views.context_names)
    # the planted model's classifiers read every other column of their stage's input
    pairs, gold, model = planted
    names = model.stages.views.first_names
    stages = (
        (model.stages.first, names, "first stage"),
        (model.stages.second, names + model.stages.views.context_names, "second stage"),
        (model.stages.sure, names + model.stages.views.context_names, "sure or possible"),
    )
    for stage, inputs, name in stages:
        assert stage.n_features_in_ == len(inputs)
        read = [inputs[k] for k in stage.columns]
        assert set(read) == set(inputs) - UNUSED_COLUMNS[name] and len(read) < len(inputs)
        assert {m.n_features_in_ for m in stage.models} == {len(read)}
    # without the list, every column; the planted rule is learnt either way
    every_column = replace(FAST, skip_unused=False)
    plain = train_seed_model(
        pairs,
        {n: gold[n] for n in range(60)},
        config=CFG,
        resources=installed_resources(),
        link_config=every_column,
    )
    assert plain.stages.first.columns is None and plain.stages.second.columns is None
    assert {m.n_features_in_ for m in plain.stages.first.models} == {len(names)}
    held_out = range(60, 90)
    predicted = plain.align([pairs[n] for n in held_out])
    assert f1(predicted, [gold[n] for n in held_out]) > 0.9


def test_sure_or_possible_is_only_read_where_a_link_is_predicted(planted):
    pairs, _, model = planted
    X, grid = model.cell_inputs(pairs[60:70])
    prob, sure = model.stages.predict(X, grid, model.threshold)
    assert (prob >= model.threshold).any() and (sure[prob < model.threshold] == 0).all()
    linked = prob >= model.threshold
    _, all_sure = model.stages.predict(X, grid, 0.0)
    assert np.allclose(sure[linked], all_sure[linked]) and (all_sure[~linked] > 0).any()


def test_bad_gold_and_settings_are_refused_with_the_reason():
    pairs, gold = planted_corpus(25)
    with pytest.raises(ValueError, match="pair index 99"):
        train_seed_model(
            pairs, {99: gold[0]}, config=CFG, resources=installed_resources(), link_config=FAST
        )
    wrong = dict.fromkeys(range(20), gold[0])  # pair 0's links do not fit every pair
    wrong[1] = Alignment.from_sets([(40, 0)])
    with pytest.raises(ValueError, match="gold alignment of pair 1"):
        train_seed_model(
            pairs, wrong, config=CFG, resources=installed_resources(), link_config=FAST
        )
    with pytest.raises(ValueError, match="folds"):
        LinkModelConfig(folds=1)
    with pytest.raises(ValueError, match="first_stage_iter"):
        LinkModelConfig(first_stage_iter=0)
    with pytest.raises(ValueError, match="workers"):
        LinkModelConfig(workers=0)


def test_preload_reads_what_the_first_supervised_model_would(monkeypatch):
    """``preload`` (a worker calls it at start) reads each outside resource into the process's
    one copy (``installed_resources``) that the worker's training is given, so training then
    reads nothing again; it times each."""
    from alignment_core.aligner import installed

    monkeypatch.setattr(installed, "_installed", functools.lru_cache(maxsize=1)(
        installed._installed.__wrapped__
    ))  # fmt: skip
    calls: list[str] = []
    load = installed.SeedResources.load

    def counted(root, **wanted):
        calls.extend(key for key, on in wanted.items() if on)
        return load(root, **wanted)

    monkeypatch.setattr(installed.SeedResources, "load", counted)
    seconds = preload()
    assert calls == list(link_model.EVIDENCE_KEYS)
    assert list(seconds) == ["sklearn", *link_model.EVIDENCE_KEYS, "builtin"]
    assert all(value >= 0 for value in seconds.values())
    assert "sklearn.ensemble" in sys.modules
    wordnet = installed_resources().wordnet  # and WordNet's synset tables, read before a lookup
    assert wordnet is None or wordnet._tables is not None
    # the process keeps what it read, so training (and a second preload) reads nothing again
    first = installed_resources()
    assert preload()["wordnet"] == 0.0 and installed_resources() is first
    assert calls == list(link_model.EVIDENCE_KEYS)


def test_a_link_is_sure_from_the_sure_threshold_chosen_with_the_link_threshold(planted):
    pairs, gold, _ = planted
    model = train_seed_model(
        pairs,
        {n: gold[n] for n in range(60)},
        config=CFG,
        resources=installed_resources(),
        link_config=replace(FAST, joint_sure=True, pseudo_gold=False),
    )
    assert model.info["sure_threshold"] == model.sure_threshold
    assert 0 < model.sure_threshold < 1
    assert model.info["cv"]["sure_accuracy"] >= 0.95
    chosen = pairs[60:70]
    X, grid = model.cell_inputs(chosen)
    prob, p_sure = model.stages.predict(X, grid, model.threshold)
    for n, alignment in enumerate(model.align(chosen)):
        lo, cols = int(grid.offsets[n]), len(chosen[n][1])
        for i, j in alignment.all_links:
            cell = lo + i * cols + j
            assert prob[cell] >= model.threshold
            assert ((i, j) in alignment.sure) == (p_sure[cell] >= model.sure_threshold)
