"""The public surface of ``alignment_core.formats`` others code against."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

import alignment_core.formats as formats
from alignment_core.alignment import AlignedPair, Alignment
from alignment_core.formats import (
    FORMATS,
    FormatError,
    format_pairs,
    guess_format,
    parse_pairs,
    read_pairs,
    write_pairs,
)


def test_format_names() -> None:
    assert set(FORMATS) == {
        "pharaoh",
        "naacl",
        "giza-a3",
        "jsonl",
        "edinburgh",
        "tsv",
        "parallel",
        "msrp",
        "bitext",
    }
    assert {n for n, f in FORMATS.items() if f.needs_text} == {"pharaoh", "naacl"}
    assert {n for n, f in FORMATS.items() if not f.carries_alignment} == {
        "tsv",
        "parallel",
        "bitext",
        "msrp",
    }
    for name, info in FORMATS.items():  # an export named by its extension reads back as itself
        if name != "parallel":
            assert guess_format(f"corpus{info.extension}") == name


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        ("a.jsonl", "jsonl"),
        ("gold.test.sure+poss.json", "edinburgh"),
        ("x.A3", "giza-a3"),
        ("x.a3", "giza-a3"),
        ("corpus.A3.final", "giza-a3"),
        ("RTE2_dev_A.align.txt", "giza-a3"),
        ("a.TSV", "tsv"),
        ("a.pharaoh", "pharaoh"),
        ("a.talp", "pharaoh"),
        ("dev.align", "pharaoh"),
        ("a.naacl", "naacl"),
        ("test.wa", "naacl"),
        ("a.bitext", "bitext"),
        ("a.txt", None),
        (Path("dir.jsonl") / "noext", None),
    ],
)
def test_guess_format(path: str, fmt: str | None) -> None:
    assert guess_format(path) == fmt


def test_read_pairs_without_a_format_says_pass_from(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("x")
    with pytest.raises(FormatError, match="--from") as info:
        read_pairs(path)
    assert info.value.file == str(path)


def test_unknown_format_and_misplaced_arguments() -> None:
    with pytest.raises(FormatError, match="unknown format 'xml'"):
        parse_pairs("", "xml")
    with pytest.raises(FormatError, match="unknown format"):
        format_pairs([], "xml")
    with pytest.raises(FormatError, match="only applies to edinburgh"):
        parse_pairs("", "jsonl", sure_data="[]")
    with pytest.raises(FormatError, match="carry their own sentences"):
        parse_pairs("", "tsv", source_lines="a", target_lines="b")
    with pytest.raises(FormatError, match="format_sentences"):
        format_pairs([], "parallel")
    with pytest.raises(FormatError, match="target"):
        parse_pairs("a\n", "parallel")


def test_empty_inputs_give_no_pairs() -> None:
    for fmt in ("jsonl", "tsv", "bitext", "giza-a3"):
        assert parse_pairs(b"", fmt) == []
    assert parse_pairs("[]", "edinburgh") == []
    assert parse_pairs("", "pharaoh", source_lines="", target_lines="") == []


def test_default_subcorpus_fills_only_missing_ones() -> None:
    text = '{"id": "a", "subcorpus": "news", "source": "x", "target": "y"}\n'
    text += '{"id": "b", "source": "x", "target": "y"}\n'
    assert [p.subcorpus for p in parse_pairs(text, "jsonl", subcorpus="mtc")] == ["news", "mtc"]


def test_format_pairs_streams_one_chunk_per_pair() -> None:
    pairs = [AlignedPair(str(n), ["a"], ["b"], Alignment.from_sets({(0, 0)})) for n in range(3)]
    assert len(list(format_pairs(pairs, "jsonl"))) == 3
    assert len(list(format_pairs(iter(pairs), "edinburgh"))) == 4  # + the closing bracket
    assert len(list(format_pairs(pairs, "tsv"))) == 4  # + the header


def test_write_pairs_to_textio_and_path(tmp_path: Path) -> None:
    pairs = [AlignedPair("1", ["a"], ["b"], Alignment.from_sets((), {(0, 0)}))]
    buf = io.StringIO()
    write_pairs(pairs, buf, "pharaoh")
    assert buf.getvalue() == "0?0\n"
    write_pairs(pairs, tmp_path / "o.jsonl", "jsonl")
    assert read_pairs(tmp_path / "o.jsonl") == pairs


def test_write_pairs_failure_keeps_old_file_and_leaves_no_temp(tmp_path: Path) -> None:
    out = tmp_path / "o.naacl"
    out.write_text("old\n")
    pairs = [
        AlignedPair("ok", ["a"], ["b"], Alignment.from_sets({(0, 0)})),
        AlignedPair("bad id", ["a"], ["b"], Alignment.from_sets({(0, 0)})),
    ]
    with pytest.raises(FormatError) as info:
        write_pairs(pairs, out, "naacl")
    assert info.value.file == str(out) and "'bad id'" in info.value.reason
    assert out.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["o.naacl"]


def test_writers_refuse_tokens_they_cannot_carry() -> None:
    pairs = [AlignedPair("1", ["a b"], ["c"])]
    for fmt in ("tsv", "bitext", "giza-a3", "edinburgh"):
        with pytest.raises(FormatError, match="whitespace"):
            list(format_pairs(pairs, fmt))


def test_core_does_not_import_django() -> None:
    code = (
        "import sys, alignment_core.formats, alignment_core.cli.convert; "
        "assert 'django' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(formats.__file__).parents[2])
