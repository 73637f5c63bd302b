"""Audit finding 9 (issue 30): every response carries a Content-Security-Policy that forbids
inline script and any other origin, and every page works under it in a real Chromium with no
violation reported (the browser's console and ``securitypolicyviolation`` events)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from annotator.documents.reading import Upload
from annotator.documents.services import align_document_pair, create_document_pairs
from annotator.management.commands.setup_demo import DEMO_USERS, setup_demo
from annotator.models import Assignment, Job, SentencePair

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PASSWORDS = {username: password for username, password, _role in DEMO_USERS}

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


def pages(project, assignment, pair, job) -> list[tuple[str, str, str]]:
    """(who, URL name, path) of every page, as the user who may open it."""
    p = project.pk
    out = [(None, "login", reverse("login"))]
    for name in (
        "project-detail",
        "project-members",
        "project-assign",
        "project-progress",
        "project-adjudication-list",
        "project-guidelines",
        "project-agreement",
        "project-disagreements",
        "project-pairs",
        "project-settings",
        "project-documents",
        "project-import",
        "project-export",
        "project-review-queue",
        "project-discussions",
    ):
        out.append(("lead", name, reverse(name, args=[p])))
    out += [
        ("lead", "home", reverse("home")),
        ("lead", "project-new", reverse("project-new")),
        ("lead", "project-pair", reverse("project-pair", args=[p, pair.pk])),
        ("lead", "password_change", reverse("password_change")),
        (None, "password_reset", reverse("password_reset")),
        ("lead", "profile", reverse("profile")),
        ("lead", "api-docs", "/api/docs/"),
        ("lead", "admin:index", reverse("admin:index")),
        ("lead", "admin:annotator_project_changelist", reverse("admin:annotator_project_changelist")),
        ("lead", "admin:annotator_project_change", reverse("admin:annotator_project_change", args=[p])),
        ("annotator1", "project-queue", reverse("project-queue", args=[p])),
        ("annotator1", "annotate", reverse("annotate", args=[assignment.pk])),
        ("lead", "project-adjudicate", reverse("project-adjudicate", args=[p, pair.pk])),
        ("lead", "project-detail#job", reverse("project-detail", args=[p]) + f"#job-{job.pk}"),
    ]  # fmt: skip
    return out


def log_in(browser, base: str, username: str | None):
    context = browser.new_context()
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    page.set_default_timeout(15_000)
    if username:
        page.goto(base + "/accounts/login/")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", PASSWORDS[username])
        page.click("button[type=submit]")
        page.wait_for_url(lambda url: "/accounts/login/" not in url)
    return page


def test_every_response_carries_the_policy(db):
    setup_demo()
    response = Client().get(reverse("login"))
    policy = response.headers["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["script-src"] == "'self'"  # no 'unsafe-inline', no other origin
    assert directives["default-src"] == "'self'"
    assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"
    assert "unsafe-inline" not in directives["style-src"]
    api = Client().get("/api/projects/")
    assert "Content-Security-Policy" in api.headers


def test_every_page_works_under_the_policy(live_server, chromium_browser):
    project = setup_demo()["project"]
    User = get_user_model()
    User.objects.filter(username="lead").update(is_staff=True, is_superuser=True)  # admin pages
    annotator = User.objects.get(username="annotator1")
    assignment = Assignment.objects.filter(annotator=annotator, pair__project=project).first()
    pair = SentencePair.objects.filter(project=project).first()
    job = Job.objects.create(
        kind="selftest", project=project, status=Job.Status.SUCCEEDED, progress=100, result={}
    )
    (document_pair,) = create_document_pairs(
        project=project, user=None, source=Upload("a.txt", b"One.\nTwo.\n", "en"),
        target=Upload("b.txt", b"One.\nTwo.\n", "en"),
    )  # fmt: skip
    align_document_pair(document_pair=document_pair)
    review = ("lead", "document-review", reverse("document-review", args=[document_pair.pk]))
    base = live_server.url
    browsers: dict = {}
    problems: list[str] = []
    for who, name, path in [*pages(project, assignment, pair, job), review]:
        if who not in browsers:
            browsers[who] = log_in(chromium_browser, base, who)
        page = browsers[who]
        console: list[str] = []
        page.on("console", lambda msg, sink=console: sink.append(msg.text))
        response = page.goto(base + path)
        assert response is not None and response.status < 400, (name, response and response.status)
        assert "Content-Security-Policy" in response.headers or "content-security-policy" in {
            k.lower() for k in response.headers
        }
        page.wait_for_load_state("networkidle")
        if name == "api-docs":
            page.wait_for_selector(".opblock", timeout=30_000)  # the Swagger UI did run
        violations = page.evaluate("window.__cspViolations")
        violations += [text for text in console if "Content Security Policy" in text]
        if violations:
            problems.append(f"{name} ({path}): {violations}")
    for page in browsers.values():
        page.context.close()
    assert not problems, "\n".join(problems)
