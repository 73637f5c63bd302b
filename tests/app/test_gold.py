"""Gold with history (issue 8 §6): every write is a new version with a GoldRevision — imports
(and --replace-gold) included; a submitted single-annotated pair becomes gold; a lead reopens."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from annotator.gold.services.gold import (
    GoldError,
    gold_from_single_submission,
    set_gold,
)
from annotator.models import AnnotationRevision, Assignment, GoldAlignment, GoldRevision
from annotator.projects.services.assignment import AssignmentError, reopen_assignment
from tests.app.lead_helpers import save_work

pytestmark = pytest.mark.django_db


def test_each_write_is_a_new_version_and_every_version_is_kept(pair, lead):
    first = set_gold(pair=pair, links=[[0, 0, "S"]], origin="imported", note="from file")
    second = set_gold(pair=pair, links=[[1, 1, "P"], [0, 0, "S"]], origin="adjudicated",
                      author=lead, note="A was right")  # fmt: skip
    assert first.pk == second.pk and second.version == 2
    gold = GoldAlignment.objects.get(pair=pair)
    assert gold.links == [[0, 0, "S"], [1, 1, "P"]] and gold.adjudicator == lead
    history = list(GoldRevision.objects.filter(gold=gold).values_list("version", "origin", "links",
                                                                      "note"))  # fmt: skip
    assert history == [
        (1, "imported", [[0, 0, "S"]], "from file"),
        (2, "adjudicated", [[0, 0, "S"], [1, 1, "P"]], "A was right"),
    ]


def test_bad_links_or_origin_write_nothing(pair):
    with pytest.raises(ValidationError, match="target index 9"):
        set_gold(pair=pair, links=[[0, 9, "S"]], origin="imported")
    with pytest.raises(GoldError, match="origin"):
        set_gold(pair=pair, links=[], origin="guessed")
    assert not GoldAlignment.objects.exists() and not GoldRevision.objects.exists()


def write_edinburgh(path, links):
    record = {"id": "e1", "source": ["a", "b"], "target": ["b", "a"],
              "sure": links, "possible": []}  # fmt: skip
    path.write_text(json.dumps(record) + "\n")


def test_import_and_replace_gold_go_through_the_history(tmp_path, project):
    corpus = tmp_path / "gold.jsonl"
    write_edinburgh(corpus, [[0, 1]])
    args = ["import_corpus", str(corpus), "--project", project.name, "--as", "gold",
            "--no-progress"]  # fmt: skip
    call_command(*args, verbosity=0)
    write_edinburgh(corpus, [[1, 0]])
    call_command(*args, "--replace-gold", verbosity=0)
    gold = GoldAlignment.objects.get(pair__external_id="e1")
    assert gold.version == 2 and gold.links == [[1, 0, "S"]] and gold.origin == "imported"
    assert list(gold.revisions.values_list("version", "links")) == [
        (1, [[0, 1, "S"]]),
        (2, [[1, 0, "S"]]),
    ]


def test_a_submitted_single_pair_becomes_gold_a_double_waits(pair, annotator, make_user):
    single = Assignment.objects.create(pair=pair, annotator=annotator)
    save_work(single, [[1, 1, "S"]], submit=True)
    gold = gold_from_single_submission(assignment=single)
    assert gold.origin == "single" and gold.links == [[1, 1, "S"]] and gold.version == 1
    assert gold.revisions.get().author == annotator

    second = Assignment.objects.create(pair=pair, annotator=make_user("b"), slot=2)
    single.slot = 1
    single.save()
    save_work(second, [[0, 0, "S"]], submit=True)
    assert gold_from_single_submission(assignment=second) is None  # adjudication decides
    assert GoldAlignment.objects.get(pair=pair).version == 1


def test_trial_pairs_never_become_gold_from_a_submission(pair, annotator):
    pair.is_trial = True
    pair.save()
    a = Assignment.objects.create(pair=pair, annotator=annotator)
    save_work(a, [[0, 0, "S"]], submit=True)
    assert gold_from_single_submission(assignment=a) is None
    assert not GoldAlignment.objects.exists()


def test_reopen_sends_a_submitted_pair_back_with_a_reopen_revision(pair, annotator, lead):
    a = Assignment.objects.create(pair=pair, annotator=annotator)
    save_work(a, [[0, 0, "S"]], submit=True, edits=1)
    reopen_assignment(assignment=a, by=lead)
    a.refresh_from_db()
    assert a.status == "in_progress" and a.submitted_at is None
    revisions = list(
        AnnotationRevision.objects.filter(annotation__assignment=a).order_by("version")
    )
    assert [r.kind for r in revisions] == ["submit", "reopen"]
    assert revisions[-1].links == [[0, 0, "S"]] and revisions[-1].author == lead
    with pytest.raises(AssignmentError, match="only a submitted pair"):
        reopen_assignment(assignment=a, by=lead)


def test_submitting_through_the_annotation_service_makes_single_gold(pair, annotator):
    from annotator.grid.services import save_annotation, submit_annotation

    a = Assignment.objects.create(pair=pair, annotator=annotator)
    save_annotation(assignment=a, user=annotator, links=[[0, 0, "P"]], base_version=0)
    assert not GoldAlignment.objects.exists()  # an autosave is not gold
    submit_annotation(assignment=a, user=annotator, links=[[2, 3, "S"]], base_version=1)
    gold = GoldAlignment.objects.get(pair=pair)
    assert (gold.origin, gold.links, gold.version) == ("single", [[2, 3, "S"]], 1)
