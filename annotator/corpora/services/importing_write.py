"""The alignment half of an import: annotators, conflict checks, and the bulk writes.

Called by ``annotator.corpora.services.importing`` inside its transaction, after the pairs exist.
Gold: GoldAlignment(origin=imported). Seed: one AlignerRun(kind=imported) per file and its
SeedAlignment rows. Annotator: a submitted Assignment, its Annotation (version 1) and that
annotation's first AnnotationRevision, as if the annotator had saved once and submitted.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from django.contrib.auth import get_user_model
from django.utils import timezone

from alignment_core import AlignedPair
from alignment_core.progress import Progress
from annotator.corpora.services.importing_report import ImportReport, Problem
from annotator.gold.services.gold import set_gold_many
from annotator.links import to_alignment
from annotator.models import (
    AlignerRun,
    Annotation,
    AnnotationRevision,
    Assignment,
    GoldAlignment,
    Membership,
    Project,
    SeedAlignment,
)

T = TypeVar("T")
BATCH_SIZE = 2000


def chunks(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


@dataclass
class AlignmentLoad:
    """One alignment to load: the record it came from and where it goes.

    ``pair_pk`` is None until a new pair is written. The conflict check fills ``unchanged``
    (the same links are already there) and ``existing`` (the gold row to replace, or an
    assignment not yet started to complete).
    """

    position: int
    pair: AlignedPair
    pair_pk: int | None
    annotator: str | None = None
    unchanged: bool = False
    existing: Any = None


def resolve_annotators(
    *,
    project: Project,
    names: Sequence[str],
    given: Any,
    report: ImportReport,
    create: bool,
) -> dict[str, Any]:
    """Username -> User for the annotators named, with an annotator Membership each.

    ``given`` is a User passed by the caller (used as is). Missing users are created only
    with ``create``: inactive, with an unusable password — they are people whose past work is
    imported, and a lead activates them (sets a password) if they are to log in.
    """
    User = get_user_model()
    users: dict[str, Any] = {}
    if given is not None:
        users[given.get_username()] = given
    wanted = [n for n in names if n not in users]
    if wanted:
        field = User.USERNAME_FIELD
        users.update(
            (u.get_username(), u) for u in User._default_manager.filter(**{f"{field}__in": wanted})
        )
    if not create:
        return users
    for name in wanted:
        if name not in users:
            users[name] = User._default_manager.create_user(name, password=None, is_active=False)
            report.users_created.append(name)
    members = set(
        Membership.objects.filter(project=project, user__in=users.values()).values_list(
            "user_id", flat=True
        )
    )
    Membership.objects.bulk_create(
        [
            Membership(project=project, user=u, role=Membership.Role.ANNOTATOR)
            for u in users.values()
            if u.pk not in members
        ]
    )
    return users


def check_alignment_conflicts(
    *,
    mode: str | None,
    loads: Sequence[AlignmentLoad],
    users: dict[str, Any],
    replace_gold: bool,
    file: str,
) -> list[Problem]:
    """Problems loading onto pairs already stored; marks unchanged and replaceable loads."""
    if mode == "gold":
        return _gold_conflicts(loads, replace_gold=replace_gold, file=file)
    if mode == "annotator":
        return _annotator_conflicts(loads, users=users, file=file)
    return []


def _gold_conflicts(
    loads: Sequence[AlignmentLoad], *, replace_gold: bool, file: str
) -> list[Problem]:
    """Gold with other links is a problem unless replacing it was asked for."""
    problems: list[Problem] = []
    by_pair = {load.pair_pk: load for load in loads}
    for chunk in chunks(list(by_pair), 500):
        for gold in GoldAlignment.objects.filter(pair_id__in=chunk):
            load = by_pair[gold.pair_id]
            if to_alignment(gold.links) == load.pair.alignment:
                load.unchanged = True
            elif replace_gold:
                load.existing = gold
            else:
                problems.append(
                    Problem(
                        f"the pair already has a gold alignment ({gold.origin}) with other "
                        "links; replacing it must be asked for (replace gold)",
                        file=file,
                        pair_id=load.pair.id,
                        position=load.position,
                    )
                )
    return problems


def _annotator_conflicts(
    loads: Sequence[AlignmentLoad], *, users: dict[str, Any], file: str
) -> list[Problem]:
    """An annotator's work is never overwritten: an assignment not started is completed, the
    same submitted links are unchanged, anything else is a problem."""
    problems: list[Problem] = []
    keyed = {
        (load.pair_pk, users[load.annotator].pk): load for load in loads if load.annotator in users
    }
    pair_pks = list({pk for pk, _ in keyed})
    user_pks = list({uid for _, uid in keyed})
    for chunk in chunks(pair_pks, 500):
        rows = Assignment.objects.filter(pair_id__in=chunk, annotator_id__in=user_pks)
        for assignment in rows.select_related("annotation"):
            load = keyed.get((assignment.pair_id, assignment.annotator_id))
            if load is None:
                continue
            annotation = getattr(assignment, "annotation", None)
            if annotation is None and assignment.status == Assignment.Status.ASSIGNED:
                load.existing = assignment  # assigned, not started: complete it
            elif (
                annotation is not None
                and assignment.status == Assignment.Status.SUBMITTED
                and to_alignment(annotation.links) == load.pair.alignment
            ):
                load.unchanged = True
            else:
                problems.append(
                    Problem(
                        f"annotator {load.annotator!r} already has work on this pair "
                        f"({assignment.status}, other links); an annotator's work is never "
                        "overwritten",
                        file=file,
                        pair_id=load.pair.id,
                        position=load.position,
                    )
                )
    return problems


def write_alignments(
    *,
    project: Project,
    mode: str,
    loads: Sequence[AlignmentLoad],
    users: dict[str, Any],
    replace_gold: bool,
    file: str,
    report: ImportReport,
    tick: Progress,
    seed_runs: dict[str, Any] | None = None,
) -> None:
    """Write every load not marked unchanged, counting links by kind (and by annotator).
    ``seed_runs`` (file name → AlignerRun) keeps one run per file when a file's chunks are
    written one after the other."""
    todo = [load for load in loads if not load.unchanged]
    report.alignments_unchanged += len(loads) - len(todo)
    for load in todo:
        alignment = load.pair.alignment
        assert alignment is not None
        report.add_links(len(alignment.sure), len(alignment.possible), load.annotator)
    report.alignments_written += len(todo)
    tick(0.0, f"writing {len(todo)} alignments as {mode}")
    if mode == "gold":
        _write_gold(todo, file, report)
    elif mode == "seed":
        run = _seed_run(project, file, len(todo), report, {} if seed_runs is None else seed_runs)
        SeedAlignment.objects.bulk_create(
            [SeedAlignment(pair_id=ld.pair_pk, aligner_run=run, links=_links(ld)) for ld in todo],
            batch_size=BATCH_SIZE,
        )
    elif mode == "annotator":
        _write_annotations(todo, users)
    tick(1.0, "alignments written")


def _seed_run(
    project: Project, file: str, count: int, report: ImportReport, runs: dict[str, Any]
) -> AlignerRun:
    """The file's imported AlignerRun: made for its first chunk, counting the later ones."""
    run = runs.get(file)
    if run is None:
        run = AlignerRun.objects.create(
            project=project,
            kind=AlignerRun.Kind.IMPORTED,
            note=f"imported from {file}"[:300],
            config={"file": file, "pairs": count},
        )
        report.aligner_runs.append(run.pk)
        runs[file] = run
    else:
        run.config = {**run.config, "pairs": run.config["pairs"] + count}
        run.save(update_fields=["config"])
    return run


