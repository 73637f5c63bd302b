"""A lead presses "Seed with aligner" in a real browser; a real worker (Redis, PostgreSQL) trains
the aligner, and the page's live bar follows the job to its end without a reload."""

import pytest

from annotator.models import Membership, Project, SeedAlignment, SentencePair, Subcorpus

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SENTENCES = [
    ("the cat sat on the mat", "the cat was sitting on the mat"),
    ("a dog ran in the park", "a dog was running in the park"),
    ("the man bought a new car", "the man purchased a new car"),
    ("prices rose sharply last year", "prices increased sharply last year"),
    ("he quickly left the room", "he left the room in a hurry"),
]


def test_lead_seeds_the_project_and_watches_the_job_finish(
    live_server, page, start_worker, django_user_model
):
    from playwright.sync_api import expect

    project = Project.objects.create(name="Browser seeding")
    lead = django_user_model.objects.create_user("lead", password="lead-password-1")
    Membership.objects.create(project=project, user=lead, role="lead")
    news = Subcorpus.objects.create(project=project, name="news")
    for n, (s, t) in enumerate(SENTENCES):
        SentencePair.objects.create(
            project=project, subcorpus=news, external_id=str(n), position=n,
            source_tokens=s.split(), target_tokens=t.split(),
        )  # fmt: skip
    worker = start_worker(pool="prefork")

    page.goto(live_server.url + "/accounts/login/")
    page.fill("input[name=username]", "lead")
    page.fill("input[name=password]", "lead-password-1")
    page.click("button[type=submit]")
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    page.get_by_role("button", name="Seed with aligner").click()

    job = page.locator(".job").first
    expect(job.locator("[data-field=status]")).to_have_text("Succeeded", timeout=90_000), worker.log
    expect(job.locator("[data-field=progress]")).to_have_text("100%")
    expect(job.locator("[data-field=message]")).to_contain_text(f"Wrote {len(SENTENCES)} seeds")
    # the result in words, filled in by the live bar too (no assignments yet: none reseeded);
    # an English project without gold seeds with the built-in model (issue 34)
    expect(job.locator("[data-field=summary]")).to_have_text(
        "Model: the built-in English paraphrase model en-paraphrase-1 (0 gold pairs: too few "
        f"for a model of the project's own). {len(SENTENCES)} pairs seeded. "
        "Assignments: 0 not yet started got the new seeds, 0 with work kept theirs."
    )
    assert job.locator("[role=progressbar]").get_attribute("aria-valuenow") == "100"
    assert SeedAlignment.objects.filter(pair__project=project).count() == len(SENTENCES)

    page.reload()
    seeded = page.locator("table tr", has_text="news").locator("td").last  # the Seeded column
    expect(seeded).to_have_text(str(len(SENTENCES)))
