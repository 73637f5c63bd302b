"""Tokens: obtained with a password, sent as ``Authorization: Token``, stored only as a digest,
listed and revoked by their owner; the token endpoint and anonymous requests are throttled."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from annotator.accounts.services.tokens import create_token, touch_token
from annotator.models import ApiToken
from tests.api.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def test_password_gives_a_token_that_authenticates(lead, project):
    client = APIClient()
    response = client.post(
        "/api/auth/token/", {"username": "lead_user", "password": PASSWORD, "name": "laptop"}
    )
    assert response.status_code == 201, response.content
    key = response.json()["token"]
    row = ApiToken.objects.get(user=lead)
    assert row.name == "laptop"
    assert row.digest == hashlib.sha256(key.encode()).hexdigest()
    assert key not in (row.digest, row.prefix) and key.startswith(row.prefix)

    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    projects = client.get("/api/projects/")
    assert projects.status_code == 200
    assert [p["name"] for p in projects.json()["results"]] == [project.name]


def test_wrong_password_gives_no_token(lead):
    response = APIClient().post("/api/auth/token/", {"username": "lead_user", "password": "x"})
    assert response.status_code == 400
    assert "password" in response.json()["error"]
    assert not ApiToken.objects.exists()


def test_missing_fields_are_named(db):
    response = APIClient().post("/api/auth/token/", {"username": "someone"}, format="json")
    assert response.status_code == 400
    assert "password" in response.json()["error"]


def test_deactivated_user_gets_no_token_and_loses_old_ones(lead):
    _, key = create_token(user=lead)
    lead.is_active = False
    lead.save()
    response = APIClient().post("/api/auth/token/", {"username": "lead_user", "password": PASSWORD})
    assert response.status_code == 400
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/projects/").status_code == 401


@pytest.mark.parametrize("header", ["Token nonsense", "Token", "Token a b", "token " + "x" * 300])
def test_bad_tokens_are_401_with_a_reason(db, header):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    response = client.get("/api/projects/")
    assert response.status_code == 401
    assert response.json()["error"]
    assert response["WWW-Authenticate"] == "Token"


def test_anonymous_is_401(db):
    response = APIClient().get("/api/projects/")
    assert response.status_code == 401
    assert "credentials" in response.json()["error"]


def test_last_used_is_written_at_most_once_a_minute(lead):
    token, _ = create_token(user=lead)
    now = timezone.now()
    assert touch_token(token=token, now=now)
    assert not touch_token(token=token, now=now + timedelta(seconds=30))
    assert touch_token(token=token, now=now + timedelta(seconds=61))
    token.refresh_from_db()
    assert token.last_used_at == now + timedelta(seconds=61)


def test_owner_lists_and_revokes_tokens_others_cannot(lead, annotator, api):
    mine, key = create_token(user=lead, name="script")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    listed = client.get("/api/auth/tokens/").json()
    assert [t["name"] for t in listed] == ["script"]
    assert "digest" not in listed[0] and "token" not in listed[0]

    other = api(annotator)
    assert other.delete(f"/api/auth/tokens/{mine.pk}/").status_code == 404
    assert ApiToken.objects.filter(pk=mine.pk).exists()

    assert client.delete(f"/api/auth/tokens/{mine.pk}/").status_code == 204
    assert client.get("/api/auth/tokens/").status_code == 401  # the key itself is gone


def test_session_requests_need_csrf_tokens_do_not(lead):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(lead)
    response = client.delete("/api/auth/tokens/1/")
    assert response.status_code == 403
    assert "CSRF" in response.json()["error"]


def test_token_endpoint_is_throttled(lead, settings):
    settings.AXES_FAILURE_LIMIT = 20  # DRF's rate is tested here; tests/faults: the lockout
    client = APIClient()
    codes = [
        client.post("/api/auth/token/", {"username": "lead_user", "password": "wrong"}).status_code
        for _ in range(12)
    ]
    assert codes[:10] == [400] * 10
    assert codes[10:] == [429, 429]
    assert ApiToken.objects.count() == 0


def test_anonymous_requests_are_throttled(db, monkeypatch):
    """DRF checks throttles after permissions, so what an anonymous client can reach (the
    docs, the schema) is what the anonymous rate protects; protected endpoints answer 401."""
    from rest_framework.throttling import AnonRateThrottle

    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "5/min"})
    client = APIClient()
    codes = [client.get("/api/docs/").status_code for _ in range(7)]
    assert codes == [200] * 5 + [429] * 2
