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


# many pairs in one call ------------------------------------------------------------------


def _write(path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def test_two_directories_are_matched_by_name_and_a_bad_pair_fails_alone(tmp_path, capsys):
    """x.de / x.fr by the languages, the same name on both sides, a subfolder, and one pair
    whose target is binary: the good pairs get their bead files, the bad one is named on
    stderr with its file, and the exit status says something failed."""
    src, tgt, out = tmp_path / "de", tmp_path / "fr", tmp_path / "beads"
    _write(src / "alps.de", DE)
    _write(tgt / "alps.fr", FR)
    _write(src / "same.txt", DE)
    _write(tgt / "same.txt", FR)
    _write(src / "vol2" / "hut.src.txt", DE)
    _write(tgt / "vol2" / "hut.tgt.txt", FR)
    _write(src / "broken.de", DE)
    (tgt / "broken.fr").write_bytes(b"Salut\x00\n")
    (src / ".DS_Store").write_bytes(b"\x00\x01")  # hidden: no document, no partner needed
    code = main(["sentalign", str(src), str(tgt), "--out-dir", str(out), "--languages", "de:fr"])
    err = capsys.readouterr().err
    assert code == 1
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.beads")) == [
        "alps.beads",
        "same.txt.beads",
        "vol2/hut.beads",
    ]
    for name in ("alps", "same.txt", "vol2/hut"):
        beads = parse_beads((out / f"{name}.beads").read_text(encoding="utf-8"))
        assert [(b.src, b.tgt) for b in beads] == GOLD
    assert f"error: broken: {tgt / 'broken.fr'}:1: binary file" in err
    assert "3 of 4 pairs aligned" in err
    assert not (out / "broken.beads").exists()


def test_one_folder_of_both_sides_is_matched_as_a_zip_is(tmp_path, capsys):
    folder, out = tmp_path / "docs", tmp_path / "beads"
    _write(folder / "alps.de", DE)
    _write(folder / "alps.fr", FR)
    _write(folder / "hut.src.txt", DE)
    _write(folder / "hut.tgt.txt", FR)
    argv = [str(folder), str(folder), "--out-dir", str(out), "--languages", "de:fr"]
    assert main(["sentalign", *argv]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["alps.beads", "hut.beads"]
    _write(folder / "notes.txt", ["a"])
    assert main(["sentalign", *argv]) == 1
    assert "notes.txt is neither a source nor a target" in capsys.readouterr().err


def test_directories_that_do_not_pair_up_stop_before_any_work(tmp_path, capsys):
    src, tgt, out = tmp_path / "de", tmp_path / "fr", tmp_path / "beads"
    _write(src / "a.de", DE)
    _write(tgt / "a.fr", FR)
    _write(src / "b.de", DE)
    _write(tgt / "c.tgt.txt", FR)
    _write(tgt / "d.src.txt", FR)
    assert main(["sentalign", str(src), str(tgt), "--out-dir", str(out), "--split", "de:fr"]) == 1
    err = capsys.readouterr().err
    assert "d.src.txt is named as a source but lies among the targets" in err
    (tgt / "d.src.txt").unlink()
    assert main(["sentalign", str(src), str(tgt), "--out-dir", str(out), "--split", "de:fr"]) == 1
    assert "unmatched files: b has no target; c has no source" in capsys.readouterr().err
    assert not out.exists()


def test_a_list_of_pairs_with_and_without_outputs(docs, tmp_path, capsys, monkeypatch):
    """Paths on the list are read from the current directory; a line without OUT goes to
    --out-dir under the source's name; a malformed line, a missing file and a repeated output
    are each named by their line, and the other pairs are still written."""
    src, tgt = docs
    monkeypatch.chdir(tmp_path)
    listing = tmp_path / "pairs.tsv"
    listing.write_text(
        "# source\ttarget\toutput\n"
        f"{src.name}\t{tgt.name}\tfirst.txt\n"
        "\n"
        f"{src}\t{tgt}\n"
        "only-one-field\n"
        f"missing.de\t{tgt}\tsecond.txt\n"
        f"{src}\t{tgt}\tfirst.txt\n",
        encoding="utf-8",
    )
    argv = ["--list", str(listing), "--out-dir", "out", "--no-scores", "--languages", "de:fr"]
    code = main(["sentalign", *argv])
    err = capsys.readouterr().err
    assert code == 1
    for written in (tmp_path / "first.txt", tmp_path / "out" / "doc.beads"):
        beads = parse_beads(written.read_text(encoding="utf-8"))
        assert [(b.src, b.tgt, b.score) for b in beads] == [(s, t, None) for s, t in GOLD]
    assert f"{listing}:5: not SRC<TAB>TGT" in err
    assert f"{listing}:6 (missing.de): missing.de: cannot read file" in err
    assert f"{listing}:7: first.txt is already the output of line 2" in err
    assert "2 of 5 pairs aligned" in err
    assert not (tmp_path / "second.txt").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--list", "pairs.tsv", "a", "b"], "--list takes no SRC, TGT or --out"),
        (["a.de"], "give SRC and TGT"),
        (["a.de", "b.fr"], "give one of --out FILE or --out-dir DIR"),
        (["d1", "d2", "--out", "x"], "two directories take --out-dir DIR"),
        (["d1", "b.fr", "--out-dir", "x"], "both be files or both be directories"),
    ],
)
def test_arguments_that_name_no_single_way_are_usage_errors(tmp_path, monkeypatch, capsys, argv,
                                                             message):  # fmt: skip
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d1").mkdir()
    (tmp_path / "d2").mkdir()
    with pytest.raises(SystemExit) as exit_:
        main(["sentalign", *argv])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_the_zip_upload_and_the_directories_share_one_matching_rule():
    """The names a zip pairs (``list_archive`` calls this function) and what the rule does
    with a side given by a directory."""
    from alignment_core.sentalign.pairing import PairingError, match_by_name, side_of

    assert side_of("x.de.html", "de", "fr") == ("x", "source")
    assert side_of("Notes.TGT.txt") == ("Notes", "target")
    assert side_of("plain.txt", "de", "fr") == ("plain.txt", None)
    pairs = match_by_name(
        [("a/x.de", None), ("a/x.fr", None), ("b.src.html", None), ("b.tgt.html", None)],
        source_language="de",
        target_language="fr",
    )
    assert [(p.name, p.source, p.target) for p in pairs] == [
        ("a/x", "a/x.de", "a/x.fr"),
        ("b", "b.src.html", "b.tgt.html"),
    ]
    given = match_by_name([("doc.txt", "source"), ("doc.txt", "target")])
    assert [(p.name, p.source, p.target) for p in given] == [("doc.txt", "doc.txt", "doc.txt")]
    with pytest.raises(PairingError, match=r"plain\.txt is neither a source nor a target"):
        match_by_name([("plain.txt", None)], source_language="de", target_language="fr")
    with pytest.raises(PairingError, match="two source files for x"):
        match_by_name([("x.de", None), ("x.src", None)], source_language="de")
