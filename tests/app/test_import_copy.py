"""New pairs stored by COPY (PostgreSQL) or one executemany (SQLite) instead of the ORM's
``bulk_create`` (``importing_rows``): the rows are the ones the ORM writes, every column and
the JSON text itself; the alignments of the same import point at the right pairs; and a bad
line in the last chunk leaves every table of the database as it was, also in a project that
had no pairs (where the stored-id lookups are skipped). Runs on SQLite and, with
DATABASE_URL, on PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.apps import apps
from django.db import connection

from alignment_core.formats import read_pairs
from annotator.corpora.services.importing import (
    CorpusImportError,
    import_file,
    import_pair_chunks,
)
from annotator.corpora.services.importing_checks import TRIAL_KEY, parse_trial
from annotator.models import (
    Annotation,
    Assignment,
    GoldAlignment,
    Project,
    SeedAlignment,
    SentencePair,
    Subcorpus,
)
from tests.app.test_import import ap

pytestmark = pytest.mark.django_db
N = 40
COLUMNS = ("external_id", "position", "source_tokens", "target_tokens", "is_trial", "metadata")
ODD_TOKENS = ['qu"ote', "back\\slash", "é", "naïve", "日本", "{}", "\\N", "a,b", "'"]


@pytest.fixture(autouse=True)
def small_chunks(settings):
    settings.IMPORT_CHUNK_PAIRS = 7  # 40 pairs: 6 chunks, 6 COPYs


def records(n: int = N) -> list[dict]:
    """Pairs with what COPY must escape or carry: quotes, backslashes, non-ASCII, ``\\N``,
    metadata holding tabs and newlines, trial flags, subcorpora and none."""
    out = []
    for k in range(n):
        odd = ODD_TOKENS[k % len(ODD_TOKENS)]
        record = {
            "id": f"p{k}\\{odd}" if k % 4 == 0 else f"p{k}",
            "source": ["the", odd, f"w{k}"],
            "target": [odd, "x"],
            "subcorpus": ("news", "", "novels")[k % 3],
            "metadata": {"note": f"line\tone\nline two {odd}", "n": k, "deep": {"l": [1, None]}},
        }
        if k % 5 == 0:
            record["metadata"][TRIAL_KEY] = True
        if k % 2:
            record["sure"] = [[0, 0], [2, 1]]
        out.append(record)
    return out


def jsonl(tmp_path: Path, items: list[dict], name: str = "pairs.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in items))
    return path


def reference_import(project: Project, path: Path) -> None:
    """The rows as ``bulk_create`` wrote them before: one model instance a pair."""
    subs: dict[str, Subcorpus] = {}
    objs = []
    for k, pair in enumerate(read_pairs(path, "jsonl"), 1):
        meta = dict(pair.metadata)
        trial = bool(parse_trial(meta.pop(TRIAL_KEY, False)))
        sub = None
        if pair.subcorpus:
            sub = subs.get(pair.subcorpus) or Subcorpus.objects.create(
                project=project, name=pair.subcorpus
            )
            subs[pair.subcorpus] = sub
        objs.append(
            SentencePair(
                project=project,
                subcorpus=sub,
                external_id=pair.id,
                position=k,
                source_tokens=pair.source,
                target_tokens=pair.target,
                is_trial=trial,
                metadata=meta,
            )  # fmt: skip
        )
    SentencePair.objects.bulk_create(objs)


def stored_rows(project: Project) -> list[tuple]:
    """Every column but the keys and the time, the JSON columns as the database's own text."""
    cast = "::text" if connection.vendor == "postgresql" else ""
    columns = ", ".join(f"sp.{c}{cast}" if "tokens" in c or c == "metadata" else f"sp.{c}"
                        for c in COLUMNS)  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {columns}, sub.name FROM annotator_sentencepair sp "
            "LEFT JOIN annotator_subcorpus sub ON sub.id = sp.subcorpus_id "
            "WHERE sp.project_id = %s ORDER BY sp.position",
            [project.pk],
        )
        return cursor.fetchall()


def test_the_rows_are_the_ones_the_orm_writes_every_column(tmp_path):
    path = jsonl(tmp_path, records())
    copied = Project.objects.create(name="copied")
    reference = Project.objects.create(name="reference")
    import_file(project=copied, path=path)
    reference_import(reference, path)
    got, want = stored_rows(copied), stored_rows(reference)
    assert len(got) == N
    assert got == want
    orm = list(SentencePair.objects.filter(project=copied).order_by("position").values(*COLUMNS))
    assert orm == list(
        SentencePair.objects.filter(project=reference).order_by("position").values(*COLUMNS)
    )
    assert orm[24]["external_id"] == "p24\\\\N" and orm[0]["metadata"]["note"].startswith("line\t")
    created = SentencePair.objects.filter(project=copied).values_list("created_at", flat=True)
    assert all(c is not None for c in created)


@pytest.mark.parametrize("mode", ["gold", "seed"])
def test_the_alignments_of_the_import_point_at_their_pairs(project, tmp_path, mode):
    items = records()
    import_file(project=project, path=jsonl(tmp_path, items), load_alignments_as=mode)
    rows = GoldAlignment.objects if mode == "gold" else SeedAlignment.objects
    links = dict(rows.filter(pair__project=project).values_list("pair__external_id", "links"))
    assert links == {r["id"]: [[0, 0, "S"], [2, 1, "S"]] for r in items if "sure" in r}


def test_annotations_of_the_import_point_at_their_pairs(project, tmp_path):
    items = [{**r, "sure": [[0, 0]]} for r in records(12)]
    import_file(project=project, path=jsonl(tmp_path, items), load_alignments_as="annotator",
                annotator="imported_person")  # fmt: skip
    assignments = Assignment.objects.filter(pair__project=project)
    assert sorted(assignments.values_list("pair__external_id", flat=True)) == sorted(
        r["id"] for r in items
    )
    assert set(
        Annotation.objects.filter(assignment__in=assignments).values_list("version", flat=True)
    ) == {1}


def all_tables() -> dict[str, int]:
    return {m._meta.db_table: m._default_manager.count() for m in apps.get_models()}


@pytest.mark.parametrize("mode", [None, "gold"])
@pytest.mark.parametrize("fresh", [True, False], ids=["empty-project", "project-with-pairs"])
def test_a_bad_line_at_the_end_leaves_every_table_unchanged(project, tmp_path, mode, fresh):
    if not fresh:
        import_file(project=project, path=jsonl(tmp_path, records(3), "first.jsonl"))
    before = all_tables()
    items = [json.dumps(r, ensure_ascii=False) for r in records()]
    items[-1] = items[-1].replace('"target": [', '"target": [7, ')  # line 40: not a token
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(items) + "\n")
    with pytest.raises(CorpusImportError) as refused:
        import_file(project=project, path=path, load_alignments_as=mode)
    assert "bad.jsonl:40" in str(refused.value)
    assert all_tables() == before


def test_a_refusal_after_the_copies_in_pairs_from_the_api_leaves_nothing(project):
    """Chunks straight from the caller (the API's path, checked here rather than by a
    reader): a late chunk's bad pair rolls back the chunks already copied, gold included."""
    before = all_tables()
    good = [[ap(f"c{c}k{k}", "a b", "x y", [(0, 0)]) for k in range(7)] for c in range(4)]
    bad = [ap("late", "a b", "x y", [(5, 5)])]  # a link outside the grid
    with pytest.raises(CorpusImportError) as refused:
        import_pair_chunks(project=project, chunks=[*good, bad], load_alignments_as="gold")
    assert "late" in str(refused.value)
    assert all_tables() == before
