"""Passwords and what they guard: Django's validators, the list of common passwords included,
judge every password a person chooses (change, reset link); changing or resetting a password,
by any path, revokes the account's API tokens, as it ends its other sessions."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.hashers import MD5PasswordHasher
from django.contrib.auth.password_validation import validate_password
from django.core import mail
from django.core.exceptions import ValidationError
from rest_framework.test import APIClient

from annotator.accounts.services.tokens import create_token
from annotator.management.commands.setup_demo import DEMO_USERS
from annotator.models import ApiToken
from tests.app.conftest import PASSWORD

pytestmark = pytest.mark.django_db


class NewerHasher(MD5PasswordHasher):
    """A hasher the site moves to: a login rehashes the same password with it."""

    algorithm = "newer-md5"


WEAK = ["password", "password123", "12345678901", "qwertyuiop", "annotator_user"]


def _change(client, new):
    return client.post("/accounts/password/", {
        "old_password": PASSWORD, "new_password1": new, "new_password2": new})  # fmt: skip


@pytest.mark.parametrize("weak", WEAK)
def test_a_common_numeric_or_name_like_password_is_refused(client, annotator, weak):
    client.force_login(annotator)
    response = _change(client, weak)
    assert response.status_code == 200  # the form again, with its errors
    assert response.context["form"].errors["new_password2"]
    annotator.refresh_from_db()
    assert annotator.check_password(PASSWORD)


def test_the_validators_include_the_common_password_list():
    with pytest.raises(ValidationError, match="too common"):
        validate_password("password1234")


def test_the_suites_and_the_demos_passwords_pass_the_validators(django_user_model):
    someone = django_user_model(username="someone")
    for password in [PASSWORD, *(p for _u, p, _r in DEMO_USERS)]:
        validate_password(password, user=someone)


def _api_with_token(user) -> tuple[APIClient, str]:
    _, key = create_token(user=user, name="script")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/projects/").status_code == 200
    return client, key


def test_changing_ones_password_revokes_ones_api_tokens(client, annotator, lead):
    api, _ = _api_with_token(annotator)
    _api_with_token(lead)
    client.force_login(annotator)
    assert _change(client, "a-much-longer-secret-42").status_code == 302
    assert api.get("/api/projects/").status_code == 401
    assert not ApiToken.objects.filter(user=annotator).exists()
    assert ApiToken.objects.filter(user=lead).count() == 1  # others' tokens stay


def test_a_reset_by_email_link_revokes_the_api_tokens(client, annotator, settings):
    api, _ = _api_with_token(annotator)
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.MAIL_SENDS = True
    annotator.email = "ann@example.org"
    annotator.save()
    client.post("/accounts/password/reset/", {"email": "ann@example.org"})
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/)", mail.outbox[0].body)
    form_url = client.get(link.group(1)).url
    client.post(form_url, {"new_password1": "fresh-secret-9876",
                           "new_password2": "fresh-secret-9876"})  # fmt: skip
    assert api.get("/api/projects/").status_code == 401


def test_a_leads_reset_revokes_the_annotators_api_tokens(client, lead, annotator, project):
    api, _ = _api_with_token(annotator)
    client.force_login(lead)
    client.post(f"/projects/{project.pk}/members/", {"action": "reset", "user": annotator.pk})
    assert api.get("/api/projects/").status_code == 401


def test_saving_a_user_without_a_new_password_keeps_the_tokens(annotator):
    _api_with_token(annotator)
    annotator.first_name = "Ann"
    annotator.save()
    assert ApiToken.objects.filter(user=annotator).count() == 1


def test_a_password_set_by_the_admin_or_a_command_revokes_the_tokens_too(annotator):
    api, _ = _api_with_token(annotator)
    annotator.set_password("set-by-an-operator-77")  # what the admin and changepassword do
    annotator.save()
    assert api.get("/api/projects/").status_code == 401


def test_an_unusable_password_revokes_the_tokens(annotator):
    api, _ = _api_with_token(annotator)
    annotator.set_unusable_password()
    annotator.save()
    assert api.get("/api/projects/").status_code == 401


def test_a_hash_upgrade_at_login_keeps_the_tokens(annotator, settings):
    _api_with_token(annotator)
    settings.PASSWORD_HASHERS = [
        "tests.app.test_password_policy.NewerHasher",  # the preferred one from now on
        "django.contrib.auth.hashers.MD5PasswordHasher",
    ]
    assert annotator.check_password(PASSWORD)  # rehashes and saves the same password
    assert annotator.password.startswith("newer-md5$")
    assert ApiToken.objects.filter(user=annotator).count() == 1
