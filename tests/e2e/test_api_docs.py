"""``/api/docs/`` in a real Chromium: the Swagger UI renders the API's endpoint list from the
pinned sidecar package, and no request leaves this server (no CDN, no fonts, no telemetry)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(settings.BASE_DIR) / "var" / "test-artifacts"


def test_swagger_ui_lists_the_endpoints_with_no_request_leaving_localhost(live_server, page):
    server = urlsplit(live_server.url).netloc
    requested: list[str] = []
    elsewhere: list[str] = []

    def route(request_route):
        url = request_route.request.url
        requested.append(url)
        if urlsplit(url).scheme in ("data", "blob") or urlsplit(url).netloc == server:
            request_route.continue_()
        else:
            elsewhere.append(url)
            request_route.abort()

    page.route("**/*", route)
    page.goto(live_server.url + "/api/docs/")
    page.wait_for_selector(".opblock", timeout=30_000)  # one block per operation
    page.wait_for_load_state("networkidle")

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "api-docs.png"), full_page=False)

    assert page.locator(".info .title").first.inner_text().startswith("gridalign API")
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    for expected in (
        "/api/projects/",
        "/api/pairs/",
        "/api/projects/{project_id}/export/",
        "/api/projects/{project_id}/imports/",
        "/api/projects/{project_id}/evaluate/",
        "/api/auth/token/",
        "/api/assignments/{id}/annotation/",
    ):
        assert any(p.replace("\u200b", "") == expected for p in paths), expected
    assert len(paths) > 30
    assert not elsewhere, elsewhere
    assert any("/api/schema/" in url for url in requested)
    assert any("drf_spectacular_sidecar" in url for url in requested)
