"""The lead's work list on the progress page: every assignment, withdrawn ones too, by
annotator (username order) then in the pairs' order, read a page at a time from each
annotator's own stretch; the pages together are the whole list sorted at once."""

from __future__ import annotations

import pytest
from django.core.paginator import Paginator
from django.utils import timezone

from annotator.models import Assignment
from annotator.projects.selectors.progress import assignments_of, project_progress
from tests.app.lead_helpers import add_annotators, make_pairs

pytestmark = pytest.mark.django_db


@pytest.fixture
def work(project, make_user):
    pairs = make_pairs(project, {"news": 7, "mtc": 4})
    for k, pair in enumerate(pairs):  # import order is not key order
        pair.position = (k * 5) % len(pairs)
        pair.save()
    # usernames sort otherwise than the users were made: zed, amy, kim
    zed, amy, kim = add_annotators(project, make_user, ["zed", "amy", "kim"])
    for k, pair in enumerate(pairs):
        Assignment.objects.create(pair=pair, annotator=(zed, amy)[k % 2])
        if k % 3 == 0:
            Assignment.objects.create(pair=pair, annotator=kim, slot=2)
    gone = Assignment.objects.filter(annotator=amy).order_by("pk").first()
    gone.withdrawn_at = timezone.now()
    gone.save()
    Assignment.objects.create(pair=gone.pair, annotator=zed)  # the pair moved to zed
    return project


def sorted_at_once(project, username=None) -> list[int]:
    qs = Assignment.objects.filter(pair__project=project)
    if username:
        qs = qs.filter(annotator__username=username)
    return list(qs.order_by("annotator__username", "pair__position", "pair_id", "pk")
                .values_list("pk", flat=True))  # fmt: skip


@pytest.mark.parametrize("counted_by", ["its own query", "progress"])
@pytest.mark.parametrize("per_page", [1, 4, 5, 50])
@pytest.mark.parametrize("username", [None, "kim", "zed"])
def test_the_pages_together_are_the_list_sorted_at_once(work, per_page, username, counted_by):
    counts = project_progress(project=work).work_counts if counted_by == "progress" else None
    listed = assignments_of(project=work, annotator_username=username, counts=counts)
    paginator = Paginator(listed, per_page)
    pages = [paginator.page(k) for k in paginator.page_range]
    read = [a.pk for page in pages for a in page]
    assert read == sorted_at_once(work, username)
    assert paginator.count == len(read) == (16 if username is None else len(read))
    assert all(a.pair.subcorpus.name in ("news", "mtc") for page in pages for a in page)


def test_an_unknown_annotator_has_an_empty_list(work):
    paginator = Paginator(assignments_of(project=work, annotator_username="nobody"), 10)
    assert paginator.count == 0 and list(paginator.get_page(1)) == []
