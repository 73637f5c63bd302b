"""The built-in English paraphrase model (issue 34): the shipped file loads without pickle and
is the one MODEL.md describes; its trees predict as the fitted classifiers did; writing it is
deterministic; it seeds an English pair deterministically; it is not used when it cannot read
its inputs; and pooled with a project's gold it learns a project rule it contradicts."""

from __future__ import annotations

import hashlib
import re
import zipfile

import numpy as np
import pytest

from alignment_core.aligner import AlignerConfig
from alignment_core.aligner.builtin import (
    BUILTIN_PATH,
    BUILTIN_VERSION,
    WEIGHTS,
    TreeEnsemble,
    load_builtin,
    read_builtin,
    save_builtin,
)
from alignment_core.aligner.builtin_build import robust_threshold
from alignment_core.aligner.features import FEATURE_NAMES
from alignment_core.aligner.link_model import (
    LinkModelConfig,
    SeedResources,
    installed_resources,
    train_seed_model,
)
from alignment_core.aligner.wordclass import WORD_CLASS_NAMES
from alignment_core.alignment import Alignment
from tests.core.test_supervised_model import planted_corpus

CFG = AlignerConfig(threads=1)

ENGLISH = [
    ("the cat sat on the mat", "the cat was sitting on the mat"),
    ("a dog ran in the park", "a dog was running in the park"),
    ("the man bought a new car", "the man purchased a new car"),
    ("she reads the paper every day", "she reads the newspaper daily"),
    ("the children played in the garden", "the kids were playing in the garden"),
    ("he quickly left the room", "he left the room in a hurry"),
    ("the government raised taxes", "the government increased taxes"),
    ("prices rose sharply last year", "prices increased sharply last year"),
]


def english_pairs():
    return [(s.split(), t.split()) for s, t in ENGLISH]


def test_the_shipped_file_loads_without_pickle_and_is_the_one_model_md_describes():
    raw = BUILTIN_PATH.read_bytes()
    assert len(raw) <= 1_000_000  # the budget for a committed artefact
    with np.load(BUILTIN_PATH, allow_pickle=False) as npz:  # no object arrays anywhere
        assert "meta" in npz.files and all(npz[name].dtype != object for name in npz.files)
    model = load_builtin()
    assert model.version == BUILTIN_VERSION == "en-paraphrase-1"
    assert model.sha256 == hashlib.sha256(raw).hexdigest()
    card = (BUILTIN_PATH.parent / "MODEL.md").read_text(encoding="utf-8")
    assert re.search(rf"sha256 \| `{model.sha256}`", card)
    assert (BUILTIN_PATH.parent / "LICENSE-Edinburgh++-Apache-2.0.txt").is_file()
    assert model.meta["data"]["split"] == "train" and model.meta["data"]["licence"] == "Apache-2.0"
    assert 0 < model.threshold < 1 and model.stages.second is not None
    # it reads every outside resource and nothing counted from gold
    assert "wordnet_synonym" in model.names and not any(n.startswith("gold") for n in model.names)


def test_tree_arrays_predict_as_the_fitted_classifier_bit_for_bit():
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(3)
    X = rng.normal(size=(600, 5))
    y = (X[:, 0] + 0.5 * X[:, 3] * X[:, 1] > 0.2).astype(int)
    clf = HistGradientBoostingClassifier(max_iter=15, early_stopping=False, random_state=0)
    clf.fit(X, y)
    trees = TreeEnsemble.of(clf, X.shape[1])
    assert len(trees.trees) == 15
    assert np.array_equal(trees.predict_proba(X), clf.predict_proba(X))


@pytest.fixture(scope="module")
def small_model():
    pairs, gold = planted_corpus(40, seed=2)
    cfg = LinkModelConfig(max_iter=10, first_stage_iter=5, wordnet=False, vectors=False,
                          thesaurus=False, tags=False, lexicon=False, gold_hmm=False)  # fmt: skip
    model = train_seed_model(pairs, dict(enumerate(gold)), config=CFG, link_config=cfg)
    return pairs, model


def test_a_written_model_reads_back_to_the_same_probabilities_and_the_same_bytes(
    tmp_path, small_model
):
    pairs, model = small_model
    names = [*FEATURE_NAMES, *WORD_CLASS_NAMES]  # the inputs' columns (before symmetrising)
    meta = {"version": "test-1", "names": names, "widen": model.stages.widen,
            "symmetric": True, "threshold": model.threshold}  # fmt: skip
    first, second = tmp_path / "a.npz", tmp_path / "b.npz"
    save_builtin(first, model.stages, meta)
    save_builtin(second, model.stages, meta)
    assert first.read_bytes() == second.read_bytes()  # no timestamps: the same bytes
    assert {i.date_time for i in zipfile.ZipFile(first).infolist()} == {(1980, 1, 1, 0, 0, 0)}
    back = read_builtin(first)
    X, grid = model.cell_inputs(pairs[:10])
    expected = model.stages.predict(X, grid, model.threshold)
    got = back.stages.predict(X, grid, model.threshold)
    for a, b in zip(expected, got, strict=True):
        assert np.array_equal(a, b)


