"""Append-only history in the schema: annotation and gold revisions survive any attempt to
delete what they describe (the delete is refused, PROTECT), and a database holding data at the
previous migration moves to the one that says so without losing a row."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.models import ProtectedError

from annotator.models import (
    Annotation,
    AnnotationRevision,
    Assignment,
    GoldAlignment,
    GoldRevision,
    Project,
    SentencePair,
)

BEFORE = ("annotator", "0003_listperf_pair_order_index")
AFTER = ("annotator", "0004_history_protect")


@pytest.fixture
def history(db, project, pair, annotator, lead):
    assignment = Assignment.objects.create(pair=pair, annotator=annotator)
    annotation = Annotation.objects.create(assignment=assignment, links=[[0, 0, "S"]])
    AnnotationRevision.objects.create(
        annotation=annotation, version=1, kind="submit", links=[[0, 0, "S"]], author=annotator
    )
    gold = GoldAlignment.objects.create(pair=pair, origin="single", links=[[0, 0, "S"]])
    GoldRevision.objects.create(gold=gold, version=1, links=[[0, 0, "S"]], origin="single")
    return assignment, annotation, gold


@pytest.mark.parametrize(
    "target",
    ["annotation", "assignment", "gold", "pair", "project"],
)
def test_deleting_what_history_describes_is_refused_and_the_history_stays(history, target):
    assignment, annotation, gold = history
    victim = {
        "annotation": annotation,
        "assignment": assignment,
        "gold": gold,
        "pair": assignment.pair,
        "project": assignment.pair.project,
    }[target]
    with pytest.raises(ProtectedError):
        victim.delete()
    assert AnnotationRevision.objects.filter(annotation=annotation).count() == 1
    assert GoldRevision.objects.filter(gold=gold).count() == 1
    assert type(victim).objects.filter(pk=victim.pk).exists()


def test_what_has_no_history_can_still_be_deleted(project, pair, annotator):
    """PROTECT guards history only: an assignment never worked on is deleted as before."""
    assignment = Assignment.objects.create(pair=pair, annotator=annotator)
    assignment.delete()
    assert not Assignment.objects.filter(pk=assignment.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_a_database_at_the_previous_migration_migrates_without_losing_history():
    executor = MigrationExecutor(connection)
    try:
        executor.migrate([BEFORE])
        old = MigrationExecutor(connection).loader.project_state([BEFORE]).apps
        user = old.get_model("auth", "User").objects.create(username="ann")
        project = old.get_model("annotator", "Project").objects.create(name="kept")
        pair = old.get_model("annotator", "SentencePair").objects.create(
            project=project, external_id="p1", source_tokens=["a"], target_tokens=["b"]
        )
        assignment = old.get_model("annotator", "Assignment").objects.create(
            pair=pair, annotator=user
        )
        annotation = old.get_model("annotator", "Annotation").objects.create(
            assignment=assignment, links=[[0, 0, "S"]], version=2
        )
        for version, kind in ((1, "autosave"), (2, "submit")):
            old.get_model("annotator", "AnnotationRevision").objects.create(
                annotation=annotation, version=version, kind=kind, links=[[0, 0, "S"]], author=user
            )
        gold = old.get_model("annotator", "GoldAlignment").objects.create(
            pair=pair, origin="adjudicated", links=[[0, 0, "P"]]
        )
        old.get_model("annotator", "GoldRevision").objects.create(
            gold=gold, version=1, links=[[0, 0, "P"]], origin="adjudicated", author=user
        )

        executor = MigrationExecutor(connection)
        executor.migrate([AFTER])

        new = executor.loader.project_state([AFTER]).apps
        revisions = new.get_model("annotator", "AnnotationRevision").objects.order_by("version")
        assert [(r.annotation_id, r.version, r.kind, r.links) for r in revisions] == [
            (annotation.pk, 1, "autosave", [[0, 0, "S"]]),
            (annotation.pk, 2, "submit", [[0, 0, "S"]]),
        ]
        gold_revisions = new.get_model("annotator", "GoldRevision").objects.all()
        assert [(r.gold_id, r.links, r.author_id) for r in gold_revisions] == [
            (gold.pk, [[0, 0, "P"]], user.pk)
        ]
        assert new.get_model("annotator", "SentencePair").objects.get().external_id == "p1"
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    # the migrated schema refuses what the old one cascaded
    with pytest.raises(ProtectedError):
        Project.objects.get(name="kept").delete()
    assert AnnotationRevision.objects.count() == 2 and GoldRevision.objects.count() == 1
    assert SentencePair.objects.filter(external_id="p1").exists()
    assert get_user_model().objects.filter(username="ann").exists()
