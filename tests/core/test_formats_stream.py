"""``iter_pair_chunks`` (issue 30, finding 5): jsonl and tsv read a line at a time give the
pairs ``read_pairs`` gives, in chunks, and the same errors at the same lines."""

from __future__ import annotations

import pytest

from alignment_core.formats import FormatError, iter_pair_chunks, read_pairs

TSV = "\ufeffid\tsource\ttarget\tsubcorpus\n\n" + "".join(
    f"p{k}\tthe cat {k}\ta cat {k}\t{'news' if k % 2 else ''}\r\n" for k in range(23)
)
JSONL = "".join(
    f'{{"id": "j{k}", "source": ["a", "b"], "target": "x y z", "sure": [[0, {k % 3}]]}}\n\n'
    for k in range(17)
)


def write(tmp_path, name, text, encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def as_tuples(pairs):
    return [
        (p.id, p.source, p.target, p.subcorpus, p.metadata, p.alignment and p.alignment.to_links())
        for p in pairs
    ]


@pytest.mark.parametrize(("name", "text"), [("x.tsv", TSV), ("x.jsonl", JSONL)])
def test_chunks_hold_what_read_pairs_reads(tmp_path, name, text):
    path = write(tmp_path, name, text)
    seen = []
    chunks = list(iter_pair_chunks(path, chunk_size=5, subcorpus="rest",
                                   progress=lambda f, m: seen.append(f)))  # fmt: skip
    assert [len(c) for c in chunks[:-1]] == [5] * (len(chunks) - 1)
    assert 0 < len(chunks[-1]) <= 5
    whole = read_pairs(path, subcorpus="rest")
    assert as_tuples([p for c in chunks for p in c]) == as_tuples(whole)
    assert seen == sorted(seen) and seen[-1] == 1.0 and seen[0] < 1.0


def test_latin1_streams_and_utf16_is_read_whole(tmp_path):
    text = "1\tcafé crème\tcoffee\n2\tà la\tto the\n"
    path = write(tmp_path, "l.tsv", text, "latin-1")
    chunks = list(iter_pair_chunks(path, chunk_size=1, encoding="latin-1"))
    assert [c[0].source for c in chunks] == [["café", "crème"], ["à", "la"]]
    wide = write(tmp_path, "w.tsv", text, "utf-16")
    assert [len(c) for c in iter_pair_chunks(wide, chunk_size=1, encoding="utf-16")] == [2]


@pytest.mark.parametrize(
    ("name", "text", "line", "words"),
    [
        (
            "d.tsv",
            "a\tx\ty\nb\tx\ty\n\na\tx\ty\n",
            4,
            "duplicate pair id 'a' (first seen on line 1)",
        ),
        ("f.tsv", "a\tx\ty\nb\tx\n", 2, "expected 3 tab-separated fields"),
        ("j.jsonl", '{"id": "a", "source": "x", "target": "y"}\n{"id": \n', 2, ""),
        ("e.jsonl", '{"id": "a", "source": "x", "target": "y", "sure": [[5, 0]]}\n', 1, "a"),
    ],
)
def test_errors_name_the_same_line_as_a_whole_read(tmp_path, name, text, line, words):
    path = write(tmp_path, name, text)
    with pytest.raises(FormatError) as whole:
        read_pairs(path)
    got = []
    with pytest.raises(FormatError) as streamed:
        for chunk in iter_pair_chunks(path, chunk_size=1):
            got += chunk
    assert (streamed.value.line, streamed.value.reason) == (whole.value.line, whole.value.reason)
    assert streamed.value.line == line and words in streamed.value.reason
    assert len(got) < line  # the pairs before the bad line came first, none after


def test_an_undecodable_byte_names_its_line(tmp_path):
    path = tmp_path / "b.tsv"
    path.write_bytes(b"1\tx\ty\n2\tx\xff\ty\n")
    with pytest.raises(FormatError) as whole:
        read_pairs(path)
    with pytest.raises(FormatError) as streamed:
        list(iter_pair_chunks(path))
    assert streamed.value.line == whole.value.line == 2
    assert streamed.value.reason == whole.value.reason


def test_empty_input_yields_nothing(tmp_path):
    assert list(iter_pair_chunks(write(tmp_path, "e.tsv", "\n\n"))) == []
    assert list(iter_pair_chunks(write(tmp_path, "h.tsv", "id\tsource\ttarget\n"))) == []
