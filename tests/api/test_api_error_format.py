"""Every failure under /api/ answers with the API's JSON error (``{"error": ...}``): a body
larger than DATA_UPLOAD_MAX_MEMORY_SIZE (also on the anonymous token exchange, and with DEBUG
on, where Django would show its debug page), a path that is no route, a malformed form body."""

from __future__ import annotations

import json

import pytest
from django.test import Client

LIMIT = 64 * 1024


@pytest.fixture
def small_bodies(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = LIMIT
    return settings


def _json_error(response) -> str:
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    message = response.json()["error"]
    assert isinstance(message, str) and message
    return message


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("kind", ["json", "form"])
def test_a_too_big_body_on_the_token_exchange_is_a_json_413(small_bodies, debug, kind):
    small_bodies.DEBUG = debug
    client = Client(raise_request_exception=False)
    padding = "x" * (LIMIT + 10)
    if kind == "json":
        body = json.dumps({"username": "a", "password": padding})
        response = client.post("/api/auth/token/", body, content_type="application/json")
    else:
        response = client.post("/api/auth/token/", {"username": "a", "password": padding})
    assert response.status_code == 413
    assert "DATA_UPLOAD_MAX_MEMORY_SIZE" in _json_error(response) or "larger" in _json_error(
        response
    )


def test_a_too_big_body_from_a_lead_is_a_json_413(api, lead, annotator, corpus, small_bodies):
    client = api(lead)
    client.raise_request_exception = False
    pair = corpus["p1"]
    body = json.dumps({"links": [[0, 0, "S"]], "note": "y" * (LIMIT + 10)})
    response = client.put(
        f"/api/projects/{pair.project_id}/pairs/{pair.pk}/gold/",
        body,
        content_type="application/json",
    )
    assert response.status_code == 413
    assert "larger" in _json_error(response)


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize(
    "path", ["/api/no-such-thing/", "/api/pairs/99999999999999999999/", "/api/pairs/x/"]
)
def test_a_path_that_is_no_route_is_a_json_404(settings, debug, path):
    settings.DEBUG = debug
    response = Client(raise_request_exception=False).get(path)
    assert response.status_code in (401, 404)
    _json_error(response)


@pytest.mark.django_db
def test_a_page_outside_the_api_keeps_its_html_404(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
