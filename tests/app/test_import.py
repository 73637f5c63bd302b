"""The import service on pairs already read: each load mode, subcorpora, trial pairs, the
length-ratio filter, conflicts with what the project holds, and the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from alignment_core import AlignedPair, Alignment
from annotator.corpora.services.importing import CorpusImportError, import_pairs
from annotator.models import (
    AlignerRun,
    Annotation,
    AnnotationRevision,
    Assignment,
    GoldAlignment,
    Job,
    Membership,
    Project,
    SeedAlignment,
    SentencePair,
    Subcorpus,
)

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).parent / "fixtures" / "import"
TABLES = (
    Project,
    Membership,
    Subcorpus,
    SentencePair,
    AlignerRun,
    SeedAlignment,
    Assignment,
    Annotation,
    AnnotationRevision,
    GoldAlignment,
    Job,
)


def snapshot() -> dict[str, object]:
    """Every table's rows (as values), so "unchanged" means unchanged, not just same counts."""
    out: dict[str, object] = {
        m.__name__: sorted(map(repr, m.objects.order_by("pk").values())) for m in TABLES
    }
    out["User"] = sorted(get_user_model().objects.values_list("username", "is_active"))
    return out


def ap(
    pid: str,
    source: str,
    target: str,
    sure=(),
    possible=(),
    *,
    aligned: bool = True,
    subcorpus: str = "",
    annotator: str | None = None,
    **metadata,
) -> AlignedPair:
    """An AlignedPair from whitespace-separated sentences and (i, j) link lists."""
    return AlignedPair(
        pid,
        source.split(),
        target.split(),
        Alignment.from_sets(sure, possible) if aligned else None,
        subcorpus,
        annotator,
        dict(metadata),
    )


def three_pairs() -> list[AlignedPair]:
    return [
        ap("a", "the cat sat", "a cat was sitting", [(1, 1), (2, 3)], [(0, 0)]),
        ap("b", "good morning", "morning", [(1, 0)]),
        ap("c", "rain fell", "it rained", [(0, 1)], [(1, 1)]),
    ]


# -- load modes -----------------------------------------------------------------------------


def test_text_only_creates_pairs_in_order_and_ignores_alignments_with_a_warning(project):
    report = import_pairs(project=project, pairs=three_pairs(), source_name="in.jsonl")
    pairs = list(SentencePair.objects.filter(project=project).order_by("position"))
    assert [p.external_id for p in pairs] == ["a", "b", "c"]
    assert [p.position for p in pairs] == [1, 2, 3]
    assert pairs[0].source_tokens == ["the", "cat", "sat"]
    assert pairs[0].target_tokens == ["a", "cat", "was", "sitting"]
    assert (report.pairs_read, report.pairs_created, report.pairs_matched) == (3, 3, 0)
    assert GoldAlignment.objects.count() == SeedAlignment.objects.count() == 0
    assert Assignment.objects.count() == 0
    assert report.links == {"sure": 0, "possible": 0}
    assert any("not loaded" in w for w in report.warnings)
    json.dumps(report.as_dict())  # JSON-able


def test_gold_mode_writes_imported_gold_and_counts_links(project):
    report = import_pairs(
        project=project, pairs=three_pairs(), load_alignments_as="gold", source_name="g.jsonl"
    )
    golds = {g.pair.external_id: g for g in GoldAlignment.objects.select_related("pair")}
    assert set(golds) == {"a", "b", "c"}
    assert golds["a"].origin == GoldAlignment.Origin.IMPORTED
    assert golds["a"].links == [[0, 0, "P"], [1, 1, "S"], [2, 3, "S"]]
    assert "g.jsonl" in golds["a"].note
    assert report.links == {"sure": 4, "possible": 2}
    assert report.alignments_written == 3


def test_seed_mode_writes_one_imported_aligner_run_per_import(project):
    report = import_pairs(
        project=project, pairs=three_pairs(), load_alignments_as="seed", source_name="s.pharaoh"
    )
    run = AlignerRun.objects.get()
    assert run.kind == AlignerRun.Kind.IMPORTED
    assert "s.pharaoh" in run.note
    assert report.aligner_runs == [run.pk]
    assert SeedAlignment.objects.filter(aligner_run=run).count() == 3
    import_pairs(project=project, pairs=three_pairs(), load_alignments_as="seed")
    assert AlignerRun.objects.count() == 2
    assert SeedAlignment.objects.count() == 6


