"""Accounts: a user changes their own password on the product's own pages (not the admin's),
asks for a reset link by e-mail where the site sends mail (and is told to ask a lead where it
does not), keeps their e-mail address on their profile; a lead gives an annotator of their
project a new one-time password or a one-time reset link — never to another lead or to staff."""

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
    settings.MAIL_SENDS = True
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


def test_the_password_pages_wear_the_products_look_not_the_admins(client, annotator):
    pages = [client.get("/accounts/password/reset/").content.decode()]
    client.force_login(annotator)
    pages.append(client.get("/accounts/password/").content.decode())
    for page in pages:
        assert 'class="site-header"' in page and "Django administration" not in page
        assert 'href="/admin/' not in page


def test_without_mail_the_forgotten_page_says_to_ask_a_lead_and_sends_nothing(
    client, annotator, settings
):
    settings.MAIL_SENDS = False
    annotator.email = "ann@example.org"
    annotator.save()
    page = client.get("/accounts/password/reset/").content.decode()
    assert 'data-testid="no-mail"' in page and "reset link" in page and "<form" not in page
    answer = client.post("/accounts/password/reset/", {"email": "ann@example.org"})
    assert answer.status_code == 200 and "Check your e-mail" not in answer.content.decode()
    assert mail.outbox == []


def test_a_lead_hands_an_annotator_a_one_time_reset_link(client, lead, annotator, project):
    client.force_login(lead)
    page = client.post(f"/projects/{project.pk}/members/", {"action": "link",
                                                            "user": annotator.pk})  # fmt: skip
    link = re.search(r'data-testid="reset-link">http://testserver([^<]+)<', page.content.decode())
    annotator.refresh_from_db()
    assert annotator.check_password(PASSWORD)  # nothing changes until the link is used
    client.logout()
    form_url = client.get(link.group(1)).url
    chosen = {"new_password1": "chosen-by-me-4821", "new_password2": "chosen-by-me-4821"}
    assert client.post(form_url, chosen).status_code == 302
    annotator.refresh_from_db()
    assert annotator.check_password("chosen-by-me-4821")
    again = client.get(link.group(1), follow=True).content.decode()
    assert 'data-testid="link-used"' in again and "<form" not in again  # once only


@pytest.mark.parametrize("target", ["other_lead", "staff_annotator", "outside"])
def test_a_lead_gets_no_reset_link_for_a_lead_staff_or_someone_outside(
    client, lead, project, make_user, target
):
    user = make_user(target, is_staff=target == "staff_annotator")
    role = {"other_lead": Membership.Role.LEAD, "staff_annotator": Membership.Role.ANNOTATOR}
    if target in role:
        Membership.objects.create(project=project, user=user, role=role[target])
    client.force_login(lead)
    response = client.post(f"/projects/{project.pk}/members/", {"action": "link",
                                                                "user": user.pk}, follow=True)  # fmt: skip
    page = response.content.decode()
    assert "reset-link" not in page and "message--error" in page


def test_an_email_address_is_kept_on_the_profile_and_given_to_new_annotators(
    client, lead, annotator, project, django_user_model
):
    client.force_login(annotator)
    client.post("/accounts/profile/", {"action": "email", "email": "me@example.org"})
    annotator.refresh_from_db()
    assert annotator.email == "me@example.org"
    bad = client.post("/accounts/profile/", {"action": "email", "email": "not an address"})
    assert bad.status_code == 400
    client.force_login(lead)
    client.post(f"/projects/{project.pk}/members/",
                {"action": "create", "username": "newbie", "email": "newbie@example.org"})  # fmt: skip
    assert django_user_model.objects.get(username="newbie").email == "newbie@example.org"