def test_english_pairs_are_seeded_by_the_builtin_model_the_same_way_every_time():
    pairs = english_pairs()
    runs = [
        train_seed_model(
            pairs, {}, config=CFG, resources=installed_resources(), builtin=load_builtin()
        )  # fmt: skip
        for _ in range(2)
    ]
    assert [m.kind for m in runs] == ["builtin", "builtin"]
    assert runs[0].info["builtin_version"] == BUILTIN_VERSION
    assert "built-in English model en-paraphrase-1 seeds" in runs[0].info["reason"]
    (a1, p1), (a2, p2) = (m.predict(pairs) for m in runs)
    assert a1 == a2 and all(np.array_equal(x, y) for x, y in zip(p1, p2, strict=True))
    # it knows English: identical words and "bought"/"purchased" link, unrelated words not
    links = a1[2].all_links
    assert {(0, 0), (1, 1), (2, 2), (4, 4), (5, 5)} <= links and (2, 2) in links
    assert (0, 5) not in links


def test_without_its_resources_the_builtin_model_is_not_used_and_says_why():
    model = train_seed_model(english_pairs(), {}, config=CFG, resources=SeedResources(),
                             builtin=load_builtin())  # fmt: skip
    assert model.kind == "hmm"
    assert "built-in model en-paraphrase-1 reads" in model.info["builtin_not_used"]


def test_robust_threshold_takes_the_highest_within_one_standard_error():
    # 4 pairs, 10 cells each: thresholds below 0.5 cost one edit per pair more; from 0.5 to
    # 0.7 the same; above 0.7 a miss per pair
    pair = np.repeat(np.arange(4), 10)
    probability = np.tile(np.array([0.9, 0.75, 0.4] + [0.05] * 7), 4)
    linked = np.tile(np.array([True, True, False] + [False] * 7), 4)
    assert robust_threshold(probability, linked, pair) == 0.75


FILLER = ("the", "a")


def rule_corpus(n_pairs: int, seed: int = 0):
    """English-like pairs whose identical words link, as the built-in model expects, except
    the project's own (planted) convention: the articles "the" and "a" never link."""
    rng = np.random.default_rng(seed)
    nouns = [
        "cat",
        "dog",
        "man",
        "car",
        "house",
        "child",
        "tree",
        "river",
        "city",
        "school",
        "book",
        "door",
    ]
    verbs = ["saw", "liked", "found", "took", "left", "painted"]
    pairs, gold = [], []
    for _ in range(n_pairs):
        words = [str(rng.choice(FILLER)), str(rng.choice(nouns)), str(rng.choice(verbs)),
                 str(rng.choice(FILLER)), str(rng.choice(nouns))]  # fmt: skip
        target = list(words)
        sure = [(i, j) for i, w in enumerate(words) for j, v in enumerate(target)
                if w == v and w not in FILLER and i == j]  # fmt: skip
        pairs.append((words, target))
        gold.append(Alignment.from_sets(sure))
    return pairs, gold


def article_links(alignments, pairs) -> float:
    """The share of article cells (an article on both sides, same position) that are linked."""
    hit = total = 0
    for a, (s, t) in zip(alignments, pairs, strict=True):
        for i, w in enumerate(s):
            if w in FILLER and i < len(t) and t[i] == w:
                total += 1
                hit += (i, i) in a.all_links
    return hit / total


def test_pooling_learns_a_project_rule_the_builtin_model_contradicts():
    pairs, gold = rule_corpus(90)
    held_out = list(range(60, 90))
    resources, builtin = installed_resources(), load_builtin()
    alone = train_seed_model(pairs, {}, config=CFG, resources=resources, builtin=builtin)
    assert (
        article_links(alone.align([pairs[n] for n in held_out]), [pairs[n] for n in held_out]) > 0.8
    )
    pooled = train_seed_model(
        pairs, {n: gold[n] for n in range(60)}, config=CFG, resources=resources, builtin=builtin
    )
    assert pooled.kind == "supervised" and pooled.info["builtin_weight"] in WEIGHTS
    assert pooled.info["builtin_weight"] < 1  # the project's gold outweighs it
    assert set(pooled.info["builtin_cv_edits"]) == {str(w) for w in WEIGHTS}
    seeds = pooled.align([pairs[n] for n in held_out])
    assert article_links(seeds, [pairs[n] for n in held_out]) < 0.1  # the project's rule
    nouns = sum(len(seeds[k].all_links & gold[n].all_links) for k, n in enumerate(held_out))
    assert nouns >= 0.9 * sum(len(gold[n].all_links) for n in held_out)  # and the rest kept
