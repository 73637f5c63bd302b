"""A project set up for the grid's tests (imported by test modules of tests/app and tests/api).

Two annotators share pair "a" (doubly annotated) and the trial pair; the OTHER annotator has
saved an alignment of both, and pair "a" has gold. Their links use cells that nothing the
annotator may see contains, so a response that leaks them can be caught by looking for the
cells (:func:`leaked_cells`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest

from annotator.grid.services import save_annotation, submit_annotation
from annotator.models import (
    AlignerRun,
    Assignment,
    GoldAlignment,
    Membership,
    Project,
    SeedAlignment,
    SentencePair,
    Subcorpus,
)

SOURCE = ["the", "two", "sides", "reached", "an", "agreement", "today"]  # 7 tokens
TARGET = ["both", "parties", "arrived", "at", "a", "deal", "this", "morning"]  # 8 tokens
SEED_LINKS = [[0, 0, "P"], [1, 0, "S"], [2, 1, "S"]]
# Cells used only by other people's alignments and by gold: never shown to the annotator.
OTHERS_LINKS = [[5, 6, "S"], [6, 7, "P"]]
GOLD_LINKS = [[4, 6, "S"], [6, 6, "P"]]
TRIAL_REFERENCE = [[1, 0, "S"], [2, 1, "S"], [3, 2, "S"], [3, 3, "S"]]
SECRET_CELLS = {(5, 6), (6, 7), (4, 6), (6, 6)}


def posterior_bytes(rows: int, cols: int) -> bytes:
    return bytes((17 * i + 5 * j) % 256 for i in range(rows) for j in range(cols))


@dataclass
class Grid:
    project: Project
    annotator: Any
    other: Any
    lead: Any
    outsider: Any
    pairs: dict[str, SentencePair]
    mine: dict[str, Assignment]
    theirs: dict[str, Assignment]
    run: AlignerRun
    extra: dict[str, Any] = field(default_factory=dict)


def leaked_cells(text: str) -> set[tuple[int, int]]:
    """Secret cells that appear as a link ``[i, j, "S"|"P"]`` (or ``[i, j]``) in ``text``."""
    found = set()
    for i, j in SECRET_CELLS:
        if re.search(rf"\[\s*{i}\s*,\s*{j}\s*[,\]]", text):
            found.add((i, j))
    return found


def as_text(response) -> str:
    content = response.content.decode()
    try:  # compare JSON in one spelling whatever the renderer's separators
        return json.dumps(json.loads(content))
    except ValueError:
        return content


@pytest.fixture
def grid(make_user) -> Grid:
    project = Project.objects.create(name="Grid project", guidelines="# Align *content* words")
    lead = make_user("lead_user")
    annotator = make_user("annotator_user")
    other = make_user("other_annotator")
    outsider = make_user("outsider")
    Membership.objects.create(project=project, user=lead, role=Membership.Role.LEAD)
    for user in (annotator, other):
        Membership.objects.create(project=project, user=user, role=Membership.Role.ANNOTATOR)
    news = Subcorpus.objects.create(project=project, name="news")
    pairs = {}
    for position, name in enumerate(["a", "b", "c", "trial"]):
        pairs[name] = SentencePair.objects.create(
            project=project,
            subcorpus=news if name != "c" else None,
            external_id=f"pair-{name}",
            position=position,
            source_tokens=SOURCE,
            target_tokens=TARGET,
            is_trial=name == "trial",
        )
    run = AlignerRun.objects.create(project=project)
    seeds = {
        name: SeedAlignment.objects.create(
            pair=pair,
            aligner_run=run,
            links=SEED_LINKS,
            posteriors=posterior_bytes(len(SOURCE), len(TARGET)),
        )
        for name, pair in pairs.items()
    }
    mine = {
        name: Assignment.objects.create(pair=pair, annotator=annotator, seed=seeds[name])
        for name, pair in pairs.items()
    }
    theirs = {
        name: Assignment.objects.create(pair=pairs[name], annotator=other, seed=seeds[name])
        for name in ("a", "trial")
    }
    save_annotation(assignment=theirs["a"], user=other, links=OTHERS_LINKS, base_version=0)
    submit_annotation(assignment=theirs["trial"], user=other, links=OTHERS_LINKS, base_version=0)
    GoldAlignment.objects.create(pair=pairs["a"], origin="adjudicated", links=GOLD_LINKS)
    GoldAlignment.objects.create(pair=pairs["trial"], origin="imported", links=TRIAL_REFERENCE)
    return Grid(project, annotator, other, lead, outsider, pairs, mine, theirs, run)
