"""Issue 31, defect 6: on a project whose pairs were annotated by three people (MSR imported
with three annotators), the disagreement browser offered only A+B although the dashboard shows
A–C and B–C. It must offer, and list, every pair of annotators."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from alignment_core.agreement import score_alignments
from annotator.models import Membership, SentencePair, Subcorpus
from tests.app.report_data import WORDS, edited, random_alignment, submit

pytestmark = pytest.mark.django_db
NAMES = ("amy", "bob", "cat")


@pytest.fixture
def three_annotated(project):
    users = [get_user_model().objects.create_user(n, password="x" * 12) for n in NAMES]
    for user in users:
        Membership.objects.create(project=project, user=user, role=Membership.Role.ANNOTATOR)
    sub = Subcorpus.objects.create(project=project, name="msr")
    rng = np.random.default_rng(5)
    made = {}
    for k in range(6):
        n, m = (int(x) for x in rng.integers(4, 9, 2))
        pair = SentencePair.objects.create(
            project=project, subcorpus=sub, external_id=f"msr-{k}", position=k,
            source_tokens=[WORDS[x] for x in rng.integers(0, len(WORDS), n)],
            target_tokens=[WORDS[x] for x in rng.integers(0, len(WORDS), m)],
        )  # fmt: skip
        base = random_alignment(rng, n, m)
        links = [edited(rng, base, n, m) for _ in users]
        for user, slot, alignment in zip(users, (1, 2, None), links, strict=True):
            submit(pair, user, alignment, slot=slot)
        made[pair.pk] = (pair, dict(zip(NAMES, links, strict=True)))
    return made


def test_every_pair_of_the_three_annotators_is_offered_and_listed(
    client_for, lead, project, three_annotated
):
    url = reverse("project-disagreements", args=[project.pk])
    page = client_for(lead).get(url)
    assert page.status_code == 200
    assert page.context["found"].annotator_pairs == ["amy+bob", "amy+cat", "bob+cat"]
    html = page.content.decode()
    for key in ("amy+bob", "amy+cat", "bob+cat"):
        assert f'<option value="{key}"' in html
    for a, b in itertools.combinations(NAMES, 2):
        rows = client_for(lead).get(url, {"annotators": f"{a}+{b}"}).context["found"].rows
        assert {(r.first, r.second) for r in rows} == {(a, b)}
        assert {r.pair_id for r in rows} == set(three_annotated)
        ids = sorted(three_annotated)
        word, _ = score_alignments(
            (p.source_tokens, p.target_tokens, made[a], made[b])
            for p, made in (three_annotated[i] for i in ids)
        )
        expected = dict(zip(ids, (s.f1 for s in word.per_pair()), strict=True))
        assert {r.pair_id: r.word_f1 for r in rows} == expected
