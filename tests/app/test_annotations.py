"""The annotation services: opening a pair, saves as revisions (kind, edits from the seed, time
spent measured server side and capped), submit, flags, and who may do what."""

# ruff: noqa: F811 (the ``grid`` fixture is imported and used as an argument)

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from annotator.grid.services import (
    AlreadySubmitted,
    AnnotationError,
    InvalidLinks,
    NotYourAssignment,
    StaleVersion,
    clear_flag,
    edits_from_seed,
    flag_assignment,
    open_assignment,
    save_annotation,
    submit_annotation,
)
from annotator.models import Annotation, AnnotationRevision, Assignment
from tests.app.grid_fixtures import SEED_LINKS, grid  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db

T0 = timezone.now().replace(microsecond=0) + timedelta(days=1)  # later than the fixture's saves


def revisions(assignment) -> list[AnnotationRevision]:
    return list(AnnotationRevision.objects.filter(annotation__assignment=assignment))


def test_edits_from_seed_count_cells_ignoring_sure_and_possible():
    seed = [[0, 0, "P"], [1, 0, "S"], [2, 1, "S"]]
    assert edits_from_seed(seed, seed) == 0
    relabelled = [[0, 0, "S"], [1, 0, "P"], [2, 1, "S"]]
    assert edits_from_seed(relabelled, seed) == 0  # S↔P is not an edit (SPEC §1: A_P)
    assert edits_from_seed([[0, 0, "S"], [4, 4, "P"]], seed) == 3  # +(4,4), −(1,0), −(2,1)
    assert edits_from_seed([[0, 1, "S"]], []) == 1


def test_opening_records_activity_start_and_seed(grid):
    assignment = grid.mine["b"]
    Assignment.objects.filter(pk=assignment.pk).update(seed=None)
    assignment.refresh_from_db()
    open_assignment(assignment=assignment, user=grid.annotator, now=T0)
    open_assignment(assignment=assignment, user=grid.annotator, now=T0 + timedelta(minutes=5))
    assignment.refresh_from_db()
    assert assignment.started_at == T0  # the first opening
    assert assignment.last_activity_at == T0 + timedelta(minutes=5)
    assert assignment.seed.pair_id == assignment.pair_id  # the pair's latest seed, recorded
    assert assignment.status == "assigned"  # opening is not editing
    assert not revisions(assignment)


def test_every_save_is_a_revision_with_kind_edits_author_and_capped_time(grid, settings):
    settings.ANNOTATION_IDLE_CAP = 120
    assignment = grid.mine["b"]
    me = grid.annotator
    open_assignment(assignment=assignment, user=me, now=T0)
    steps = [
        (0, [[0, 0, "P"], [1, 0, "S"], [2, 1, "S"], [3, 3, "S"]], 40),  # 40 s after opening
        (1, [[0, 0, "S"]], 40 + 15),
        (2, [[0, 0, "S"], [6, 7, "P"]], 40 + 15 + 3600),  # an hour idle: counts 120 s
    ]
    for version, links, at in steps:
        save_annotation(
            assignment=assignment,
            user=me,
            links=links,
            base_version=version,
            now=T0 + timedelta(seconds=at),
        )
    submit_annotation(
        assignment=assignment,
        user=me,
        links=[[0, 0, "S"]],
        base_version=3,
        now=T0 + timedelta(seconds=40 + 15 + 3600 + 20),
    )
    rows = revisions(assignment)
    assert [r.version for r in rows] == [1, 2, 3, 4]
    assert [r.kind for r in rows] == ["autosave", "autosave", "autosave", "submit"]
    assert [r.elapsed_seconds for r in rows] == [40, 15, 120, 20]
    assert [r.edits_from_seed for r in rows] == [1, 2, 3, 2]
    assert rows[0].links == [[0, 0, "P"], [1, 0, "S"], [2, 1, "S"], [3, 3, "S"]]
    assert {r.author for r in rows} == {me}
    assignment.refresh_from_db()
    assert assignment.status == "submitted"
    assert assignment.submitted_at == T0 + timedelta(seconds=40 + 15 + 3600 + 20)
    assert Annotation.objects.get(assignment=assignment).version == 4


