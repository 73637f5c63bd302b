"""The grid's queue place (position, counts, next, previous, the next pair still to do) read
by keyset queries gives what numbering the whole queue in Python gives, on a queue of mixed
states: trial pairs first while some are unsubmitted, import positions out of id order and
tied, withdrawn assignments and other annotators' and projects' rows that must not count."""

from __future__ import annotations

import pytest
from django.utils import timezone

from annotator.grid.selectors import queue as queue_selectors
from annotator.grid.selectors.queue import QueuePlace, order_queue, queue_place
from annotator.models import Assignment, Membership, Project, SentencePair

pytestmark = pytest.mark.django_db

STATES = ("assigned", "submitted", "in_progress", "submitted", "assigned", "submitted")


def build(users) -> Project:
    """A queue of 40 pairs (trial pairs among them, positions shuffled and tied) in mixed
    states, a withdrawn assignment, another annotator on every third pair, another project."""
    annotator, other = users
    project, elsewhere = (Project.objects.create(name=n) for n in ("queue", "elsewhere"))
    for p in (project, elsewhere):
        Membership.objects.create(project=p, user=annotator, role="annotator")
    now = timezone.now()
    for k in range(40):
        pair = SentencePair.objects.create(
            project=project if k % 9 != 8 else elsewhere, external_id=f"p{k}",
            position=(k * 7) % 23, is_trial=k % 11 in (3, 6),
            source_tokens=["a"], target_tokens=["b"],
        )  # fmt: skip
        status = STATES[k % len(STATES)]
        Assignment.objects.create(
            pair=pair, annotator=annotator, status=status,
            started_at=now if status != "assigned" else None,
            submitted_at=now if status == "submitted" else None,
            withdrawn_at=now if k == 16 else None,
        )  # fmt: skip
        if k % 3 == 0:
            Assignment.objects.create(pair=pair, annotator=other, status="assigned")
    return project


def straightforward(queue: list[Assignment], me: Assignment) -> QueuePlace:
    """The place computed from the whole queue read in order."""
    i = [a.pk for a in queue].index(me.pk)
    todo = [(k, a.pk) for k, a in enumerate(queue) if a.status != "submitted"]
    todo_after = next((pk for k, pk in todo if k > i), None)
    todo_any = next((pk for k, pk in todo if k != i), None)
    trials_todo = any(a.pair.is_trial and a.status != "submitted" for a in queue)
    return QueuePlace(
        position=i + 1,
        total=len(queue),
        submitted=sum(a.status == "submitted" for a in queue),
        next=queue[i + 1].pk if i + 1 < len(queue) else None,
        previous=queue[i - 1].pk if i > 0 else None,
        next_unsubmitted=(
            todo_any if me.pair.is_trial and not trials_todo else (todo_after or todo_any)
        ),
    )


def places(project: Project, annotator) -> list[tuple[QueuePlace, QueuePlace, QueuePlace]]:
    """(straightforward, keyset, window) for every assignment of the annotator's queue."""
    rows = Assignment.objects.filter(
        annotator=annotator, withdrawn_at__isnull=True, pair__project=project
    )
    queue = list(order_queue(rows).select_related("pair"))
    found = []
    for me in queue:
        # read with its project (its order flag known): the keyset statement
        keyset = queue_place(assignment=Assignment.objects.select_related("pair__project").get(
            pk=me.pk))  # fmt: skip
        # the project's flag unknown: the numbered queue (the window statement)
        window = queue_place(assignment=Assignment.objects.select_related("pair").get(pk=me.pk))
        found.append((straightforward(queue, me), keyset, window))
    return found


@pytest.mark.parametrize("factor", [0, 10**9], ids=["walking-the-pairs", "reading-own-rows"])
def test_keyset_place_matches_the_whole_queue_in_order(make_user, monkeypatch, factor):
    """Both ways the keyset statement reads a queue: walking the pairs' order index (a dense
    queue) and reading the annotator's own rows (a queue sparse in its project)."""
    monkeypatch.setattr(queue_selectors, "SPARSE_FACTOR", factor)
    users = (make_user("kq_a"), make_user("kq_b"))
    project = build(users)
    trials = Assignment.objects.filter(annotator=users[0], pair__is_trial=True)
    assert trials.exclude(status="submitted").exists()  # the trial run stands first
    for expected, keyset, window in places(project, users[0]):
        assert keyset == expected
        assert window == expected
    # every trial pair submitted: the trial pairs go back to their import positions
    trials.update(status="submitted", submitted_at=timezone.now())
    found = places(project, users[0])
    assert len(found) == 35
    for expected, keyset, window in found:
        assert keyset == expected
        assert window == expected


