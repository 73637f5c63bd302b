"""The Penn Treebank tag lexicon as features of the supervised link model: installing it from
its package (and refusing a broken one), the per-cell classes on a hand-made lexicon, symmetry
in the two sentences, the installed lexicon (required when CI=true), and what the model
reports of it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from alignment_core.aligner import AlignerConfig, resources, tags
from alignment_core.aligner.features import FEATURE_NAMES, CellGrid, Symmetriser, transposed_name
from alignment_core.aligner.link_model import (
    LinkModelConfig,
    installed_resources,
    train_seed_model,
)
from alignment_core.aligner.resources import ResourceError, install
from alignment_core.aligner.tags import COARSE, TAG_NAMES, TagLexicon, coarse, tag_features
from alignment_core.cli import main
from tests.conftest import need
from tests.core.test_resources import package_tarball
from tests.core.test_supervised_model import planted_corpus

T = {name: k for k, name in enumerate(TAG_NAMES)}
K = {name: k for k, name in enumerate(COARSE)}
HAND = TagLexicon(
    {"the": ["DT"], "left": ["VBN", "JJ", "NN"], "went": ["VBD"], "light": ["NN", "JJ"]},
    name="hand",
)
LEXICON_JS = (
    '"use strict";\nexports.__esModule = true;\nvar lexicon = {\n'
    '    "The": "DT",\n    "the": "DT|VBD",\n    "US": "NNP",\n    "us": "PRP",\n'
    '    "Paris": "NNP",\n    "left": "VBN|JJ|NN",\n    ",": ","\n};\n'
    'exports["default"] = lexicon;\n'
)


def cells(source: str, target: str, lexicon=HAND) -> np.ndarray:
    s, t = source.split(), target.split()
    grid = CellGrid.of([(len(s), len(t))])
    return tag_features(grid, [(s, t)], lexicon).reshape(len(s), len(t), -1)


def test_penn_tags_fall_into_coarse_classes():
    assert [COARSE[coarse(t)] for t in ("NNS", "VBZ", "MD", "JJR", "RP", "WDT", "TO")] == [
        "noun", "verb", "verb", "adj", "adv", "det", "prep",
    ]  # fmt: skip
    assert [COARSE[coarse(t)] for t in ("PRP$", "CC", "CD", ",", "UH")] == [
        "pron", "conj", "num", "punct", "other",
    ]  # fmt: skip


def test_the_classes_of_each_word_and_of_the_two_together():
    out = cells("The man left", "the light went")
    assert out[0, 0, T["source_tag_first"]] == K["det"] and out[0, 0, T["tag_same_first"]] == 1
    # "left": most often a participle (verb), also an adjective and a noun
    assert out[2, 0, T["source_tag_first"]] == K["verb"]
    profile = HAND.profile("left")
    assert [profile[1 + K[c]] for c in ("verb", "adj", "noun", "det")] == [1, 1, 1, 0]
    assert out[2, 2, T["tag_same_first"]] == 1.0  # verb, verb
    assert out[2, 1, T["tag_same_first"]] == 0.0  # verb, noun
    assert out[2, 1, T["tag_overlap"]] == pytest.approx(2 / 3)  # {noun, adj} of {verb, adj, noun}
    # "man" is not in this lexicon: unknown, and so is everything it is compared with
    assert out[1, 0, T["source_tag_first"]] == -1.0
    assert out[1, 0, T["tag_same_first"]] == -1.0 and out[1, 0, T["tag_overlap"]] == -1.0
    assert HAND.profile("man").tolist() == [-1.0] + [0.0] * len(COARSE)


def test_swapping_the_sentences_swaps_source_and_target_columns():
    Symmetriser((*FEATURE_NAMES, *TAG_NAMES))  # every column has its twin
    forward = cells("the man left", "light went")
    backward = cells("light went", "the man left").transpose(1, 0, 2)
    twin = [TAG_NAMES.index(transposed_name(name)) for name in TAG_NAMES]
    np.testing.assert_array_equal(forward, backward[:, :, twin])
    assert tag_features(CellGrid.of([]), [], HAND).shape == (0, len(TAG_NAMES))


def test_install_the_lexicon_from_its_tarball_then_load(tmp_path):
    integrity = package_tarball(tmp_path / "l.tgz", {tags.MEMBER: LEXICON_JS})
    folder = tmp_path / "lexicon"
    assert install(tags.PACKAGE, tmp_path / "l.tgz", folder, integrity=integrity) == (folder, True)
    assert resources.installed(tags.PACKAGE, folder)["words"] == 4
    lexicon = TagLexicon.load(folder)
    assert lexicon.name == "Penn Treebank tag lexicon from en-lexicon@1.0.11"
    # words are looked up casefolded, in the lexicon's lower-case entries only: a word it has
    # only capitalised (a name) is unknown
    assert lexicon.tags("the") == ("DT", "VBD") and lexicon.tags("The") == ("DT", "VBD")
    assert lexicon.tags("us") == ("PRP",) and lexicon.tags("Paris") == ()
    assert lexicon.tags(",") == (",",) and lexicon.tags("carpet") == ()


@pytest.mark.parametrize(
    "member, message",
    [
        ('var lexicon = {\n  "a": "DT",\n};\n', "its object is not JSON"),
        ("module.exports = [];\n", "holds no lexicon object"),
        ('var lexicon = {"a": ["DT"]};\n', "the entry 'a' is not word → tags"),
        (b'var lexicon = {"\xe9": "NN"};', "is not UTF-8"),
    ],
)
def test_a_broken_lexicon_package_is_refused_and_nothing_is_written(tmp_path, member, message):
    integrity = package_tarball(tmp_path / "l.tgz", {tags.MEMBER: member})
    with pytest.raises(ResourceError, match=message):
        install(tags.PACKAGE, tmp_path / "l.tgz", tmp_path / "lexicon", integrity=integrity)
    assert not (tmp_path / "lexicon").exists()
    empty = package_tarball(tmp_path / "e.tgz", {"package/package.json": "{}"})
    with pytest.raises(ResourceError, match="no package/dist/lexicon.js in the package"):
        install(tags.PACKAGE, tmp_path / "e.tgz", tmp_path / "lexicon", integrity=empty)


def test_the_installed_lexicon_knows_english(capsys):
    source = resources.installed(tags.PACKAGE)
    need(source is not None, "the tag lexicon (make setup installs it)")
    assert source["integrity"] == tags.PACKAGE.integrity
    lexicon = installed_resources().tags
    assert lexicon is installed_resources().tags  # read once per process
    assert lexicon.tags("released")[0] in ("VBN", "VBD") and lexicon.tags("the")[0] == "DT"
    assert (
        coarse(lexicon.tags("has")[0]) == K["verb"] and coarse(lexicon.tags("of")[0]) == K["prep"]
    )
    assert main(["resources", "status", "tags"]) == 0
    assert "Penn Treebank tag lexicon from en-lexicon@1.0.11" in capsys.readouterr().out


def test_the_model_reports_the_lexicon_it_read(monkeypatch):
    pairs, gold = planted_corpus(40)
    given = replace(installed_resources(), tags=HAND)
    cfg, train_gold = AlignerConfig(threads=1), {n: gold[n] for n in range(24)}
    lcfg = LinkModelConfig(max_iter=10, min_gold_pairs=20, vectors=False, thesaurus=False)
    model = train_seed_model(pairs, train_gold, config=cfg, resources=given, link_config=lcfg)
    assert model.info["tags"] == "hand" and model.tags is HAND
    off = train_seed_model(
        pairs, train_gold, config=cfg, resources=given, link_config=replace(lcfg, tags=False)
    )
    assert off.info["tags"] == "off" and off.tags is None
    # two per-side columns symmetrised into two, and the two joint columns
    assert model.stages.first.n_features_in_ == off.stages.first.n_features_in_ + len(TAG_NAMES)
    given = replace(installed_resources(), tags=None)
    missing = train_seed_model(pairs, train_gold, config=cfg, resources=given, link_config=lcfg)
    assert missing.info["tags"] == "not installed: the model went without"
    assert len(model.align(pairs)) == 40
