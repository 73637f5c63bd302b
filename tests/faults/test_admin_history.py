"""Work cannot be deleted through the admin (issue 10): a user with work is deactivated, never
deleted; annotations, revisions, gold, gold revisions and seeds are read only; a delete that
would cascade into them (a project, a pair) is refused."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages

from annotator.models import (
    AlignerRun,
    Annotation,
    AnnotationRevision,
    Assignment,
    GoldAlignment,
    GoldRevision,
    Project,
    SeedAlignment,
    SentencePair,
)
from tests.app.conftest import PASSWORD

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def work(pair, annotator, lead):
    """The annotator's saved work on ``pair`` (two revisions), the pair's gold and a seed."""
    run = AlignerRun.objects.create(project=pair.project)
    seed = SeedAlignment.objects.create(pair=pair, aligner_run=run, links=[[0, 0, "S"]])
    assignment = Assignment.objects.create(
        pair=pair, annotator=annotator, seed=seed, status=Assignment.Status.IN_PROGRESS
    )
    annotation = Annotation.objects.create(assignment=assignment, links=[[1, 1, "S"]], version=2)
    for version, links in ((1, [[0, 0, "S"]]), (2, [[1, 1, "S"]])):
        AnnotationRevision.objects.create(
            annotation=annotation, version=version, links=links, author=annotator
        )
    gold = GoldAlignment.objects.create(pair=pair, origin="single", links=[[1, 1, "S"]])
    GoldRevision.objects.create(gold=gold, version=1, links=gold.links, origin="single")
    return {"annotation": annotation, "gold": gold, "seed": seed}


@pytest.fixture
def admin(client, make_user):
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    return client


def counts() -> tuple[int, ...]:
    return tuple(
        m.objects.count()
        for m in (
            User, Assignment, Annotation, AnnotationRevision, GoldAlignment, GoldRevision,
            SeedAlignment, SentencePair, Project,
        )
    )  # fmt: skip


def messages_of(response) -> str:
    return " ".join(str(m) for m in get_messages(response.wsgi_request))


def test_deleting_a_user_with_work_is_refused_with_a_message_and_nothing_goes(
    admin, annotator, work
):
    before = counts()
    url = f"/admin/auth/user/{annotator.pk}/delete/"
    for response in (admin.get(url), admin.post(url, {"post": "yes"})):
        assert response.status_code == 302
        assert response["Location"] == f"/admin/auth/user/{annotator.pk}/change/"
        text = messages_of(response)
        assert "was not deleted" in text and "Deactivate selected users" in text
    assert counts() == before
    assert User.objects.get(pk=annotator.pk).is_active


def test_bulk_delete_refuses_users_with_work_and_still_deletes_others(
    admin, annotator, work, make_user
):
    idle = make_user("idle")
    response = admin.post(
        "/admin/auth/user/",
        {"action": "delete_selected", "_selected_action": [annotator.pk, idle.pk]},
    )
    assert response.status_code == 302
    assert f"Not deleted: {annotator.username}" in messages_of(response)
    assert User.objects.filter(pk__in=[annotator.pk, idle.pk]).count() == 2
    # a user without work goes through Django's usual confirmation, then is deleted
    response = admin.post(
        "/admin/auth/user/",
        {"action": "delete_selected", "_selected_action": [idle.pk], "post": "yes"},
    )
    assert response.status_code == 302
    assert not User.objects.filter(pk=idle.pk).exists()


def test_the_deactivate_action_keeps_the_work_and_stops_the_login(admin, annotator, work, client):
    before = counts()
    response = admin.post(
        "/admin/auth/user/",
        {"action": "deactivate_selected", "_selected_action": [annotator.pk]},
    )
    assert response.status_code == 302 and "Deactivated 1 user(s)" in messages_of(response)
    assert counts() == before
    assert not User.objects.get(pk=annotator.pk).is_active
    admin.logout()
    response = admin.post(
        "/accounts/login/", {"username": annotator.username, "password": PASSWORD}
    )
    assert response.status_code == 200 and "_auth_user_id" not in admin.session


HISTORY = [
    ("annotation", "annotation"),
    ("annotationrevision", None),
    ("goldalignment", "gold"),
    ("goldrevision", None),
    ("seedalignment", "seed"),
    ("assignment", None),
    ("alignerrun", None),
]


@pytest.mark.parametrize(("model", "key"), HISTORY)
def test_history_is_read_only_in_the_admin(admin, work, model, key):
    from django.apps import apps

    obj = work[key] if key else apps.get_model("annotator", model).objects.first()
    base = f"/admin/annotator/{model}/"
    before = counts()
    view = admin.get(f"{base}{obj.pk}/change/")
    assert view.status_code == 200  # staff can look
    html = view.content.decode()
    assert 'name="_save"' not in html and "deletelink" not in html
    assert admin.get(f"{base}add/").status_code == 403
    assert admin.post(f"{base}{obj.pk}/change/", {"links": "[]"}).status_code == 403
    assert admin.post(f"{base}{obj.pk}/delete/", {"post": "yes"}).status_code == 403
    assert counts() == before


def test_deleting_a_project_or_pair_with_work_is_refused(admin, work, pair):
    before = counts()
    for url in (
        f"/admin/annotator/project/{pair.project_id}/delete/",
        f"/admin/annotator/sentencepair/{pair.pk}/delete/",
    ):
        response = admin.post(url, {"post": "yes"})
        # Django's admin: "your account doesn't have permission to delete the following types"
        assert response.status_code in (200, 403)
        assert "permission to delete" in response.content.decode() or response.status_code == 403
    assert counts() == before
