"""Accounts (issue 31): a user changes their own password, asks for a reset link by e-mail
(console backend by default), and a lead gives an annotator of their project a new one-time
password — never to another lead or to staff."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from annotator.models import Membership
from tests.app.conftest import PASSWORD


def test_a_user_changes_their_own_password(client, annotator):
    client.force_login(annotator)
    assert b"Change your password" in client.get("/accounts/profile/").content
    response = client.post("/accounts/password/", {
        "old_password": PASSWORD, "new_password1": "a-much-longer-secret-42",
        "new_password2": "a-much-longer-secret-42"})  # fmt: skip
    assert response.status_code == 302
    annotator.refresh_from_db()
    assert annotator.check_password("a-much-longer-secret-42")


def test_a_reset_link_by_email_sets_a_new_password(client, annotator, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    annotator.email = "ann@example.org"
    annotator.save()
    client.post("/accounts/password/reset/", {"email": "ann@example.org"})
    (message,) = mail.outbox
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/)", message.body).group(1)
    form_url = client.get(link).url  # Django swaps the token for a session-bound URL
    response = client.post(form_url, {"new_password1": "fresh-secret-9876",
                                      "new_password2": "fresh-secret-9876"})  # fmt: skip
    assert response.status_code == 302
    annotator.refresh_from_db()
    assert annotator.check_password("fresh-secret-9876")


def test_a_lead_resets_an_annotators_password_shown_once(client, lead, annotator, project):
    client.force_login(lead)
    page = client.post(f"/projects/{project.pk}/members/", {"action": "reset",
                                                            "user": annotator.pk})  # fmt: skip
    new = re.search(r'data-testid="one-time-password">([^<]+)<', page.content.decode()).group(1)
    annotator.refresh_from_db()
    assert annotator.check_password(new) and not annotator.check_password(PASSWORD)


@pytest.mark.parametrize("target", ["other_lead", "staff_annotator", "outside"])
def test_a_lead_cannot_reset_a_lead_staff_or_someone_outside(
    client, lead, project, make_user, target
):
    user = make_user(target, is_staff=target == "staff_annotator")
    if target == "other_lead":
        Membership.objects.create(project=project, user=user, role=Membership.Role.LEAD)
    elif target == "staff_annotator":
        Membership.objects.create(project=project, user=user, role=Membership.Role.ANNOTATOR)
    client.force_login(lead)
    response = client.post(f"/projects/{project.pk}/members/", {"action": "reset",
                                                                "user": user.pk}, follow=True)  # fmt: skip
    assert "one-time-password" not in response.content.decode()
    assert "message--error" in response.content.decode()
    user.refresh_from_db()
    assert user.check_password(PASSWORD)
