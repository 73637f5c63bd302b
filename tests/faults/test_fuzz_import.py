"""Fuzzing the importer (issue 10): any file, in any format and load mode, either imports or is
refused with ``CorpusImportError`` naming the file (and line or pair) — never a traceback, and
never a partial write (every table's row count is unchanged after a refusal).

``import_pairs`` is fuzzed too with pairs as the API builds them (any ids, tokens, subcorpus,
annotator names, metadata and links, including NUL, lone surrogates, NaN, deep nesting and
links out of range). On SQLite by default; CI runs this file on PostgreSQL (DATABASE_URL), which
refuses characters SQLite stores — the refusal must come from the importer, not the database.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from alignment_core.alignment import AlignedPair, Alignment
from alignment_core.formats import format_pairs, format_sentences
from annotator.corpora.services.importing import (
    LOAD_MODES,
    CorpusImportError,
    ImportReport,
    import_file,
    import_pairs,
)
from annotator.corpora.services.importing_checks import subcorpus_problem
from annotator.models import Project
from tests.app.test_import import TABLES
from tests.faults.test_fuzz_formats import ALPHABET, SAMPLE_PAIRS, _encode

pytestmark = pytest.mark.django_db

FUZZ = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    database=None,
)
TEXT_FORMATS = ["jsonl", "edinburgh", "giza-a3", "tsv", "bitext"]
LINK_FORMATS = ["pharaoh", "naacl"]
MODES = [None, *LOAD_MODES]


def counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in TABLES}


@pytest.fixture
def fuzz_project(db) -> Project:
    return Project.objects.create(name="fuzzed imports")


def attempt(run, *, names: tuple[str, ...]) -> ImportReport | None:
    """Run an import; a refusal must name one of ``names`` and leave every table unchanged."""
    before = counts()
    try:
        report = run()
    except CorpusImportError as err:
        event("refused")
        assert counts() == before, f"a refused import wrote something: {err}"
        assert err.reason.strip()
        assert any(name in str(err) for name in names), f"the refusal names no input: {err}"
        return None
    event("imported")  # --hypothesis-show-statistics: both outcomes must be reached
    return report


def mutate(data: bytes, edits: list[tuple[int, str, bytes]]) -> bytes:
    out = bytearray(data)
    for at, how, chunk in edits:
        at = at % (len(out) + 1)
        if how == "insert":
            out[at:at] = chunk
        elif how == "delete":
            del out[at : at + len(chunk)]
        else:
            out[at : at + len(chunk)] = chunk
    return bytes(out)


EDITS = st.lists(
    st.tuples(
        st.integers(0, 10_000),
        st.sampled_from(["insert", "delete", "replace"]),
        st.one_of(st.binary(min_size=1, max_size=3), ALPHABET.map(_encode)),
    ),
    min_size=0,  # sometimes the valid file itself: imports happen, later files meet stored pairs
    max_size=4,
)
FILE_BYTES = st.one_of(st.binary(max_size=200), st.lists(ALPHABET, max_size=60).map("".join))


def valid(fmt: str) -> bytes:
    return "".join(format_pairs(SAMPLE_PAIRS, fmt)).encode()


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
@FUZZ
@given(data=st.data())
def test_any_file_imports_or_is_refused_whole(fuzz_project, fmt, data):
    content = data.draw(
        st.one_of(st.builds(mutate, st.just(valid(fmt)), EDITS), FILE_BYTES), label="file"
    )
    if isinstance(content, str):
        content = _encode(content)
    mode = data.draw(st.sampled_from(MODES), label="mode")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"fuzz.{fmt}"
        path.write_bytes(content)
        report = attempt(
            lambda: import_file(
                project=fuzz_project,
                path=path,
                fmt=fmt,
                annotator="fuzzer" if mode == "annotator" else None,
                load_alignments_as=mode,
            ),
            names=(str(path),),
        )
    assert report is None or isinstance(report, ImportReport)


@pytest.mark.parametrize("fmt", LINK_FORMATS)
@FUZZ
@given(data=st.data())
def test_any_links_file_with_its_text_imports_or_is_refused_whole(fuzz_project, fmt, data):
    links = data.draw(st.one_of(st.builds(mutate, st.just(valid(fmt)), EDITS), FILE_BYTES))
    source = "".join(format_sentences(SAMPLE_PAIRS, "source")).encode()
    target = "".join(format_sentences(SAMPLE_PAIRS, "target")).encode()
    if data.draw(st.booleans(), label="fuzz the text too"):
        source = mutate(source, data.draw(EDITS))
    mode = data.draw(st.sampled_from(MODES), label="mode")
    with tempfile.TemporaryDirectory() as folder:
        paths = [Path(folder) / name for name in (f"fuzz.{fmt}", "fuzz.src", "fuzz.tgt")]
        for path, content in zip(paths, (links, source, target), strict=True):
            path.write_bytes(_encode(content) if isinstance(content, str) else content)
        attempt(
            lambda: import_file(
                project=fuzz_project,
                path=paths[0],
                fmt=fmt,
                source_text=paths[1],
                target_text=paths[2],
                annotator="fuzzer" if mode == "annotator" else None,
                load_alignments_as=mode,
            ),
            names=tuple(str(p) for p in paths),
        )


# -- import_pairs with pairs as the API builds them ----------------------------------------

ANY_TEXT = st.text(st.characters(codec=None), max_size=6) | st.sampled_from(
    ["", " ", "\x00", "\ud800", "\u200b", "\x1b[31m", "a" * 300, "NULL"]
)
JSON_LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), ANY_TEXT,
    st.just(math.nan), st.just(math.inf),
)  # fmt: skip
JSON_VALUE = st.recursive(
    JSON_LEAF,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(ANY_TEXT, inner, max_size=3),
    max_leaves=12,
)


# Mostly ordinary values, so that imports succeed too and later examples meet stored pairs.


def mostly(nice: st.SearchStrategy, wild: st.SearchStrategy, one_in: int) -> st.SearchStrategy:
    """``wild`` one draw in ``one_in``, else ``nice``."""
    return st.integers(1, one_in).flatmap(lambda k: wild if k == 1 else nice)


TOKEN = mostly(st.sampled_from(["le", "chat", "the", "cat", "x", "1"]), ANY_TEXT, 25)
PAIR_ID = mostly(st.from_regex(r"[a-z0-9]{1,3}", fullmatch=True), ANY_TEXT, 8)
NAME = mostly(st.sampled_from(["", "news"]), ANY_TEXT, 8)
METADATA = mostly(st.just({}), st.dictionaries(ANY_TEXT, JSON_VALUE, max_size=3), 4)


def deep(levels: int) -> object:
    value: object = 1
    for _ in range(levels):
        value = [value]
    return value


@st.composite
def api_pairs(draw) -> list[AlignedPair]:
    out = []
    for _ in range(draw(st.integers(1, 3))):
        source = draw(mostly(st.lists(TOKEN, min_size=1, max_size=5), st.just([]), 20))
        target = draw(st.lists(TOKEN, min_size=1, max_size=5))
        alignment = None
        if draw(st.booleans()):  # links out of range (-1, 5) now and then
            cell = st.tuples(st.integers(-1, 5), st.integers(-1, 5))
            sure = draw(st.lists(cell, max_size=4))
            alignment = Alignment.from_sets(sure, draw(st.lists(cell, max_size=4)))
        metadata = draw(METADATA)
        if draw(st.integers(0, 9)) == 0:
            metadata["deep"] = deep(draw(st.sampled_from([30, 200, 5000])))
        out.append(
            AlignedPair(
                draw(PAIR_ID),
                source,
                target,
                alignment,
                subcorpus=draw(NAME),
                annotator=draw(mostly(st.sampled_from([None, "ann1"]), ANY_TEXT, 8)),
                metadata=metadata,
            )
        )
    return out


@settings(FUZZ, max_examples=100)
@given(pairs=api_pairs(), mode=st.sampled_from(MODES), subcorpus=st.none() | st.none() | NAME)
def test_any_pairs_import_or_are_refused_whole(fuzz_project, pairs, mode, subcorpus):
    def run() -> ImportReport:
        return import_pairs(
            project=fuzz_project,
            pairs=pairs,
            load_alignments_as=mode,
            annotator="fuzzer" if mode == "annotator" and not pairs[0].annotator else None,
            subcorpus=subcorpus,
            source_name="api-upload",
        )

    before = counts()
    if subcorpus is not None and (not subcorpus or subcorpus_problem(subcorpus)):
        # a bad option is the caller's mistake (the API's serializer checks it first)
        with pytest.raises(ValueError, match="^subcorpus: "):
            run()
        assert counts() == before
        return
    try:
        run()
        event("imported")
    except CorpusImportError as err:
        event("refused")
        assert counts() == before, f"a refused import wrote something: {err}"
        assert err.reason.strip()
        assert err.pair_id is not None or err.file or err.line, f"no place named: {err}"
