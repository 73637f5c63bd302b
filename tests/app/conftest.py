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


# a small corpus for the seeding tests (tests/app/test_seeding.py, test_seed_learning.py)
SENTENCES = [
    ("the cat sat on the mat", "the cat was sitting on the mat"),
    ("a dog ran in the park", "a dog was running in the park"),
    ("the man bought a new car", "the man purchased a new car"),
    ("she reads the paper every day", "she reads the newspaper daily"),
    ("the children played in the garden", "the kids were playing in the garden"),
    ("he quickly left the room", "he left the room in a hurry"),
    ("the government raised taxes", "the government increased taxes"),
    ("prices rose sharply last year", "prices increased sharply last year"),
    ("the cat ran in the garden", "the cat was running in the garden"),
    ("the man reads a new paper", "the man reads a new newspaper"),
]


@pytest.fixture
def corpus(project):
    """Ten small English paraphrase pairs (the last a trial pair), for the seeding tests."""
    return [
        SentencePair.objects.create(
            project=project,
            external_id=f"p{n}",
            position=n,
            source_tokens=src.split(),
            target_tokens=tgt.split(),
            is_trial=(n == 9),
        )
        for n, (src, tgt) in enumerate(SENTENCES)
    ]


def identity_links(pair):
    return [
        [i, j, "S"]
        for i, w in enumerate(pair.source_tokens)
        for j, v in enumerate(pair.target_tokens)
        if w == v
    ]