def _links(load: AlignmentLoad) -> list[list[Any]]:
    assert load.pair.alignment is not None
    return load.pair.alignment.to_links()


def _write_gold(loads: Sequence[AlignmentLoad], file: str, report: ImportReport) -> None:
    # Through the gold service, so an import (and --replace-gold) is a new gold version
    # with its GoldRevision, never an overwrite.
    report.gold_replaced += sum(1 for load in loads if load.existing is not None)
    set_gold_many(
        links_by_pair={ld.pair_pk: _links(ld) for ld in loads},
        origin=GoldAlignment.Origin.IMPORTED,
        note=f"imported from {file}",
    )


def _write_annotations(loads: Sequence[AlignmentLoad], users: dict[str, Any]) -> None:
    """Submitted assignments, their annotations (v1) and first revisions (0 s spent)."""
    now = timezone.now()
    submitted = Assignment.Status.SUBMITTED
    completed = []
    assignments = []
    for load in loads:
        if load.existing is not None:
            a = load.existing
            a.status, a.started_at, a.submitted_at = submitted, now, now
            completed.append(a)
        else:
            a = Assignment(
                pair_id=load.pair_pk,
                annotator=users[load.annotator],
                status=submitted,
                started_at=now,
                submitted_at=now,
            )
            assignments.append(a)
    Assignment.objects.bulk_update(completed, ["status", "started_at", "submitted_at"])
    Assignment.objects.bulk_create(assignments, batch_size=BATCH_SIZE)
    by_key = {(a.pair_id, a.annotator_id): a for a in [*completed, *assignments]}
    if any(a.pk is None for a in assignments):  # a backend that does not return primary keys
        fresh = Assignment.objects.filter(
            pair_id__in=[a.pair_id for a in assignments],
            annotator_id__in={a.annotator_id for a in assignments},
        )
        by_key.update(((a.pair_id, a.annotator_id), a) for a in fresh)
    annotations = [
        Annotation(
            assignment=by_key[(ld.pair_pk, users[ld.annotator].pk)], links=_links(ld), version=1
        )
        for ld in loads
    ]
    Annotation.objects.bulk_create(annotations, batch_size=BATCH_SIZE)
    if any(a.pk is None for a in annotations):
        fresh = Annotation.objects.filter(assignment__in=[a.assignment for a in annotations])
        pks = dict(fresh.values_list("assignment_id", "pk"))
        for a in annotations:
            a.pk = pks[a.assignment.pk]
    AnnotationRevision.objects.bulk_create(
        [
            AnnotationRevision(
                annotation_id=a.pk,
                version=1,
                links=a.links,
                author=users[ld.annotator],
                elapsed_seconds=0.0,
            )
            for ld, a in zip(loads, annotations, strict=True)
        ],
        batch_size=BATCH_SIZE,
    )
