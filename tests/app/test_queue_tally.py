"""The queue tally PostgreSQL keeps (QueueTally, migration 0013): after assignments are
created, started, submitted, withdrawn, restored, reassigned and deleted, in bulk and one by
one, each annotator's queue counts read from the tally equal the queue counted row by row."""

from __future__ import annotations

from collections import Counter

import pytest
from django.db import connection
from django.utils import timezone

from annotator.grid.selectors.queue import queue_counts
from annotator.models import Assignment, Project, SentencePair
from tests.conftest import need

# PostgreSQL's triggers keep the tally (SQLite counts as before): not in CI's SQLite pass
pytestmark = [pytest.mark.django_db, pytest.mark.integration]


def counted(user, project) -> tuple[int, int, int, int]:
    """(total, assigned, in progress, submitted), read row by row (the oracle)."""
    rows = Assignment.objects.filter(
        annotator=user, pair__project=project, withdrawn_at__isnull=True
    ).values_list("status", flat=True)
    n = Counter(rows)
    return (sum(n.values()), n["assigned"], n["in_progress"], n["submitted"])


def tallied(user, project) -> tuple[int, int, int, int]:
    c = queue_counts(user=user, project=project)
    return (c.total, c.assigned, c.in_progress, c.submitted)


def test_the_queue_tally_follows_every_write_of_assignments(make_user):
    need(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://...)")
    a, b = make_user("qt_a"), make_user("qt_b")
    project, other = Project.objects.create(name="tallied"), Project.objects.create(name="other")
    pairs = SentencePair.objects.bulk_create(
        SentencePair(project=project if k < 30 else other, external_id=f"p{k}", position=k,
                     source_tokens=["a"], target_tokens=["b"])
        for k in range(40)
    )  # fmt: skip
    now = timezone.now()

    def check() -> None:
        for user in (a, b):
            for p in (project, other):
                assert tallied(user, p) == counted(user, p), (user.username, p.name)

    Assignment.objects.bulk_create(
        Assignment(pair=p, annotator=a if k % 2 else b) for k, p in enumerate(pairs)
    )
    check()
    mine = Assignment.objects.filter(annotator=a, pair__project=project)
    mine.filter(pair__position__lt=10).update(status="in_progress", started_at=now)
    mine.filter(pair__position__lt=6).update(status="submitted", submitted_at=now)
    Assignment.objects.filter(pair__position=1).update(last_activity_at=now)  # no move
    check()
    assert tallied(a, project) == (15, 10, 2, 3)
    one = mine.get(pair__position=7)
    one.withdrawn_at = now
    one.save()
    mine.filter(pair__position=3).update(withdrawn_at=now)
    check()
    mine.filter(pair__position=3).update(withdrawn_at=None)  # restored
    Assignment.objects.filter(pk=one.pk).update(annotator=b, withdrawn_at=None)  # reassigned
    check()
    Assignment.objects.filter(pair__position__in=[5, 8, 9, 31]).delete()
    Assignment.objects.create(pair=pairs[8], annotator=a, status="submitted", submitted_at=now)
    check()
    assert tallied(a, project)[0] == 13
