"""Fuzzing the documents API and the discussion form: any upload, any JSON body for a review
action, any message and ``next``: an answer the client can act on (2xx, 3xx to this site, or a
400/404 with the API's JSON error naming the problem), never a 5xx, and a refusal changes
nothing. On SQLite by default; CI runs this file on PostgreSQL (DATABASE_URL), which refuses
the characters (NUL) SQLite would store, so a refusal must come from the edge, not from the
database."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from annotator.models import Assignment, Bead, DocumentPair, PairMessage, SentencePair
from tests.faults.test_fuzz_formats import ALPHABET, _encode

pytestmark = pytest.mark.django_db

FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    database=None,
)
GOOD = b"The house is old.\nIt stands by the lake.\n"
# the characters the formats give meaning to (NUL, surrogates, BOM, separators), as text
TEXT = st.lists(ALPHABET | st.text(max_size=5), max_size=40).map("".join)
DOCUMENT = st.one_of(
    st.binary(max_size=300),
    st.lists(ALPHABET, max_size=60).map(lambda parts: _encode("".join(parts))),
    st.builds(
        lambda head, tail: GOOD + head + tail, st.binary(max_size=20), st.binary(max_size=20)
    ),
)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | TEXT
JSON_VALUE = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)
FIELDS = ["bead", "decision", "threshold", "side", "index", "offset", "source", "target",
          "subcorpus"]  # fmt: skip
SMALL = st.integers(min_value=-2, max_value=4) | st.integers()
# bodies of the right shape with fuzzed values (they reach the services), and anything at all
PLAUSIBLE = st.fixed_dictionaries({
    "bead": SMALL, "decision": st.sampled_from(["accepted", "rejected", "pending"]) | TEXT,
    "threshold": st.floats() | SMALL, "side": st.sampled_from(["source", "target"]) | TEXT,
    "index": SMALL, "offset": SMALL, "source": st.lists(SMALL, max_size=3),
    "target": st.lists(SMALL, max_size=3), "subcorpus": TEXT,
})  # fmt: skip
ACTION_BODY = PLAUSIBLE | st.dictionaries(st.sampled_from(FIELDS) | TEXT, JSON_VALUE, max_size=5)
ACTIONS = ["decide", "accept-above", "merge", "split", "pair", "send"]


def lead_client(user) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def snapshot() -> tuple:
    return (
        DocumentPair.objects.count(),
        sorted(Bead.objects.values_list("id", "decision", "position")),
        SentencePair.objects.count(),
        PairMessage.objects.count(),
    )


def json_error(response) -> str:
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    message = response.json()["error"]
    assert isinstance(message, str) and message.strip()
    return message


@pytest.fixture
def review(project, lead):
    dp = DocumentPair.objects.create(
        project=project, name="fuzzed", source_language="en", target_language="en",
        source_filename="a.txt", target_filename="b.txt", source_format="lines",
        target_format="lines", source_original="One. Two.", target_original="Uno. Dos.",
        source_sentences=["One.", "Two."], target_sentences=["Uno.", "Dos."],
        aligned_at=timezone.now(),
    )  # fmt: skip
    Bead.objects.create(document_pair=dp, position=0, source=[0], target=[0], confidence=0.9)
    Bead.objects.create(document_pair=dp, position=1, source=[1], target=[1], confidence=0.4)
    return dp


@FUZZ
@given(source=DOCUMENT, target=DOCUMENT, split=st.sampled_from(["auto", "lines", "text", "html"]))
def test_any_upload_is_taken_or_refused_naming_the_file(project, lead, source, target, split):
    before = snapshot()
    response = lead_client(lead).post(
        f"/api/projects/{project.pk}/documents/",
        {"source": SimpleUploadedFile("s.txt", source), "source_language": "en",
         "target": SimpleUploadedFile("t.txt", target), "target_language": "de",
         "split": split},
    )  # fmt: skip
    assert response.status_code in (202, 400), (response.status_code, response.content[:300])
    if response.status_code == 400:
        event("refused")
        message = json_error(response)
        # the file by name, or (an empty upload) the field it came in
        assert any(name in message for name in ("s.txt", "t.txt", "source:", "target:")), message
        assert snapshot() == before
    else:
        event("taken")
        assert DocumentPair.objects.count() == before[0] + 1


@FUZZ
@given(action=st.sampled_from(ACTIONS), body=ACTION_BODY)
def test_any_review_action_body_answers_without_a_server_error(review, lead, action, body):
    before = snapshot()
    try:
        payload = json.dumps(body)
    except (TypeError, ValueError):  # NaN keys and the like: the JSON a client could send
        payload = json.dumps(body, default=str)
    response = lead_client(lead).post(
        f"/api/document-pairs/{review.pk}/{action}/", payload, content_type="application/json"
    )
    allowed = (202, 400) if action == "send" else (200, 400)  # sending is a job
    assert response.status_code in allowed, (response.status_code, response.content[:300])
    if response.status_code == 400:
        event("refused")
        json_error(response)
        assert snapshot() == before
    else:
        event("done")


@FUZZ
@given(body=TEXT, next_url=st.one_of(TEXT, st.sampled_from(
    ["https://evil.example/", "//evil.example", "/\\evil.example", "/projects/1/", ""])))  # fmt: skip
def test_any_discussion_message_is_posted_or_refused(pair, annotator, lead, body, next_url):
    Assignment.objects.get_or_create(pair=pair, annotator=annotator)
    url = reverse("pair-discussion", args=[pair.project_id, pair.pk, annotator.pk])
    before = PairMessage.objects.count()
    try:
        data = {"body": body, "next": next_url}
        response = lead_client(lead).post(url, data)
    except UnicodeEncodeError:  # a lone surrogate: no browser can send it in a form
        return
    assert response.status_code in (302, 400), response.status_code
    if response.status_code == 400:
        event("refused")
        assert "NUL" in response.content.decode()
        assert PairMessage.objects.count() == before
        return
    location = response["Location"]
    assert location.startswith("/") and not location.startswith(("//", "/\\")), location
    stored = PairMessage.objects.count() - before
    if stored:
        event("posted")
        assert PairMessage.objects.latest("id").body == body.strip()
    else:
        event("refused by the service")  # empty or too long: a message on the page
