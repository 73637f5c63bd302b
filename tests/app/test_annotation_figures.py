"""The figures kept per annotation (``AnnotationFigures``, by a trigger on the revisions: on
PostgreSQL once per statement, on SQLite once per row) equal the figures read from the
revisions one by one, whatever wrote them: the grid's save (PostgreSQL's one statement, or
SQLite's three), a submit, a lead's reopen, a batch of several revisions of one annotation
in one statement, in any version order."""

from __future__ import annotations

import pytest

from annotator.grid.services import save_annotation
from annotator.models import Annotation, AnnotationFigures, AnnotationRevision, Assignment
from annotator.projects.services.assignment import reopen_assignment
from tests.app.lead_helpers import add_annotators, make_pairs, seed_all

pytestmark = pytest.mark.django_db


def read_one_by_one() -> dict[int, tuple[float, int | None, int | None]]:
    """annotation → (seconds, final version, final edits), from its revisions (the oracle)."""
    figures = {}
    for annotation in Annotation.objects.all():
        revisions = list(annotation.revisions.order_by("version"))
        final = [r for r in revisions if r.kind != AnnotationRevision.Kind.REOPEN]
        figures[annotation.pk] = (
            sum(r.elapsed_seconds for r in revisions),
            final[-1].version if final else None,
            final[-1].edits_from_seed if final else None,
        )
    return figures


def kept() -> dict[int, tuple[float, int | None, int | None]]:
    return {
        f.annotation_id: (f.seconds, f.final_version, f.final_edits)
        for f in AnnotationFigures.objects.all()
    }


@pytest.fixture
def work(project, make_user, lead):
    pairs = make_pairs(project, {"news": 3})
    run = seed_all(project, links=[(0, 0, "S")])
    (annotator,) = add_annotators(project, make_user, ["fig1"])
    seeds = {s.pair_id: s for s in run.seeds.all()}
    return [
        Assignment.objects.create(pair=p, annotator=annotator, seed=seeds[p.pk]) for p in pairs
    ], annotator


def test_the_figures_follow_saves_submits_and_a_reopen(work, lead):
    (first, second, _), annotator = work
    version = 0
    for links, kind in (([[0, 0, "S"]], "autosave"), ([[0, 1, "S"], [1, 1, "P"]], "autosave"),
                        ([[1, 1, "S"]], "submit")):  # fmt: skip
        result = save_annotation(assignment=first, user=annotator, links=links,
                                 base_version=version, kind=kind)  # fmt: skip
        version = result.annotation.version
    save_annotation(assignment=second, user=annotator, links=[[2, 2, "S"]], base_version=0)
    figures = kept()
    assert figures == read_one_by_one()
    submitted = Annotation.objects.get(assignment=first)
    assert figures[submitted.pk][1:] == (3, 2)  # {(1,1)} against the seed {(0,0)}: 2 cells
    first.refresh_from_db()
    reopen_assignment(assignment=first, by=lead)  # a reopen revision: time, never final
    assert kept()[submitted.pk][1:] == (3, 2)
    assert kept() == read_one_by_one()


def test_a_batch_of_revisions_in_any_order_keeps_the_latest_that_is_not_a_reopen(work):
    (first, second, third), annotator = work
    annotation = Annotation.objects.create(assignment=first, links=[], version=4)
    other = Annotation.objects.create(assignment=second, links=[], version=1)
    quiet = Annotation.objects.create(assignment=third, links=[], version=1)

    def revision(of, version, kind="autosave", edits=None, seconds=1.5):
        return AnnotationRevision(annotation=of, version=version, kind=kind, links=[],
                                  edits_from_seed=edits, elapsed_seconds=seconds)  # fmt: skip

    # one statement: versions 3 and 2 of one annotation (3 wins), a reopen alone for another
    AnnotationRevision.objects.bulk_create(
        [revision(annotation, 3, edits=7), revision(annotation, 2, edits=5),
         revision(other, 1, kind="reopen", seconds=2.0)]
    )  # fmt: skip
    assert kept()[annotation.pk] == (3.0, 3, 7) and kept()[other.pk] == (2.0, None, None)
    # an earlier version written later does not take over; a later one without a count does
    AnnotationRevision.objects.bulk_create([revision(annotation, 1, edits=1)])
    assert kept()[annotation.pk] == (4.5, 3, 7)
    AnnotationRevision.objects.bulk_create(
        [revision(annotation, 5, kind="reopen"), revision(annotation, 4, kind="submit")]
    )
    assert kept()[annotation.pk] == (7.5, 4, None)
    assert quiet.pk not in kept()  # an annotation without revisions has no figures
    assert kept() == {k: v for k, v in read_one_by_one().items() if k != quiet.pk}
