"""pharaoh and naacl: link-only formats that take their sentences from a text file."""

from __future__ import annotations

from pathlib import Path

import pytest

from alignment_core.alignment import Alignment
from alignment_core.formats import FormatError, format_pairs, parse_pairs, read_pairs, write_pairs

SRC = "the cat sat\na dog\nhello\n"
TGT = "le chat assis\nun chien\nbonjour\n"


def fails(fn, *, file: str, line: int | None, reason: str) -> FormatError:
    with pytest.raises(FormatError) as info:
        fn()
    err = info.value
    assert (err.file, err.line) == (file, line), str(err)
    assert reason in err.reason, str(err)
    return err


def pharaoh(text: str, **kw):
    kw.setdefault("source_lines", SRC)
    kw.setdefault("target_lines", TGT)
    return parse_pairs(text, "pharaoh", name="a.pharaoh", **kw)


def naacl(text: str, **kw):
    kw.setdefault("source_lines", SRC)
    kw.setdefault("target_lines", TGT)
    return parse_pairs(text, "naacl", name="a.naacl", **kw)


# -- pharaoh ----------------------------------------------------------------------------------


def test_pharaoh_sure_possible_and_p_and_empty_line() -> None:
    pairs = pharaoh("0-0 1-1 2?2 \r\n\n0p0\n\n\n")
    assert [p.id for p in pairs] == ["1", "2", "3"]
    assert pairs[0].alignment == Alignment.from_sets({(0, 0), (1, 1)}, {(2, 2)})
    assert pairs[1].alignment == Alignment()  # an empty line: annotated, nothing aligned
    assert pairs[2].alignment == Alignment.from_sets((), {(0, 0)})
    assert pairs[0].source == ["the", "cat", "sat"] and pairs[1].target == ["un", "chien"]
    assert "".join(format_pairs(pairs, "pharaoh")) == "0-0 1-1 2?2\n\n0?0\n"


def test_pharaoh_text_from_lists_and_from_text_pairs() -> None:
    text_pairs = parse_pairs("id\tsource\ttarget\tsubcorpus\nq\ta b\tc\tnews\n", "tsv")
    pairs = parse_pairs("1-0\n", "pharaoh", text_pairs=text_pairs)
    assert (pairs[0].id, pairs[0].subcorpus, pairs[0].alignment) == (
        "q",
        "news",
        Alignment.from_sets({(1, 0)}),
    )
    assert text_pairs[0].alignment is None  # the text pairs are not modified
    assert pharaoh("0-0\n\n\n", source_lines=["a", "b", "c"], target_lines=["x", "y", "z"])


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("0-0\n0-5\n\n", 2, "target index 5 out of range (sentence has 2 tokens)"),
        ("0-0\n\n3-0\n", 3, "source index 3 out of range"),
        ("0-0 0-0\n\n\n", 1, "duplicate link 0-0"),
        ("0-0 0?0\n\n\n", 1, "link 0-0 is marked both sure and possible"),
        ("0-0 1:1\n\n\n", 1, "malformed link '1:1'"),
        ("0-0 -1-2\n\n\n", 1, "malformed link '-1-2'"),
        ("0-0\n\n\n1-1\n", 4, "a.pharaoh has 4 alignment lines but <source> + <target> has 3"),
        ("0-0\n", 2, "a.pharaoh has 1 alignment lines but <source> + <target> has 3"),
        ("0-0\n\n", 3, "a.pharaoh has 2 alignment lines"),
    ],
)
def test_pharaoh_rejects(text: str, line: int, reason: str) -> None:
    fails(lambda: pharaoh(text), file="a.pharaoh", line=line, reason=reason)


def test_pharaoh_needs_text() -> None:
    fails(
        lambda: parse_pairs("0-0\n", "pharaoh", name="a.pharaoh"),
        file="a.pharaoh",
        line=None,
        reason="give a source text and a target text",
    )


