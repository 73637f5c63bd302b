"""``setup_demo`` seeds the demo project once and assigns its pairs to annotator1 and
annotator2 (a third to both, trial pairs to both), idempotently and without touching started
work, so that ``make run`` shows a working queue and grid."""

from __future__ import annotations

from collections import defaultdict

import pytest
from django.core.management import call_command
from django.utils import timezone

from annotator.grid.services import save_annotation
from annotator.management.commands.setup_demo import DEMO_PROJECT
from annotator.models import AlignerRun, Assignment, Project, SeedAlignment

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(capsys) -> Project:
    call_command("setup_demo", force=True)
    capsys.readouterr()
    return Project.objects.get(name=DEMO_PROJECT)


def by_pair(project) -> dict[int, list[Assignment]]:
    out = defaultdict(list)
    for a in Assignment.objects.filter(pair__project=project).select_related("annotator"):
        out[a.pair_id].append(a)
    return out


def test_demo_pairs_are_seeded_with_posteriors(demo):
    pairs = list(demo.pairs.all())
    assert AlignerRun.objects.filter(project=demo).count() == 1
    seeds = {s.pair_id: s for s in SeedAlignment.objects.filter(pair__project=demo)}
    assert set(seeds) == {p.pk for p in pairs}
    for pair in pairs:
        raw = seeds[pair.pk].posteriors
        assert raw is not None and len(bytes(raw)) == len(pair.source_tokens) * len(
            pair.target_tokens
        )
    assert sum(len(s.links) for s in seeds.values()) > len(pairs)  # seed links to show


def test_every_pair_assigned_a_third_to_both_trial_to_both(demo):
    assignments = by_pair(demo)
    pairs = list(demo.pairs.all())
    assert set(assignments) == {p.pk for p in pairs}
    doubles = 0
    for pair in pairs:
        rows = assignments[pair.pk]
        names = sorted(a.annotator.username for a in rows)
        assert set(names) <= {"annotator1", "annotator2"} and len(names) == len(set(names))
        assert all(a.seed and a.seed.pair_id == pair.pk for a in rows)  # starts from a seed
        if pair.is_trial:
            assert names == ["annotator1", "annotator2"]
        elif len(rows) == 2:
            doubles += 1
            assert sorted(a.slot for a in rows) == [1, 2]
        else:
            assert rows[0].slot is None
    regular = sum(not p.is_trial for p in pairs)
    assert abs(doubles - regular / 3) <= 1
    per_person = Assignment.objects.filter(pair__project=demo, pair__is_trial=False)
    counts = [
        per_person.filter(annotator__username=u).count() for u in ("annotator1", "annotator2")
    ]
    assert abs(counts[0] - counts[1]) <= 2 and sum(counts) == regular + doubles


def test_rerun_creates_nothing_and_leaves_started_work_alone(demo, capsys):
    a1 = Assignment.objects.filter(pair__project=demo, annotator__username="annotator1")
    started = a1.filter(pair__is_trial=False).order_by("pk").first()
    withdrawn = a1.filter(pair__is_trial=False).order_by("-pk").first()
    save_annotation(assignment=started, user=started.annotator, links=[], base_version=0)
    Assignment.objects.filter(pk=withdrawn.pk).update(withdrawn_at=timezone.now())
    before = list(Assignment.objects.order_by("pk").values())
    call_command("setup_demo", force=True)
    out = capsys.readouterr().out
    assert "0 assignments created now" in out
    assert list(Assignment.objects.order_by("pk").values()) == before  # nothing changed
    assert AlignerRun.objects.filter(project=demo).count() == 1  # seeded only once


def test_annotator1_sees_a_working_queue(demo, client):
    from annotator.management.commands.setup_demo import DEMO_USERS

    password = dict((u, p) for u, p, _ in DEMO_USERS)["annotator1"]
    login = {"username": "annotator1", "password": password}  # the form: axes sees it
    assert client.post("/accounts/login/", login).status_code == 302
    project_page = client.get(f"/projects/{demo.pk}/").content.decode()
    assert f"/projects/{demo.pk}/queue/" in project_page
    html = client.get(f"/projects/{demo.pk}/queue/").content.decode()
    mine = Assignment.objects.filter(pair__project=demo, annotator__username="annotator1")
    assert f"0 of {mine.count()} submitted" in html
    first_trial = mine.filter(pair__is_trial=True).order_by("pair__position").first()
    assert f'id="resume" href="/annotate/{first_trial.pk}/"' in html
    data = client.get(f"/api/assignments/{first_trial.pk}/").json()
    assert data["seed"]["links"] and data["posteriors"]["rows"] == len(
        first_trial.pair.source_tokens
    )
