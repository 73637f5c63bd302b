"""Pairs from comparable documents: shuffled, dropped and distracting sentences; resources as
arguments; and the new packages import without the web stack."""

from __future__ import annotations

import subprocess
import sys

from alignment_core.paraphrase.features import Resources
from alignment_core.sentalign.comparable import (
    ComparableConfig,
    match_comparable,
    similarity_matrix,
)
from tests.conftest import REPO_ROOT

SRC = [
    "The Swiss expedition reached the summit of Lhotse on 18 May 1956.",
    "Ernst Reiss and Fritz Luchsinger climbed the last 300 metres without oxygen.",
    "Bad weather kept the team in camp for nine days.",
    "The porters carried 12 tonnes of equipment from Kathmandu.",
]
TGT = [
    "Without oxygen, Luchsinger and Reiss climbed the final 300 metres.",  # 1
    "A new road to the valley opened in 1962.",  # distractor
    "On 18 May 1956 the summit of Lhotse was reached by the Swiss expedition.",  # 0
    "Twelve tonnes of equipment came from Kathmandu on the backs of porters.",  # 3
]


def test_shuffled_pairs_are_recovered_and_distractors_left_out():
    pairs = match_comparable(SRC, TGT)
    assert {(p.src, p.tgt) for p in pairs} == {(0, 2), (1, 0), (3, 3)}
    assert all(0.0 < p.score <= 1.0 for p in pairs)
    assert [p.src for p in pairs] == sorted(p.src for p in pairs)


def test_threshold_and_empty_documents():
    assert match_comparable(SRC, TGT, config=ComparableConfig(threshold=1.01)) == []
    assert match_comparable([], TGT) == []
    assert similarity_matrix(SRC, []).shape == (4, 0)


class _Synonyms:
    """A stand-in WordNet: only "halted" / "stopped" are synonyms."""

    def base_form(self, word):
        return word

    def relation(self, a, b):
        class R:
            synonym = {a, b} == {"halted", "stopped"}
            same_lemma = related = False

        return R()


def test_synonyms_only_through_the_resources_argument():
    src = ["Storms halted climbers."]
    tgt = ["Storms stopped climbers.", "Storms buried tents."]
    plain = similarity_matrix(src, tgt)
    with_wn = similarity_matrix(src, tgt, resources=Resources(wordnet=_Synonyms()))
    assert with_wn[0, 0] > plain[0, 0]
    assert with_wn[0, 0] == 1.0 and with_wn[0, 1] < with_wn[0, 0]


BLOCK_WEB_STACK = """
import sys
for name in ("django", "rest_framework", "celery", "annotator", "gridalign"):
    sys.modules[name] = None
import alignment_core.sentalign, alignment_core.paraphrase
import alignment_core.sentalign.comparable, alignment_core.sentalign.split
import alignment_core.formats.beads, alignment_core.formats.msrp
from alignment_core.cli import build_parser
build_parser().parse_args(["sentalign", "a", "b", "--out", "c"])
print("ok")
"""


def test_new_packages_import_without_the_web_stack():
    out = subprocess.run(
        [sys.executable, "-c", BLOCK_WEB_STACK], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
