"""A synthetic project of any size, written by PostgreSQL itself (``INSERT ... SELECT`` over
``generate_series``): a million pairs with their seeds in a few minutes, for the scale
benchmarks only (the import's own speed is measured elsewhere).

The shape, the same at every size (``build_project(n_pairs=..., assigned=...)``):

* three subcorpora; pairs of 8–20 tokens a side from a 5,000-word vocabulary; the first ten
  pairs are trial pairs;
* one aligner run with a seed (links and a posterior-free row) for **every** pair, as a seeding
  of the whole corpus leaves it, and a succeeded seed job;
* a lead and two annotators (the same three users in every project built here), the work of an
  annotation set of ``assigned`` pairs spread evenly over the project (every
  ``n_pairs // assigned``-th pair, trial pairs included): each to one annotator in turn, every
  third one to both (slots 1 and 2), recorded under one assignment plan;
* of each annotator's assignments, two in five submitted and one in ten in progress, each with
  an annotation and a revision; a few flagged; the submitted pairs only one annotator had are
  gold (with a gold revision).

``assigned`` is the annotation work, not the corpus: at 1,000 and at 1,000,000 pairs the same
number of pairs is being annotated, so the comparison isolates the corpus's size (a lead who
seeds on the whole bitext and annotates a sample of it). ``benchmarks/scale_pages.py`` uses it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

TOKENS_SQL = (
    "(SELECT jsonb_agg('w' || ((k * {a} + t * {b}) %% 5000)) "
    "FROM generate_series(1, 8 + (k * {c}) %% 13) t)"
)

PAIRS_SQL = f"""
INSERT INTO annotator_sentencepair
    (project_id, subcorpus_id, external_id, position, source_tokens, target_tokens,
     is_trial, metadata, created_at)
SELECT %(project)s, (ARRAY[%(sub0)s, %(sub1)s, %(sub2)s]::bigint[])[1 + k %% 3],
       's' || k, k, {TOKENS_SQL.format(a=7919, b=104729, c=31)},
       {TOKENS_SQL.format(a=6133, b=15485863, c=17)}, k < 10, '{{}}'::jsonb, now()
FROM generate_series(0::bigint, %(n)s - 1) k
"""

SEEDS_SQL = """
INSERT INTO annotator_seedalignment (pair_id, aligner_run_id, links, uncertainty, created_at)
SELECT p.id, %(run)s, '[[0, 0, "S"], [1, 1, "S"], [2, 3, "P"]]'::jsonb,
       ((p.position::bigint * 7919) %% 1000) / 1000.0, now()
FROM annotator_sentencepair p WHERE p.project_id = %(project)s
"""

# The annotation set: every stride-th pair (trial pairs too), numbered j in position order.
WORK_CTE = """
WITH work AS (
    SELECT p.id AS pair_id, s.id AS seed_id,
           row_number() OVER (ORDER BY p.position) - 1 AS j
    FROM annotator_sentencepair p
    JOIN annotator_seedalignment s ON s.pair_id = p.id AND s.aligner_run_id = %(run)s
    WHERE p.project_id = %(project)s AND (p.position %% %(stride)s = 0 OR p.is_trial)
    ORDER BY p.position LIMIT %(assigned)s
), given AS (
    SELECT pair_id, seed_id, j, CASE WHEN j %% 2 = 0 THEN %(a)s ELSE %(b)s END AS annotator,
           CASE WHEN j %% 3 = 0 THEN 1 END AS slot FROM work
    UNION ALL
    SELECT pair_id, seed_id, j, CASE WHEN j %% 2 = 0 THEN %(b)s ELSE %(a)s END, 2
    FROM work WHERE j %% 3 = 0
)
"""

ASSIGNMENTS_SQL = (
    WORK_CTE
    + """
INSERT INTO annotator_assignment
    (pair_id, annotator_id, plan_id, slot, seed_id, status, flag, flag_note, flagged_at,
     assigned_at, started_at, submitted_at, last_activity_at)
SELECT pair_id, annotator, %(plan)s, slot, seed_id,
       CASE WHEN j %% 10 < 4 THEN 'submitted' WHEN j %% 10 = 4 THEN 'in_progress'
            ELSE 'assigned' END,
       CASE WHEN j %% 37 = 5 THEN 'unsure' ELSE '' END, '',
       CASE WHEN j %% 37 = 5 THEN now() END, now(),
       CASE WHEN j %% 10 < 5 THEN now() END, CASE WHEN j %% 10 < 4 THEN now() END,
       CASE WHEN j %% 10 < 5 THEN now() END
FROM given
"""
)

ANNOTATIONS_SQL = """
INSERT INTO annotator_annotation (assignment_id, links, version, created_at, updated_at)
SELECT a.id, '[[0, 0, "S"], [1, 2, "S"], [2, 3, "P"]]'::jsonb, 1, now(), now()
FROM annotator_assignment a JOIN annotator_sentencepair p ON p.id = a.pair_id
WHERE p.project_id = %(project)s AND a.status <> 'assigned'
"""

REVISIONS_SQL = """
INSERT INTO annotator_annotationrevision
    (annotation_id, version, kind, links, edits_from_seed, author_id, created_at,
     elapsed_seconds)
SELECT n.id, 1, CASE WHEN a.status = 'submitted' THEN 'submit' ELSE 'autosave' END, n.links,
       2, a.annotator_id, now(), 30 + a.id %% 60
