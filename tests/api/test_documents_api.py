"""The documents API (issue 33): only a project's leads upload, review and send; a bad file is
a 400 naming it and writes nothing; the review flow through the API ends in pairs with
provenance."""

from __future__ import annotations

import json
import random

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotator.documents import services
from annotator.jobs.runner import run_job
from annotator.models import Bead, DocumentPair, Job, SentencePair

DE = "Das Haus ist alt.\nEs steht am See.\nIm Jahr 1900 wurde es gebaut.\n"
FR = "La maison est vieille.\nElle se trouve au bord du lac.\nElle fut construite en 1900.\n"


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def upload(client, project, **extra):
    data = {
        "source": SimpleUploadedFile("h.de", DE.encode()),
        "target": SimpleUploadedFile("h.fr", FR.encode()),
        "source_language": "de",
        "target_language": "fr",
        **extra,
    }
    return client.post(f"/api/projects/{project.pk}/documents/", data, format="multipart")


def test_a_lead_uploads_and_gets_the_align_job(project, lead):
    response = upload(client_for(lead), project)
    assert response.status_code == 202, response.content
    (dp_id,) = response.json()["document_pairs"]
    assert response.json()["job"]["kind"] == "document-align"
    dp = DocumentPair.objects.get(pk=dp_id)
    assert dp.source_sentences == DE.splitlines() and dp.target_language == "fr"


@pytest.mark.parametrize("who", ["annotator", "outsider"])
def test_only_leads_upload_or_review(request, project, lead, who):
    user = request.getfixturevalue(who)
    (dp,) = services.create_document_pairs(
        project=project, user=lead,
        source=services.Upload("a.de", DE.encode(), "de"),
        target=services.Upload("a.fr", FR.encode(), "fr"),
    )  # fmt: skip
    services.align_document_pair(document_pair=dp)
    client = client_for(user)
    assert upload(client, project).status_code in (403, 404)
    assert client.get(f"/api/document-pairs/{dp.pk}/").status_code == 404
    bead = dp.beads.first()
    for answer in ("", "?answer=bead"):
        refused = client.post(
            f"/api/document-pairs/{dp.pk}/decide/{answer}",
            {"bead": bead.pk, "decision": "accepted"},
            format="json",
        )
        assert refused.status_code == 404
    assert Bead.objects.get(pk=bead.pk).decision == "pending"
    assert DocumentPair.objects.count() == 1


def test_a_bad_file_is_a_400_naming_it_and_nothing_is_stored(project, lead):
    response = upload(
        client_for(lead), project, target=SimpleUploadedFile("h.fr", "caf\xe9".encode("latin-1"))
    )
    assert response.status_code == 400
    assert "h.fr: not UTF-8 text" in response.json()["error"]
    assert DocumentPair.objects.count() == 0 and Job.objects.count() == 0


def test_review_through_the_api_ends_in_pairs_with_provenance(project, lead):
    client = client_for(lead)
    (dp_id,) = upload(client, project).json()["document_pairs"]
    services.align_document_pair(document_pair=DocumentPair.objects.get(pk=dp_id))
    state = client.get(f"/api/document-pairs/{dp_id}/").json()
    assert [(b["source"], b["target"]) for b in state["beads"]] == [
        ([0], [0]),
        ([1], [1]),
        ([2], [2]),
    ]
    assert state["unaligned_source"] == [] and state["counts"]["pending"] == 3
    first = state["beads"][0]["id"]
    state = client.post(
        f"/api/document-pairs/{dp_id}/decide/",
        {"bead": first, "decision": "rejected"},
        format="json",
    ).json()
    assert state["counts"]["rejected"] == 1
    state = client.post(
        f"/api/document-pairs/{dp_id}/accept-above/", {"threshold": 0}, format="json"
    ).json()
    assert state["counts"]["accepted"] == 2
    bad = client.post(
        f"/api/document-pairs/{dp_id}/merge/", {"side": "source", "index": 2}, format="json"
    )
    assert bad.status_code == 400 and "no source sentences 2 and 3" in bad.json()["error"]
    blank = client.post(f"/api/document-pairs/{dp_id}/send/", {"subcorpus": "  "}, format="json")
    assert blank.status_code == 400 and "subcorpus" in blank.json()["error"]
    assert not Job.objects.filter(kind="document-send").exists()  # refused before any job
    sent = client.post(f"/api/document-pairs/{dp_id}/send/", {"subcorpus": "houses"}, format="json")
    assert sent.status_code == 202 and sent.json()["kind"] == "document-send"
    run_job(sent.json()["id"])  # as the worker's task would
    job = Job.objects.get(pk=sent.json()["id"])
    assert job.status == "succeeded" and job.result["pairs"] == 2 and job.result["too_long"] == 0
    assert job.message == "2 pairs sent to annotation"
    one = services.pair_by_hand(document_pair=DocumentPair.objects.get(pk=dp_id), source=[0],
                                target=[0], user=lead)  # fmt: skip
    assert one.decision == "accepted"
    again = client.post(f"/api/document-pairs/{dp_id}/send/", {"subcorpus": "houses"},
                        format="json")  # fmt: skip
    run_job(again.json()["id"])
    assert Job.objects.get(pk=again.json()["id"]).message == "1 pair sent to annotation"
    pairs = SentencePair.objects.filter(subcorpus__name="houses").order_by("position")
    assert [p.metadata["provenance"]["source_sentences"] for p in pairs] == [[1], [2], [0]]


