"""The disagreement browser and the pair browser's agreement filter read stored scores
(``PairAgreement``), rescored for the pairs the database marked stale. Whatever happens to the
work (a reopen, a changed and resubmitted annotation, a withdrawal, a third annotator, a
second annotator on a singly annotated pair), the pages show exactly what scoring every doubly
annotated pair live shows (the computation they used before), on SQLite and PostgreSQL."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from alignment_core.agreement import score_alignments
from annotator.models import AgreementStale, Assignment, PairAgreement, SentencePair
from annotator.projects.selectors.pair_browser import link_f1
from annotator.projects.services.assignment import reopen_assignment, withdraw_assignment
from annotator.reports.selectors.reports import input_keys, pair_annotations
from tests.app.report_data import build_project, change_annotation, edited, submit

pytestmark = pytest.mark.django_db
NAMES = ("amy", "bob", "cat")


def live_disagreements(project) -> list[tuple]:
    """Every doubly annotated pair scored now: the browser's rows, in its order."""
    keys = input_keys(project=project)
    keys.rows = {pid: rows for pid, rows in keys.rows.items() if len(rows) >= 2}
    records = pair_annotations(keys=keys)
    sides = [(r, s) for r in records for s in itertools.combinations(r.annotations.items(), 2)]
    word, phrase = score_alignments((r.source, r.target, s[0][1], s[1][1]) for r, s in sides)
    rows = [
        (int(r.pair_id), s[0][0], s[1][0], w.f1, w.precision_sure, w.recall_sure, p.f1)
        for (r, s), w, p in zip(sides, word.per_pair(), phrase.per_pair(), strict=True)
    ]
    return sorted(rows, key=lambda row: (row[3] is None, row[3] or 0.0, row[0]))


def live_low_agreement(project, at_most: float) -> list[int]:
    """The pairs whose first two submitted annotations agree at most ``at_most``, in order."""
    found = []
    for pair in project.pairs.order_by("position", "id"):
        links = [
            a.annotation.links
            for a in Assignment.objects.filter(pair=pair, withdrawn_at__isnull=True)
            .select_related("annotation")
            .order_by("slot", "id")
            if a.status == Assignment.Status.SUBMITTED and hasattr(a, "annotation")
        ]
        agreement = link_f1(*links[:2]) if len(links) >= 2 else None
        if agreement is not None and agreement <= at_most:
            found.append(pair.pk)
    return found


def shown(client, project) -> tuple[list[tuple], list[int]]:
    page = client.get(f"/projects/{project.pk}/disagreements/")
    assert page.status_code == 200
    rows = [
        (r.pair_id, r.first, r.second, r.word_f1, r.word_precision, r.word_recall, r.phrase_f1)
        for r in page.context["found"].rows
    ]
    browser = client.get(f"/projects/{project.pk}/pairs/?max_agreement=0.8")
    assert browser.status_code == 200
    return rows, [row["pair"].pk for row in browser.context["rows"]]


def assert_as_live(client, project) -> None:
    rows, low = shown(client, project)
    assert rows == live_disagreements(project)
    assert low == live_low_agreement(project, 0.8)
    assert not AgreementStale.objects.filter(project_id=project.pk).exists()


def test_the_stored_scores_follow_every_change_of_the_work(client_for, lead, project):
    users = {n: get_user_model().objects.create_user(n, password="x" * 12) for n in NAMES}
    planned = build_project(project, users, pairs=12)
    client = client_for(lead)
    assert_as_live(client, project)
    assert PairAgreement.objects.filter(project=project).exists()

    doubly = [p for p in planned if len(p.annotations) == 2]
    first = Assignment.objects.filter(pair=doubly[0].pair, slot=1).get()
    reopen_assignment(assignment=first, by=lead)  # no longer final: the pair leaves the list
    assert_as_live(client, project)

    rng = np.random.default_rng(3)
    n, m = len(doubly[0].source), len(doubly[0].target)
    change_annotation(first, edited(rng, doubly[0].annotations[1][1], n, m))
    Assignment.objects.filter(pk=first.pk).update(
        status=Assignment.Status.SUBMITTED, submitted_at=timezone.now()
    )
    assert_as_live(client, project)  # back, with its new links

    second = Assignment.objects.filter(pair=doubly[1].pair, slot=2).get()
    withdraw_assignment(assignment=second)
    assert_as_live(client, project)

    third = next(u for name, u in users.items() if name not in dict(doubly[2].annotations))
    n, m = len(doubly[2].source), len(doubly[2].target)
    submit(doubly[2].pair, third, edited(rng, doubly[2].seed, n, m), slot=None)
    assert_as_live(client, project)  # three annotators: three rows for the pair

    single = next(p for p in planned if len(p.annotations) == 1)
    other = next(u for name, u in users.items() if name != single.annotations[0][0])
    n, m = len(single.source), len(single.target)
    submit(single.pair, other, edited(rng, single.seed, n, m), slot=None)
    assert_as_live(client, project)  # a second annotation: the pair joins the list


def test_a_read_rescores_only_the_pairs_marked_since_the_last(client_for, lead, project):
    users = {n: get_user_model().objects.create_user(n, password="x" * 12) for n in NAMES}
    planned = build_project(project, users, pairs=12)
    client = client_for(lead)
    shown(client, project)
    untouched = dict(PairAgreement.objects.values_list("pk", "pair_id"))
    doubly = [p for p in planned if len(p.annotations) == 2]
    first = Assignment.objects.filter(pair=doubly[0].pair, slot=1).get()
    reopen_assignment(assignment=first, by=lead)
    assert set(AgreementStale.objects.values_list("pair_id", flat=True)) == {doubly[0].pair.pk}
    shown(client, project)
    kept = dict(PairAgreement.objects.values_list("pk", "pair_id"))
    # every other pair's rows are the very rows written before: not rewritten
    assert kept == {pk: pid for pk, pid in untouched.items() if pid != doubly[0].pair.pk}


def test_a_pair_that_moves_subcorpus_or_becomes_a_trial_pair_is_filed_anew(
    client_for, lead, project
):
    users = {n: get_user_model().objects.create_user(n, password="x" * 12) for n in NAMES}
    planned = build_project(project, users, pairs=12)
    client = client_for(lead)
    url = f"/projects/{project.pk}/disagreements/"

    def listed(sub: str) -> set[int]:
        return {r.pair_id for r in client.get(url, {"subcorpus": sub}).context["found"].rows}

    doubly = [p.pair for p in planned if len(p.annotations) == 2 and not p.pair.is_trial]
    moved, made_trial = doubly[0], doubly[1]
    assert moved.pk in listed(moved.subcorpus.name)
    other = project.subcorpora.exclude(pk=moved.subcorpus_id).get()
    SentencePair.objects.filter(pk=moved.pk).update(subcorpus=other)
    SentencePair.objects.filter(pk=made_trial.pk).update(is_trial=True)
    assert moved.pk in listed(other.name)
    assert made_trial.pk not in listed(made_trial.subcorpus.name)  # trial pairs are left out
    every = {r[0] for r in live_disagreements(project)}
    assert listed("*") == every and made_trial.pk not in every
