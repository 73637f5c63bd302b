"""The assignment service on the database: preview writes nothing, apply records a plan, later
plans leave started work alone, and reassigning or withdrawing loses nothing."""

from __future__ import annotations

from collections import Counter

import pytest

from annotator.models import Annotation, AnnotationRevision, Assignment, AssignmentPlan
from annotator.projects.services.assignment import (
    AssignmentError,
    AssignmentRequest,
    PlanError,
    apply_assignment,
    preview_assignment,
    reassign,
    restore_assignment,
    withdraw_assignment,
)
from tests.app.lead_helpers import add_annotators, make_pairs, save_work, seed_all

pytestmark = pytest.mark.django_db


def request_for(users, share=1 / 3, seed=7, **kw):
    return AssignmentRequest(
        annotator_ids=tuple(u.pk for u in users), share=share, random_seed=seed, **kw
    )


@pytest.fixture
def team(project, make_user):
    make_pairs(project, {"mtc": 10, "news": 11, "novels": 9}, trial=3)
    return add_annotators(project, make_user, ["ann1", "ann2", "ann3"])


def active(project):
    return Assignment.objects.filter(pair__project=project, withdrawn_at__isnull=True)


def test_preview_writes_nothing_and_apply_writes_exactly_the_preview(project, team, lead):
    preview = preview_assignment(project=project, request=request_for(team))
    assert not Assignment.objects.exists() and not AssignmentPlan.objects.exists()
    assert preview.plan.double_pairs == 10  # a third of 30 non-trial pairs
    assert sum(w.new for w in preview.workloads) == 40
    assert [w.trial for w in preview.workloads] == [3, 3, 3]

    plan = apply_assignment(project=project, request=request_for(team), created_by=lead,
                            expect=preview.fingerprint)  # fmt: skip
    written = sorted(active(project).values_list("pair_id", "annotator_id", "slot"))
    assert written == sorted((a.pair_id, a.annotator_id, a.slot) for a in preview.plan.assignments)
    assert plan.params["share"] == pytest.approx(1 / 3) and plan.params["random_seed"] == 7
    assert plan.params["annotators"] == sorted(u.pk for u in team)
    assert plan.params["include_trial"] is True
    per_person = plan.summary["per_person"]
    assert set(per_person) == {"ann1", "ann2", "ann3"}
    assert sum(p["new"] for p in per_person.values()) == 40
    assert all(a.plan_id == plan.pk for a in active(project))
    # each double has a first and a second, by different people
    by_pair = Counter(active(project).filter(slot__isnull=False).values_list("pair_id", "slot"))
    assert len(by_pair) == 20 and set(by_pair.values()) == {1}


def test_new_assignments_start_from_the_latest_seed(project, team, lead):
    seed_all(project, links=[(0, 0, "S")])
    newest = seed_all(project, links=[(1, 1, "P")])
    apply_assignment(project=project, request=request_for(team), created_by=lead)
    assert set(active(project).values_list("seed__aligner_run", flat=True)) == {newest.pk}


def test_a_changed_project_refuses_the_stale_preview(project, team, lead):
    preview = preview_assignment(project=project, request=request_for(team))
    make_pairs(project, {"late": 2})
    with pytest.raises(AssignmentError, match="preview again"):
        apply_assignment(project=project, request=request_for(team), created_by=lead,
                         expect=preview.fingerprint)  # fmt: skip
    assert not Assignment.objects.exists()