def _aligned_pair(project, lead, sentences: int) -> DocumentPair:
    de = "".join(
        f"Im Jahr {1900 + k} wurde das Haus Nummer {k} gebaut.\n" for k in range(sentences)
    )
    fr = "".join(f"La maison numéro {k} fut construite en {1900 + k}.\n" for k in range(sentences))
    (dp,) = services.create_document_pairs(
        project=project, user=lead, name=f"p{sentences}",
        source=services.Upload(f"{sentences}.de", de.encode(), "de"),
        target=services.Upload(f"{sentences}.fr", fr.encode(), "fr"),
    )  # fmt: skip
    services.align_document_pair(document_pair=dp)
    return dp


def test_a_decision_can_answer_with_its_bead_and_the_counts_alone(project, lead):
    """``?answer=bead``: the bead as the state lists it (without its text) and the counts the
    full state would give, in an answer whose size does not grow with the documents."""
    client = client_for(lead)
    sizes = {}
    for sentences in (3, 400):
        dp = _aligned_pair(project, lead, sentences)
        bead = dp.beads.order_by("position")[1]
        url = f"/api/document-pairs/{dp.pk}/decide/?answer=bead"
        answer = client.post(url, {"bead": bead.pk, "decision": "rejected"}, format="json")
        assert answer.status_code == 200, answer.content
        sizes[sentences] = len(answer.content)
        got = answer.json()
        state = client.get(f"/api/document-pairs/{dp.pk}/").json()
        listed = next(b for b in state["beads"] if b["id"] == bead.pk)
        assert got["bead"] == {k: v for k, v in listed.items() if not k.endswith("_text")}
        assert got["bead"]["decision"] == "rejected" and got["counts"] == state["counts"]
        assert got["counts"]["rejected"] == 1 and got["counts"]["pending"] == sentences - 1
    assert sizes[400] - sizes[3] < 20  # only the numbers in it grow, by a digit or two
    # the same refusals as the full answer, and an unknown answer is a 400 that decides nothing
    null_bead = dp.beads.first()
    Bead.objects.filter(pk=null_bead.pk).update(source=[], decision="pending")
    refused = client.post(url, {"bead": null_bead.pk, "decision": "accepted"}, format="json")
    assert refused.status_code == 400 and "empty side" in refused.json()["error"]
    odd = client.post(
        f"/api/document-pairs/{dp.pk}/decide/?answer=all",
        {"bead": bead.pk, "decision": "accepted"},
        format="json",
    )
    assert odd.status_code == 400 and "answer must be state or bead" in odd.json()["error"]
    assert Bead.objects.get(pk=bead.pk).decision == "rejected"


def _walk(client, dp, order: str, limit: int) -> list[dict]:
    pages, offset = [], 0
    while True:
        url = f"/api/document-pairs/{dp.pk}/?order={order}&offset={offset}&limit={limit}"
        answer = client.get(url)
        assert answer.status_code == 200, answer.content
        page = answer.json()
        assert page["page"]["offset"] == offset and page["page"]["limit"] == limit
        pages.append(page)
        offset += limit
        if offset >= page["page"]["total"]:
            return pages


