"""Characters the database cannot store (NUL: PostgreSQL refuses it in text and in JSON; SQLite
would store it silently) are refused where they arrive, with a 400 naming the file and line or
the field, and nothing is stored: in a document anywhere (not only its first 8 KB), in a
discussion message, in any form or query field, in a JSON body. Run on PostgreSQL in CI, where
they were a 500."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from annotator.models import Assignment, DocumentPair, Job, PairMessage, Project

pytestmark = pytest.mark.django_db

DE = "Das Haus ist alt.\nEs steht am See.\n"
FR = "La maison est vieille.\nElle se trouve au bord du lac.\n"
# past the first 8 KB, on line 202 (200 filler lines, then the two real ones, then the NUL)
LATE_NUL = ("Ein Satz.\n" * 200 + DE).encode() + b"Noch\x00einer.\n"
NUL_LINE = 203


def _lenient(client: Client) -> Client:
    client.raise_request_exception = False
    return client


def test_a_nul_byte_past_8_kb_in_a_document_is_a_400_naming_file_and_line_api(project, lead):
    client = _lenient(Client())
    client.force_login(lead)
    data = {
        "source": SimpleUploadedFile("late.de", LATE_NUL),
        "target": SimpleUploadedFile("late.fr", FR.encode()),
        "source_language": "de",
        "target_language": "fr",
    }
    response = client.post(f"/api/projects/{project.pk}/documents/", data)
    assert response.status_code == 400
    error = response.json()["error"]
    assert "late.de: a binary file" in error and f"NUL byte on line {NUL_LINE}," in error
    assert DocumentPair.objects.count() == 0 and Job.objects.count() == 0


def test_a_nul_byte_in_a_document_is_a_400_naming_file_and_line_page(project, lead):
    client = _lenient(Client())
    client.force_login(lead)
    data = {
        "source": SimpleUploadedFile("page.de", DE.encode()),
        "target": SimpleUploadedFile("page.fr", b"La maison.\nElle\x00 est.\n"),
        "source_language": "de",
        "target_language": "fr",
        "kind": "parallel",
        "split": "auto",
    }
    response = client.post(reverse("project-documents", args=[project.pk]), data)
    assert response.status_code == 400
    html = response.content.decode()
    assert "page.fr: a binary file" in html and "NUL byte on line 2," in html
    assert DocumentPair.objects.count() == 0


def test_a_nul_in_a_discussion_message_is_a_400_and_nothing_is_posted(pair, annotator, lead):
    Assignment.objects.create(pair=pair, annotator=annotator)
    client = _lenient(Client())
    client.force_login(lead)
    url = reverse("pair-discussion", args=[pair.project_id, pair.pk, annotator.pk])
    response = client.post(url, "body=a%00b", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert "body" in response.content.decode() and "NUL" in response.content.decode()
    assert PairMessage.objects.count() == 0


@pytest.mark.parametrize(
    "path", ["/api/pairs/?annotator=%00", "/api/pairs/?subcorpus=a%00", "/api/jobs/?x%00=1"]
)
def test_a_nul_in_a_query_field_of_the_api_is_a_json_400_naming_it(project, lead, path):
    client = _lenient(Client())
    client.force_login(lead)
    response = client.get(path)
    assert response.status_code == 400
    assert "NUL" in response.json()["error"]


def test_a_nul_in_a_query_field_of_a_page_is_a_400(project, lead):
    client = _lenient(Client())
    client.force_login(lead)
    response = client.get(reverse("project-progress", args=[project.pk]) + "?annotator=a%00")
    assert response.status_code == 400
    assert "annotator" in response.content.decode()


def test_a_nul_in_a_form_field_is_refused_and_nothing_is_stored(lead, project):
    client = _lenient(Client())
    client.force_login(lead)
    before = Project.objects.count()
    response = client.post(
        reverse("project-new"), "name=x%00y&guidelines=g", "application/x-www-form-urlencoded"
    )
    assert response.status_code == 400
    assert Project.objects.count() == before


def test_a_nul_in_a_json_body_is_a_400_and_nothing_is_saved(pair, annotator):
    assignment = Assignment.objects.create(pair=pair, annotator=annotator)
    client = _lenient(Client())
    client.force_login(annotator)
    body = json.dumps({"reason": "other", "note": "a\u0000b"})
    response = client.post(
        f"/api/assignments/{assignment.pk}/flag/", body, content_type="application/json"
    )
    assert response.status_code == 400
    assert "NUL" in response.json()["error"]
    assert PairMessage.objects.count() == 0
    assignment.refresh_from_db()
    assert not assignment.flag


def test_a_nul_in_a_multipart_field_of_an_api_upload_is_a_json_400(project, lead):
    client = _lenient(Client())
    client.force_login(lead)
    data = {
        "file": SimpleUploadedFile("c.jsonl", b'{"id": "a", "source": "x", "target": "y"}\n'),
        "subcorpus": "news\x00",
    }
    response = client.post(f"/api/projects/{project.pk}/imports/", data)
    assert response.status_code == 400
    assert "subcorpus" in response.json()["error"] and "null" in response.json()["error"].lower()
    assert Job.objects.count() == 0
