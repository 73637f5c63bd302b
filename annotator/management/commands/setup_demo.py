"""``manage.py setup_demo``: a demo project to try gridalign with, idempotently.

Creates (or brings back) the project "Demo: paraphrase alignment" with guidelines, the users
``lead`` (its lead), ``annotator1`` and ``annotator2`` with the fixed demo passwords below
(reset on every run, so the printed ones always work), and 36 English paraphrase pairs in
three subcorpora (mtc, news, novels): six trial pairs, each with a reference alignment (so trial
feedback shows from the first pair), and twelve others with a gold alignment.
Re-running never duplicates anything; pairs already in the project are left as they are.

The demo passwords are published (README, this file), so the command refuses to run unless
DEBUG is on (``make run``) or ``--force`` is given: on a production database it would hand
anyone who read the README a lead's account.

So that ``make run`` shows a working grid, the demo project is then seeded once with the
aligner (only while it has no seeds) and its pairs are assigned to ``annotator1`` and
``annotator2`` (:func:`assign_demo_pairs`). By default the seeding runs here, synchronously;
with ``--seed-in-worker`` (what ``make run`` passes, issue 34) a seed job is queued instead, for
the Celery worker that ``rundev`` starts next: the login page is served some seconds sooner,
the project page shows the job's progress, and the job points the assignments at the seeds
once written (nobody's started work is touched). A pair opened before that says the seeds are
on their way (the grid page shows the job) and takes its seed on the next opening.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from alignment_core.formats import read_pairs
from annotator.corpora.services.importing import import_pairs
from annotator.models import Assignment, Membership, Project, SeedAlignment, SentencePair
from annotator.seeding.services import seed_project, start_seed_job

DEMO_PROJECT = "Demo: paraphrase alignment"
DEMO_PAIRS = Path(__file__).resolve().parents[2] / "demo_data" / "demo_pairs.jsonl"
# (username, password, role) — demo credentials, printed by the command; never use in production
DEMO_USERS = [
    ("lead", "gridalign-lead", Membership.Role.LEAD),
    ("annotator1", "gridalign-annotator1", Membership.Role.ANNOTATOR),
    ("annotator2", "gridalign-annotator2", Membership.Role.ANNOTATOR),
]

DESCRIPTION = (
    "English paraphrase pairs in three subcorpora — translations of the same Chinese "
    "sentences (mtc), rewritten news (news) and retold novel passages (novels) — to align "
    "word by word, as in Cohn, Callison-Burch & Lapata (2008)."
)

GUIDELINES = """\
# Aligning paraphrases

You see two sentences that say (nearly) the same thing. Mark which words of one correspond
to which words of the other. Each cell of the grid is a **source word × target word** pair.

## Sure and possible

* **Sure (S)**: the words mean the same thing here — *agreement* ↔ *deal*.
* **Possible (P)**: a plausible but uncertain link — e.g. *the* ↔ *a*, or a word that is part
  of a looser correspondence. When in doubt between S and P, choose **P**.
* Leave a word **unaligned** when nothing in the other sentence expresses it.

## Phrases

Align the **smallest units** that correspond. When a phrase can only be matched as a whole
(an idiom, a rewording), link **every word of one to every word of the other** — a block:

| source | target |
|---|---|
| *reached* | *arrived at* |
| *in a row* | *consecutive* |
| *without saying a word* | *silently* |

Mark the inner links of a block as sure when the whole phrases mean the same thing, and as
possible when the correspondence is loose.

## Details

1. Identical words are aligned like any others (*trade* ↔ *trade*).
2. Punctuation is aligned when it plays the same role (final full stops).
3. Function words (*the*, *of*, *to*) go with their phrase if they have no own counterpart.
4. Do not compare notes with other annotators: every pair is annotated blind.