@pytest.mark.parametrize("order", ["document", "likeliest"])
def test_the_review_state_read_a_page_at_a_time_is_the_whole_state(project, lead, order):
    """``?offset=&limit=``: the pages, read in turn, list the whole state's beads in its order,
    with the same text; each page carries the text of exactly the sentences its beads hold,
    the sentence and unaligned counts, and the counts."""
    client = client_for(lead)
    dp = _aligned_pair(project, lead, 23)
    beads = list(dp.beads.order_by("position"))
    # ties and scores for the likeliest order; two null beads leave two sentences a side unpaired
    for k, bead in enumerate(beads):
        bead.predicted = None if k % 3 else (0.5 if k % 2 else 0.9)
    Bead.objects.bulk_update(beads, ["predicted"])
    Bead.objects.filter(pk=beads[4].pk).update(target=[])
    Bead.objects.filter(pk=beads[9].pk).update(source=[], decision="rejected")
    # beads changed behind the services' back: the pair's kept counts are not known, and the
    # database counts them (as for a pair aligned before they were kept)
    DocumentPair.objects.filter(pk=dp.pk).update(unaligned_source=None, unaligned_target=None)
    whole = client.get(f"/api/document-pairs/{dp.pk}/?order={order}").json()
    assert len(whole["unaligned_source"]) == 2 and len(whole["unaligned_target"]) == 2
    for limit in (1, 5, 23, 1000):
        pages = _walk(client, dp, order, limit)
        assert [b for p in pages for b in p["beads"]] == whole["beads"]
        for page in pages:
            assert page["order"] == whole["order"] == order
            assert page["counts"] == whole["counts"] and page["page"]["total"] == 23
            assert page["sentence_counts"] == {"source": 23, "target": 23}
            assert page["unaligned_counts"] == {"source": 2, "target": 2}
            for side in ("source", "target"):
                held = {k for b in page["beads"] for k in b[side]}
                assert page["sentences"][side] == {
                    str(k): whole[f"{side}_sentences"][k] for k in held
                }


def test_a_page_past_the_end_is_the_last_page_and_bad_page_numbers_are_refused(project, lead):
    client = client_for(lead)
    dp = _aligned_pair(project, lead, 12)
    last = client.get(f"/api/document-pairs/{dp.pk}/?offset=500&limit=5").json()
    assert last["page"] == {"offset": 10, "limit": 5, "total": 12} and len(last["beads"]) == 2
    for query, named in [("limit=0", "limit"), ("limit=1001", "limit"), ("limit=x", "limit"),
                         ("offset=-1&limit=5", "offset"), ("offset=3", "offset needs limit")]:  # fmt: skip
        answer = client.get(f"/api/document-pairs/{dp.pk}/?{query}")
        assert answer.status_code == 400 and named in answer.json()["error"], query
    # an action asked for a bad page is refused before it does anything
    before = list(dp.beads.values_list("id", "source", "target"))
    refused = client.post(
        f"/api/document-pairs/{dp.pk}/merge/?offset=0&limit=-2",
        {"side": "source", "index": 0},
        format="json",
    )
    assert refused.status_code == 400 and "limit" in refused.json()["error"]
    assert list(dp.beads.values_list("id", "source", "target")) == before
    dp.refresh_from_db()
    assert len(dp.source_sentences) == 12


def test_an_action_answers_the_page_it_is_asked_for(project, lead):
    """Merge and accept-above given ``offset``/``limit`` answer that page of the new state,
    the same as reading it afterwards."""
    client = client_for(lead)
    dp = _aligned_pair(project, lead, 12)
    base = f"/api/document-pairs/{dp.pk}"
    merged = client.post(f"{base}/merge/?offset=5&limit=5", {"side": "source", "index": 6},
                         format="json")  # fmt: skip
    assert merged.status_code == 200, merged.content
    assert merged.json()["sentence_counts"]["source"] == 11
    assert merged.json() == client.get(f"{base}/?offset=5&limit=5").json()
    accepted = client.post(f"{base}/accept-above/?offset=0&limit=3", {"threshold": 0.0},
                           format="json").json()  # fmt: skip
    assert accepted == client.get(f"{base}/?offset=0&limit=3").json()
    assert len(accepted["beads"]) == 3 and "source_sentences" not in accepted
    assert all(b["decision"] == "accepted" or b["null"] for b in accepted["beads"])
    assert accepted["counts"]["accepted"] == dp.beads.filter(decision="accepted").count() > 0


