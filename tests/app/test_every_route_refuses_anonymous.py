"""Every URL pattern and every API route, resolved from the URLconf with its ids filled in, asked
by an anonymous user: a redirect to the login page, 401, 403, 404 or 405, never a 5xx and never
the page itself. A new page or endpoint is walked as soon as it is routed, so it cannot forget
the anonymous user. The few public pages (login, password reset, health, the API's schema and
docs) are named below, and answer without a 5xx too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from annotator.accounts.services.tokens import create_token
from annotator.models import (
    Assignment,
    Bead,
    DocumentPair,
    Job,
    Membership,
    PairMessage,
    Project,
    SentencePair,
    Subcorpus,
)

REFUSED = {302, 401, 403, 404, 405}
# Routes anyone may open (by URL name): the login and password-reset pages, health, the API's
# schema, docs and token exchange, and the router's index pages (links, no data).
PUBLIC = {
    "login", "logout", "password_reset", "password_reset_done", "password_reset_confirm",
    "password_reset_complete", "healthz", "api-schema", "api-docs", "api-token-obtain",
    "api-root",
}  # fmt: skip
METHODS = ("get", "post", "put", "patch", "delete")
HUGE_ID = 10**18 - 1  # the largest id the converters accept


def walk(resolver: URLResolver, prefix: str = "") -> Iterator[tuple[str, str | None]]:
    """(regex of the whole route, its name) for every pattern under ``resolver``."""
    for entry in resolver.url_patterns:
        regex = prefix + entry.pattern.regex.pattern.lstrip("^")
        if isinstance(entry, URLResolver):
            yield from walk(entry, regex.rstrip("$").removesuffix(r"\Z"))
        elif isinstance(entry, URLPattern):
            yield regex, entry.name


ROUTES = sorted(set(walk(get_resolver())))
GROUP = re.compile(r"\(\?P<(?P<name>\w+)>(?P<body>(?:[^()]|\([^()]*\))*)\)")


def fill(regex: str, ids: dict[str, int]) -> str:
    """The route's path with each named group replaced by an id (or a plausible word)."""

    def value(match: re.Match) -> str:
        name = match["name"]
        if name == "format":
            return "json"
        if name in ids:
            return str(ids[name])
        return "1" if re.fullmatch(match["body"], "1") else "x"

    path = GROUP.sub(value, regex)
    path = path.replace(r"\Z", "").replace("$", "").replace("\\", "").replace("^", "")
    path = re.sub(r"\.\?$|\?$", "", path)  # DRF's optional format suffix
    return "/" + path


@pytest.fixture
def world(db, django_user_model):
    """One of everything an id can name, owned by a project the anonymous user is not in."""
    lead = django_user_model.objects.create_user("walk_lead", password="walk-pass-123")
    ann = django_user_model.objects.create_user("walk_ann", password="walk-pass-123")
    project = Project.objects.create(name="walked")
    Membership.objects.create(project=project, user=lead, role=Membership.Role.LEAD)
    Membership.objects.create(project=project, user=ann, role=Membership.Role.ANNOTATOR)
    sub = Subcorpus.objects.create(project=project, name="s")
    pair = SentencePair.objects.create(
        project=project, subcorpus=sub, external_id="w1", source_tokens=["a"], target_tokens=["b"]
    )
    assignment = Assignment.objects.create(pair=pair, annotator=ann)
    PairMessage.objects.create(pair=pair, annotator=ann, author=ann, body="why?")
    dp = DocumentPair.objects.create(
        project=project, name="d", source_language="en", target_language="en",
        source_filename="a.txt", target_filename="b.txt", source_format="lines",
        target_format="lines", source_original="A.", target_original="B.",
        source_sentences=["A."], target_sentences=["B."], aligned_at=timezone.now(),
    )  # fmt: skip
    Bead.objects.create(document_pair=dp, position=0, source=[0], target=[0], confidence=0.9)
    job = Job.objects.create(kind="selftest", project=project, created_by=lead, params={"x": 1})
    token, _ = create_token(user=lead, name="walked")
    return {
        "project_id": project.pk, "pair_id": pair.pk, "assignment_id": assignment.pk,
        "annotator_id": ann.pk, "job_id": job.pk, "review_id": assignment.pk,
        "document_pair_id": dp.pk, "token_id": token.pk, "pk": pair.pk, "object_id": pair.pk,
    }  # fmt: skip


def _ids_for(name: str | None, world: dict[str, int], huge: bool) -> dict[str, int]:
    if huge:
        return dict.fromkeys(world, HUGE_ID)
    ids = dict(world)
    # a router route's {pk} is the id of its own kind of object
    kinds = {"assignment": "assignment_id", "job": "job_id", "document-pair": "document_pair_id",
             "api-token": "token_id", "project": "project_id", "pair": "pair_id"}  # fmt: skip
    for prefix, key in kinds.items():
        if name and name.startswith(prefix + "-"):
            ids["pk"] = world[key]
    return ids


def test_the_walk_covers_pages_api_routes_and_id_bearing_routes():
    names = {name for _, name in ROUTES}
    assert {"document-review", "pair-discussion", "api-documents", "api-import"} <= names
    assert {"document-pair-detail", "document-pair-decide", "pair-list", "job-detail"} <= names
    assert len(ROUTES) > 80


@pytest.mark.django_db
@pytest.mark.parametrize("huge", [False, True], ids=["real-ids", "huge-ids"])
def test_every_route_refuses_an_anonymous_user_without_a_server_error(world, huge):
    client = Client(raise_request_exception=False)  # a server error is an answer here
    failures = []
    for regex, name in ROUTES:
        if name and name.startswith("admin") or regex.startswith("admin/"):
            continue  # Django's admin: its own login, not ours to walk
        path = fill(regex, _ids_for(name, world, huge))
        for method in METHODS:
            cache.clear()  # the anonymous rate limit counts every request; each is asked afresh
            response = getattr(client, method)(path, secure=True)
            code = response.status_code
            if code >= 500 or (name not in PUBLIC and code not in REFUSED):
                failures.append(f"{method.upper()} {path} ({name}): {code}")
            elif (
                code == 302
                and name not in PUBLIC
                and not response["Location"].startswith("/accounts/login/")
            ):
                failures.append(f"{method.upper()} {path}: redirect to {response['Location']}")
    assert not failures, "\n".join(failures)
