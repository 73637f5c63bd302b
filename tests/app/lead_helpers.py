"""Helpers for the lead's tests: a small project with subcorpora, annotators, and work saved the
way an annotator saves it (an Annotation with its revisions)."""

from __future__ import annotations

from django.utils import timezone

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

WORDS = ["the", "cat", "sat", "on", "a", "mat", "near", "old", "red", "door"]


def make_pairs(project: Project, per_subcorpus: dict[str, int], trial: int = 0) -> list:
    pairs, n = [], 0
    for name, count in per_subcorpus.items():
        sub = Subcorpus.objects.get_or_create(project=project, name=name)[0]
        for _ in range(count):
            pairs.append(
                SentencePair(
                    project=project,
                    subcorpus=sub,
                    external_id=f"{name}-{n}",
                    position=n,
                    source_tokens=WORDS[: 3 + n % 4],
                    target_tokens=WORDS[1 : 5 + n % 3],
                )  # fmt: skip
            )
            n += 1
    for _ in range(trial):
        pairs.append(
            SentencePair(
                project=project,
                external_id=f"trial-{n}",
                position=n,
                is_trial=True,
                source_tokens=WORDS[:3],
                target_tokens=WORDS[:4],
            )  # fmt: skip
        )
        n += 1
    return SentencePair.objects.bulk_create(pairs)


def add_annotators(project: Project, make_user, names: list[str]) -> list:
    users = [make_user(name) for name in names]
    for user in users:
        Membership.objects.create(project=project, user=user, role=Membership.Role.ANNOTATOR)
    return users


def seed_all(project: Project, links=((0, 0, "S"),)) -> AlignerRun:
    run = AlignerRun.objects.create(project=project)
    SeedAlignment.objects.bulk_create(
        SeedAlignment(pair=p, aligner_run=run, links=[list(x) for x in links])
        for p in project.pairs.all()
    )
    return run


def save_work(
    assignment: Assignment,
    links: list,
    *,
    submit: bool = False,
    seconds: float = 30.0,
    edits: int | None = None,
) -> Annotation:
    """One save (autosave, or submit) of ``links`` by the assignment's annotator."""
    now = timezone.now()
    annotation = Annotation.objects.filter(assignment=assignment).first()
    if annotation is None:
        annotation = Annotation.objects.create(assignment=assignment, links=links, version=1)
    else:
        annotation.version += 1
        annotation.links = links
        annotation.save()
    AnnotationRevision.objects.create(
        annotation=annotation,
        version=annotation.version,
        kind="submit" if submit else "autosave",
        links=links,
        edits_from_seed=edits,
        author=assignment.annotator,
        elapsed_seconds=seconds,
    )
    assignment.status = "submitted" if submit else "in_progress"
    assignment.started_at = assignment.started_at or now
    assignment.submitted_at = now if submit else None
    assignment.save()
    return annotation
