"""Two saves of one annotation based on the same version, at the same time, on PostgreSQL:
exactly one wins, the other is told it is stale, and the history has no gap or duplicate.

Real threads with their own database connections (``transaction=True``), so the row lock in
``save_annotation`` is what decides. Needs PostgreSQL (SQLite has no row locks): skipped
without it, a failure under CI=true.
"""

# ruff: noqa: F811 (fixtures imported and used as arguments)

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from annotator.grid.services import StaleVersion, save_annotation
from annotator.models import Annotation, AnnotationRevision
from tests.app.grid_fixtures import grid  # noqa: F401
from tests.conftest import need

pytestmark = pytest.mark.django_db(transaction=True)


def race(assignment, user, version: int, links_per_thread: list[list]) -> list[object]:
    """Run one save per entry of ``links_per_thread`` at once; return each outcome."""
    barrier = threading.Barrier(len(links_per_thread))
    outcomes: list[object] = [None] * len(links_per_thread)

    def one(n: int) -> None:
        try:
            barrier.wait(timeout=10)
            outcomes[n] = save_annotation(
                assignment=assignment, user=user, links=links_per_thread[n], base_version=version
            )
        except Exception as exc:  # the outcome is what the test looks at
            outcomes[n] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=one, args=(n,)) for n in range(len(links_per_thread))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return outcomes


@pytest.mark.integration  # PostgreSQL row locks (SQLite serialises writers: nothing to race)
def test_two_saves_on_the_same_version_cannot_both_win(grid):
    need(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://...)")
    assignment, me = grid.mine["b"], grid.annotator
    for version in range(4):  # the first save (no annotation yet) and later ones
        mine = [[0, 0, "S"], [version, 1, "S"]]
        theirs = [[6, 7, "P"], [version, 2, "P"]]
        outcomes = race(assignment, me, version, [mine, theirs])
        won = [o for o in outcomes if not isinstance(o, Exception)]
        stale = [o for o in outcomes if isinstance(o, StaleVersion)]
        assert len(won) == 1 and len(stale) == 1, outcomes
        annotation = Annotation.objects.get(assignment=assignment)
        assert annotation.version == version + 1
        assert annotation.links == won[0].annotation.links
        assert stale[0].current.version == version + 1  # the loser sees what won
    versions = list(
        AnnotationRevision.objects.filter(annotation__assignment=assignment).values_list(
            "version", flat=True
        )
    )
    assert versions == [1, 2, 3, 4]
