"""The lead's pair browser and read-only pair view (issue 31): filters that find the pairs,
every alignment of a pair with its history, and the blind rule (annotators see none of it)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from annotator.models import (
    Annotation,
    AnnotationRevision,
    Assignment,
    GoldAlignment,
    GoldRevision,
    Membership,
    SentencePair,
    Subcorpus,
)
from annotator.projects.selectors.pair_browser import link_f1


@pytest.fixture
def second(make_user, project):
    user = make_user("second_annotator")
    Membership.objects.create(project=project, user=user, role=Membership.Role.ANNOTATOR)
    return user


def submitted(pair, user, links, slot):
    a = Assignment.objects.create(
        pair=pair, annotator=user, status="submitted", slot=slot, submitted_at=timezone.now()
    )
    ann = Annotation.objects.create(assignment=a, links=links, version=2)
    AnnotationRevision.objects.create(annotation=ann, version=1, links=links[:1], author=user)
    AnnotationRevision.objects.create(annotation=ann, version=2, links=links, author=user,
                                      kind="submit", elapsed_seconds=42)  # fmt: skip
    return a


@pytest.fixture
def corpus(project, annotator, second):
    news = Subcorpus.objects.create(project=project, name="news")
    novels = Subcorpus.objects.create(project=project, name="novels")
    agree = SentencePair.objects.create(project=project, subcorpus=news, external_id="n-1",
        source_tokens=["the", "cat"], target_tokens=["a", "cat"], position=1)  # fmt: skip
    differ = SentencePair.objects.create(project=project, subcorpus=novels, external_id="v-2",
        source_tokens=["he", "left"], target_tokens=["he", "went", "away"], position=2)  # fmt: skip
    SentencePair.objects.create(project=project, subcorpus=novels, external_id="v-3",
        source_tokens=["rain"], target_tokens=["showers"], position=3)  # fmt: skip
    submitted(agree, annotator, [[0, 0, "S"], [1, 1, "S"]], 1)
    submitted(agree, second, [[0, 0, "S"], [1, 1, "S"]], 2)
    flagged = submitted(differ, annotator, [[0, 0, "S"], [1, 1, "S"]], 1)
    flagged.flag = "unsure"
    flagged.save()
    submitted(differ, second, [[0, 0, "S"], [1, 2, "P"]], 2)
    gold = GoldAlignment.objects.create(pair=agree, links=[[0, 0, "S"], [1, 1, "S"]],
                                        origin="adjudicated", version=1)  # fmt: skip
    GoldRevision.objects.create(gold=gold, version=1, links=gold.links, origin="adjudicated")
    return {"agree": agree, "differ": differ}


def ids(response) -> list[str]:
    return [row["pair"].external_id for row in response.context["rows"]]


def test_link_f1_counts_cells_and_knows_missing_work():
    assert link_f1([[0, 0, "S"], [1, 1, "S"]], [[0, 0, "P"], [1, 2, "S"]]) == 0.5
    assert link_f1([], []) == 1.0 and link_f1(None, []) is None


def test_filters_find_pairs_by_words_subcorpus_flag_annotator_and_agreement(client, lead, corpus):
    client.force_login(lead)
    url = f"/projects/{corpus['agree'].project_id}/pairs/"
    assert ids(client.get(url)) == ["n-1", "v-2", "v-3"]
    assert ids(client.get(url, {"q": "went"})) == ["v-2"]
    assert ids(client.get(url, {"q": "n-1"})) == ["n-1"]
    assert ids(client.get(url, {"subcorpus": "novels"})) == ["v-2", "v-3"]
    assert ids(client.get(url, {"status": "unassigned"})) == ["v-3"]
    assert ids(client.get(url, {"status": "gold"})) == ["n-1"]
    assert ids(client.get(url, {"flag": "any"})) == ["v-2"]
    assert ids(client.get(url, {"annotator": "second_annotator"})) == ["n-1", "v-2"]
    assert ids(client.get(url, {"max_agreement": "0.9"})) == ["v-2"]
    page = client.get(url).content.decode()
    assert f'href="/projects/{corpus["agree"].project_id}/pairs/{corpus["agree"].pk}/"' in page


def test_the_pair_view_shows_every_alignment_with_its_history(client, lead, corpus):
    client.force_login(lead)
    pair = corpus["agree"]
    response = client.get(f"/projects/{pair.project_id}/pairs/{pair.pk}/")
    layers = response.context["layers"]
    assert [layer.title for layer in layers] == ["annotator_user", "second_annotator", "Gold"]
    assert [h["links"] for h in layers[0].history] == [1, 2]
    assert layers[0].history[1]["seconds"] == 42
    overlay = client.get(f"/projects/{pair.project_id}/pairs/{pair.pk}/?view=overlay")
    cell = overlay.context["overlay_rows"][1]["cells"][1]
    assert sorted(key for key, _ in cell) == ["a0", "a1", "gold"]


@pytest.mark.parametrize(("who", "code"), [("annotator", 403), ("outsider", 404)])
def test_annotators_never_see_others_work_here(client, request, corpus, who, code):
    client.force_login(request.getfixturevalue(who))
    pair = corpus["agree"]
    assert client.get(f"/projects/{pair.project_id}/pairs/").status_code == code
    assert client.get(f"/projects/{pair.project_id}/pairs/{pair.pk}/").status_code == code


def test_an_earlier_gold_version_is_restored_as_a_new_revision(client, lead, corpus):
    from annotator.gold.services.gold import set_gold

    pair = corpus["agree"]
    set_gold(pair=pair, links=[], origin="adjudicated", author=lead)  # v2: gold replaced by less
    client.force_login(lead)
    url = f"/projects/{pair.project_id}/pairs/{pair.pk}/gold/restore/"
    assert (
        b"Restore gold version 1"
        in client.get(f"/projects/{pair.project_id}/pairs/{pair.pk}/").content
    )
    response = client.post(url, {"version": "1"})
    assert response.status_code == 302
    gold = GoldAlignment.objects.get(pair=pair)
    assert gold.version == 3 and gold.links == [[0, 0, "S"], [1, 1, "S"]]
    assert [r.links for r in gold.revisions.order_by("version")] == [
        gold.links, [], gold.links,
    ]  # fmt: skip
    assert gold.revisions.get(version=3).note == "restored version 1"
    client.post(url, {"version": "3"})  # the current one: refused, nothing written
    assert GoldAlignment.objects.get(pair=pair).version == 3


def test_annotators_cannot_restore_gold(client, annotator, corpus):
    pair = corpus["agree"]
    client.force_login(annotator)
    url = f"/projects/{pair.project_id}/pairs/{pair.pk}/gold/restore/"
    assert client.post(url, {"version": "1"}).status_code == 403
    assert GoldAlignment.objects.get(pair=pair).version == 1


def test_the_browser_pages_counts_up_to_its_cap_and_never_counts_a_search(
    client, lead, project, monkeypatch
):
    from annotator.projects.selectors import pair_browser

    monkeypatch.setattr(pair_browser, "PAGE_SIZE", 2)
    monkeypatch.setattr(pair_browser, "COUNT_CAP", 5)
    SentencePair.objects.bulk_create(
        SentencePair(project=project, external_id=f"e{k}", position=k,
                     source_tokens=["same", f"w{k}"], target_tokens=["x"])
        for k in range(7)
    )  # fmt: skip
    client.force_login(lead)
    url = f"/projects/{project.pk}/pairs/"
    first = client.get(url)
    assert ids(first) == ["e0", "e1"] and first.context["rows"].total is None
    assert "More than 5 pairs" in first.content.decode()
    last = client.get(url, {"page": "9"})  # past the counted pages: the last of them
    assert last.context["rows"].number == 2 and ids(last) == ["e2", "e3"]
    found = client.get(url, {"q": "w6"})
    assert ids(found) == ["e6"] and not found.context["rows"].counted
    few = client.get(url, {"q": "w1"})
    assert few.context["rows"].total is None and not few.context["rows"].has_next