def test_a_second_plan_only_deals_new_pairs_and_leaves_started_work(project, team, lead):
    apply_assignment(project=project, request=request_for(team), created_by=lead)
    started = active(project).filter(pair__is_trial=False).first()
    save_work(started, [[0, 0, "S"]], submit=True)
    before = set(active(project).values_list("id", "pair_id", "annotator_id", "slot", "status"))

    again = apply_assignment(project=project, request=request_for(team, seed=8), created_by=lead)
    assert again.summary["assignments_created"] == 0  # nothing new to deal
    new_pairs = make_pairs(project, {"later": 6})
    apply_assignment(project=project, request=request_for(team, seed=9), created_by=lead)
    after = set(active(project).values_list("id", "pair_id", "annotator_id", "slot", "status"))
    assert before <= after
    fresh = active(project).filter(pair__in=new_pairs)
    assert fresh.count() == 6 + 2  # a third of the six new pairs twice
    totals = Counter(active(project).filter(pair__is_trial=False).values_list("annotator_id",
                                                                              flat=True))  # fmt: skip
    assert max(totals.values()) - min(totals.values()) <= 1


def test_a_person_added_later_gets_unstarted_work_with_rebalance(project, team, lead, make_user):
    apply_assignment(project=project, request=request_for(team, share=0), created_by=lead)
    started = list(active(project).filter(pair__is_trial=False)[:4])
    for a in started:
        save_work(a, [[0, 0, "P"]])
    late = add_annotators(project, make_user, ["ann4"])[0]
    everyone = [*team, late]
    preview = preview_assignment(
        project=project, request=request_for(everyone, share=0, rebalance=True)
    )
    assert preview.to_withdraw  # unstarted work is re-dealt
    apply_assignment(project=project, request=request_for(everyone, share=0, rebalance=True),
                     created_by=lead)  # fmt: skip
    for a in started:  # started work never moves
        a.refresh_from_db()
        assert a.withdrawn_at is None and a.status == "in_progress"
    load = Counter(active(project).filter(pair__is_trial=False).values_list("annotator", flat=True))
    assert max(load.values()) - min(load.values()) <= 1 and load[late.pk] >= 7
    # every non-trial pair still has exactly one active annotator
    per_pair = Counter(active(project).filter(pair__is_trial=False).values_list("pair", flat=True))
    assert set(per_pair.values()) == {1} and len(per_pair) == 30
    assert Assignment.objects.filter(withdrawn_at__isnull=False).exists()  # kept, not deleted


def test_withdraw_reassign_restore_keep_every_revision(project, team, lead):
    apply_assignment(project=project, request=request_for(team, share=0), created_by=lead)
    a = active(project).filter(pair__is_trial=False).first()
    save_work(a, [[0, 0, "S"]])
    save_work(a, [[0, 0, "S"], [1, 1, "P"]])
    other = next(u for u in team if u.pk != a.annotator_id)
    moved = reassign(assignment=a, to_user=other)
    a.refresh_from_db()
    assert a.withdrawn_at is not None and moved.annotator == other and moved.slot == a.slot
    assert AnnotationRevision.objects.filter(annotation__assignment=a).count() == 2
    assert Annotation.objects.get(assignment=a).links == [[0, 0, "S"], [1, 1, "P"]]
    with pytest.raises(AssignmentError, match="holds this pair"):
        restore_assignment(assignment=a)  # the pair is someone else's now
    withdraw_assignment(assignment=moved)
    restore_assignment(assignment=a)
    a.refresh_from_db()
    assert a.withdrawn_at is None and a.status == "in_progress"
    with pytest.raises(AssignmentError, match="already"):
        reassign(assignment=a, to_user=a.annotator)


def test_only_the_projects_annotators_can_be_planned(project, team, lead, outsider):
    with pytest.raises(PlanError, match="outsider"):
        preview_assignment(project=project, request=request_for([*team, outsider]))


def test_subcorpora_and_trial_can_be_left_out(project, team, lead):
    apply_assignment(
        project=project,
        request=request_for(team, subcorpora=("news",), include_trial=False),
        created_by=lead,
    )
    subs = set(active(project).values_list("pair__subcorpus__name", flat=True))
    assert subs == {"news"}


