"""The pair tally PostgreSQL keeps (PairTally, migration 0010): after pairs and seeds are
written, moved and deleted in every way the app and the admin can, the project's counts per
subcorpus (all, trial, seeded) read from the tally equal the pairs counted one by one."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from django.db import connection

from annotator.models import AlignerRun, Project, SeedAlignment, SentencePair, Subcorpus
from annotator.projects.selectors.projects import project_pair_total, subcorpus_counts
from tests.conftest import need

# PostgreSQL's triggers keep the tally (SQLite counts as before): not in CI's SQLite pass
pytestmark = [pytest.mark.django_db, pytest.mark.integration]


def counted_one_by_one(project: Project) -> dict[str, tuple[int, int, int]]:
    """name → (pairs, trial, seeded), read pair by pair in Python (the oracle)."""
    seeded = set(
        SeedAlignment.objects.filter(pair__project=project).values_list("pair_id", flat=True)
    )
    counts: Counter = Counter()
    for pk, sub, trial in SentencePair.objects.filter(project=project).values_list(
        "pk", "subcorpus__name", "is_trial"
    ):
        counts[(sub or "", "pairs")] += 1
        counts[(sub or "", "trial")] += trial
        counts[(sub or "", "seeded")] += pk in seeded
    names = {name for name, _ in counts}
    return {n: (counts[(n, "pairs")], counts[(n, "trial")], counts[(n, "seeded")]) for n in names}


def from_tally(project: Project) -> dict[str, tuple[int, int, int]]:
    return {
        c.name: (c.pairs, c.trial, c.seeded)
        for c in subcorpus_counts(project_ids=[project.pk])[project.pk]
        if c.pairs
    }


def pairs(project, sub, start, n, trial_every=0):
    return SentencePair.objects.bulk_create(
        SentencePair(project=project, subcorpus=sub, external_id=f"p{k}", position=k,
                     source_tokens=["a"], target_tokens=["b"],
                     is_trial=bool(trial_every) and k % trial_every == 0)
        for k in range(start, start + n)
    )  # fmt: skip


def seed(run, chosen):
    SeedAlignment.objects.bulk_create(SeedAlignment(pair=p, aligner_run=run) for p in chosen)


def test_the_tally_follows_every_write_of_pairs_and_seeds():
    need(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://...)")
    project = Project.objects.create(name="tallied")
    other = Project.objects.create(name="beside it")
    news, novels = (Subcorpus.objects.create(project=project, name=n) for n in ("news", "nov"))
    a = pairs(project, news, 0, 30, trial_every=7)
    b = pairs(project, novels, 100, 20)
    c = pairs(project, None, 200, 5)
    pairs(other, None, 0, 9)  # another project's pairs never count here
    first = AlignerRun.objects.create(project=project)
    second = AlignerRun.objects.create(project=project)
    seed(first, a[:10] + c[:2])
    seed(second, a[5:15] + b[:4])  # half of them seeded already: counted once
    assert from_tally(project) == counted_one_by_one(project)
    assert project_pair_total(project_id=project.pk) == 55

    moved = a[6]  # seeded twice, moves to another subcorpus and becomes a trial pair
    moved.subcorpus, moved.is_trial = novels, True
    moved.save()
    SentencePair.objects.filter(pk=c[4].pk).update(subcorpus=news)  # unseeded, moves
    SentencePair.objects.filter(pk=b[10].pk).update(metadata={"note": "x"})  # nothing moves
    assert from_tally(project) == counted_one_by_one(project)

    second.delete()  # its seeds go; pairs seeded by the first run stay seeded
    assert from_tally(project) == counted_one_by_one(project)
    SeedAlignment.objects.filter(pair=a[0]).delete()
    a[1].delete()  # a seeded pair: its seed goes first, then the pair
    b[19].delete()
    assert from_tally(project) == counted_one_by_one(project)
    assert project_pair_total(project_id=project.pk) == 53
    assert project_pair_total(project_id=other.pk) == 9


def test_the_api_pair_list_gives_the_tallied_count(client, make_user):
    need(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://...)")
    from annotator.models import Membership

    project = Project.objects.create(name="listed")
    lead = make_user("tally_lead")
    Membership.objects.create(project=project, user=lead, role=Membership.Role.LEAD)
    pairs(project, None, 0, 60, trial_every=10)
    client.force_login(lead)
    whole = client.get(f"/api/pairs/?project={project.pk}&page=2").json()
    assert whole["count"] == 60 and len(whole["results"]) == 10
    trial = client.get(f"/api/pairs/?project={project.pk}&trial=true").json()
    assert trial["count"] == 6  # a filter: counted, not tallied


def test_the_lists_read_the_tallied_counts(client, make_user):
    """The subcorpora and aligner-runs lists give each row's count from the tallies."""
    need(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://...)")
    from annotator.models import Membership

    project = Project.objects.create(name="runs")
    lead = make_user("runs_lead")
    Membership.objects.create(project=project, user=lead, role=Membership.Role.LEAD)
    news = Subcorpus.objects.create(project=project, name="news")
    Subcorpus.objects.create(project=project, name="empty")
    written = pairs(project, news, 0, 12)
    first, second = (AlignerRun.objects.create(project=project) for _ in range(2))
    seed(first, written[:7])
    seed(second, written)
    SeedAlignment.objects.filter(aligner_run=second, pair__in=written[:2]).delete()
    client.force_login(lead)
    subs = client.get(f"/api/subcorpora/?project={project.pk}").json()["results"]
    assert {s["name"]: s["pairs"] for s in subs} == {"news": 12, "empty": 0}
    runs = client.get(f"/api/aligner-runs/?project={project.pk}").json()["results"]
    assert {r["id"]: r["seeds"] for r in runs} == {first.pk: 7, second.pk: 10}


def test_folding_keeps_the_sums_in_one_row_a_key():
    need(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://...)")
    from annotator.models import PairTally, SeedTally
    from annotator.projects.services.tallies import fold_tallies

    project = Project.objects.create(name="folded")
    news = Subcorpus.objects.create(project=project, name="news")
    run = AlignerRun.objects.create(project=project)
    for start in range(0, 50, 10):  # five statements of pairs, five of seeds
        seed(run, pairs(project, news, start, 10, trial_every=4))
    before = from_tally(project)
    assert PairTally.objects.filter(project_id=project.pk).count() == 10
    assert fold_tallies(project_id=project.pk)
    assert PairTally.objects.filter(project_id=project.pk).count() == 1
    assert SeedTally.objects.filter(aligner_run_id=run.pk).get().seeds == 50
    assert from_tally(project) == before == counted_one_by_one(project)


def plan_nodes(node: dict):
    yield node
    for child in node.get("Plans", []):
        yield from plan_nodes(child)


def test_the_seed_triggers_probe_each_pair_by_its_key():
    """The seed triggers' statements reach the pairs only by a primary-key probe per written
    pair, and the seeds by their pair index, even when the planner knows nothing of the seeds
    (a seeding writes them faster than autovacuum analyses them): a join that read the whole
    pairs table per 2,000-seed statement took a million-pair seeding past the hour. Checked on
    the plans of the statements themselves, over stand-ins for their transition tables, with
    the planner set against loops."""
    need(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL=postgres://...)")
    from importlib import import_module

    m = import_module("annotator.migrations.0014_seed_tally_probes")
    project = Project.objects.create(name="probed")
    run = AlignerRun.objects.create(project=project, kind=AlignerRun.Kind.ALIGNER)
    written = pairs(project, None, 0, 6000)
    with connection.cursor() as cur:
        cur.execute("ANALYZE annotator_sentencepair")
    seed(run, written)
    plans = {}
    with connection.cursor() as cur:
        for table in ("new_seeds", "old_seeds"):
            cur.execute(f"CREATE TEMP TABLE {table} AS SELECT * FROM annotator_seedalignment "
                        "ORDER BY id DESC LIMIT 2000")  # fmt: skip
        # the planner told to avoid loops (as if it judged the statement's pairs too many to
        # probe one by one): a join would read the pairs whole; the statements cannot
        cur.execute("SET LOCAL enable_nestloop = off")
        for name in ("SEEDS_INSERTED", "SEEDS_DELETED"):
            cur.execute("EXPLAIN (FORMAT JSON) " + getattr(m, name))
            plans[name] = list(plan_nodes(cur.fetchone()[0][0]["Plan"]))
    for name, nodes in plans.items():
        on_pairs = [n for n in nodes if n.get("Relation Name") == "annotator_sentencepair"]
        assert on_pairs, name
        for node in on_pairs:
            assert node["Node Type"] in ("Index Scan", "Index Only Scan"), (name, node)
            assert re.fullmatch(r"\(id = \w+\.pair_id\)", node.get("Index Cond", "")), (name, node)
        on_seeds = [n for n in nodes if n.get("Relation Name") == "annotator_seedalignment"]
        assert on_seeds and all(
            re.fullmatch(r"\(pair_id = \w+\.pair_id\)", n.get("Index Cond", n.get("Recheck Cond")))
            for n in on_seeds
        ), (name, on_seeds)