def test_a_queue_sparse_in_a_big_project_reads_its_own_rows(make_user):
    """A sample of a project (one pair in 40 assigned): the default factor takes the own-rows
    branch, and every place is the whole queue's."""
    (annotator,) = (make_user("kq_sparse"),)
    project = Project.objects.create(name="sample")
    pairs = SentencePair.objects.bulk_create(
        SentencePair(project=project, external_id=f"s{k}", position=k, source_tokens=["a"],
                     target_tokens=["b"]) for k in range(400)
    )  # fmt: skip
    now = timezone.now()
    for k, pair in enumerate(pairs[::40]):
        done = k % 3 == 0
        Assignment.objects.create(pair=pair, annotator=annotator,
                                  status="submitted" if done else "assigned",
                                  started_at=now if done else None,
                                  submitted_at=now if done else None)  # fmt: skip
    assert 10 * queue_selectors.SPARSE_FACTOR < 400  # sparse by the default factor
    found = places(project, annotator)
    assert len(found) == 10
    for expected, keyset, window in found:
        assert keyset == expected
        assert window == expected
    # where the queue page resumes: past the first row (submitted), the second
    resume = queue_selectors.resume_assignment(user=annotator, project=project)
    assert resume is not None and resume.pair_id == pairs[40].pk


def test_keyset_place_of_the_only_assignment(make_user):
    (annotator,) = (make_user("kq_one"),)
    project = Project.objects.create(name="one")
    pair = SentencePair.objects.create(
        project=project, external_id="x", source_tokens=["a"], target_tokens=["b"]
    )
    me = Assignment.objects.create(pair=pair, annotator=annotator)
    place = queue_place(assignment=Assignment.objects.select_related("pair__project").get(pk=me.pk))
    assert place == QueuePlace(
        position=1, total=1, submitted=0, next=None, previous=None, next_unsubmitted=None
    )


def test_queue_page_order_and_resume_match_the_whole_queue_in_order(make_user):
    """The queue page's list (any status, whole and a page at a time) and where it resumes,
    while trial pairs stand first and after they are all submitted (each read in the pairs'
    index order)."""
    from annotator.grid.selectors.queue import project_queue, queue_page_rows, resume_assignment

    users = (make_user("kq_page_a"), make_user("kq_page_b"))
    annotator = users[0]
    project = build(users)
    rows = Assignment.objects.filter(
        annotator=annotator, withdrawn_at__isnull=True, pair__project=project
    )
    for step in ("trials pending", "trials done", "all done"):
        queue = list(order_queue(rows).select_related("pair"))
        for status in (None, "assigned", "submitted"):
            expected = [a.pk for a in queue if status in (None, a.status)]
            listed = project_queue(user=annotator, project=project, status=status)
            assert [a.pk for a in listed] == expected, (step, status)
            # the page's rows, read a page of 4 at a time
            runs = queue_page_rows(user=annotator, project=project, status=status)
            paged = [a.pk for k in range(0, 40, 4) for a in runs[k : k + 4]]
            assert paged == expected, (step, status)
            assert runs.count() == len(expected)
        todo = [a.pk for a in queue if a.status != "submitted"]
        resume = resume_assignment(user=annotator, project=project)
        assert (resume.pk if resume else None) == (todo[0] if todo else None), step
        done = rows.filter(pair__is_trial=True) if step == "trials pending" else rows
        done.update(status="submitted", submitted_at=timezone.now())
    assert resume is None


def old_list(annotator, project, status: str | None) -> list[Assignment]:
    """The API's list as the queue sorted whole: its filters on :func:`order_queue`."""
    rows = Assignment.objects.filter(
        annotator=annotator, withdrawn_at__isnull=True, pair__project=project
    )
    if status:
        rows = rows.filter(status=status)
    return list(order_queue(rows.select_related("pair", "pair__subcorpus")))


def test_api_list_of_one_queue_answers_as_the_queue_sorted_whole(client, make_user):
    """``/api/assignments/?project=`` (any status, every page of several sizes, past the last
    page) answers the rows, order, count and links the whole sorted queue gives, while trial
    pairs stand first, after they are submitted, and in a project serving uncertain seeds
    first; a project with none of the annotator's work lists nothing."""
    from annotator.grid.api.assignments import AssignmentListSerializer

    users = (make_user("kq_api_a"), make_user("kq_api_b"))
    annotator = users[0]
    project = build(users)
    client.force_login(annotator)
    rows = Assignment.objects.filter(annotator=annotator, pair__project=project)
    for step in ("trials pending", "trials done", "uncertain first"):
        for status in (None, "assigned", "in_progress", "submitted"):
            whole = old_list(annotator, project, status)
            query = f"project={project.pk}" + (f"&status={status}" if status else "")
            for size in (4, 7, 100):
                pages = -(-len(whole) // size)
                for page in range(1, pages + 1):
                    got = client.get(f"/api/assignments/?{query}&page={page}&page_size={size}")
                    data = got.json()
                    part = whole[(page - 1) * size : page * size]
                    assert data["count"] == len(whole), (step, status)
                    assert data["results"] == AssignmentListSerializer(part, many=True).data
                    assert (data["next"] is None) == (page == pages)
                    assert (data["previous"] is None) == (page == 1)
                past = client.get(f"/api/assignments/?{query}&page={pages + 1}&page_size={size}")
                assert past.status_code == (404 if whole else 200)
        if step == "trials pending":
            rows.filter(pair__is_trial=True).update(status="submitted", submitted_at=timezone.now())
        else:
            Project.objects.filter(pk=project.pk).update(uncertainty_first=True)
    empty = client.get("/api/assignments/?project=999999999").json()
    assert (empty["count"], empty["results"]) == (0, [])
    assert client.get(f"/api/assignments/?project={project.pk}&status=nope").status_code == 400
