"""Progress (issue 8 §3): counts per annotator and subcorpus, time from revisions, edit rate
against the seed, flagged pairs with reasons; and the page that shows them."""

from __future__ import annotations

import pytest
from django.utils import timezone

from annotator.models import Assignment
from annotator.projects.selectors.progress import project_progress
from tests.app.lead_helpers import add_annotators, make_pairs, save_work, seed_all

pytestmark = pytest.mark.django_db


@pytest.fixture
def work(project, make_user):
    pairs = make_pairs(project, {"mtc": 2, "news": 2}, trial=1)
    run = seed_all(project, links=[(0, 0, "S")])
    ann1, ann2 = add_annotators(project, make_user, ["ann1", "ann2"])
    seeds = {s.pair_id: s for s in run.seeds.all()}
    rows = {}
    for n, p in enumerate(pairs):
        for user in (ann1, ann2) if p.is_trial or n == 0 else ((ann1, ann2)[n % 2],):
            rows[(n, user.username)] = Assignment.objects.create(
                pair=p, annotator=user, seed=seeds[p.pk], slot=None
            )
    # ann1: pair 0 submitted after two saves (20 s + 40 s), 2 edits stored on the final one
    save_work(rows[(0, "ann1")], [[0, 0, "S"], [1, 1, "S"]], seconds=20, edits=1)
    save_work(rows[(0, "ann1")], [[1, 1, "S"], [2, 2, "P"]], submit=True, seconds=40, edits=3)
    # ann2: pair 0 submitted WITHOUT a stored edit count: counted from links and seed (3 cells)
    save_work(rows[(0, "ann2")], [[0, 1, "S"], [2, 2, "P"]], submit=True, seconds=15)
    # ann2: pair 1 in progress and flagged
    a = rows[(1, "ann2")]
    save_work(a, [[0, 0, "S"]], seconds=5)
    a.flag, a.flag_note, a.flagged_at = "not_paraphrase", "different events", timezone.now()
    a.save()
    return pairs, rows


def test_counts_time_and_edit_rate(project, work):
    pairs, rows = work
    progress = project_progress(project=project)
    people = {r.name: r for r in progress.by_annotator}
    ann1, ann2 = people["ann1"], people["ann2"]
    # ann1: pair 0, pair 2, trial; ann2: pair 0, pair 1, pair 3, trial
    assert (ann1.total, ann1.assigned, ann1.in_progress, ann1.submitted) == (3, 2, 0, 1)
    assert (ann2.total, ann2.assigned, ann2.in_progress, ann2.submitted) == (4, 2, 1, 1)
    assert (ann1.flagged, ann2.flagged) == (0, 1)
    assert ann1.seconds == pytest.approx(60) and ann2.seconds == pytest.approx(20)
    n, m = pairs[0].shape
    assert ann1.edit_rate == pytest.approx(3 / (n * m))
    # {(0,1),(2,2)} against the seed {(0,0)}: three cells differ
    assert ann2.edit_rate == pytest.approx(3 / (n * m))
    subs = {r.name: r for r in progress.by_subcorpus}
    assert set(subs) == {"mtc", "news", "trial"}
    assert subs["mtc"].submitted == 2 and subs["trial"].assigned == 2
    assert progress.total.total == 7 and progress.total.seconds == pytest.approx(80)


def test_flagged_pairs_are_listed_with_reason_and_note(project, work):
    flagged = project_progress(project=project).flagged
    assert [(f.annotator, f.reason, f.note) for f in flagged] == [
        ("ann2", "Not a paraphrase", "different events")
    ]


def test_withdrawn_work_leaves_the_counts_but_keeps_its_time(project, work):
    _, rows = work
    a = rows[(0, "ann1")]
    a.withdrawn_at = timezone.now()
    a.save()
    ann1 = {r.name: r for r in project_progress(project=project).by_annotator}["ann1"]
    assert ann1.total == 2 and ann1.submitted == 0 and ann1.seconds == pytest.approx(60)


