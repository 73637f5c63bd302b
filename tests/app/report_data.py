"""Test data for the agreement dashboard: pairs with seeds and submitted annotations written
straight to the database, with the same alignments kept as plain values so that a test can
compute ``build_report`` independently of the app."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from django.utils import timezone

from alignment_core.alignment import Alignment
from annotator.models import (
    AlignerRun,
    Annotation,
    AnnotationRevision,
    Assignment,
    Membership,
    Project,
    SeedAlignment,
    SentencePair,
    Subcorpus,
)

WORDS = [
    "the",
    "a",
    "cat",
    "dog",
    "sat",
    "ran",
    "on",
    "in",
    "mat",
    "park",
    "big",
    "small",
    "man",
    "car",
    "bought",
    "new",
]


@dataclass
class Planned:
    """One pair as the test means it: tokens, seed and annotations in A/B (slot) order."""

    pair: SentencePair
    subcorpus: str
    source: list[str]
    target: list[str]
    seed: Alignment
    annotations: list[tuple[str, Alignment]] = field(default_factory=list)


def random_alignment(rng: np.random.Generator, n: int, m: int) -> Alignment:
    links = {(i, min(m - 1, i * m // n)) for i in range(n) if rng.random() < 0.8}
    links |= {(int(rng.integers(n)), int(rng.integers(m))) for _ in range(2)}
    sure = {link for link in links if rng.random() < 0.7}
    return Alignment.from_sets(sure, links - sure)


def edited(rng: np.random.Generator, a: Alignment, n: int, m: int) -> Alignment:
    """Another annotator's version of ``a``: a few links dropped, added, or made possible."""
    sure, poss = set(a.sure), set(a.possible)
    for link in sorted(sure | poss):
        r = rng.random()
        if r < 0.15:
            sure.discard(link)
            poss.discard(link)
        elif r < 0.3 and link in sure:
            sure.discard(link)
            poss.add(link)
    poss.add((int(rng.integers(n)), int(rng.integers(m))))
    return Alignment.from_sets(sure, poss - sure)


def submit(pair: SentencePair, user, alignment: Alignment, *, slot, seed=None) -> Assignment:
    """A submitted assignment with its annotation and one submit revision."""
    now = timezone.now()
    assignment = Assignment.objects.create(
        pair=pair,
        annotator=user,
        slot=slot,
        seed=seed,
        status=Assignment.Status.SUBMITTED,
        started_at=now,
        submitted_at=now,
    )
    annotation = Annotation.objects.create(
        assignment=assignment, links=alignment.to_links(), version=1
    )
    AnnotationRevision.objects.create(
        annotation=annotation,
        version=1,
        kind=AnnotationRevision.Kind.SUBMIT,
        links=alignment.to_links(),
        author=user,
    )
    return assignment


def change_annotation(assignment: Assignment, alignment: Alignment) -> None:
    """What a reopen-and-resubmit leaves behind: a new version and a new revision."""
    annotation = assignment.annotation
    annotation.version += 1
    annotation.links = alignment.to_links()
    annotation.save()
    AnnotationRevision.objects.create(
        annotation=annotation,
        version=annotation.version,
        kind=AnnotationRevision.Kind.SUBMIT,
        links=alignment.to_links(),
        author=assignment.annotator,
    )


def build_project(
    project: Project, users: dict, *, pairs: int = 12, seed: int = 1, trial: bool = True
) -> list[Planned]:
    """``pairs`` pairs in two subcorpora; every pair annotated by two of ``users`` (names →
    users) in slot order, every third by one only, one extra trial pair (if ``trial``).
    Assignments of slot 2 are created before slot 1 on odd pairs, so that id order and slot
    order disagree. Returns the non-trial pairs as planned (the trial pair last, if any)."""
    rng = np.random.default_rng(seed)
    names = sorted(users)
    for name in names:
        Membership.objects.get_or_create(
            project=project, user=users[name], defaults={"role": Membership.Role.ANNOTATOR}
        )
    subs = {s: Subcorpus.objects.get_or_create(project=project, name=s)[0] for s in ("mtc", "news")}
    run = AlignerRun.objects.create(project=project)
    planned = []
    for k in range(pairs + (1 if trial else 0)):
        n, m = (int(x) for x in rng.integers(4, 10, 2))
        source = [WORDS[x] for x in rng.integers(0, len(WORDS), n)]
        target = [WORDS[x] for x in rng.integers(0, len(WORDS), m)]
        sub = ("mtc", "news")[k % 2]
        pair = SentencePair.objects.create(
            project=project,
            subcorpus=subs[sub],
            external_id=f"p{k}",
            position=k,
            source_tokens=source,
            target_tokens=target,
            is_trial=k == pairs,
        )
        seed_alignment = random_alignment(rng, n, m)
        seed_row = SeedAlignment.objects.create(
            pair=pair, aligner_run=run, links=seed_alignment.to_links()
        )
        first = edited(rng, seed_alignment, n, m)
        second = edited(rng, first, n, m)
        who = [names[(k + j) % len(names)] for j in range(2)]
        p = Planned(pair, sub, source, target, seed_alignment)
        if k % 3 == 2 and k != pairs:
            submit(pair, users[who[0]], first, slot=None, seed=seed_row)
            p.annotations = [(who[0], first)]
        else:
            order = [(2, who[1], second), (1, who[0], first)]
            if k % 2 == 0:
                order.reverse()
            # the seed the annotators started from is on the assignment only for odd pairs;
            # even ones fall back to the pair's latest seed (the same one here)
            for slot, name, alignment in order:
                submit(pair, users[name], alignment, slot=slot, seed=seed_row if k % 2 else None)
            p.annotations = [(who[0], first), (who[1], second)]
        planned.append(p)
    return planned
