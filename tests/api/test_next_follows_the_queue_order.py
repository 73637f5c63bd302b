"""Issue 31, defect 5: "Next" after the last trial pair went to the pair after the trial pair's
own import position (novels-007, novels-012, then mtc-001) instead of following the order the
queue page lists. Annotating the demo from the start, every submit must move on to the first
pair still to do in the queue page's list."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotator.grid.selectors.queue import project_queue
from annotator.management.commands.setup_demo import DEMO_PROJECT
from annotator.models import Assignment, Project

pytestmark = pytest.mark.django_db


def _listed_todo(user, project) -> list[int]:
    """The queue page's rows still to do, in the order the page lists them."""
    return [
        a.pk
        for a in project_queue(user=user, project=project)
        if a.status != Assignment.Status.SUBMITTED
    ]


def test_next_after_the_trial_pairs_follows_the_queue_pages_order(client, capsys):
    call_command("setup_demo", force=True)
    capsys.readouterr()
    project = Project.objects.get(name=DEMO_PROJECT)
    user = get_user_model().objects.get(username="annotator1")
    client.force_login(user)
    trials = Assignment.objects.filter(annotator=user, pair__is_trial=True).count()
    assert trials >= 2
    current = _listed_todo(user, project)[0]
    for step in range(trials + 3):  # through the trial set and three pairs beyond it
        response = client.post(
            f"/api/assignments/{current}/submit/",
            data=json.dumps({"version": 0, "links": []}),
            content_type="application/json",
        )
        assert response.status_code == 200, response.content
        expected = _listed_todo(user, project)[0]
        assert response.json()["next"] == expected, f"step {step}"
        current = expected
