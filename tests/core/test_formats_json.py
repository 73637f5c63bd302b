"""jsonl and the Edinburgh++ JSON array (entries written here by hand, in the release's shape)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alignment_core.alignment import Alignment
from alignment_core.formats import (
    FormatError,
    edinburgh_id_info,
    format_pairs,
    parse_pairs,
    read_pairs,
)


def fails(fn, *, file: str, line: int | None, reason: str) -> FormatError:
    with pytest.raises(FormatError) as info:
        fn()
    err = info.value
    assert (err.file, err.line) == (file, line), str(err)
    assert reason in err.reason, str(err)
    return err


# -- jsonl ------------------------------------------------------------------------------------

LINE = {
    "id": "p1",
    "subcorpus": "news",
    "source": ["the", "cat"],
    "target": ["le", "chat"],
    "sure": [[0, 0]],
    "possible": [[1, 1]],
    "annotator": "ann",
    "metadata": {"k": 1},
}


def test_jsonl_reads_every_field_and_writes_it_back() -> None:
    text = json.dumps(LINE) + "\n\n" + json.dumps({"id": 7, "source": "a b", "target": ["c"]})
    pairs = parse_pairs(text, "jsonl")
    p, q = pairs
    assert (p.id, p.subcorpus, p.source, p.target, p.annotator, p.metadata) == (
        "p1",
        "news",
        ["the", "cat"],
        ["le", "chat"],
        "ann",
        {"k": 1},
    )
    assert p.alignment == Alignment.from_sets({(0, 0)}, {(1, 1)})
    assert (q.id, q.source, q.alignment) == ("7", ["a", "b"], None)  # no links: text only
    out = "".join(format_pairs(pairs, "jsonl"))
    assert json.loads(out.splitlines()[0]) == LINE
    assert parse_pairs(out, "jsonl") == pairs


def test_jsonl_empty_link_lists_are_an_empty_alignment_and_extra_keys_go_to_metadata() -> None:
    [p] = parse_pairs('{"id": "x", "source": ["a"], "target": ["b"], "sure": [], "x": 2}', "jsonl")
    assert p.alignment == Alignment() and p.metadata == {"x": 2}


@pytest.mark.parametrize(
    ("obj", "reason"),
    [
        ({**LINE, "sure": [[0, 0], [0, 0]]}, "duplicate link 0-0"),
        ({**LINE, "possible": [[0, 0]]}, "link 0-0 is marked both sure and possible"),
        ({**LINE, "sure": [[0, 2]]}, "target index 2 out of range"),
        ({**LINE, "sure": [[0]]}, "malformed sure link [0]"),
        ({**LINE, "sure": [["0", 1]]}, "malformed sure link"),
        ({**LINE, "sure": {"0": 1}}, "'sure' must be a list"),
        ({k: v for k, v in LINE.items() if k != "target"}, "missing field 'target'"),
        ({**LINE, "source": []}, "empty source sentence"),
        ({**LINE, "source": ["a b"]}, "contains whitespace"),
        ({**LINE, "id": True}, "'id' must be a string or an integer"),
        ({**LINE, "subcorpus": 3}, "'subcorpus' must be a string"),
        ({**LINE, "metadata": []}, "'metadata' must be an object"),
        ([1, 2], "expected a JSON object"),
    ],
)
def test_jsonl_rejects(obj: object, reason: str) -> None:
    text = json.dumps(LINE | {"id": "ok"}) + "\n" + json.dumps(obj) + "\n"
    fails(lambda: parse_pairs(text, "jsonl", name="a.jsonl"), file="a.jsonl", line=2, reason=reason)


def test_jsonl_invalid_json() -> None:
    text = json.dumps(LINE) + "\n\n" + '{"id": "q", "source": ["a"]\n'
    err = fails(
        lambda: parse_pairs(text, "jsonl", name="a.jsonl"),
        file="a.jsonl",
        line=3,
        reason="invalid JSON",
    )
    assert "column" in err.reason


def test_jsonl_duplicate_id() -> None:
    text = json.dumps(LINE) + "\n" + json.dumps(LINE) + "\n"
    fails(
        lambda: parse_pairs(text, "jsonl", name="a.jsonl"),
        file="a.jsonl",
        line=2,
        reason="duplicate pair id 'p1'",
    )


# -- edinburgh --------------------------------------------------------------------------------


def entry(pid: str, sure: str, possible: str = "", **extra: str) -> dict:
    return {
        "possibleAlign": possible,
        "sureAlign": sure,
        "target": "a deal was struck",
        "source": "they agreed",
        "id": pid,
        "name": pid,
        **extra,
    }


def array(*entries: dict) -> str:
    return json.dumps(list(entries), indent=4)


@pytest.mark.parametrize(
    ("pid", "info"),
    [
        ("mtc-common:12", ("mtc", False)),
        ("news-A:3", ("news", False)),
        ("novels-C:40", ("novels", False)),
        ("mtc-trial:7", ("mtc", True)),
        ("12", ("", False)),
    ],
)
def test_edinburgh_id_info(pid: str, info: tuple[str, bool]) -> None:
    assert edinburgh_id_info(pid) == info


def test_edinburgh_reads_subcorpus_annotation_trial() -> None:
    text = array(entry("mtc-trial:7", "0-0 1-3", "1-2"), entry("news-A:3", ""), entry("9", "0-0"))
    a, b, c = parse_pairs(text, "edinburgh", subcorpus="misc")
    assert (a.subcorpus, a.metadata) == ("mtc", {"annotation": "trial", "trial": True})
    assert a.source == ["they", "agreed"] and a.target == ["a", "deal", "was", "struck"]
    assert a.alignment == Alignment.from_sets({(0, 0), (1, 3)}, {(1, 2)})
    assert (b.subcorpus, b.metadata, b.alignment) == ("news", {"annotation": "A"}, Alignment())
    assert (c.subcorpus, c.metadata) == ("misc", {})


def test_edinburgh_writer_round_trip() -> None:
    pairs = parse_pairs(
        array(entry("mtc-trial:7", "1-3 0-0", "1-2"), entry("x:1", "0-1")), "edinburgh"
    )
    text = "".join(format_pairs(pairs, "edinburgh"))
    assert json.loads(text)[0] == entry("mtc-trial:7", "0-0 1-3", "1-2")
    assert parse_pairs(text, "edinburgh") == pairs
    assert "".join(format_pairs([], "edinburgh")) == "[]\n"


def test_edinburgh_sure_file_gives_possible(tmp_path: Path) -> None:
    both = tmp_path / "gold.sure+poss.json"
    sure = tmp_path / "gold.sure.json"
    both.write_text(array(entry("news-C:1", "0-0 1-1 1-3"), entry("mtc-A:2", "0-1")))
    sure.write_text(array(entry("mtc-A:2", "0-1"), entry("news-C:1", "0-0 1-3")))
    p, q = read_pairs(both, sure_path=sure)
    assert p.alignment == Alignment.from_sets({(0, 0), (1, 3)}, {(1, 1)})
    assert q.alignment == Alignment.from_sets({(0, 1)})


@pytest.mark.parametrize(
    ("both", "sure", "where", "line", "reason"),
    [
        ([entry("a:1", "0-0"), entry("a:2", "")], [entry("a:1", "0-0")], "both", 10, "not in"),
        ([entry("a:1", "0-0")], [entry("a:1", "0-0"), entry("a:2", "")], "sure", 10, "not in"),
        ([entry("a:1", "0-0")], [entry("a:1", "0-1")], "both", 2, "sure link 0-1"),
        ([entry("a:1", "0-0")], [entry("a:1", "0-0", "1-1")], "sure", 2, "possible link 1-1"),
        (
            [entry("a:1", "0-0")],
            [entry("a:1", "0-0", target="other")],
            "both",
            2,
            "sentences differ",
        ),
    ],
)
def test_edinburgh_sure_file_mismatches(
    tmp_path: Path, both: list, sure: list, where: str, line: int, reason: str
) -> None:
    paths = {"both": tmp_path / "b.json", "sure": tmp_path / "s.json"}
    paths["both"].write_text(array(*both))
    paths["sure"].write_text(array(*sure))
    fails(
        lambda: read_pairs(paths["both"], "edinburgh", sure_path=paths["sure"]),
        file=str(paths[where]),
        line=line,
        reason=reason,
    )


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ('[\n{"id": "a:1", "source": "x",\n "target": "y" "sureAlign": ""}]', 3, "invalid JSON"),
        ('{"id": "a:1"}', 1, "expected an array"),
        ('[\n{"id": "a:1", "source": "x", "target": "y", "sureAlign": ""},\n]', 3, "invalid JSON"),
        ('[{"id": "a:1", "source": "x", "target": "y", "sureAlign": ""}] []', 1, "extra data"),
        ('[\n{"id": "a:1", "source": "x", "target": "y"}\n]', 2, "missing field 'sureAlign'"),
        ('[\n{"id": "a:1", "source": "x", "target": "y", "sureAlign": "0-0 0-0"}]', 2, "duplicate"),
        (
            '[\n{"id": "a:1", "source": "x y", "target": "y", "sureAlign": "1-1"}]',
            2,
            "out of range",
        ),
        (
            '[\n{"id": "a:1", "source": "x", "target": "y", "sureAlign": "0:0"}]',
            2,
            "malformed link",
        ),
        (
            '[\n{"id": "a:1", "source": "x", "target": "y", "sureAlign": "0-0", '
            '"possibleAlign": "0-0"}]',
            2,
            "both sure and possible",
        ),
        ('[\n{"id": "a:1", "source": "", "target": "y", "sureAlign": ""}]', 2, "empty source"),
        ('[\n{"source": "x", "target": "y", "sureAlign": ""}]', 2, "missing field 'id'"),
    ],
)
def test_edinburgh_rejects(text: str, line: int, reason: str) -> None:
    fails(
        lambda: parse_pairs(text, "edinburgh", name="e.json"),
        file="e.json",
        line=line,
        reason=reason,
    )


def test_edinburgh_bom_and_crlf() -> None:
    raw = json.dumps([entry("a:1", "0-0 \ufeff1-1")], ensure_ascii=False, indent=1)
    text = "\ufeff" + raw.replace("\n", "\r\n")
    [p] = parse_pairs(text.encode(), "edinburgh")
    assert p.alignment == Alignment.from_sets({(0, 0), (1, 1)})
    # an escaped BOM inside a JSON string is removed too
    [p] = parse_pairs(array(entry("a:1", "0-0 \ufeff1-1", source="\ufeffthey agreed")), "edinburgh")
    assert p.source == ["they", "agreed"] and len(p.alignment) == 2
    line = json.dumps({"id": "\ufeffq", "source": ["\ufeffa"], "target": "b\ufeff"})
    [q] = parse_pairs(line, "jsonl")
    assert (q.id, q.source, q.target) == ("q", ["a"], ["b"])
