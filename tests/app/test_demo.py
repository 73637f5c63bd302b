"""``manage.py setup_demo``: the demo project, its users and pairs, idempotently."""

from __future__ import annotations

import re

import pytest
from django.core.management import CommandError, call_command

from annotator.management.commands.setup_demo import DEMO_PROJECT, DEMO_USERS
from annotator.models import (
    Assignment,
    GoldAlignment,
    Membership,
    Project,
    SentencePair,
    Subcorpus,
)
from annotator.seeding.services import gold_pair_count

pytestmark = pytest.mark.django_db


def run_setup_demo(capsys) -> str:
    call_command("setup_demo", force=True)
    return capsys.readouterr().out


def printed_credentials(out: str) -> dict[str, str]:
    return dict(re.findall(r"^\s+(\w+)\s+(\S+)\s+\((?:lead|annotator)\)$", out, re.M))


def test_setup_demo_creates_project_users_subcorpora_trial_and_gold(capsys):
    out = run_setup_demo(capsys)
    project = Project.objects.get(name=DEMO_PROJECT)
    assert "# Aligning paraphrases" in project.guidelines
    roles = dict(project.memberships.values_list("user__username", "role"))
    assert roles == {"lead": "lead", "annotator1": "annotator", "annotator2": "annotator"}
    assert set(Subcorpus.objects.filter(project=project).values_list("name", flat=True)) == {
        "mtc",
        "news",
        "novels",
    }
    pairs = SentencePair.objects.filter(project=project)
    assert 30 <= pairs.count() <= 40
    trial = pairs.filter(is_trial=True)
    assert 0 < trial.count() < pairs.count()
    assert set(trial.values_list("subcorpus__name", flat=True)) == {"mtc", "news", "novels"}
    gold = GoldAlignment.objects.filter(pair__project=project)
    assert gold.count() >= 9
    # Every trial pair has its reference (so trial feedback shows on the first run, issue 31);
    # references are never part of the gold corpus: the seeds' count leaves them out.
    assert gold.filter(pair__is_trial=True).count() == trial.count()
    assert gold_pair_count(project=project) == gold.count() - trial.count() >= 9
    for g in gold:  # the stored gold is valid for its pair and uses both labels overall
        g.full_clean()
    labels = {link[2] for g in gold for link in g.links}
    assert labels == {"S", "P"}
    assert "36 pairs" in out


def test_setup_demo_is_idempotent(capsys):
    run_setup_demo(capsys)
    models = (Project, Membership, SentencePair, GoldAlignment, Subcorpus)
    first = [m.objects.count() for m in models]
    out = run_setup_demo(capsys)
    assert [m.objects.count() for m in models] == first
    assert "already there" in out and "0 imported now" in out


def test_setup_demo_restores_missing_pairs_and_keeps_edited_guidelines(capsys):
    run_setup_demo(capsys)
    project = Project.objects.get(name=DEMO_PROJECT)
    project.guidelines = "Our own guidelines"
    project.save()
    # (its assignments first: an assignment protects the seed it started from)
    Assignment.objects.filter(pair__external_id="news-012").delete()
    SentencePair.objects.filter(external_id="news-012").delete()
    run_setup_demo(capsys)
    project.refresh_from_db()
    assert project.guidelines == "Our own guidelines"
    assert project.pairs.filter(external_id="news-012").exists()


def test_users_log_in_with_the_printed_passwords(client, capsys):
    out = run_setup_demo(capsys)
    credentials = printed_credentials(out)
    assert credentials == {username: password for username, password, _ in DEMO_USERS}
    for username, password in credentials.items():
        assert len(password) >= 8
        login = {"username": username, "password": password}  # the form: axes sees it
        assert client.post("/accounts/login/", login).status_code == 302, username
        assert DEMO_PROJECT in client.get("/").content.decode()
        client.logout()


def test_passwords_are_reset_on_each_run(client, capsys, django_user_model):
    run_setup_demo(capsys)
    lead = django_user_model.objects.get(username="lead")
    lead.set_password("something-else")
    lead.save()
    credentials = printed_credentials(run_setup_demo(capsys))
    login = {"username": "lead", "password": credentials["lead"]}
    assert client.post("/accounts/login/", login).status_code == 302


def test_setup_demo_refuses_without_debug_or_force_and_changes_nothing(settings, django_user_model):
    settings.DEBUG = False
    lead = django_user_model.objects.create_user("lead", password="a-real-secret-password")
    with pytest.raises(CommandError, match=r"published in the README.*DEBUG=true.*--force"):
        call_command("setup_demo")
    lead.refresh_from_db()
    assert lead.check_password("a-real-secret-password")  # not reset to the published one
    assert not django_user_model.objects.filter(username="annotator1").exists()
    assert not Project.objects.filter(name=DEMO_PROJECT).exists()


def test_setup_demo_runs_with_debug_on(settings, capsys, django_user_model):
    settings.DEBUG = True
    call_command("setup_demo")
    username, password, _role = DEMO_USERS[0]
    assert django_user_model.objects.get(username=username).check_password(password)
    assert Project.objects.filter(name=DEMO_PROJECT).exists()


def test_setup_demo_force_runs_with_debug_off(settings, capsys, django_user_model):
    settings.DEBUG = False
    call_command("setup_demo", force=True)
    username, password, _role = DEMO_USERS[0]
    assert django_user_model.objects.get(username=username).check_password(password)