def test_the_page_previews_then_applies_what_it_showed(client_for, project, team, lead):
    client = client_for(lead)
    query = {"annotators": [str(u.pk) for u in team], "share": "0.5", "random_seed": "11",
             "subcorpora": ["mtc", "news", "novels"], "include_trial": "on", "preview": "1"}  # fmt: skip
    response = client.get(f"/projects/{project.pk}/assign/", query)
    assert response.status_code == 200
    html = response.content.decode()
    assert "each person&#x27;s workload" in html or "each person's workload" in html
    assert 'data-annotator="ann1"' in html and not Assignment.objects.exists()
    preview = response.context["preview"]
    body = {k: v for k, v in query.items() if k != "preview"}
    body["fingerprint"] = preview.fingerprint
    applied = client.post(f"/projects/{project.pk}/assign/", body)
    assert applied.status_code == 302 and applied.url == f"/projects/{project.pk}/progress/"
    assert active(project).count() == len(preview.plan.assignments) == 45 + 9
    bad = client.get(f"/projects/{project.pk}/assign/", {**query, "share": "2"})
    assert bad.status_code == 400 and "less than or equal to 1" in bad.content.decode()


def test_work_list_actions_withdraw_and_reassign(client_for, project, team, lead):
    apply_assignment(project=project, request=request_for(team, share=0), created_by=lead)
    a = active(project).filter(pair__is_trial=False).first()
    other = next(u for u in team if u.pk != a.annotator_id)
    client = client_for(lead)
    url = f"/projects/{project.pk}/assignments/{a.pk}/"
    assert client.post(url + "reassign/", {"to": other.pk}).status_code == 302
    assert active(project).get(pair=a.pair, pair__is_trial=False).annotator == other
    assert client.post(url + "dance/").status_code == 404
    assert client.get(url + "withdraw/").status_code == 405


def test_the_assign_page_counts_work_given_out_without_a_plan(client, project, lead, annotator):
    # issue 31, defect 8: after setup_demo assigned pairs the page said only "No plan applied"
    from annotator.models import Assignment, SentencePair

    for k in range(3):
        pair = SentencePair.objects.create(
            project=project, external_id=f"x{k}", source_tokens=["a"], target_tokens=["b"]
        )
        Assignment.objects.create(pair=pair, annotator=annotator)
    client.force_login(lead)
    page = client.get(f"/projects/{project.pk}/assign/").content.decode()
    assert "No plan applied yet." in page
    assert "3 current assignments were made outside a plan" in page


def test_a_plan_of_one_subcorpus_reads_only_its_pairs_and_the_trial_set(
    project, team, lead, monkeypatch
):
    """A plan for a sample of a big project reads the sample (and the trial set), not every
    pair: the statements on the pairs answer no more rows than those; and the plan is the one
    the project's whole list of pairs gave (the rows outside the sample filtered in Python)."""
    from django.db import connection

    from annotator.models import SentencePair
    from annotator.projects.services import assignment

    make_pairs(project, {"bulk": 400})
    sample = SentencePair.objects.filter(project=project, subcorpus__name="news").count()
    trial = SentencePair.objects.filter(project=project, is_trial=True).count()
    read: list[int] = []

    def count_rows(execute, sql, params, many, context):
        counting = sql.startswith("SELECT COUNT(*) FROM (")
        if not counting and sql.startswith("SELECT") and 'FROM "annotator_sentencepair"' in sql:
            with connection.cursor() as cursor:
                cursor.execute(f"SELECT COUNT(*) FROM ({sql}) counted", params)
                read.append(cursor.fetchone()[0])
        return execute(sql, params, many, context)

    request = request_for(team, subcorpora=("news",))
    with connection.execute_wrapper(count_rows):
        preview = preview_assignment(project=project, request=request)
    assert read and max(read) <= sample + trial < 50

    def every_pair(project, wanted, include_trial):  # the list before: every pair, in order
        return SentencePair.objects.filter(project=project).values(
            "id", "is_trial", "subcorpus__name"
        )

    monkeypatch.setattr(assignment, "_candidate_pairs", every_pair)
    whole = preview_assignment(project=project, request=request)
    assert preview.fingerprint == whole.fingerprint
    assert sum(w.new for w in preview.workloads) == sum(w.new for w in whole.workloads) > sample
