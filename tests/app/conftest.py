"""Fixtures for the Django app's tests: a project with a lead, an annotator and an outsider."""

from __future__ import annotations

import pytest

from annotator.models import Membership, Project, SentencePair, Subcorpus

PASSWORD = "test-password-123"


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """PBKDF2's deliberate slowness costs ~0.3 s per user; tests need no such protection."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def make_user(django_user_model):
    def make(username: str, **extra):
        return django_user_model.objects.create_user(username=username, password=PASSWORD, **extra)

    return make


@pytest.fixture
def project(db) -> Project:
    return Project.objects.create(name="Test project", guidelines="# Align *content* words")


@pytest.fixture
def lead(make_user, project):
    user = make_user("lead_user")
    Membership.objects.create(project=project, user=user, role=Membership.Role.LEAD)
    return user


@pytest.fixture
def annotator(make_user, project):
    user = make_user("annotator_user")
    Membership.objects.create(project=project, user=user, role=Membership.Role.ANNOTATOR)
    return user


@pytest.fixture
def outsider(make_user):
    return make_user("outsider")


@pytest.fixture
def pair(project) -> SentencePair:
    sub = Subcorpus.objects.create(project=project, name="news")
    return SentencePair.objects.create(
        project=project,
        subcorpus=sub,
        external_id="p1",
        source_tokens=["the", "cat", "sat"],
        target_tokens=["a", "cat", "was", "sitting"],
    )


@pytest.fixture
def client_for(client):
    """``client_for(user)``: the test client, logged in as ``user``."""

    def login(user):
        client.force_login(user)
        return client

    return login