FROM annotator_annotation n JOIN annotator_assignment a ON a.id = n.assignment_id
JOIN annotator_sentencepair p ON p.id = a.pair_id WHERE p.project_id = %(project)s
"""

GOLD_SQL = """
INSERT INTO annotator_goldalignment
    (pair_id, links, origin, note, version, adjudicator_id, created_at, updated_at)
SELECT n.links_pair, n.links, 'single', '', 1, NULL, now(), now()
FROM (
    SELECT a.pair_id AS links_pair, n.links
    FROM annotator_assignment a JOIN annotator_annotation n ON n.assignment_id = a.id
    JOIN annotator_sentencepair p ON p.id = a.pair_id
    WHERE p.project_id = %(project)s AND a.status = 'submitted' AND a.slot IS NULL
) n
"""

GOLD_REVISIONS_SQL = """
INSERT INTO annotator_goldrevision (gold_id, version, links, origin, note, author_id, created_at)
SELECT g.id, 1, g.links, g.origin, '', NULL, now()
FROM annotator_goldalignment g JOIN annotator_sentencepair p ON p.id = g.pair_id
WHERE p.project_id = %(project)s
"""


@dataclass(frozen=True)
class ScaleProject:
    project_id: int
    pairs: int
    lead_id: int
    annotator_ids: tuple[int, int]


def _users():
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    made = [
        users.filter(username=name).first() or users.create_user(name, password=None)
        for name in ("scale-lead", "scale-ann-a", "scale-ann-b")
    ]
    return made[0], made[1], made[2]


def existing_project(n_pairs: int, assigned: int = 600) -> ScaleProject | None:
    """The project of this shape built by an earlier run in this database, if any."""
    from annotator.models import Project

    project = Project.objects.filter(name=project_name(n_pairs, assigned)).first()
    if project is None:
        return None
    lead, a, b = _users()
    return ScaleProject(project.pk, n_pairs, lead.pk, (a.pk, b.pk))


def project_name(n_pairs: int, assigned: int) -> str:
    return f"scale {n_pairs} pairs, {assigned} assigned"


def build_project(*, n_pairs: int, assigned: int, log=print) -> ScaleProject:
    """Write the project (see the module's docstring) in one transaction; PostgreSQL only."""
    from django.db import connection, transaction

    from annotator.models import AlignerRun, AssignmentPlan, Job, Membership, Project, Subcorpus

    assert connection.vendor == "postgresql", "the scale project is written with PostgreSQL SQL"
    lead, a, b = _users()
    t0 = time.perf_counter()
    with transaction.atomic():
        project = Project.objects.create(name=project_name(n_pairs, assigned), created_by=lead)
        for user, role in ((lead, "lead"), (a, "annotator"), (b, "annotator")):
            Membership.objects.create(project=project, user=user, role=role)
        subs = [Subcorpus.objects.create(project=project, name=s) for s in ("mtc", "news", "nov")]
        job = Job.objects.create(
            kind="seed", project=project, status=Job.Status.SUCCEEDED, progress=100
        )
        run = AlignerRun.objects.create(project=project, job=job)
        plan = AssignmentPlan.objects.create(project=project, created_by=lead, params={})
        params = {
            "project": project.pk,
            "n": n_pairs,
            "run": run.pk,
            "plan": plan.pk,
            "a": a.pk,
            "b": b.pk,
            "assigned": assigned,
            "stride": max(1, n_pairs // assigned),
            **{f"sub{k}": s.pk for k, s in enumerate(subs)},
        }
        with connection.cursor() as cursor:
            for label, sql in (
                ("pairs", PAIRS_SQL),
                ("seeds", SEEDS_SQL),
                ("assignments", ASSIGNMENTS_SQL),
                ("annotations", ANNOTATIONS_SQL),
                ("revisions", REVISIONS_SQL),
                ("gold", GOLD_SQL),
                ("gold revisions", GOLD_REVISIONS_SQL),
            ):
                t = time.perf_counter()
                if label == "assignments":  # statistics for the rows just written: without
                    # them the planner joins a 300,000-pair annotation set to the seeds by a
                    # scan of the seeds per pair
                    cursor.execute("ANALYZE annotator_sentencepair, annotator_seedalignment")
                cursor.execute(sql, params)
                log(f"  {n_pairs:,}-pair project: {cursor.rowcount:,} {label} "
                    f"in {time.perf_counter() - t:.1f} s")  # fmt: skip
    log(f"  {n_pairs:,}-pair project built in {time.perf_counter() - t0:.1f} s")
    return ScaleProject(project.pk, n_pairs, lead.pk, (a.pk, b.pk))


def settle() -> None:
    """VACUUM (ANALYZE) every table the builder wrote: statistics and a visibility map, as
    an import or a seeding of that size leaves them (``settle_tables``)."""
    from annotator.corpora.services.maintenance import settle_tables
    from annotator.models import (
        Annotation,
        AnnotationRevision,
        Assignment,
        GoldAlignment,
        GoldRevision,
        SeedAlignment,
        SentencePair,
    )

    settle_tables(
        models=[
            SentencePair,
            SeedAlignment,
            Assignment,
            Annotation,
            AnnotationRevision,
            GoldAlignment,
            GoldRevision,
        ]  # fmt: skip
    )
