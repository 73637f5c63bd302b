"""Hostile input to the importer (issue 10): every refusal is ``file:line: reason`` (or names the
pair), nothing is written — not even the project an empty or bad file would have created — and
the same input is refused on SQLite and PostgreSQL alike (CI runs this file on PostgreSQL,
which refuses NUL characters and lone surrogates that SQLite would store)."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from alignment_core import AlignedPair
from annotator.corpora.services.importing import CorpusImportError, import_pairs
from annotator.models import Project, SentencePair
from tests.app.test_import import snapshot

pytestmark = pytest.mark.django_db

JSONL_ID = '{"id": "p1", "source": ["a", "b"], "target": ["c"]'


def run(*args: object) -> str:
    out, err = StringIO(), StringIO()
    call_command("import_corpus", "--no-progress", *map(str, args), stdout=out, stderr=err)
    return out.getvalue()


def refused(tmp_path: Path, name: str, content: str | bytes, *args: object) -> str:
    """Import ``content`` as a new project; assert it was refused with nothing written, and
    return the error message."""
    path = tmp_path / name
    path.write_bytes(
        content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content
    )
    before = snapshot()
    with pytest.raises(CommandError) as err:
        run("--project", "hostile", "--create-project", *args, path)
    assert snapshot() == before
    assert not Project.objects.filter(name="hostile").exists()
    message = str(err.value)
    assert "import refused, nothing written" in message or message.startswith("--")
    return message


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        # NaN / Infinity: not JSON, and no database stores them (IntegrityError / DataError)
        ("nan.jsonl", JSONL_ID + ', "score": NaN}\n', "NaN is not valid JSON"),
        ("inf.jsonl", JSONL_ID + ', "score": -Infinity}\n', "-Infinity is not valid JSON"),
        ("huge.jsonl", JSONL_ID + ', "score": 1e400}\n', "too large for a float"),
        ("digits.jsonl", JSONL_ID + ', "n": ' + "9" * 5000 + "}\n", "more digits than allowed"),
        # nesting that exhausted the decoder's stack (RecursionError)
        ("deep.jsonl", JSONL_ID + ', "m": ' + "[" * 50_000 + "]" * 50_000 + "}\n", "nested too"),
        # nested within the decoder's reach, but no metadata needs 40 levels
        ("nested.jsonl", JSONL_ID + ', "m": ' + "[" * 40 + "]" * 40 + "}\n", "levels deep"),
        # NUL and lone surrogates: SQLite stores them, PostgreSQL refuses (DataError)
        ("nul_id.jsonl", '{"id": "p\\u0000", "source": ["a"], "target": ["b"]}\n', "NUL"),
        ("nul_tok.jsonl", '{"id": "p", "source": ["a\\u0000"], "target": ["b"]}\n', "NUL"),
        ("sur_tok.jsonl", '{"id": "p", "source": ["a"], "target": ["\\udc80"]}\n', "surrogate"),
        ("sur_id.jsonl", '{"id": "\\ud800x", "source": ["a"], "target": ["b"]}\n', "surrogate"),
        ("sur_meta.jsonl", JSONL_ID + ', "note": "\\ud83d"}\n', "surrogate"),
        ("nul_key.jsonl", JSONL_ID + ', "metadata": {"k\\u0000": 1}}\n', "NUL"),
        # tokens nobody can see or type
        (
            "zw.jsonl",
            '{"id": "p", "source": ["a", "\\u200b\\u200d"], "target": ["b"]}\n',
            "invisible",
        ),
        (
            "bell.jsonl",
            '{"id": "p", "source": ["a\\u0007"], "target": ["b"]}\n',
            "control character",
        ),
        ("esc_id.jsonl", '{"id": "p\\u001b[31m", "source": ["a"], "target": ["b"]}\n', "control"),
        ("c1.jsonl", '{"id": "p", "source": ["a"], "target": ["b\\u009bc"]}\n', "control"),
        ("sub.jsonl", JSONL_ID + ', "subcorpus": "n\\u0000ews"}\n', "NUL"),
        # the same faults through the other readers
        ("nul.tsv", b"p1\ta\x00b c\td e\n", "NUL"),
        ("ctl.tsv", b"p1\ta b\tc \x01d\n", "control character"),
        ("zw.bitext", "p1 ||| a \u2060 b ||| c\n", "invisible"),
        ("meta.tsv", 'id\tsource\ttarget\tmetadata\np\ta\tb\t{"x": NaN}\n', "NaN"),
        (
            "nan.json",
            '[{"id": "x", "source": "a", "target": "b", "sureAlign": "", "v": NaN}]',
            "NaN",
        ),
        ("deep.json", "[" * 50_000, "nested too deeply"),
        ("ctl.A3", "# Sentence pair (1)\na\x02 b\nNULL ({ }) c ({ 1 })\n", "control character"),
    ],
)
def test_hostile_file_is_refused_with_file_line_and_reason(tmp_path, name, content, reason):
    message = refused(tmp_path, name, content)
    line = 2 if name == "meta.tsv" else 1  # after the header
    assert f"{tmp_path / name}:{line}: " in message
    assert reason in message


def test_an_empty_file_is_refused_and_creates_no_project(tmp_path):
    for name, content in [("empty.jsonl", ""), ("blank.tsv", "\n  \n\n"), ("bom.jsonl", "\ufeff")]:
        message = refused(tmp_path, name, content)
        assert f"{tmp_path / name}: no sentence pairs to import" in message


def test_a_project_name_over_200_characters_is_refused_before_anything_is_written(tmp_path):
    path = tmp_path / "ok.jsonl"
    path.write_text('{"id": "p", "source": ["a"], "target": ["b"]}\n')
    for name, reason in [("x" * 201, "201 characters, more than the 200"), ("a\x00b", "NUL")]:
        with pytest.raises(CommandError, match=reason):
            run("--project", name, "--create-project", path)
    assert not Project.objects.exists() and not SentencePair.objects.exists()
    run("--project", "x" * 200, "--create-project", path)  # the limit itself is fine
    assert Project.objects.get().pairs.count() == 1


# -- sentence length: Project.max_tokens -----------------------------------------------------


def long_pairs(tmp_path: Path, n_tokens: int) -> Path:
    path = tmp_path / "long.tsv"
    path.write_text(f"short\ta b\tc d\nlong\t{' '.join(['w'] * n_tokens)}\tx y\n")
    return path


def test_a_sentence_over_the_default_limit_is_refused_naming_the_pair_and_line(tmp_path):
    default = Project._meta.get_field("max_tokens").default
    path = long_pairs(tmp_path, default + 1)
    before = snapshot()
    with pytest.raises(CommandError) as err:
        run("--project", "long", "--create-project", path)
    message = str(err.value)
    assert f"{path}:2: pair 'long': the source sentence has {default + 1} tokens" in message
    assert f"limit of {default} tokens a side" in message and "--max-tokens" in message
    assert snapshot() == before


def test_max_tokens_is_set_when_creating_the_project(tmp_path):
    path = long_pairs(tmp_path, 300)
    run("--project", "long", "--create-project", "--max-tokens", "300", path)
    project = Project.objects.get(name="long")
    assert project.max_tokens == 300 and project.pairs.count() == 2
    # an existing project keeps its limit: the option does not silently change it
    with pytest.raises(CommandError, match="only applies to a new project"):
        run("--project", "long", "--max-tokens", "400", path)
    with pytest.raises(CommandError, match="at least 1"):
        run("--project", "other", "--create-project", "--max-tokens", "0", path)


def test_import_pairs_applies_the_projects_limit_to_pairs_from_the_api(project):
    project.max_tokens = 3
    project.save()
    pairs = [AlignedPair("ok", ["a", "b", "c"], ["d"]), AlignedPair("big", ["a"], list("wxyz"))]
    with pytest.raises(CorpusImportError) as err:
        import_pairs(project=project, pairs=pairs, source_name="api")
    assert "api: pair 'big'" in str(err.value)
    assert "target sentence has 4 tokens, more than this project's limit of 3" in str(err.value)
    assert not project.pairs.exists()


@pytest.mark.parametrize(
    ("pair", "reason"),
    [
        (AlignedPair("p\x00", ["a"], ["b"]), "pair id contains a NUL"),
        (AlignedPair("p", ["a\ud800"], ["b"]), "lone surrogate"),
        (AlignedPair("p", ["a"], ["\u200b"]), "invisible"),
        (AlignedPair("p", ["a\x1b"], ["b"]), "control character"),
        (AlignedPair("p", ["a"], ["b"], metadata={"x": float("nan")}), "not a JSON number"),
        (AlignedPair("p", ["a"], ["b"], metadata={"x": "\x00"}), "NUL"),
        (AlignedPair("p", ["a"], ["b"], metadata={"x": {1, 2}}), "JSON cannot hold"),
        (AlignedPair("p", ["a"], ["b"], subcorpus="n\x00"), "NUL"),
        (AlignedPair("\x85p", ["a"], ["b"]), "control character"),
    ],
)
def test_import_pairs_refuses_unstorable_text_from_the_api(project, pair, reason):
    before = snapshot()
    with pytest.raises(CorpusImportError, match=reason):
        import_pairs(project=project, pairs=[pair], source_name="api")
    assert snapshot() == before


def test_import_pairs_refuses_an_empty_list(project):
    with pytest.raises(CorpusImportError, match="no sentence pairs"):
        import_pairs(project=project, pairs=[], source_name="api")


def test_visible_text_with_format_characters_inside_is_kept(tmp_path):
    """Refusing invisible TOKENS must not refuse real text that uses joiners (Persian ZWNJ,
    emoji ZWJ sequences) or a soft hyphen inside a word."""
    path = tmp_path / "ok.jsonl"
    path.write_text(
        '{"id": "fa", "source": ["\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", '
        '"\U0001f468\u200d\U0001f469"], "target": ["co\u00adoperate"], "note": "line\\nbreak"}\n'
    )
    run("--project", "ok", "--create-project", path)
    pair = SentencePair.objects.get()
    assert pair.source_tokens[0] == "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"
    assert pair.target_tokens == ["co\u00adoperate"] and pair.metadata == {"note": "line\nbreak"}
