"""A supervised seed model written to files and read back (``seed_model_files``: what a
project seeded in chunks fits once and every align chunk reads) predicts what it predicted,
bit for bit, and refuses a process that lacks what it reads; a model trained over a corpus's
HMM and word counts (``train_seed_model(..., corpus=...)``) reads them, not its sample's."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from alignment_core.aligner import AlignerConfig, train
from alignment_core.aligner.builtin import load_builtin
from alignment_core.aligner.features import TokenStats
from alignment_core.aligner.link_model import LinkModelConfig, installed_resources
from alignment_core.aligner.link_training import (
    CorpusEvidence,
    builtin_problem,
    train_seed_model,
    trains_on_gold,
)
from alignment_core.aligner.seed_model_files import load_seed_model, save_seed_model
from alignment_core.alignment import Alignment
from tests.conftest import IN_CI
from tests.core.test_supervised_model import planted_corpus

FAST = LinkModelConfig(max_iter=30, min_gold_pairs=20)
CFG = AlignerConfig(threads=1)


@pytest.fixture(scope="module")
def planted():
    pairs, gold = planted_corpus(70)
    model = train_seed_model(pairs, {n: gold[n] for n in range(40)}, config=CFG,
                             resources=installed_resources(), link_config=FAST)  # fmt: skip
    return pairs, model


def predictions(model, pairs):
    alignments, matrices = model.predict(pairs)
    return [a.to_links() for a in alignments], matrices


def assert_same_predictions(ours, theirs) -> None:
    assert ours[0] == theirs[0]
    assert all(np.array_equal(a, b) for a, b in zip(ours[1], theirs[1], strict=True))


def test_a_model_read_back_predicts_what_it_predicted_bit_for_bit(planted, tmp_path):
    pairs, model = planted
    save_seed_model(model, tmp_path / "model")

    back = load_seed_model(tmp_path / "model", hmm=model.hmm, stats=model.stats,
                           resources=installed_resources(), builtin=None)  # fmt: skip

    assert back.kind == "supervised" and back.info["gold_pairs"] == 40
    assert back.threshold == model.threshold and back.sure_threshold == model.sure_threshold
    assert (back.gold_hmm is None) == (model.gold_hmm is None)
    assert (back.lexicon is None) == (model.lexicon is None)
    assert_same_predictions(predictions(back, pairs), predictions(model, pairs))


def english_pairs(n: int) -> list[tuple[list[str], list[str]]]:
    rng = np.random.default_rng(3)
    subjects, verbs = ["the cat", "a dog", "my friend"], ["saw", "liked", "found"]
    synonyms = {"saw": "noticed", "liked": "enjoyed", "found": "discovered", "big": "large"}
    out = []
    for _ in range(n):
        source = f"{rng.choice(subjects)} {rng.choice(verbs)} the big house".split()
        out.append((source, [synonyms.get(w, w) if rng.random() < 0.5 else w for w in source]))
    return out


def test_a_model_pooled_with_the_builtin_one_reads_it_back_and_refuses_another(tmp_path):
    pairs = english_pairs(30)
    gold = {
        n: Alignment.from_sets([(i, i) for i in range(len(pairs[n][0]))], []) for n in (0, 1, 2)
    }
    builtin, resources = load_builtin(), installed_resources()
    model = train_seed_model(pairs, gold, config=CFG, resources=resources, builtin=builtin)
    if model.builtin is None:
        assert not IN_CI, "CI installs the seeding resources (make resources)"
        pytest.skip(f"the built-in model cannot read its inputs here: {model.info}")
    save_seed_model(model, tmp_path / "pooled")

    back = load_seed_model(tmp_path / "pooled", hmm=model.hmm, stats=model.stats,
                           resources=resources, builtin=builtin)  # fmt: skip

    assert back.builtin is builtin and back.builtin_weight == model.builtin_weight
    assert_same_predictions(predictions(back, pairs), predictions(model, pairs))
    with pytest.raises(ValueError, match="pools with the built-in model"):
        load_seed_model(tmp_path / "pooled", hmm=model.hmm, stats=model.stats,
                        resources=resources, builtin=None)  # fmt: skip


def test_a_process_without_a_resource_the_model_reads_is_refused_by_name(planted, tmp_path):
    _, model = planted
    used = [name for name in ("vectors", "thesaurus", "tags") if getattr(model, name)]
    if not used:
        assert not IN_CI, "CI installs the seeding resources (make resources)"
        pytest.skip("no outside resource installed: nothing the model reads can be missing")
    save_seed_model(model, tmp_path / "model")
    without = replace(installed_resources(), **{used[0]: None})

    with pytest.raises(ValueError, match=f"reads {used[0]}.*resources install"):
        load_seed_model(tmp_path / "model", hmm=model.hmm, stats=model.stats,
                        resources=without, builtin=None)  # fmt: skip


def test_only_a_supervised_model_is_written(tmp_path):
    pairs, gold = planted_corpus(12)
    model = train_seed_model(pairs, {0: gold[0]}, config=CFG, link_config=FAST)
    assert model.kind == "hmm"
    with pytest.raises(ValueError, match="only a supervised model"):
        save_seed_model(model, tmp_path / "hmm")
    assert not (tmp_path / "hmm").exists()


def test_a_model_over_a_corpus_reads_the_corpus_hmm_and_counts_not_its_sample(planted):
    pairs, gold = planted_corpus(70)
    corpus_hmm = train(pairs, config=CFG)  # the corpus: all 70 pairs
    corpus = CorpusEvidence(corpus_hmm, TokenStats(pairs))
    sample = pairs[:50]  # the gold's 40 pairs and 10 others

    model = train_seed_model(sample, {n: gold[n] for n in range(40)}, config=CFG,
                             link_config=FAST, corpus=corpus)  # fmt: skip
    alone = train_seed_model(sample, {n: gold[n] for n in range(40)}, config=CFG,
                             link_config=FAST)  # fmt: skip

    assert model.kind == "supervised" and model.hmm is corpus_hmm
    assert model.stats is corpus.stats and alone.hmm is not corpus_hmm
    assert model.info["pseudo_gold_pairs"] == 10  # the own-links round reads the sample only
    with pytest.raises(ValueError, match="train no link model"):
        train_seed_model(sample, {0: gold[0]}, config=CFG, link_config=FAST, corpus=corpus)


@pytest.mark.parametrize(("n_gold", "with_builtin", "expected"),
                         [(0, False, False), (19, False, False), (20, False, True),
                          (1, True, False), (2, True, True)])  # fmt: skip
def test_gold_trains_a_model_from_min_gold_pairs_or_from_two_beside_the_builtin_one(
    n_gold, with_builtin, expected
):
    resources = installed_resources()
    builtin = load_builtin() if with_builtin else None
    if builtin is not None and builtin_problem(builtin, resources) is not None:
        assert not IN_CI, "CI installs the seeding resources (make resources)"
        pytest.skip("the built-in model cannot read its inputs here")
    assert trains_on_gold(n_gold, builtin, FAST, resources) is expected
