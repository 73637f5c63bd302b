"""Issue 31, defect 3: the Members, Assign and Progress pages count the same things. On the demo,
Members said "Active pairs 26" where Assign said "Has now 20" (Assign left the trial pairs out),
and the Assign preview's "Total after" left the plan's trial pairs out ("Total after 0" beside
"Trial 6")."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

from annotator.management.commands.setup_demo import DEMO_PROJECT
from annotator.models import Assignment, Membership, Project
from annotator.projects.selectors.progress import project_progress
from annotator.projects.services import assignment as assignment_services

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(client, capsys) -> Project:
    call_command("setup_demo", force=True)
    capsys.readouterr()
    client.force_login(get_user_model().objects.get(username="lead"))
    return Project.objects.get(name=DEMO_PROJECT)


def _cells(html: str, row_attr: str, username: str, field: str) -> int:
    row = re.search(rf'<tr {row_attr}="{username}".*?</tr>', html, re.S)
    assert row, f"no row for {username}"
    cell = re.search(rf'data-field="{field}">\s*(<strong>)?(\d+)', row.group(0))
    assert cell, f"no {field} cell for {username}"
    return int(cell.group(2))


def test_members_assign_and_progress_agree_on_each_annotators_pairs(client, demo):
    members = client.get(reverse("project-members", args=[demo.pk])).content.decode()
    assign = client.get(
        reverse("project-assign", args=[demo.pk]),
        {"preview": "1", "annotators": [u.pk for u in _annotators(demo)], "share": "0.3",
         "random_seed": "1", "include_trial": "on",
         "subcorpora": list(demo.pairs.values_list("subcorpus__name", flat=True).distinct())},
    ).content.decode()  # fmt: skip
    progress = {row.name: row.total for row in project_progress(project=demo).by_annotator}
    trials = demo.pairs.filter(is_trial=True).count()
    assert trials > 0
    for user in _annotators(demo):
        name = user.get_username()
        active = Assignment.objects.filter(
            pair__project=demo, annotator=user, withdrawn_at__isnull=True
        ).count()
        assert re.search(rf'<tr data-member="{name}"', members), members
        assert _cells(members, "data-member", name, "active") == active
        assert _cells(assign, "data-annotator", name, "existing") == active
        assert progress[name] == active
        assert f"({trials} trial)" in re.search(
            rf'<tr data-annotator="{name}".*?</tr>', assign, re.S
        ).group(0)


def test_a_new_annotators_total_after_counts_the_trial_pairs_the_plan_gives(demo, make_user):
    newcomer = make_user("newcomer")
    Membership.objects.create(project=demo, user=newcomer, role=Membership.Role.ANNOTATOR)
    request = assignment_services.AssignmentRequest(
        annotator_ids=tuple(u.pk for u in _annotators(demo)), share=0.0, random_seed=3
    )
    preview = assignment_services.preview_assignment(project=demo, request=request)
    row = next(w for w in preview.workloads if w.user == newcomer)
    trials = demo.pairs.filter(is_trial=True).count()
    assert row.trial == trials
    assert row.total == row.new + trials  # was row.new alone ("Total after 0" beside "Trial 6")
    assignment_services.apply_assignment(project=demo, request=request, created_by=None)
    after = {r.name: r.total for r in project_progress(project=demo).by_annotator}
    assert {w.user.get_username(): w.total for w in preview.workloads} == after
    assert sum(w.total for w in preview.workloads) == project_progress(project=demo).total.total


def _annotators(project: Project) -> list:
    return [
        m.user
        for m in project.memberships.filter(role=Membership.Role.ANNOTATOR)
        .select_related("user")
        .order_by("user__username")
    ]