def test_pharaoh_files_and_ragged_text(tmp_path: Path) -> None:
    (tmp_path / "a.pharaoh").write_text("0-0\n\n0-0\n\n\n")
    (tmp_path / "s.txt").write_text(SRC)
    (tmp_path / "t.txt").write_text(TGT)
    pairs = read_pairs(
        tmp_path / "a.pharaoh", source_text=tmp_path / "s.txt", target_text=tmp_path / "t.txt"
    )
    assert len(pairs) == 3
    (tmp_path / "t.txt").write_text("x\ny\n")
    fails(
        lambda: read_pairs(
            tmp_path / "a.pharaoh",
            "pharaoh",
            source_text=tmp_path / "s.txt",
            target_text=tmp_path / "t.txt",
        ),
        file=str(tmp_path / "s.txt"),
        line=3,
        reason="s.txt has 3 sentences but",
    )


def test_pharaoh_with_a_text_pair_file(tmp_path: Path) -> None:
    (tmp_path / "a.pharaoh").write_text("0-0\n1-1\n")
    (tmp_path / "text.bitext").write_text("a b ||| c d\ne f ||| g h\n")
    pairs = read_pairs(tmp_path / "a.pharaoh", source_text=tmp_path / "text.bitext")
    assert [p.alignment for p in pairs] == [
        Alignment.from_sets({(0, 0)}),
        Alignment.from_sets({(1, 1)}),
    ]
    (tmp_path / "text.sniff").write_text("1\ta b\tc d\n2\te f\tg h\n")  # no known extension
    assert len(read_pairs(tmp_path / "a.pharaoh", source_text=tmp_path / "text.sniff")) == 2


def test_pharaoh_writer_with_sentences(tmp_path: Path) -> None:
    pairs = pharaoh("0-0\n\n0?0\n")
    paths = [tmp_path / n for n in ("o.pharaoh", "o.src", "o.tgt")]
    write_pairs(pairs, paths[0], "pharaoh", source_text=paths[1], target_text=paths[2])
    assert [p.read_text() for p in paths] == ["0-0\n\n0?0\n", SRC, TGT]
    again = read_pairs(paths[0], source_text=paths[1], target_text=paths[2])
    assert again == pairs


# -- naacl ------------------------------------------------------------------------------------


def test_naacl_labels_nulls_confidence_and_missing_pairs() -> None:
    text = "1 1 1 S\n1 2 2\n1 3 3 P 0.4\n1 0 2 S\n\n3 1 1 0.9\n1 3 0\n"
    pairs = naacl(text)
    assert [p.alignment for p in pairs] == [
        Alignment.from_sets({(0, 0), (1, 1)}, {(2, 2)}),
        Alignment(),  # no line for pair 2
        Alignment.from_sets({(0, 0)}),
    ]
    assert "".join(format_pairs(pairs, "naacl")) == "1 1 1 S\n1 2 2 S\n1 3 3 P\n3 1 1 S\n"


def test_naacl_ids_come_from_the_text() -> None:
    text_pairs = parse_pairs("news:4\ta b\tc\nnews:9\td\te f\n", "tsv")
    pairs = parse_pairs("news:9 1 2 P\n", "naacl", text_pairs=text_pairs)
    assert [p.alignment for p in pairs] == [Alignment(), Alignment.from_sets((), {(0, 1)})]


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("1 1 1\n1 1 4 S\n", 2, "target index 4 out of range (sentence has 3 tokens"),
        ("2 3 1\n", 1, "source index 3 out of range"),
        ("1 1 1 S\n\n1 1 1 S\n", 3, "duplicate link 0-0 (0-based; the file says 1 1)"),
        ("1 1 1 S\n1 1 1 P\n", 2, "marked both sure and possible"),
        ("1 1 1 X\n", 1, "bad label 'X'"),
        ("1 1 1 S zero\n", 1, "bad confidence 'zero'"),
        ("1 1\n", 1, "got 2 fields"),
        ("1 a 1\n", 1, "source index 'a' is not a non-negative integer"),
        ("1 1 -1\n", 1, "target index '-1'"),
        ("7 1 1\n", 1, "pair id '7' is not among the 3 pairs of <source> + <target>"),
    ],
)
def test_naacl_rejects(text: str, line: int, reason: str) -> None:
    fails(lambda: naacl(text), file="a.naacl", line=line, reason=reason)


def test_naacl_writer_refuses_ids_with_spaces() -> None:
    pairs = parse_pairs("a b\tc\td\n", "tsv")
    pairs[0].alignment = Alignment.from_sets({(0, 0)})
    with pytest.raises(FormatError, match="no whitespace") as info:
        "".join(format_pairs(pairs, "naacl"))
    assert info.value.file == "<output>"