Trial pairs are for practice: they never become part of the gold corpus.
"""


def setup_demo(*, seed_in_worker: bool = False) -> dict[str, Any]:
    """Create or complete the demo project; return what was done (for the command's output).
    ``seed_in_worker``: queue the first seeding as a job (``done["seed_job"]``) instead of
    running it here."""
    User = get_user_model()
    done: dict[str, Any] = {"users_created": [], "pairs_imported": 0}
    with transaction.atomic():
        users = {}
        for username, password, _role in DEMO_USERS:
            user, created = User.objects.get_or_create(username=username)
            user.set_password(password)
            user.is_active = True
            user.save()
            users[username] = user
            if created:
                done["users_created"].append(username)
        project, done["project_created"] = Project.objects.get_or_create(
            name=DEMO_PROJECT,
            defaults={
                "description": DESCRIPTION,
                "guidelines": GUIDELINES,
                "monolingual": True,
                "source_language": "en",
                "target_language": "en",
                "created_by": users["lead"],
            },
        )
        for username, _password, role in DEMO_USERS:
            Membership.objects.update_or_create(
                project=project, user=users[username], defaults={"role": role}
            )
        present = set(project.pairs.values_list("external_id", flat=True))
        missing = [p for p in read_pairs(DEMO_PAIRS, "jsonl") if p.id not in present]
        if missing:
            report = import_pairs(
                project=project,
                pairs=missing,
                load_alignments_as="gold",
                source_name=DEMO_PAIRS.name,
            )
            done["pairs_imported"] = report.pairs_created
    done["project"] = project
    done["seeded"], done["seed_job"] = 0, None
    if not SeedAlignment.objects.filter(pair__project=project).exists():
        if seed_in_worker:  # an unfinished seed job of the project is reused, not doubled
            done["seed_job"] = start_seed_job(project=project, user=None, use_gold=True)
        else:
            done["seeded"] = seed_project(project=project, use_gold=True)["pairs"]
    done["assignments_created"] = assign_demo_pairs(
        project=project, annotators=[users["annotator1"], users["annotator2"]]
    )
    return done


def assign_demo_pairs(*, project: Project, annotators: list[Any]) -> int:
    """Give every non-trial pair to one of the two annotators in turn, every third of them to
    both (slots 1 and 2, as the paper's doubly annotated third), and every trial pair to both.

    Small and deterministic, for the demo only (the lead's assignment service is the real
    one). Idempotent: an existing (pair, annotator) assignment — started, submitted or
    withdrawn — is never touched or recreated. Returns how many were created."""
    existing = set(
        Assignment.objects.filter(pair__project=project).values_list("pair_id", "annotator_id")
    )
    latest_seed = dict(
        SeedAlignment.objects.filter(pair__project=project)
        .order_by("pair_id", "id")
        .values_list("pair_id", "id")
    )  # later ids overwrite earlier ones: the latest seed of each pair
    first, second = annotators
    wanted: list[tuple[SentencePair, Any, int | None]] = []
    regular = 0
    for pair in project.pairs.order_by("position", "id"):
        if pair.is_trial:
            wanted += [(pair, first, None), (pair, second, None)]
            continue
        one, other = (first, second) if regular % 2 == 0 else (second, first)
        if regular % 3 == 0:
            wanted += [(pair, one, 1), (pair, other, 2)]
        else:
            wanted.append((pair, one, None))
        regular += 1
    new = [
        Assignment(pair=pair, annotator=user, slot=slot, seed_id=latest_seed.get(pair.pk))
        for pair, user, slot in wanted
        if (pair.pk, user.pk) not in existing
    ]
    Assignment.objects.bulk_create(new)
    return len(new)


class Command(BaseCommand):
    help = (
        "Create the demo project, its users and its pairs (safe to run again). The users get "
        "published passwords: refused unless DEBUG is on or --force is given."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--force",
            action="store_true",
            help="run with DEBUG off too (the demo users' passwords are public: not in production)",
        )
        parser.add_argument(
            "--seed-in-worker",
            action="store_true",
            help="queue the first seeding as a job for the Celery worker instead of running it "
            "here (make run: the worker that rundev starts runs it)",
        )

    def handle(
        self, *args: Any, force: bool = False, seed_in_worker: bool = False, **options: Any
    ) -> None:
        if not (settings.DEBUG or force):
            users = ", ".join(username for username, _password, _role in DEMO_USERS)
            raise CommandError(
                f"setup_demo sets the users {users} to passwords published in the README, so "
                "anyone could log in as the demo lead. DEBUG is off (a production setting?): "
                "refusing. Run it with DEBUG=true on a development database, or add --force "
                "if this database is a throwaway demo."
            )
        done = setup_demo(seed_in_worker=seed_in_worker)
        project = done["project"]
        pairs = SentencePair.objects.filter(project=project)
        state = "created" if done["project_created"] else "already there"
        self.stdout.write(
            f'Demo project "{project.name}" (id {project.pk}, {state}): {pairs.count()} pairs '
            f"({pairs.filter(is_trial=True).count()} trial, "
            f"{pairs.filter(gold__isnull=False).count()} with gold) in "
            f"{project.subcorpora.count()} subcorpora; {done['pairs_imported']} imported now."
        )
        if done["seeded"]:
            self.stdout.write(f"Seeded {done['seeded']} pairs with the aligner.")
        if done["seed_job"] is not None:
            self.stdout.write(
                f"Seed job {done['seed_job'].pk} queued: the worker seeds the pairs "
                "(the project page shows its progress)."
            )
        for username in ("annotator1", "annotator2"):
            mine = Assignment.objects.filter(
                pair__project=project, annotator__username=username, withdrawn_at__isnull=True
            )
            self.stdout.write(
                f"  {username}: {mine.count()} pairs assigned "
                f"({mine.filter(slot__isnull=False).count()} doubly annotated, "
                f"{mine.filter(pair__is_trial=True).count()} trial)"
            )
        self.stdout.write(f"{done['assignments_created']} assignments created now.")
        self.stdout.write("Log in at /accounts/login/ with (demo passwords, reset on each run):")
        for username, password, role in DEMO_USERS:
            self.stdout.write(f"  {username:<12} {password:<22} ({role})")
