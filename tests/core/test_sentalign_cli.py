"""``python -m alignment_core sentalign``: the bead file format, round trips, bad input."""

from __future__ import annotations

import subprocess
import sys

import pytest

from alignment_core.cli import main
from alignment_core.formats.beads import format_bead, parse_beads
from alignment_core.formats.errors import FormatError
from tests.conftest import REPO_ROOT
from tests.core.test_sentalign_align import DE, FR, GOLD


def test_bead_format_round_trip():
    text = "[0]:[0]\n[1, 2]:[1]:0.5\n[]:[2]\n\n[3]:[]:1e-3\n"
    beads = parse_beads(text, "b.txt")
    assert [(b.src, b.tgt, b.score) for b in beads] == [
        ((0,), (0,), None),
        ((1, 2), (1,), 0.5),
        ((), (2,), None),
        ((3,), (), 0.001),
    ]
    assert format_bead((1, 2), (1,)) == "[1, 2]:[1]"
    assert format_bead((), (2,), 0.25) == "[]:[2]:0.2500"


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("[0]:[0]\n[1-2]:[1]\n", 2, "malformed bead"),
        ("[]:[]\n", 1, "both sides empty"),
        ("[0]:[0]:abc\n", 1, "not a number"),
        ("[0]:[0]:nan\n", 1, "not finite"),
    ],
)
def test_bad_bead_lines_name_the_line(text, line, reason):
    with pytest.raises(FormatError, match=reason) as err:
        parse_beads(text, "b.txt")
    assert err.value.line == line and err.value.file == "b.txt"


@pytest.fixture
def docs(tmp_path):
    src = tmp_path / "doc.de"
    tgt = tmp_path / "doc.fr"
    src.write_text("\n".join(DE) + "\n", encoding="utf-8")
    tgt.write_text("\n".join(FR) + "\n", encoding="utf-8")
    return src, tgt


def test_parallel_round_trip(docs, tmp_path, capsys):
    src, tgt = docs
    out = tmp_path / "beads.txt"
    assert main(["sentalign", str(src), str(tgt), "--out", str(out)]) == 0
    beads = parse_beads(out.read_text(encoding="utf-8"))
    assert [(b.src, b.tgt) for b in beads] == GOLD
    assert all(0.0 <= b.score <= 1.0 for b in beads)
    assert main(["sentalign", str(src), str(tgt), "--out", str(out), "--no-scores"]) == 0
    assert out.read_text(encoding="utf-8").splitlines()[1] == "[1]:[1, 2]"


def test_split_and_comparable_mode(tmp_path):
    src = tmp_path / "a.txt"
    tgt = tmp_path / "b.txt"
    src.write_text(
        "The climbers reached the summit in 1953. Bad weather stopped them for 12 days. "
        "Mr. Buhl went alone.",
        encoding="utf-8",
    )
    tgt.write_text(
        "Mr. Buhl climbed alone.\nThey waited 12 days because of bad weather.\n"
        "The summit was reached by the climbers in 1953.\nNothing else happened.\n",
        encoding="utf-8",
    )
    out = tmp_path / "pairs.txt"
    code = main(
        ["sentalign", str(src), str(tgt), "--out", str(out), "--mode", "comparable", "--split",
         "en:en"]
    )  # fmt: skip
    assert code == 0
    pairs = {(b.src, b.tgt) for b in parse_beads(out.read_text(encoding="utf-8"))}
    # --split applies to both sides: the source becomes 3 sentences (not cut after "Mr."),
    # the target 4; the unrelated fourth target sentence is nobody's best partner
    assert pairs == {((0,), (2,)), ((1,), (1,)), ((2,), (0,))}


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"abc\x00def\n", "binary file"),
        (b"ok line\ncaf\xe9\n", "not valid utf-8"),
    ],
)
def test_bad_files_are_refused_and_nothing_is_written(docs, tmp_path, capsys, content, reason):
    src, _ = docs
    bad = tmp_path / "bad.txt"
    bad.write_bytes(content)
    out = tmp_path / "never.txt"
    assert main(["sentalign", str(bad), str(src), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert reason in err and str(bad) in err
    assert not out.exists()


def test_unknown_language_and_missing_file(docs, tmp_path, capsys):
    src, tgt = docs
    out = tmp_path / "never.txt"
    assert main(["sentalign", str(src), str(tgt), "--out", str(out), "--split", "xx"]) == 1
    assert "no sentence splitter for language 'xx'" in capsys.readouterr().err
    assert main(["sentalign", str(tmp_path / "nope"), str(tgt), "--out", str(out)]) == 1
    assert "cannot read file" in capsys.readouterr().err
    assert not out.exists()


def test_html_documents_from_the_command_line(tmp_path):
    src = tmp_path / "a.src.html"
    tgt = tmp_path / "a.tgt.html"
    src.write_text(
        "<html><body><h1>Everest 1953</h1><p>Hillary und Tenzing standen am 29. Mai 1953 "
        "auf dem Gipfel. Sie blieben 15 Minuten.</p></body></html>",
        encoding="utf-8",
    )
    tgt.write_text(
        "<html><body><h1>Everest 1953</h1><p>Hillary et Tenzing furent au sommet le 29 mai "
        "1953. Ils y restèrent 15 minutes.</p></body></html>",
        encoding="utf-8",
    )
    out = tmp_path / "beads.txt"
    run = subprocess.run(
        [sys.executable, "-m", "alignment_core", "sentalign", str(src), str(tgt), "--out",
         str(out), "--split", "de:fr"],
        cwd=REPO_ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    beads = [(b.src, b.tgt) for b in parse_beads(out.read_text(encoding="utf-8"))]
    assert beads == [((0,), (0,)), ((1,), (1,)), ((2,), (2,))]