def test_annotator_mode_with_a_user_writes_submitted_work_with_its_first_revision(
    project, make_user
):
    user = make_user("ann")
    report = import_pairs(
        project=project, pairs=three_pairs(), load_alignments_as="annotator", annotator=user
    )
    assignments = Assignment.objects.filter(annotator=user)
    assert assignments.count() == 3
    for a in assignments:
        assert a.status == Assignment.Status.SUBMITTED
        assert a.started_at is not None and a.submitted_at is not None
        assert a.annotation.version == 1
        revision = a.annotation.revisions.get()
        assert (revision.version, revision.author, revision.elapsed_seconds) == (1, user, 0.0)
        assert revision.links == a.annotation.links
    membership = Membership.objects.get(project=project, user=user)
    assert membership.role == Membership.Role.ANNOTATOR
    assert report.links_by_annotator == {"ann": {"sure": 4, "possible": 2}}
    assert report.users_created == []


def test_annotator_mode_takes_names_from_the_pairs_and_creates_inactive_users(project):
    pairs = [
        ap("a", "x y", "x y", [(0, 0)], annotator="alice"),
        ap("a", "x y", "x y", [(1, 1)], [(0, 0)], annotator="bob"),
        ap("b", "z", "z", [(0, 0)], annotator="alice"),
    ]
    report = import_pairs(project=project, pairs=pairs, load_alignments_as="annotator")
    User = get_user_model()
    alice, bob = User.objects.get(username="alice"), User.objects.get(username="bob")
    assert not alice.is_active and not alice.has_usable_password()
    assert report.users_created == ["alice", "bob"]
    assert Assignment.objects.filter(annotator=alice).count() == 2
    assert Assignment.objects.filter(annotator=bob).count() == 1
    assert SentencePair.objects.count() == 2
    assert report.links_by_annotator == {
        "alice": {"sure": 2, "possible": 0},
        "bob": {"sure": 1, "possible": 1},
    }
    roles = set(Membership.objects.filter(project=project).values_list("role", flat=True))
    assert roles == {"annotator"}


def test_annotator_mode_without_any_name_is_refused(project):
    with pytest.raises(CorpusImportError, match="no annotator named"):
        import_pairs(project=project, pairs=three_pairs(), load_alignments_as="annotator")
    assert SentencePair.objects.count() == 0


def test_annotator_given_by_name_is_created_once(project):
    import_pairs(
        project=project, pairs=three_pairs()[:1], load_alignments_as="annotator", annotator="zoe"
    )
    report = import_pairs(
        project=project, pairs=three_pairs()[1:], load_alignments_as="annotator", annotator="zoe"
    )
    assert report.users_created == []
    assert Assignment.objects.filter(annotator__username="zoe").count() == 3


# -- subcorpora and trial pairs -------------------------------------------------------------


def test_subcorpus_option_fills_in_pairs_that_name_none(project):
    pairs = [ap("a", "x", "y", subcorpus="news"), ap("b", "x", "y")]
    report = import_pairs(project=project, pairs=pairs, subcorpus="mtc")
    got = dict(SentencePair.objects.values_list("external_id", "subcorpus__name"))
    assert got == {"a": "news", "b": "mtc"}
    assert sorted(report.subcorpora_created) == ["mtc", "news"]
    report = import_pairs(project=project, pairs=[ap("c", "x", "y", subcorpus="news")])
    assert report.subcorpora_created == []
    assert Subcorpus.objects.filter(project=project).count() == 2


def test_pairs_without_any_subcorpus_have_none(project):
    import_pairs(project=project, pairs=[ap("a", "x", "y")])
    assert SentencePair.objects.get().subcorpus is None


def test_trial_metadata_flags_the_pair_and_is_not_kept_in_metadata(project):
    pairs = [
        ap("t", "x", "y", trial=True, name="t"),
        ap("u", "x", "y", trial="false"),
        ap("v", "x", "y", trial="yes"),
    ]
    report = import_pairs(project=project, pairs=pairs)
    got = {p.external_id: p for p in SentencePair.objects.all()}
    assert (got["t"].is_trial, got["u"].is_trial, got["v"].is_trial) == (True, False, True)
    assert got["t"].metadata == {"name": "t"}
    assert report.trial_pairs_created == 2


def test_unreadable_trial_value_is_refused(project):
    with pytest.raises(CorpusImportError, match="trial"):
        import_pairs(project=project, pairs=[ap("t", "x", "y", trial="perhaps")])