def test_a_page_of_the_review_reads_nothing_of_the_documents_whole(project, lead):
    """The review page, a page of its state, accepting above a threshold: the answer's size
    does not grow with the documents, no statement reads an uploaded file, and the sentences
    are read only through the database's JSON functions (the page's sentences, or a count).
    Learning from the decisions reads no uploaded file either."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    api, browser = client_for(lead), Client()
    browser.force_login(lead)
    sizes = {}
    for sentences in (12, 600):
        dp = _aligned_pair(project, lead, sentences)
        with CaptureQueriesContext(connection) as queries:
            answer = api.get(f"/api/document-pairs/{dp.pk}/?offset=5&limit=5")
            page = browser.get(f"/documents/{dp.pk}/review/")
            accepted = api.post(f"/api/document-pairs/{dp.pk}/accept-above/?offset=0&limit=5",
                                {"threshold": 0.5}, format="json")  # fmt: skip
        # read now: the connection's log keeps the last 9,000 statements only
        statements = [q["sql"] for q in queries.captured_queries]
        learnt = api.post(f"/api/document-pairs/{dp.pk}/learn/")
        assert answer.status_code == 200 and page.status_code == 200
        assert accepted.status_code == 200 and learnt.status_code == 202
        with CaptureQueriesContext(connection) as learning:  # it needs the sentences
            run_job(learnt.json()["id"])
        assert not [q for q in learning.captured_queries if "_original" in q["sql"]]
        sizes[sentences] = len(answer.content)
        for sql in statements:
            assert "_original" not in sql, sql
            if "_sentences" in sql:
                picks = ("json_extract(", "jsonb_path_query_array(", "array_length(")
                assert any(pick in sql for pick in picks), sql
    assert abs(sizes[600] - sizes[12]) < 60  # the numbers in it grow by a digit or two


@pytest.mark.parametrize("count", [1, 2, 89, 90, 91, 181, 400])
def test_a_pages_sentences_are_picked_out_whatever_their_number(project, lead, count):
    """However many sentences a page holds (SQLite reads them in chunks of paths), each index
    gets its own sentence, in any order of the indices."""
    from annotator.documents.selectors import _sentences_at

    dp = _aligned_pair(project, lead, 450)
    wanted = set(random.Random(count).sample(range(450), count))
    got = _sentences_at(dp.pk, "source", wanted)
    assert got == {k: dp.source_sentences[k] for k in wanted} and len(got) == count


def test_learning_is_a_job_whose_result_says_what_it_learnt(project, lead):
    """``learn/`` answers 202 with a job; run, it scores the pending beads (the likeliest
    order then follows them) or says how many decisions it still needs. A second start while
    the first waits answers the same job."""

    client = client_for(lead)
    dp = _aligned_pair(project, lead, 40)
    url = f"/api/document-pairs/{dp.pk}/learn/"
    answer = client.post(url)
    assert answer.status_code == 202 and answer.json()["kind"] == "document-learn"
    assert client.post(url).json()["id"] == answer.json()["id"]  # one at a time
    run_job(answer.json()["id"])
    job = Job.objects.get(pk=answer.json()["id"])
    assert job.status == "succeeded" and job.result["trained"] is False
    assert "Needs 10 accepted and 10 rejected beads; has 0 and 0" in job.message

    beads = list(dp.beads.order_by("position"))
    for k, bead in enumerate(beads[:24]):
        services.decide(bead=bead, decision="accepted" if k % 2 else "rejected", user=lead)
    job_id = client.post(url).json()["id"]
    run_job(job_id)
    job = Job.objects.get(pk=job_id)
    assert job.result == {"trained": True, "decisions": 24, "accepted": 12, "predicted": 16}
    assert "Learnt from 24 decisions; 16 pending beads scored" in job.message
    assert dp.beads.filter(decision="pending", predicted__isnull=False).count() == 16
    page = client.get(f"/api/document-pairs/{dp.pk}/?order=likeliest&offset=0&limit=40").json()
    keys = [b["confidence"] if b["predicted"] is None else b["predicted"] for b in page["beads"]]
    assert keys == sorted(keys, reverse=True)
    assert all(b["predicted"] is not None for b in page["beads"] if b["decision"] == "pending")


@pytest.mark.parametrize("order", ["document", "likeliest"])
def test_a_long_pairs_whole_state_is_streamed_and_is_the_same_state(
    project, lead, monkeypatch, order
):
    """Above ``STREAM_ABOVE`` beads the whole state is written as it is read, a chunk of
    sentences or beads at a time: the same JSON as the state built whole, unpaired
    sentences, sent beads and learnt scores included."""
    from annotator.documents import api, selectors

    client = client_for(lead)
    dp = _aligned_pair(project, lead, 57)
    beads = list(dp.beads.order_by("position"))
    for k, bead in enumerate(beads):
        bead.predicted = None if k % 3 else round(k / 60, 4)
    Bead.objects.bulk_update(beads, ["predicted"])
    Bead.objects.filter(pk=beads[4].pk).update(target=[])
    services.decide(bead=dp.beads.get(position=5), decision="rejected", user=lead)
    services.accept_above(document_pair=dp, threshold=0.0, user=lead)
    services.send_to_annotation(document_pairs=[dp], subcorpus="s", user=lead, seed=False)
    monkeypatch.setattr(selectors, "STREAM_CHUNK", 4)  # many chunks of beads and sentences
    url = f"/api/document-pairs/{dp.pk}/?order={order}"
    built = client.get(url)
    assert not built.streaming
    monkeypatch.setattr(api, "STREAM_ABOVE", 10)
    streamed = client.get(url)
    assert streamed.status_code == 200 and streamed.streaming
    assert streamed["Content-Type"] == "application/json"
    whole = json.loads(b"".join(streamed.streaming_content))
    assert whole == built.json()
    assert whole["unaligned_target"] == [4] and whole["counts"]["sent"] > 0
    assert len(whole["source_sentences"]) == 57 and whole["order"] == order
