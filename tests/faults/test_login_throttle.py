"""Logins are throttled (django-axes): LOGIN_FAILURE_LIMIT wrong passwords for one username from
one address lock that pair out — the login form, the admin's and ``POST /api/auth/token/``
alike — with 429 and a message saying for how long; the right password is refused during the
cool-off; a success resets the count. The protection stays on in these tests: only the limit
is the default's (5)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.core.cache import cache
from django.utils import timezone
from rest_framework.test import APIClient

from annotator.models import ApiToken
from tests.app.conftest import PASSWORD

pytestmark = pytest.mark.django_db

LIMIT = 5
LOGIN = "/accounts/login/"
TOKEN = "/api/auth/token/"


@pytest.fixture(autouse=True)
def fresh_throttles():
    """DRF's token throttle counts in the cache; this file tests axes, not that rate."""
    cache.clear()
    yield
    cache.clear()


def form_login(client, password: str, **extra):
    return client.post(LOGIN, {"username": "lead_user", "password": password}, **extra)


def token_login(client, password: str, **extra):
    return client.post(TOKEN, {"username": "lead_user", "password": password}, **extra)


def end_cool_off() -> None:
    """As if LOGIN_COOLOFF_MINUTES had passed: the recorded failures are older than that."""
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))


def test_wrong_passwords_lock_the_login_form_and_the_right_one_is_refused(client, lead):
    assert [form_login(client, "wrong").status_code for _ in range(LIMIT - 1)] == [200] * 4
    locked = form_login(client, "wrong")
    assert locked.status_code == 429
    text = locked.content.decode()
    assert "Too many failed logins" in text and "locked for 15 minutes" in text
    assert locked["Retry-After"] == "900"

    right = form_login(client, PASSWORD)
    assert right.status_code == 429  # during the cool-off even the right password is refused
    assert client.get("/").status_code == 302  # not logged in

    end_cool_off()
    assert form_login(client, PASSWORD).status_code == 302
    assert client.get("/").status_code == 200


def test_a_success_resets_the_count(client, lead):
    for _ in range(LIMIT - 1):
        assert form_login(client, "wrong").status_code == 200
    assert form_login(client, PASSWORD).status_code == 302
    client.post("/accounts/logout/")
    for _ in range(LIMIT - 1):
        assert form_login(client, "wrong").status_code == 200
    assert form_login(client, PASSWORD).status_code == 302


def test_the_api_token_endpoint_is_locked_out_too(lead):
    client = APIClient()
    codes = [token_login(client, "wrong").status_code for _ in range(LIMIT)]
    assert codes == [400] * (LIMIT - 1) + [429]
    refused = token_login(client, PASSWORD)
    assert refused.status_code == 429
    assert "Too many failed logins" in refused.json()["error"]
    assert refused["Retry-After"] == "900"
    assert ApiToken.objects.count() == 0

    end_cool_off()
    assert token_login(client, PASSWORD).status_code == 201


def test_failures_count_across_the_form_and_the_api(client, lead):
    for _ in range(LIMIT - 1):
        form_login(client, "wrong")
    assert token_login(APIClient(), "wrong").status_code == 429


def test_a_spoofed_forwarded_for_header_does_not_escape_the_lockout(client, lead):
    for i in range(LIMIT):
        form_login(client, "wrong", HTTP_X_FORWARDED_FOR=f"198.51.100.{i}")
    assert form_login(client, PASSWORD, HTTP_X_FORWARDED_FOR="203.0.113.9").status_code == 429


def test_the_same_username_from_another_address_is_not_locked(client, lead):
    """Per username and address: a guesser elsewhere cannot lock a colleague out."""
    for _ in range(LIMIT):
        form_login(client, "wrong", REMOTE_ADDR="198.51.100.7")
    assert form_login(client, PASSWORD, REMOTE_ADDR="198.51.100.7").status_code == 429
    assert form_login(client, PASSWORD, REMOTE_ADDR="203.0.113.9").status_code == 302
