"""A large import leaves PostgreSQL's view of its tables current (``services.maintenance``):
VACUUM (ANALYZE) once it has committed, so the pair list's index-only scans and the planner
see the new rows at once instead of after autovacuum's next pass. Small, failed and dry-run
imports do nothing of the kind."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from alignment_core import AlignedPair, Alignment
from annotator.corpora.services import maintenance
from annotator.corpora.services.importing import (
    CorpusImportError,
    ImportSource,
    import_files,
    import_pairs,
)
from annotator.models import GoldAlignment, Project, SentencePair
from tests.conftest import need


def pairs(n: int, start: int = 0) -> list[AlignedPair]:
    return [
        AlignedPair(
            id=f"p{k}",
            source=["the", "cat", f"w{k}"],
            target=["a", "cat", f"w{k}"],
            alignment=Alignment.from_sets([(1, 1), (2, 2)], [(0, 0)]),
        )
        for k in range(start, start + n)
    ]


def pages(model) -> tuple[int, int]:
    """(relpages, relallvisible) of a model's table: written by VACUUM and ANALYZE only."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relpages, relallvisible FROM pg_class WHERE oid = %s::regclass",
            [model._meta.db_table],
        )
        return cursor.fetchone()


@pytest.fixture
def no_autovacuum():
    """Autovacuum kept off the tables, so only the import can have vacuumed them."""
    need(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://...)")
    tables = [SentencePair._meta.db_table, GoldAlignment._meta.db_table]
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"ALTER TABLE {table} SET (autovacuum_enabled = false)")
    yield
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"ALTER TABLE {table} RESET (autovacuum_enabled)")


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_large_import_vacuums_its_tables_once_committed_and_a_small_one_does_not(
    no_autovacuum,
):
    need(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://...)")
    project = Project.objects.create(name="Bulk")

    before = pages(SentencePair)
    small = maintenance.SETTLE_ROWS // 2 - 1  # pairs + gold alignments: below the threshold
    import_pairs(project=project, pairs=pairs(small), load_alignments_as="gold")
    assert pages(SentencePair) == before  # nothing vacuumed or analysed the new rows

    report = import_pairs(
        project=project,
        pairs=pairs(maintenance.SETTLE_ROWS, start=small),
        load_alignments_as="gold",
    )
    assert report.pairs_created == maintenance.SETTLE_ROWS
    for model in (SentencePair, GoldAlignment):
        relpages, visible = pages(model)
        assert relpages > 0 and visible == relpages, model  # every page marked all-visible


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_dry_run_or_refused_import_vacuums_nothing(no_autovacuum):
    need(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://...)")
    project = Project.objects.create(name="Bulk")
    before = pages(SentencePair)
    import_pairs(project=project, pairs=pairs(maintenance.SETTLE_ROWS), dry_run=True)
    assert pages(SentencePair) == before and not SentencePair.objects.exists()

    bad = pairs(maintenance.SETTLE_ROWS)
    bad[-1] = AlignedPair(
        id="bad", source=["x"], target=["y"], alignment=Alignment.from_sets([(5, 0)])
    )
    with pytest.raises(CorpusImportError):
        import_pairs(project=project, pairs=bad, load_alignments_as="gold")
    assert pages(SentencePair) == before and not SentencePair.objects.exists()


@pytest.mark.django_db
def test_settling_is_scheduled_after_the_commit_and_only_for_a_large_write(
    django_capture_on_commit_callbacks,
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert not maintenance.settle_after_commit(
            models=[SentencePair], rows=maintenance.SETTLE_ROWS - 1
        )
    assert callbacks == []
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert maintenance.settle_after_commit(models=[SentencePair], rows=maintenance.SETTLE_ROWS)
    assert len(callbacks) == 1
    # never inside a transaction (VACUUM cannot run there), and never but on PostgreSQL
    with transaction.atomic():
        assert maintenance.settle_tables(models=[SentencePair]) is False


@pytest.mark.django_db
def test_several_files_in_one_import_are_settled_once(tmp_path, django_capture_on_commit_callbacks):
    """One transaction, one VACUUM: the files' rows are counted together."""
    files = []
    for name, start in (("a.tsv", 0), ("b.tsv", maintenance.SETTLE_ROWS)):
        rows = [
            f"p{k}\tthe cat w{k}\ta cat w{k}" for k in range(start, start + maintenance.SETTLE_ROWS)
        ]
        (tmp_path / name).write_text("id\tsource\ttarget\n" + "\n".join(rows) + "\n")
        files.append(ImportSource(tmp_path / name))
    project = Project.objects.create(name="Two files")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        report = import_files(project=project, sources=files)
    assert report.pairs_created == 2 * maintenance.SETTLE_ROWS
    settles = [c for c in callbacks if getattr(c, "func", None) is maintenance.settle_tables]
    assert len(settles) == 1
    assert SentencePair in settles[0].keywords["models"]


def test_a_failed_vacuum_is_logged_and_leaves_the_import_standing(monkeypatch, caplog):
    """It runs after the commit: an error there (say, a role that does not own the table)
    must not turn a stored import into a failed job."""
    from django.db import DatabaseError

    class Broken:
        vendor = "postgresql"
        in_atomic_block = False
        ops = connection.ops

        def cursor(self):
            raise DatabaseError("must be owner of table annotator_sentencepair")

    monkeypatch.setattr(maintenance, "connections", {"default": Broken()})
    assert maintenance.settle_tables(models=[SentencePair]) is False
    assert "VACUUM (ANALYZE)" in caplog.text and "failed" in caplog.text
