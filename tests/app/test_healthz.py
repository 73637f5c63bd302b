"""``/healthz``: 200 when the database and the broker answer, 503 (quickly) when either fails."""

from __future__ import annotations

import copy
import time

import pytest
from django.db import connection, connections

from annotator.common import health

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client, django_user_model):
    """Staff see each check's details; anonymous callers only the status."""
    client.force_login(django_user_model.objects.create_user("ops", is_staff=True))
    return client


def test_up_answers_200_without_login_and_names_nothing(client):
    response = client.get("/healthz")
    assert response.status_code == 200, response.content
    assert response.json() == {"status": "ok"}
    assert "no-cache" in response.headers.get("Cache-Control", "")


def test_anonymous_sees_a_bare_503_without_vendor_or_broker_url(client, settings):
    settings.CELERY_BROKER_URL = "redis://:secret@127.0.0.1:1/0"  # nothing listens on port 1
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable"}
    text = response.content.decode()
    for leak in ("redis", "127.0.0.1", connection.vendor, "ConnectionError"):
        assert leak not in text


def test_a_logged_in_non_staff_user_sees_only_the_status(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("annotator"))
    assert client.get("/healthz").json() == {"status": "ok"}


def test_staff_see_the_details(staff_client):
    response = staff_client.get("/healthz")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"]["ok"] is True
    assert body["database"]["vendor"] == connection.vendor
    assert body["broker"]["ok"] is True
    assert body["broker"]["transport"] in ("filesystem", "redis", "rediss", "memory")
    assert "no-cache" in response.headers.get("Cache-Control", "")


def test_dead_redis_answers_503_within_3_seconds(staff_client, settings):
    settings.CELERY_BROKER_URL = "redis://:secret@127.0.0.1:1/0"  # nothing listens on port 1
    started = time.monotonic()
    response = staff_client.get("/healthz")
    assert time.monotonic() - started < 3
    assert response.status_code == 503
    body = response.json()
    assert body["database"]["ok"] is True
    assert body["broker"]["ok"] is False
    assert "ConnectionError" in body["broker"]["error"]
    assert "secret" not in response.content.decode()  # the password is not shown


def test_missing_filesystem_broker_folder_answers_503(staff_client, settings, tmp_path):
    settings.CELERY_BROKER_URL = "filesystem://"
    missing = str(tmp_path / "gone")
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": missing,
        "data_folder_out": missing,
        "processed_folder": missing,
    }
    response = staff_client.get("/healthz")
    assert response.status_code == 503
    assert "missing or not writable" in response.json()["broker"]["error"]


def test_broken_database_answers_503(staff_client, monkeypatch, tmp_path):
    """A real connection to a database that cannot be reached (PostgreSQL: a closed port;
    SQLite: a file in a folder that does not exist)."""
    bad = copy.deepcopy(connection.settings_dict)
    if connection.vendor == "sqlite":
        bad["NAME"] = str(tmp_path / "no" / "such" / "dir" / "db.sqlite3")
    else:
        bad.update(HOST="127.0.0.1", PORT="1")
    broken = connections["default"].__class__(bad, alias="default")
    monkeypatch.setattr(health, "connections", {"default": broken})
    try:
        response = staff_client.get("/healthz")
    finally:
        broken.close()
    assert response.status_code == 503
    body = response.json()
    assert body["database"]["ok"] is False
    assert "OperationalError" in body["database"]["error"]
    assert body["broker"]["ok"] is True


def test_redact_url_hides_only_the_password():
    assert health.redact_url("redis://u:pw@h:6379/0") == "redis://u:***@h:6379/0"
    assert health.redact_url("redis://:pw@h:6379/0") == "redis://:***@h:6379/0"
    assert health.redact_url("redis://h:6379/0") == "redis://h:6379/0"