# -- length-ratio filter --------------------------------------------------------------------


def test_length_ratio_filter_drops_and_reports_pairs_above_the_bound(project):
    pairs = [
        ap("ok", "a b c", "a b", [(0, 0)]),  # 1.5
        ap("long", "a b c d e f", "a b", [(0, 0)]),  # 3.0
        ap("edge", "a b", "a b c d", [(0, 0)]),  # 2.0 exactly: kept
    ]
    report = import_pairs(
        project=project, pairs=pairs, load_alignments_as="gold", max_length_ratio=2.0
    )
    assert set(SentencePair.objects.values_list("external_id", flat=True)) == {"ok", "edge"}
    assert GoldAlignment.objects.count() == 2
    assert [(d.id, d.ratio, d.source_length, d.target_length) for d in report.dropped] == [
        ("long", 3.0, 6, 2)
    ]
    assert report.as_dict()["dropped"] == [
        {"id": "long", "ratio": 3.0, "source_length": 6, "target_length": 2}
    ]
    assert any("dropped 1" in line for line in report.summary_lines())


def test_length_ratio_below_one_is_a_bad_option(project):
    with pytest.raises(ValueError, match="at least 1"):
        import_pairs(project=project, pairs=three_pairs(), max_length_ratio=0.5)


# -- bad input, options, dry run, progress -------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (ap("z", "x", "y", [(1, 0)]), "source index 1 out of range"),
        (ap("z", "x", "y", [(0, 3)]), "target index 3 out of range"),
        (AlignedPair("z", [], ["y"]), "empty source sentence"),
        (AlignedPair("z", ["x y"], ["y"]), "contains whitespace"),
        (AlignedPair("", ["x"], ["y"]), "empty pair id"),
        (ap("a", "x", "y"), "duplicate pair id"),
        (ap("z", "x", "y", subcorpus="s" * 101), "subcorpus name longer"),
    ],
)
def test_a_bad_pair_at_the_end_refuses_the_whole_import(project, bad, reason):
    import_pairs(project=project, pairs=three_pairs(), load_alignments_as="gold")
    before = snapshot()
    pairs = [*three_pairs(), ap("d", "x", "y", [(0, 0)]), bad]
    pairs[0] = ap("a", "the cat sat", "a cat was sitting", [(1, 1), (2, 3)], [(0, 0)])
    with pytest.raises(CorpusImportError, match=reason) as err:
        import_pairs(project=project, pairs=pairs, load_alignments_as="gold", source_name="in")
    assert err.value.file == "in"
    assert "pair #5 of the input" in str(err.value)
    assert snapshot() == before


def test_every_problem_is_listed_not_only_the_first(project):
    pairs = [ap("a", "x", "y", [(3, 0)]), ap("b", "x", "y", [(0, 3)]), ap("a", "x", "y")]
    with pytest.raises(CorpusImportError) as err:
        import_pairs(project=project, pairs=pairs)
    assert len(err.value.problems) == 3


@pytest.mark.parametrize(
    "options",
    [
        {"load_alignments_as": "gold-ish"},
        {"on_token_mismatch": "ignore"},
        {"subcorpus": ""},
        {"subcorpus": " news"},
        {"annotator": "someone"},
        {"load_alignments_as": "gold", "annotator": "someone"},
    ],
)
def test_bad_options_are_value_errors(project, options):
    with pytest.raises(ValueError):
        import_pairs(project=project, pairs=three_pairs(), **options)


def test_dry_run_reports_everything_and_writes_nothing(project):
    before = snapshot()
    report = import_pairs(
        project=project,
        pairs=three_pairs(),
        load_alignments_as="annotator",
        annotator="x",
        dry_run=True,
    )
    assert report.dry_run and report.pairs_created == 3 and report.users_created == ["x"]
    assert report.links == {"sure": 4, "possible": 2}
    assert snapshot() == before


def test_progress_goes_from_0_to_1(project):
    seen: list[tuple[float, str]] = []
    import_pairs(
        project=project,
        pairs=three_pairs(),
        load_alignments_as="seed",
        progress=lambda fraction, msg: seen.append((fraction, msg)),
    )
    fractions = [f for f, _ in seen]
    assert fractions[0] == 0 and fractions[-1] == 1.0
    assert fractions == sorted(fractions)
    assert all(isinstance(m, str) and m for _, m in seen)
