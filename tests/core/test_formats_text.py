"""Text-pair formats (tsv, bitext, parallel) and the dirty-file tolerance every reader shares."""

from __future__ import annotations

from pathlib import Path

import pytest

from alignment_core.formats import FormatError, format_pairs, parse_pairs, read_pairs, write_pairs


def fails(fn, *, file: str, line: int | None, reason: str) -> FormatError:
    with pytest.raises(FormatError) as info:
        fn()
    err = info.value
    assert (err.file, err.line) == (file, line), str(err)
    assert reason in err.reason, str(err)
    assert str(err).startswith(f"{file}:{line}: " if line else f"{file}: ")
    return err


def write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


# -- tsv --------------------------------------------------------------------------------------


def test_tsv_three_columns() -> None:
    pairs = parse_pairs("p1\tthe cat\tle chat\np2\ta\tb c\n", "tsv")
    assert [(p.id, p.source, p.target, p.alignment) for p in pairs] == [
        ("p1", ["the", "cat"], ["le", "chat"], None),
        ("p2", ["a"], ["b", "c"], None),
    ]


def test_tsv_two_columns_numbers_pairs_skipping_blank_lines() -> None:
    pairs = parse_pairs("a b\tc\n\n  \nd\te f\n", "tsv")
    assert [(p.id, p.source, p.target) for p in pairs] == [
        ("1", ["a", "b"], ["c"]),
        ("2", ["d"], ["e", "f"]),
    ]


def test_tsv_header_subcorpus_and_metadata() -> None:
    text = "ID\tSubcorpus\tsrc\tTGT\tGenre\nx1\tnews\ta b\tc\twire\nx2\t\td\te\t\n"
    pairs = parse_pairs(text, "tsv", subcorpus="default")
    assert [(p.id, p.subcorpus, p.source, p.target, p.metadata) for p in pairs] == [
        ("x1", "news", ["a", "b"], ["c"], {"Genre": "wire"}),
        ("x2", "default", ["d"], ["e"], {}),
    ]


def test_tsv_header_without_id_numbers_pairs() -> None:
    pairs = parse_pairs("source\ttarget\na\tb\nc\td\n", "tsv")
    assert [p.id for p in pairs] == ["1", "2"]


def test_tsv_metadata_column_is_json() -> None:
    text = 'id\tsource\ttarget\tsubcorpus\tmetadata\n1\ta\tb\t\t{"k": [1, true]}\n'
    assert parse_pairs(text, "tsv")[0].metadata == {"k": [1, True]}
    fails(
        lambda: parse_pairs("id\tsource\ttarget\tmetadata\n1\ta\tb\t{oops\n", "tsv", name="m.tsv"),
        file="m.tsv",
        line=2,
        reason="JSON object",
    )


def test_tsv_writer_then_reader_keeps_everything() -> None:
    pairs = parse_pairs("id\tsource\ttarget\tsubcorpus\tnote\nq\tá b\tc\tmtc\thi\n", "tsv")
    text = "".join(format_pairs(pairs, "tsv"))
    assert text.splitlines()[0] == "id\tsource\ttarget\tsubcorpus\tmetadata"
    assert parse_pairs(text, "tsv") == pairs


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("a\tb\tc\td\n", 1, "expected 3 tab-separated fields"),
        ("1\ta\tb\nc\td\n", 2, "expected 3 tab-separated fields (id, source, target)"),
        ("id\tsource\ttarget\n1\ta\n", 2, "as the header says"),
        ("1\ta\tb\n2\t \tb\n", 2, "empty source sentence"),
        ("1\ta\tb\n1\tc\td\n", 2, "duplicate pair id '1' (first seen on line 1)"),
        ("id\tsource\ttarget\tid\n", 1, "names column 'id' twice"),
        ("\t\tb\n", 1, "empty pair id"),
    ],
)
def test_tsv_rejects(text: str, line: int, reason: str) -> None:
    fails(lambda: parse_pairs(text, "tsv", name="in.tsv"), file="in.tsv", line=line, reason=reason)


def test_tsv_reads_100k_pairs_in_order() -> None:
    # Speed is measured by benchmarks/import.py (reading is its anchor), not asserted here.
    text = "".join(f"{n}\tthe quick brown fox {n}\tle renard brun {n}\n" for n in range(100_000))
    pairs = parse_pairs(text.encode(), "tsv")
    assert len(pairs) == 100_000
    assert (pairs[-1].id, pairs[-1].target[-1]) == ("99999", "99999")


# -- bitext -----------------------------------------------------------------------------------