def test_time_counts_from_the_annotators_latest_activity_on_any_pair(grid):
    """Two tabs (or moving on to the next pair) do not count the same minutes twice."""
    me = grid.annotator
    open_assignment(assignment=grid.mine["b"], user=me, now=T0)
    open_assignment(assignment=grid.mine["c"], user=me, now=T0 + timedelta(seconds=50))
    result = save_annotation(
        assignment=grid.mine["b"],
        user=me,
        links=[],
        base_version=0,
        now=T0 + timedelta(seconds=60),
    )
    assert result.revision.elapsed_seconds == 10


def test_first_save_without_any_earlier_activity_counts_no_time(grid):
    result = save_annotation(
        assignment=grid.mine["b"], user=grid.annotator, links=[], base_version=0
    )
    assert result.revision.elapsed_seconds == 0


def test_saving_moves_assigned_to_in_progress_and_keeps_flag(grid):
    assignment = grid.mine["b"]
    flag_assignment(assignment=assignment, user=grid.annotator, reason="unsure", note="hmm")
    result = save_annotation(
        assignment=assignment, user=grid.annotator, links=SEED_LINKS, base_version=0
    )
    assert result.assignment.status == "in_progress"
    assert result.revision.edits_from_seed == 0
    assignment.refresh_from_db()
    assert (assignment.status, assignment.flag, assignment.flag_note) == (
        "in_progress",
        "unsure",
        "hmm",
    )


def test_refusals_write_nothing(grid):
    me, assignment = grid.annotator, grid.mine["b"]
    save_annotation(assignment=assignment, user=me, links=[], base_version=0)
    count = AnnotationRevision.objects.count()
    with pytest.raises(StaleVersion) as stale:
        save_annotation(assignment=assignment, user=me, links=[[0, 0, "S"]], base_version=0)
    assert stale.value.current.version == 1 and stale.value.current.links == []
    with pytest.raises(InvalidLinks) as bad:
        save_annotation(assignment=assignment, user=me, links=[[0, 8, "S"]], base_version=1)
    assert "0-8" in bad.value.problems[0]
    with pytest.raises(NotYourAssignment):
        save_annotation(assignment=assignment, user=grid.other, links=[], base_version=1)
    with pytest.raises(ValueError, match="autosave or a submit"):
        save_annotation(assignment=assignment, user=me, links=[], base_version=1, kind="import")
    submit_annotation(assignment=assignment, user=me, links=[], base_version=1)
    count += 1
    with pytest.raises(AlreadySubmitted):
        save_annotation(assignment=assignment, user=me, links=[], base_version=2)
    assert AnnotationRevision.objects.count() == count


def test_withdrawn_assignment_cannot_be_saved_or_opened(grid):
    assignment = grid.mine["b"]
    Assignment.objects.filter(pk=assignment.pk).update(withdrawn_at=timezone.now())
    assignment.refresh_from_db()
    with pytest.raises(NotYourAssignment):
        save_annotation(assignment=assignment, user=grid.annotator, links=[], base_version=0)
    with pytest.raises(NotYourAssignment):
        open_assignment(assignment=assignment, user=grid.annotator)
    assert not revisions(assignment)


def test_flags_validate_reason_and_note(grid):
    assignment = grid.mine["b"]
    flag_assignment(assignment=assignment, user=grid.annotator, reason="not_paraphrase", note="")
    assignment.refresh_from_db()
    assert assignment.flag == "not_paraphrase" and assignment.flagged_at is not None
    with pytest.raises(AnnotationError, match="reason must be one of"):
        flag_assignment(assignment=assignment, user=grid.annotator, reason="dull")
    with pytest.raises(AnnotationError, match="501 characters"):
        flag_assignment(assignment=assignment, user=grid.annotator, reason="other", note="x" * 501)
    with pytest.raises(NotYourAssignment):
        flag_assignment(assignment=assignment, user=grid.other, reason="other")
    assignment.refresh_from_db()
    assert assignment.flag == "not_paraphrase"
    clear_flag(assignment=assignment, user=grid.annotator)
    assignment.refresh_from_db()
    assert (assignment.flag, assignment.flagged_at) == ("", None)
