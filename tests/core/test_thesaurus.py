"""The Moby thesaurus as features of the supervised link model: words and short phrases listed
under each other, read through WordNet's base forms, on a hand-made thesaurus; symmetric in
the two sentences; and what the model reports of it. Installing it: test_resources.py."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from alignment_core.aligner import AlignerConfig
from alignment_core.aligner.features import FEATURE_NAMES, CellGrid, Symmetriser
from alignment_core.aligner.link_model import (
    LinkModelConfig,
    installed_resources,
    train_seed_model,
)
from alignment_core.aligner.thesaurus import THESAURUS_NAMES, Thesaurus, thesaurus_features
from tests.core.test_supervised_model import planted_corpus

HAND = Thesaurus.of(
    {
        "die": ["pass away", "perish"],
        "Worried": ["anxious"],
        "in a hurry": ["quickly"],
    },
    name="hand",
)
RELATED, ROW_PHRASE, COLUMN_PHRASE = range(3)


def cells(source: str, target: str, wordnet=None) -> np.ndarray:
    s, t = source.split(), target.split()
    grid = CellGrid.of([(len(s), len(t))])
    out = thesaurus_features(grid, [(s, t)], HAND, wordnet)
    return out.reshape(len(s), len(t), len(THESAURUS_NAMES))


def test_words_listed_under_each_other_are_related_either_way():
    out = cells("he was worried", "she felt Anxious")
    assert out[2, 2, RELATED] == 1.0 and out[:, :, RELATED].sum() == 1.0
    assert cells("she felt anxious", "he was worried")[2, 2, RELATED] == 1.0
    assert HAND.related("anxious", "WORRIED") and not HAND.related("anxious", "perish")


def test_inflections_are_read_through_wordnets_base_forms():
    wordnet = installed_resources().wordnet
    assert cells("they perished", "they died")[1, 1, RELATED] == 0.0  # "perished" is no head
    assert cells("they perished", "they died", wordnet)[1, 1, RELATED] == 1.0


def test_a_phrase_listed_under_a_word_marks_the_cells_of_the_phrase():
    out = cells("he passed away yesterday", "he died yesterday", installed_resources().wordnet)
    # phrases are looked up as written (casefolded), not through base forms: "pass away" is
    # listed under "die", "passed away" is no term
    assert out[:, :, COLUMN_PHRASE].sum() == 0.0
    out = cells("he pass away today", "he died today", installed_resources().wordnet)
    expected = np.zeros((4, 3))
    expected[1:3, 1] = 1.0  # the source phrase's cells, in the column of the word
    np.testing.assert_array_equal(out[:, :, COLUMN_PHRASE], expected)
    assert out[:, :, ROW_PHRASE].sum() == 0.0
    # a phrase heading an entry, against a word listed under it, from the other side
    out = cells("left quickly", "left in a hurry")
    expected = np.zeros((2, 4))
    expected[1, 1:4] = 1.0
    np.testing.assert_array_equal(out[:, :, ROW_PHRASE], expected)


def test_swapping_the_sentences_swaps_row_and_column_features():
    Symmetriser((*FEATURE_NAMES, *THESAURUS_NAMES))
    s, t = ["he", "pass", "away", "in", "a", "hurry"], ["he", "died", "quickly"]
    grid = CellGrid.of([(len(s), len(t))])
    forward = thesaurus_features(grid, [(s, t)], HAND).reshape(len(s), len(t), -1)
    grid_t = CellGrid.of([(len(t), len(s))])
    backward = thesaurus_features(grid_t, [(t, s)], HAND).reshape(len(t), len(s), -1)
    backward = backward.transpose(1, 0, 2)[:, :, [RELATED, COLUMN_PHRASE, ROW_PHRASE]]
    np.testing.assert_array_equal(forward, backward)
    assert forward.sum() > 0


def test_empty_pairs_and_an_empty_corpus_have_no_cells():
    assert thesaurus_features(CellGrid.of([]), [], HAND).shape == (0, 3)
    pairs = [([], ["die"]), (["pass", "away"], ["die"])]
    out = thesaurus_features(CellGrid.of([(0, 1), (2, 1)]), pairs, HAND)
    np.testing.assert_array_equal(out[:, COLUMN_PHRASE], [1.0, 1.0])


def test_the_model_reports_the_thesaurus_it_read(monkeypatch):
    pairs, gold = planted_corpus(40)
    given = replace(installed_resources(), thesaurus=HAND)
    cfg, train_gold = AlignerConfig(threads=1), {n: gold[n] for n in range(24)}
    lcfg = LinkModelConfig(max_iter=10, min_gold_pairs=20, vectors=False)
    model = train_seed_model(pairs, train_gold, config=cfg, resources=given, link_config=lcfg)
    assert model.info["thesaurus"] == "hand" and model.thesaurus is HAND
    off = train_seed_model(
        pairs, train_gold, config=cfg, resources=given, link_config=replace(lcfg, thesaurus=False)
    )
    assert off.info["thesaurus"] == "off" and off.thesaurus is None
    # its three columns, symmetrised into three
    assert model.stages.first.n_features_in_ == off.stages.first.n_features_in_ + 3
    given = replace(installed_resources(), thesaurus=None)
    missing = train_seed_model(pairs, train_gold, config=cfg, resources=given, link_config=lcfg)
    assert missing.info["thesaurus"] == "not installed: the model went without"
    assert len(model.align(pairs)) == 40


@pytest.mark.parametrize("bad", [{"indptr": np.zeros(2, dtype=np.int64)}])
def test_entry_arrays_that_do_not_match_the_terms_are_refused(bad):
    with pytest.raises(ValueError, match="do not match"):
        Thesaurus(["a", "b"], bad["indptr"], np.zeros(0, dtype=np.int32))
