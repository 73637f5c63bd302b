"""Importing onto a project that already holds pairs: matching by id, idempotent re-imports,
gold and annotator-work conflicts, and the token-mismatch policies."""

from __future__ import annotations

import pytest

from alignment_core import AlignedPair
from annotator.corpora.services.importing import CorpusImportError, import_pairs
from annotator.models import Annotation, Assignment, GoldAlignment, SentencePair
from tests.app.test_import import ap, snapshot, three_pairs

pytestmark = pytest.mark.django_db


# -- re-import: matching, idempotence and conflicts ------------------------------------------


def test_reimporting_the_same_text_matches_every_pair_and_creates_nothing(project):
    import_pairs(project=project, pairs=three_pairs())
    before = snapshot()
    report = import_pairs(project=project, pairs=three_pairs())
    assert (report.pairs_created, report.pairs_matched) == (0, 3)
    assert snapshot() == before


def test_new_pairs_continue_the_project_positions(project):
    import_pairs(project=project, pairs=three_pairs())
    import_pairs(
        project=project, pairs=[ap("d", "x", "y"), ap("a", "the cat sat", "a cat was sitting")]
    )
    assert SentencePair.objects.get(external_id="d").position == 4


def test_alignments_attach_to_pairs_already_present(project):
    import_pairs(project=project, pairs=three_pairs())
    report = import_pairs(project=project, pairs=three_pairs(), load_alignments_as="gold")
    assert (report.pairs_created, report.pairs_matched, report.alignments_written) == (0, 3, 3)


def test_identical_gold_is_unchanged_and_different_gold_needs_replace(project):
    import_pairs(project=project, pairs=three_pairs(), load_alignments_as="gold")
    report = import_pairs(project=project, pairs=three_pairs(), load_alignments_as="gold")
    assert (report.alignments_written, report.alignments_unchanged) == (0, 3)
    changed = three_pairs()
    changed[2] = ap("c", "rain fell", "it rained", [(0, 1), (1, 1)])
    before = snapshot()
    with pytest.raises(CorpusImportError, match="already has a gold alignment") as err:
        import_pairs(project=project, pairs=changed, load_alignments_as="gold", source_name="g2")
    assert err.value.pair_id == "c" and err.value.file == "g2"
    assert "pair #3" in str(err.value)
    assert snapshot() == before
    report = import_pairs(
        project=project, pairs=changed, load_alignments_as="gold", replace_gold=True
    )
    assert (report.gold_replaced, report.alignments_unchanged) == (1, 2)
    assert GoldAlignment.objects.get(pair__external_id="c").links == [[0, 1, "S"], [1, 1, "S"]]


def test_an_annotators_work_is_never_overwritten(project, make_user):
    user = make_user("ann")
    import_pairs(
        project=project, pairs=three_pairs(), load_alignments_as="annotator", annotator=user
    )
    again = import_pairs(
        project=project, pairs=three_pairs(), load_alignments_as="annotator", annotator=user
    )
    assert (again.alignments_written, again.alignments_unchanged) == (0, 3)
    changed = three_pairs()
    changed[0] = ap("a", "the cat sat", "a cat was sitting", [(1, 1)])
    before = snapshot()
    with pytest.raises(CorpusImportError, match="never overwritten"):
        import_pairs(project=project, pairs=changed, load_alignments_as="annotator", annotator=user)
    assert snapshot() == before


def test_work_in_progress_is_not_overwritten_either(project, make_user):
    user = make_user("ann")
    import_pairs(project=project, pairs=three_pairs())
    Assignment.objects.create(
        pair=SentencePair.objects.get(external_id="a"),
        annotator=user,
        status=Assignment.Status.IN_PROGRESS,
    )
    with pytest.raises(CorpusImportError, match="in_progress"):
        import_pairs(
            project=project, pairs=three_pairs(), load_alignments_as="annotator", annotator=user
        )


def test_an_assignment_not_yet_started_is_completed_by_the_import(project, make_user):
    user = make_user("ann")
    import_pairs(project=project, pairs=three_pairs())
    pending = Assignment.objects.create(
        pair=SentencePair.objects.get(external_id="a"), annotator=user
    )
    import_pairs(
        project=project, pairs=three_pairs(), load_alignments_as="annotator", annotator=user
    )
    pending.refresh_from_db()
    assert pending.status == Assignment.Status.SUBMITTED
    assert pending.annotation.links == [[0, 0, "P"], [1, 1, "S"], [2, 3, "S"]]
    assert Assignment.objects.filter(annotator=user).count() == 3


# -- token mismatches -----------------------------------------------------------------------


def mismatched() -> list[AlignedPair]:
    pairs = three_pairs()
    pairs[1] = ap("b", "good morning !", "morning", [(1, 0)])  # other shape
    pairs[2] = ap("c", "rain fell", "it rained.", [(0, 1)])  # same shape, other token
    return pairs


def test_token_mismatch_with_a_stored_pair_is_refused_by_default(project):
    import_pairs(project=project, pairs=three_pairs())
    before = snapshot()
    with pytest.raises(CorpusImportError) as err:
        import_pairs(
            project=project, pairs=mismatched(), load_alignments_as="gold", source_name="f"
        )
    message = str(err.value)
    assert "f: pair 'b' (pair #2 of the input): tokens differ" in message
    assert "source has 2 tokens stored, 3 in the file" in message
    assert "target token 1 is 'rained' stored, 'rained.' in the file" in message
    assert snapshot() == before


def test_token_mismatch_skip_reports_the_pairs_and_loads_the_rest(project):
    import_pairs(project=project, pairs=three_pairs())
    report = import_pairs(
        project=project, pairs=mismatched(), load_alignments_as="gold", on_token_mismatch="skip"
    )
    assert [(m.id, m.action) for m in report.token_mismatches] == [
        ("b", "skipped"),
        ("c", "skipped"),
    ]
    assert list(GoldAlignment.objects.values_list("pair__external_id", flat=True)) == ["a"]
    assert SentencePair.objects.get(external_id="c").target_tokens == ["it", "rained"]


def test_token_mismatch_same_shape_attaches_onto_the_stored_tokens(project, make_user):
    import_pairs(project=project, pairs=three_pairs())
    report = import_pairs(
        project=project,
        pairs=mismatched(),
        load_alignments_as="annotator",
        annotator=make_user("c"),
        on_token_mismatch="same-shape",
    )
    assert [(m.id, m.action, m.annotator) for m in report.token_mismatches] == [
        ("b", "skipped", "c"),
        ("c", "attached", "c"),
    ]
    assert Annotation.objects.count() == 2
    assert SentencePair.objects.get(external_id="c").target_tokens == ["it", "rained"]
