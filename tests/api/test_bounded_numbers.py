"""Page numbers and ids are bounded where they are parsed: a page or an id past what the
database can hold is a 404 (or 400) with the API's JSON error, on every list and id-bearing
route, never a database error (bigint out of range on PostgreSQL, a datatype mismatch on
SQLite)."""

from __future__ import annotations

import pytest
from django.urls import NoReverseMatch, get_resolver, reverse
from rest_framework.test import APIClient

HUGE_PAGES = ["200000000000000000", "9223372036854775808", "1" + "0" * 40]


def router_list_urls() -> list[str]:
    """Every ``<basename>-list`` route of the API's router, as a path."""
    urls = set()
    for name in get_resolver().reverse_dict:
        if isinstance(name, str) and name.endswith("-list"):
            try:
                urls.add(reverse(name))
            except NoReverseMatch:  # a page's list, with a project id
                continue
    return sorted(url for url in urls if url.startswith("/api/"))


def test_every_router_list_is_walked():
    assert {"/api/pairs/", "/api/jobs/", "/api/assignments/"} <= set(router_list_urls())


@pytest.mark.parametrize("page", HUGE_PAGES)
def test_a_huge_page_number_is_a_404_on_every_api_list(api, corpus, lead, page):
    client = api(lead)
    client.raise_request_exception = False
    for url in router_list_urls():
        if "results" not in client.get(url).json():
            continue  # not paginated (a user's few tokens)
        response = client.get(url, {"page": page})
        assert response.status_code == 404, (url, response.status_code)
        assert "error" in response.json(), url


def test_the_pair_list_with_a_plain_page_past_the_end_is_a_404(api, corpus, lead):
    client = api(lead)
    response = client.get("/api/pairs/", {"page": "200000000000000000"})
    assert response.status_code == 404
    assert "Invalid page" in response.json()["error"]
    assert client.get("/api/pairs/", {"page": "1"}).status_code == 200


@pytest.mark.parametrize(
    "method, path",
    [
        ("get", "/api/projects/{huge}/export/"),
        ("post", "/api/projects/{huge}/imports/"),
        ("post", "/api/projects/{huge}/evaluate/"),
        ("get", "/api/projects/{huge}/documents/"),
        ("post", "/api/projects/{huge}/documents/"),
        ("get", "/api/projects/{huge}/pairs/1/gold/"),
        ("get", "/api/projects/1/pairs/{huge}/gold/"),
        ("put", "/api/projects/1/pairs/{huge}/gold/"),
    ],
)
@pytest.mark.parametrize("huge", ["9223372036854775808", "1" + "0" * 30])
def test_an_id_past_a_bigint_is_a_404_at_parsing(api, corpus, lead, method, path, huge):
    client: APIClient = api(lead)
    client.raise_request_exception = False
    response = getattr(client, method)(path.format(huge=huge))
    assert response.status_code == 404, (method, path, response.status_code)
    assert "error" in response.json()


@pytest.mark.parametrize(
    "page", ["pairs", "review", "adjudicate", "queue", "disagreements", "progress"]
)
def test_a_huge_page_number_on_a_page_list_is_no_server_error(client, corpus, lead, project, page):
    client.force_login(lead)
    client.raise_request_exception = False
    response = client.get(f"/projects/{project.pk}/{page}/", {"page": HUGE_PAGES[1]})
    assert response.status_code in (200, 302, 403, 404), response.status_code


@pytest.mark.parametrize("param", ["project", "pair", "subcorpus", "assignment", "annotator"])
def test_a_huge_id_in_a_list_filter_is_no_server_error(api, corpus, lead, param):
    client = api(lead)
    client.raise_request_exception = False
    for url in router_list_urls():
        response = client.get(url, {param: "1" + "0" * 30})
        assert response.status_code in (200, 400, 404), (url, param, response.status_code)