def test_the_page_shows_time_edit_rate_and_flags(client_for, lead, project, work):
    response = client_for(lead).get(f"/projects/{project.pk}/progress/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "1 min 00 s" in html  # ann1's time
    assert "different events" in html and "Not a paraphrase" in html
    assert "mtc-0" in html  # the work list
    filtered = client_for(lead).get(f"/projects/{project.pk}/progress/?annotator=ann1")
    assert "news-1" not in filtered.content.decode().split('id="work"')[1]


def test_the_pager_keeps_the_filters_and_the_anchor():
    from django.core.paginator import Paginator
    from django.template.loader import render_to_string

    page = Paginator(range(250), 100).get_page(2)
    html = render_to_string(
        "annotator/_pager.html", {"page": page, "query": "annotator=amy", "anchor": "#work"}
    )
    assert 'href="?annotator=amy&amp;page=1#work"' in html
    assert 'href="?annotator=amy&amp;page=3#work"' in html and "Page 2 of 3" in html
    only = Paginator(range(5), 100).get_page(1)
    assert "Page" not in render_to_string("annotator/_pager.html", {"page": only})
    first = render_to_string("annotator/_pager.html", {"page": Paginator(range(250), 100).page(1)})
    assert 'href="?page=2"' in first and "Previous" not in first


def test_without_a_seed_there_is_no_edit_rate(project, make_user):
    # issue 31, defect 7: a project never seeded showed an edit rate against nothing
    (pair,) = make_pairs(project, {"news": 1})
    (ann,) = add_annotators(project, make_user, ["solo"])
    a = Assignment.objects.create(pair=pair, annotator=ann, seed=None)
    save_work(a, [[0, 0, "S"]], submit=True, seconds=10)
    progress = project_progress(project=project)
    assert progress.by_annotator[0].submitted == 1
    assert progress.by_annotator[0].edit_rate is None and progress.total.edit_rate is None


def test_a_flagged_trial_pair_is_listed_under_its_own_subcorpus(project, work, client_for, lead):
    # issue 31, defect 4: a flagged trial pair of "news" was listed under the subcorpus "trial"
    pairs, rows = work
    trial = next(p for p in pairs if p.is_trial)
    trial.subcorpus = project.subcorpora.get(name="news")
    trial.save()
    a = next(a for (n, who), a in rows.items() if pairs[n] == trial and who == "ann1")
    a.flag, a.flagged_at = "unsure", timezone.now()
    a.save()
    flagged = {f.external_id: f for f in project_progress(project=project).flagged}
    assert flagged[trial.external_id].subcorpus == "news"
    assert flagged[trial.external_id].trial
    page = client_for(lead).get(f"/projects/{project.pk}/progress/").content.decode()
    assert f'href="/projects/{project.pk}/pairs/{trial.pk}/"' in page  # every pair id links


def test_the_times_shown_add_up_to_the_all_row(project, make_user, client_for, lead):
    """6.4 s and 3.4 s are shown as 6 s and 3 s: "All" says 9 s, what the rows add up to."""
    make_pairs(project, {"mtc": 2}, trial=0)
    people = add_annotators(project, make_user, ["ann1", "ann2"])
    pairs = project.pairs.order_by("position")
    for pair, user, seconds in zip(pairs, people, (6.4, 3.4), strict=True):
        save_work(Assignment.objects.create(pair=pair, annotator=user), [[0, 0, "S"]],
                  seconds=seconds)  # fmt: skip
    progress = project_progress(project=project)
    assert [p.seconds for p in progress.by_annotator] == [6, 3]
    assert progress.total.seconds == 9 == sum(s.seconds for s in progress.by_subcorpus)
    page = client_for(lead).get(f"/projects/{project.pk}/progress/").content.decode()
    assert ">9 s<" in page and ">10 s<" not in page
