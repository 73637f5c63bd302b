"""The pair classifier: MSRP files, features, a planted rule learnt, the CLI round trip."""

from __future__ import annotations

import random

import numpy as np
import pytest

from alignment_core.cli import main
from alignment_core.formats.errors import FormatError
from alignment_core.formats.msrp import HEADER, MsrpPair, format_msrp, parse_msrp
from alignment_core.paraphrase import FEATURE_NAMES, FeatureExtractor, Resources
from alignment_core.paraphrase.model import PairClassifier, train_and_predict

HEAD = "\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"


def test_msrp_round_trip_and_header_variants():
    text = HEAD + '1\t7\t8\tHe said "yes".\tHe agreed.\n0\t9\t10\tA cat.\tA dog.\n'
    pairs = parse_msrp(text, "m.txt")
    assert pairs[0] == MsrpPair(1, "7", "8", 'He said "yes".', "He agreed.")
    assert pairs[1].quality == 0
    assert parse_msrp("".join(format_msrp(pairs))) == pairs
    hyphens = "Quality\t#1-ID\t#2-ID\t#1-String\t#2-String\n1\ta\tb\tx\ty\n"
    assert parse_msrp(hyphens)[0].id1 == "a"
    assert "".join(format_msrp([])).rstrip("\n").split("\t") == list(HEADER)
    unlabelled = parse_msrp(HEAD + "\t1\t2\tx\ty\n", require_quality=False)
    assert unlabelled[0].quality is None


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("", None, "empty file"),
        ("Quality\tID\n", 1, "not the MSRP header"),
        (HEAD + "1\t7\t8\tonly four\n", 2, "4 tab-separated fields"),
        (HEAD + "2\t7\t8\ta\tb\n", 2, "Quality '2' is not 0 or 1"),
        (HEAD + "\t7\t8\ta\tb\n", 2, "Quality '' is not 0 or 1"),
        (HEAD + "1\t7\t8\t \tb\n", 2, "an empty string"),
    ],
)
def test_bad_msrp_files_name_file_and_line(text, line, reason):
    with pytest.raises(FormatError, match=reason) as err:
        parse_msrp(text, "m.txt")
    assert err.value.file == "m.txt" and err.value.line == line


def test_features_see_numbers_and_names():
    fx = FeatureExtractor()
    same = fx.features("Smith paid $2.5 million in 1998.", "In 1998 Smith paid $2.5 million.")
    diff = fx.features("Smith paid $2.5 million in 1998.", "Jones paid $1.8 million in 1995.")
    col = {name: k for k, name in enumerate(FEATURE_NAMES)}
    assert len(same) == len(FEATURE_NAMES)
    assert same[col["numbers_equal"]] == 1.0 and diff[col["numbers_equal"]] == 0.0
    assert same[col["p1_1"]] == 1.0 and diff[col["p1_1"]] < 1.0
    assert diff[col["names_only1"]] == 0  # "Smith" is sentence-initial: not counted a name


class _FakeWordNet:
    """Resources are arguments: a stand-in with the readers' interface."""

    def base_form(self, word):
        return word.rstrip("s")

    def relation(self, a, b):
        class R:
            synonym = {a, b} == {"big", "large"}
            same_lemma = related = False

        return R()


def test_synonyms_come_from_the_resources_given():
    plain = FeatureExtractor()
    wn = FeatureExtractor(Resources(wordnet=_FakeWordNet()))
    col = FEATURE_NAMES.index("syn_p1")
    a, b = "a big house", "a large house"
    assert plain.features(a, b)[col] == 0.5
    assert wn.features(a, b)[col] == 1.0


def _planted(rng: random.Random, n: int):
    """Pairs whose label is the planted rule: same number in both sentences → 1."""
    words = [
        "river",
        "mountain",
        "glacier",
        "summit",
        "valley",
        "ridge",
        "camp",
        "rope",
        "snow",
        "ice",
    ]
    out = []
    for _ in range(n):
        s1 = " ".join(rng.choice(words) for _ in range(6))
        s2 = " ".join(rng.choice(words) for _ in range(6))
        k = rng.randrange(100, 999)
        same = rng.random() < 0.5
        out.append((f"{s1} {k}", f"{s2} {k if same else k + 1}", int(same)))
    return out


def test_classifier_learns_a_planted_rule():
    rng = random.Random(5)
    train, test = _planted(rng, 300), _planted(rng, 100)
    got = train_and_predict(train, [(a, b) for a, b, _ in test], threshold=0.5)
    accuracy = np.mean([label == q for (_, label), (_, _, q) in zip(got, test, strict=True)])
    assert accuracy >= 0.95
    assert all(0.0 <= p <= 1.0 for p, _ in got)
    # deterministic: the same decisions give the same probabilities
    again = train_and_predict(train, [(a, b) for a, b, _ in test], threshold=0.5)
    assert again == got


def test_one_class_of_decisions_predicts_its_rate():
    clf = PairClassifier().fit_features(np.zeros((3, 2)), [1, 1, 1])
    assert clf.predict_proba_features(np.zeros((2, 2))).tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="no decisions"):
        PairClassifier().fit_features(np.zeros((0, 2)), [])


def test_cli_round_trip(tmp_path, capsys):
    rng = random.Random(9)
    labelled = tmp_path / "labelled.txt"
    pairs = tmp_path / "pairs.txt"
    train, test = _planted(rng, 200), _planted(rng, 20)
    labelled.write_text(
        "".join(format_msrp(MsrpPair(q, str(k), str(k), a, b) for k, (a, b, q) in
                            enumerate(train))),
        encoding="utf-8",
    )  # fmt: skip
    pairs.write_text(
        "".join(format_msrp(MsrpPair(None, str(k), str(k), a, b) for k, (a, b, _) in
                            enumerate(test))),
        encoding="utf-8",
    )  # fmt: skip
    out = tmp_path / "out.txt"
    args = ["paraphrase", str(pairs), "--decisions", str(labelled), "--out", str(out)]
    assert main(args + ["--no-resources", "--threshold", "0.5"]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(test)
    hits = []
    for line, (_, _, q) in zip(lines, test, strict=True):
        prob, label = line.split("\t")
        assert 0.0 <= float(prob) <= 1.0 and label in ("0", "1")
        assert int(label) == int(float(prob) >= 0.5)
        hits.append(int(label) == q)
    assert np.mean(hits) >= 0.9
    # a bad decisions file: reason with file and line, nothing written
    bad = tmp_path / "bad.txt"
    bad.write_text(HEAD + "yes\t1\t2\ta\tb\n", encoding="utf-8")
    out2 = tmp_path / "never.txt"
    assert main(["paraphrase", str(pairs), "--decisions", str(bad), "--out", str(out2)]) == 1
    assert f"{bad}:2: Quality 'yes' is not 0 or 1" in capsys.readouterr().err
    assert not out2.exists()
