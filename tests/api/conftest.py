"""Fixtures for the API tests: a project with a lead, two annotators and an outsider, a few
pairs (one trial) with assignments, an annotation and gold; clients by session and token."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.utils import timezone
from rest_framework.test import APIClient

from annotator.accounts.services.tokens import create_token
from annotator.models import (
    Annotation,
    Assignment,
    GoldAlignment,
    GoldRevision,
    Membership,
    Project,
    SentencePair,
    Subcorpus,
)

PASSWORD = "test-password-123"


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def fresh_throttles():
    """Throttle counters live in the cache; one test's requests must not throttle the next's."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def make_user(django_user_model):
    def make(username: str, **extra):
        return django_user_model.objects.create_user(username=username, password=PASSWORD, **extra)

    return make


@pytest.fixture
def project(db) -> Project:
    return Project.objects.create(name="API project")


@pytest.fixture
def other_project(db) -> Project:
    return Project.objects.create(name="Someone else's project")


def member(make_user, project, name, role):
    user = make_user(name)
    Membership.objects.create(project=project, user=user, role=role)
    return user


@pytest.fixture
def lead(make_user, project):
    return member(make_user, project, "lead_user", Membership.Role.LEAD)


@pytest.fixture
def annotator(make_user, project):
    return member(make_user, project, "ann_one", Membership.Role.ANNOTATOR)


@pytest.fixture
def annotator2(make_user, project):
    return member(make_user, project, "ann_two", Membership.Role.ANNOTATOR)


@pytest.fixture
def outsider(make_user, other_project):
    return member(make_user, other_project, "outsider", Membership.Role.LEAD)


def make_pair(project, external_id, source, target, *, subcorpus=None, trial=False, position=0):
    sub = Subcorpus.objects.get_or_create(project=project, name=subcorpus)[0] if subcorpus else None
    return SentencePair.objects.create(
        project=project,
        subcorpus=sub,
        external_id=external_id,
        position=position,
        source_tokens=source.split(),
        target_tokens=target.split(),
        is_trial=trial,
    )


def set_gold_row(pair, links, author=None):
    gold = GoldAlignment.objects.create(
        pair=pair, origin="imported", links=links, adjudicator=author
    )
    GoldRevision.objects.create(gold=gold, version=1, links=links, origin="imported", author=author)
    return gold


def assign(pair, user, *, status="assigned", links=None, slot=None):
    a = Assignment.objects.create(
        pair=pair,
        annotator=user,
        status=status,
        slot=slot,
        submitted_at=timezone.now() if status == "submitted" else None,
    )
    if links is not None:
        Annotation.objects.create(assignment=a, links=links, version=1)
    return a


@pytest.fixture
def corpus(project, lead, annotator, annotator2):
    """Four pairs: p1 (news) doubly annotated and gold; p2 (news) to annotator 1 only; p3
    (novels) unassigned with gold; t1 a trial pair with gold."""
    p1 = make_pair(project, "p1", "the cat sat", "a cat was sitting", subcorpus="news", position=1)
    p2 = make_pair(
        project, "p2", "he left early", "he went away soon", subcorpus="news", position=2
    )
    p3 = make_pair(
        project, "p3", "rain fell hard", "it rained heavily", subcorpus="novels", position=3
    )
    t1 = make_pair(
        project, "t1", "good morning", "hello there", subcorpus="news", trial=True, position=4
    )
    a1 = assign(p1, annotator, status="submitted", links=[[1, 1, "S"], [2, 3, "P"]], slot=1)
    a2 = assign(p1, annotator2, status="in_progress", links=[[0, 0, "P"], [1, 1, "S"]], slot=2)
    a3 = assign(p2, annotator, status="assigned")
    set_gold_row(p1, [[0, 0, "P"], [1, 1, "S"], [2, 3, "S"]], lead)
    set_gold_row(p3, [[0, 1, "P"], [1, 1, "S"], [2, 2, "S"]], lead)
    set_gold_row(t1, [[0, 0, "S"], [1, 1, "P"]], lead)
    return {"p1": p1, "p2": p2, "p3": p3, "t1": t1, "a1": a1, "a2": a2, "a3": a3}


@pytest.fixture
def api():
    """``api(user)``: an APIClient authenticated with a fresh token of ``user`` (None:
    anonymous)."""

    def make(user=None, *, session: bool = False):
        client = APIClient()
        if user is not None and session:
            client.force_login(user)
        elif user is not None:
            _, key = create_token(user=user, name="test")
            client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        return client

    return make
