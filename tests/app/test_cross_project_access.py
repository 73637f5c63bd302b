"""A lead or an annotator of project A reaches nothing of project B through the documents and
discussion surfaces: every id-bearing route of B (and A's routes with B's ids in them) answers
403 or 404 (405 for a method the route has not), and nothing of B changes."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotator.models import (
    Assignment,
    Bead,
    DocumentPair,
    Membership,
    PairMessage,
    Project,
    SentencePair,
)

pytestmark = pytest.mark.django_db
ACTIONS = {
    "decide": {"bead": 0, "decision": "accepted"},
    "accept-above": {"threshold": 0.0},
    "merge": {"side": "source", "index": 0},
    "split": {"side": "source", "index": 0, "offset": 1},
    "pair": {"source": [0], "target": [0]},
    "align": {},
    "learn": {},
    "send": {"subcorpus": "stolen"},
}


@pytest.fixture
def b(make_user):
    """Project B, with its own lead and annotator, a pair with a thread and a document pair."""
    project = Project.objects.create(name="B")
    lead = make_user("b_lead")
    ann = make_user("b_ann")
    Membership.objects.create(project=project, user=lead, role="lead")
    Membership.objects.create(project=project, user=ann, role="annotator")
    pair = SentencePair.objects.create(
        project=project, external_id="b1", source_tokens=["x"], target_tokens=["y"]
    )
    Assignment.objects.create(pair=pair, annotator=ann)
    PairMessage.objects.create(pair=pair, annotator=ann, author=ann, body="secret of B")
    dp = DocumentPair.objects.create(
        project=project, name="bdoc", source_language="en", target_language="en",
        source_filename="a.txt", target_filename="b.txt", source_format="lines",
        target_format="lines", source_original="One. Two.", target_original="Uno. Dos.",
        source_sentences=["One.", "Two."], target_sentences=["Uno.", "Dos."],
        aligned_at=timezone.now(),
    )  # fmt: skip
    bead = Bead.objects.create(document_pair=dp, position=0, source=[0], target=[0])
    return {"project": project, "pair": pair, "ann": ann, "dp": dp, "bead": bead}


def _routes(a_project, b):
    p, pair, ann, dp = b["project"].pk, b["pair"].pk, b["ann"].pk, b["dp"].pk
    pages = [
        reverse("project-documents", args=[p]),
        reverse("document-review", args=[dp]),
        reverse("project-discussions", args=[p]),
        reverse("pair-discussion", args=[p, pair, ann]),
        reverse("pair-discussion", args=[a_project.pk, pair, ann]),  # A's id, B's pair
        f"/api/projects/{p}/documents/",
        f"/api/document-pairs/{dp}/",
    ]
    return pages, [f"/api/document-pairs/{dp}/{action}/" for action in ACTIONS]


@pytest.mark.parametrize("role", ["lead", "annotator"])
def test_a_member_of_a_reaches_nothing_of_b(request, project, b, role):
    user = request.getfixturevalue(role)  # a member of A (the ``project`` fixture)
    client = Client(raise_request_exception=False)
    client.force_login(user)
    pages, actions = _routes(project, b)
    answers = {}
    for url in pages:
        answers[f"GET {url}"] = client.get(url).status_code
        answers[f"POST {url}"] = client.post(url, {"body": "from A", "name": "x"}).status_code
    for url, action in zip(actions, ACTIONS.values(), strict=True):
        body = {**action, "bead": b["bead"].pk} if "bead" in action else action
        answers[f"POST {url}"] = client.post(url, body, content_type="application/json").status_code
    wrong = {route: code for route, code in answers.items() if code not in (403, 404, 405)}
    assert not wrong
    assert PairMessage.objects.count() == 1
    assert Bead.objects.get().decision == "pending" and Bead.objects.count() == 1
    assert DocumentPair.objects.count() == 1 and SentencePair.objects.count() == 1