def test_bitext_with_and_without_ids() -> None:
    assert [
        (p.id, p.source, p.target) for p in parse_pairs("a b ||| c\n\nd ||| e f\n", "bitext")
    ] == [
        ("1", ["a", "b"], ["c"]),
        ("2", ["d"], ["e", "f"]),
    ]
    pairs = parse_pairs("x:1 ||| a ||| b\nx:2 ||| c ||| d\n", "bitext")
    assert [p.id for p in pairs] == ["x:1", "x:2"]
    assert "".join(format_pairs(pairs, "bitext")) == "x:1 ||| a ||| b\nx:2 ||| c ||| d\n"


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("a b c\n", 1, "found 0 '|||' separators"),
        ("a ||| b\nx ||| a ||| b\n", 2, "as on the first line"),
        ("a ||| b ||| c ||| d\n", 1, "found 3"),
        ("a ||| b\nc |||\n", 2, "empty target sentence"),
    ],
)
def test_bitext_rejects(text: str, line: int, reason: str) -> None:
    fails(lambda: parse_pairs(text, "bitext", name="b.txt"), file="b.txt", line=line, reason=reason)


def test_bitext_writer_refuses_separator_token() -> None:
    pairs = parse_pairs("1\t|||\tb\n", "tsv")
    with pytest.raises(FormatError, match="separator"):
        "".join(format_pairs(pairs, "bitext"))


# -- parallel ---------------------------------------------------------------------------------


def test_parallel_files(tmp_path: Path) -> None:
    src = write(tmp_path, "s.txt", "a b\nc\n\n\n")
    tgt = write(tmp_path, "t.txt", "d\ne f\n")
    pairs = read_pairs(src, "parallel", target_text=tgt)
    assert [(p.id, p.source, p.target, p.alignment) for p in pairs] == [
        ("1", ["a", "b"], ["d"], None),
        ("2", ["c"], ["e", "f"], None),
    ]
    out_s, out_t = tmp_path / "o.src", tmp_path / "o.tgt"
    write_pairs(pairs, out_s, "parallel", target_text=out_t)
    assert (out_s.read_text(), out_t.read_text()) == ("a b\nc\n", "d\ne f\n")


def test_parallel_ragged_names_both_files_and_counts(tmp_path: Path) -> None:
    src = write(tmp_path, "s.txt", "a\nb\nc\n")
    tgt = write(tmp_path, "t.txt", "a\nb\n")
    err = fails(
        lambda: read_pairs(src, "parallel", target_text=tgt),
        file=str(src),
        line=3,
        reason=f"{src} has 3 sentences but {tgt} has 2",
    )
    assert "ragged" in err.reason


def test_parallel_blank_line_inside_is_an_empty_sentence(tmp_path: Path) -> None:
    src = write(tmp_path, "s.txt", "a\nb\nc\n")
    tgt = write(tmp_path, "t.txt", "a\n \nc\n")
    fails(
        lambda: read_pairs(src, "parallel", target_text=tgt),
        file=str(tgt),
        line=2,
        reason="empty target sentence",
    )


# -- dirty input --------------------------------------------------------------------------------


def test_bom_at_start_and_mid_line_and_crlf() -> None:
    data = "\ufeffp1\t\ufeffthe cat \tle\ufeff chat\r\n\ufeffp2\ta\ufeff b\tc\ufeff\r\n".encode()
    pairs = parse_pairs(data, "tsv")
    assert [(p.id, p.source, p.target) for p in pairs] == [
        ("p1", ["the", "cat"], ["le", "chat"]),
        ("p2", ["a", "b"], ["c"]),
    ]


def test_latin1_with_encoding(tmp_path: Path) -> None:
    path = write(tmp_path, "l.tsv", "1\tcafé naïve\tÿes\n".encode("latin-1"))
    pairs = read_pairs(path, "tsv", encoding="latin-1")
    assert pairs[0].source == ["café", "naïve"] and pairs[0].target == ["ÿes"]


def test_bad_bytes_name_file_line_and_suggest_encoding(tmp_path: Path) -> None:
    path = write(tmp_path, "l.tsv", b"1\ta\tb\n2\tcaf\xe9\tb\n")
    err = fails(lambda: read_pairs(path, "tsv"), file=str(path), line=2, reason="not valid utf-8")
    assert "--encoding" in err.reason


def test_missing_file_is_a_format_error(tmp_path: Path) -> None:
    path = tmp_path / "nope.tsv"
    fails(lambda: read_pairs(path, "tsv"), file=str(path), line=None, reason="cannot read")
