"""``python -m alignment_core convert`` end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from alignment_core.alignment import Alignment
from alignment_core.cli import main
from alignment_core.formats import read_pairs

REPO = Path(__file__).resolve().parents[2]

A3 = (
    "# sentence pair (1)\n"
    "the black cat\n"
    "NULL ({ }) le ({ 1 }) chat ({ 3 p2 }) noir ({ p2 })\n"
    "# sentence pair (2)\n"
    "dogs bark\n"
    "chiens ({ 1 }) aboient ({ 2 })\n"
)


@pytest.fixture
def a3(tmp_path: Path) -> Path:
    path = tmp_path / "in.A3"
    path.write_text(A3, encoding="utf-8")
    return path


def test_convert_chain_through_pharaoh_and_back(a3: Path, tmp_path: Path, capsys) -> None:
    jl, ph, src, tgt, back = (tmp_path / n for n in ("a.jsonl", "a.talp", "s", "t", "b.A3"))
    assert main(["convert", str(a3), str(jl)]) == 0
    assert "converted 2 pairs (4 sure, 2 possible links) from giza-a3 to jsonl" in (
        capsys.readouterr().err
    )
    assert json.loads(jl.read_text().splitlines()[0])["possible"] == [[1, 1], [1, 2]]
    args = ["--out-source-text", str(src), "--out-target-text", str(tgt)]
    assert main(["convert", str(jl), str(ph), "--to", "pharaoh", *args]) == 0
    assert ph.read_text() == "0-0 1?1 1?2 2-1\n0-0 1-1\n"
    assert src.read_text() == "the black cat\ndogs bark\n"
    assert (
        main(["convert", str(ph), str(back), "--source-text", str(src), "--target-text", str(tgt)])
        == 0
    )
    assert [(p.source, p.target, p.alignment) for p in read_pairs(back)] == [
        (p.source, p.target, p.alignment) for p in read_pairs(a3)
    ]


def test_convert_to_stdout_and_from_stdin(a3: Path, tmp_path: Path) -> None:
    run = [sys.executable, "-m", "alignment_core", "convert"]
    out = subprocess.run(
        [*run, str(a3), "-", "--to", "naacl"], capture_output=True, text=True, cwd=REPO
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[:2] == ["1 1 1 S", "1 2 2 P"]
    piped = subprocess.run(
        [*run, "-", "-", "--from", "tsv", "--to", "jsonl"],
        input="x\tça va\toui\n".encode(),
        capture_output=True,
        cwd=REPO,
    )
    assert piped.returncode == 0, piped.stderr
    assert json.loads(piped.stdout.decode("utf-8"))["source"] == ["ça", "va"]


def test_convert_error_exit_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.A3"
    bad.write_text("# sentence pair (1)\na b\nNULL ({ }) c ({ 9 })\n")
    out_path = tmp_path / "out.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "alignment_core", "convert", str(bad), str(out_path)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"error: {bad}:3: pair '1': target token 1")
    assert not out_path.exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["{tmp}/x.unknown", "{tmp}/o.jsonl"], "pass --from"),
        (["{a3}", "{tmp}/o.unknown"], "pass --to"),
        (["{a3}", "{tmp}/o.txt", "--to", "parallel"], "--out-target-text"),
        (["{a3}", "{tmp}/o.talp", "--source-text", "{tmp}/s"], "cannot read file"),
        (["{a3}", "{tmp}/o.jsonl", "--sure-file", "{a3}"], "only applies to edinburgh"),
        (["-", "-", "--to", "tsv"], "reading stdin needs --from"),
    ],
)
def test_convert_usage_problems_exit_1(
    a3: Path, tmp_path: Path, capsys, argv: list[str], message: str
) -> None:
    argv = [a.format(a3=a3, tmp=tmp_path) for a in argv]
    assert main(["convert", *argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err


def test_convert_write_failure_leaves_no_file(tmp_path: Path, capsys) -> None:
    src = tmp_path / "in.tsv"
    src.write_text("1\ta ||| b\tc\n")
    out = tmp_path / "out.bitext"
    assert main(["convert", str(src), str(out)]) == 1
    assert "separator" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == [src]


def test_convert_latin1_and_edinburgh_sure_file(tmp_path: Path, capsys) -> None:
    latin = tmp_path / "l.tsv"
    latin.write_bytes("1\tdéjà vu\tsí\n".encode("latin-1"))
    assert main(["convert", str(latin), str(tmp_path / "l.jsonl")]) == 1
    assert "--encoding" in capsys.readouterr().err
    assert main(["convert", str(latin), str(tmp_path / "l.jsonl"), "--encoding", "latin-1"]) == 0
    assert read_pairs(tmp_path / "l.jsonl")[0].source == ["déjà", "vu"]

    entry = {"id": "news-A:1", "name": "n", "source": "a b", "target": "c", "possibleAlign": ""}
    (tmp_path / "sp.json").write_text(json.dumps([entry | {"sureAlign": "0-0 1-0"}]))
    (tmp_path / "s.json").write_text(json.dumps([entry | {"sureAlign": "0-0"}]))
    out = tmp_path / "e.jsonl"
    args = ["--sure-file", str(tmp_path / "s.json"), "--subcorpus", "ignored"]
    assert main(["convert", str(tmp_path / "sp.json"), str(out), *args]) == 0
    [pair] = read_pairs(out)
    assert pair.alignment == Alignment.from_sets({(0, 0)}, {(1, 0)})
    assert (pair.subcorpus, pair.metadata) == ("news", {"annotation": "A", "name": "n"})


def test_convert_parallel_out_and_in(a3: Path, tmp_path: Path) -> None:
    s, t = tmp_path / "s.txt", tmp_path / "t.txt"
    assert main(["convert", str(a3), str(s), "--to", "parallel", "--out-target-text", str(t)]) == 0
    assert t.read_text() == "le chat noir\nchiens aboient\n"
    out = tmp_path / "p.tsv"
    assert main(["convert", str(s), str(out), "--from", "parallel", "--target-text", str(t)]) == 0
    assert out.read_text().splitlines()[1] == "1\tthe black cat\tle chat noir\t\t"
