"""The data model's constraints: the database refuses what the domain forbids, and
``full_clean`` rejects invalid links with a message naming the problem."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotator.models import (
    Annotation,
    Assignment,
    GoldAlignment,
    Job,
    Membership,
    Project,
    SentencePair,
)

pytestmark = pytest.mark.django_db


def refused(model, **fields):
    """Assert that creating ``model`` with ``fields`` violates a database constraint."""
    with pytest.raises(IntegrityError), transaction.atomic():
        model.objects.create(**fields)


def test_external_id_is_unique_within_a_project_only(project, pair):
    refused(
        SentencePair, project=project, external_id="p1", source_tokens=["a"], target_tokens=["b"]
    )
    other = Project.objects.create(name="Other")
    SentencePair.objects.create(
        project=other, external_id="p1", source_tokens=["a"], target_tokens=["b"]
    )


def test_membership_is_unique_per_project_and_user(project, lead):
    refused(Membership, project=project, user=lead, role="annotator")


def test_membership_role_must_be_known(project, outsider):
    refused(Membership, project=project, user=outsider, role="boss")


def test_job_progress_is_at_most_100():
    Job.objects.create(kind="selftest", progress=100)
    refused(Job, kind="selftest", progress=101)


def test_job_status_must_be_known():
    refused(Job, kind="selftest", status="lost")


@pytest.mark.parametrize("share", [-0.1, 1.5])
def test_double_annotation_share_lies_in_0_1(share):
    refused(Project, name="bad share", double_annotation_share=share)
    with pytest.raises(ValidationError) as err:
        Project(name="bad share", double_annotation_share=share).full_clean()
    assert "double_annotation_share" in err.value.message_dict


def test_double_annotation_share_bounds_are_allowed():
    Project.objects.create(name="none doubled", double_annotation_share=0)
    Project.objects.create(name="all doubled", double_annotation_share=1)


def test_submitted_assignment_needs_a_submission_time(pair, annotator):
    refused(Assignment, pair=pair, annotator=annotator, status="submitted")
    Assignment.objects.create(
        pair=pair, annotator=annotator, status="submitted", submitted_at=timezone.now()
    )


def test_assignment_is_unique_per_pair_and_annotator(pair, annotator):
    Assignment.objects.create(pair=pair, annotator=annotator)
    refused(Assignment, pair=pair, annotator=annotator)


def test_annotation_version_starts_at_1(pair, annotator):
    assignment = Assignment.objects.create(pair=pair, annotator=annotator)
    refused(Annotation, assignment=assignment, version=0)
    assert Annotation.objects.create(assignment=assignment).version == 1


# pair: "the cat sat" (3 tokens) / "a cat was sitting" (4 tokens)
@pytest.mark.parametrize(
    ("links", "says"),
    [
        ([[3, 0, "S"]], "source index 3 out of range"),
        ([[0, 4, "S"]], "target index 4 out of range"),
        ([[-1, 0, "S"]], "out of range"),
        ([[1, 1, "S"], [1, 1, "P"]], "duplicate link 1-1"),
        ([[1, 1, "X"]], "label must be 'S' or 'P'"),
        ([[1, "a", "S"]], "indices must be integers"),
        ({"1": 1}, "links must be a list"),
    ],
)
def test_full_clean_rejects_bad_links(pair, links, says):
    gold = GoldAlignment(pair=pair, origin="imported", links=links)
    with pytest.raises(ValidationError) as err:
        gold.full_clean()
    assert "links" in err.value.message_dict
    assert says in " ".join(err.value.message_dict["links"])


def test_full_clean_normalizes_good_links(pair):
    gold = GoldAlignment(pair=pair, origin="imported", links=[[2, 3, "P"], [1, 1, "S"], [0, 0]])
    gold.full_clean()
    assert gold.links == [[0, 0, "S"], [1, 1, "S"], [2, 3, "P"]]


def test_pair_tokens_must_be_nonempty_tokens_without_spaces(project):
    with pytest.raises(ValidationError) as err:
        SentencePair(
            project=project, external_id="x", source_tokens=["a b"], target_tokens=[]
        ).full_clean()
    assert {"source_tokens", "target_tokens"} & set(err.value.message_dict)
