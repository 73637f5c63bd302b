"""Filters shared by the API's viewsets (django-filter).

Ids are plain bounded integers, never model choices: a model choice would look the id up in
every project (telling an outsider which ids exist) and an id past bigint would reach the
database and fail there (a 500) instead of being a 400 here. Text filters refuse NUL
characters (Django's CharField), which PostgreSQL cannot store or compare.
"""

from __future__ import annotations

from django import forms
from django_filters import rest_framework as filters

from annotator.models import AgreementReport, AlignerRun, Job, Subcorpus

ID_MAX = 2**63 - 1


class IdField(forms.IntegerField):
    def __init__(self, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", ID_MAX)
        super().__init__(**kwargs)


class IdFilter(filters.Filter):
    """An object id (1 .. 2**63-1); anything else is a 400 naming the parameter."""

    field_class = IdField


class StrictBooleanField(forms.NullBooleanField):
    """true/false (or 1/0); anything else is an error rather than "no filter"."""

    def to_python(self, value):
        if value in (None, ""):
            return None
        text = str(value).strip().lower()
        if text in ("true", "1"):
            return True
        if text in ("false", "0"):
            return False
        raise forms.ValidationError(f"expected true or false, not {value!r}")

    def validate(self, value):
        pass


class BooleanFilter(filters.BooleanFilter):
    field_class = StrictBooleanField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", forms.TextInput)  # the raw text reaches the field
        super().__init__(*args, **kwargs)


class ProjectFilterSet(filters.FilterSet):
    project = IdFilter(field_name="project_id", help_text="a project id")


class SubcorpusFilter(ProjectFilterSet):
    name = filters.CharFilter(field_name="name", max_length=100)

    class Meta:
        model = Subcorpus
        fields: list[str] = []


class JobFilter(ProjectFilterSet):
    kind = filters.CharFilter(field_name="kind", max_length=32)
    status = filters.ChoiceFilter(field_name="status", choices=Job.Status.choices)

    class Meta:
        model = Job
        fields: list[str] = []


class AlignerRunFilter(ProjectFilterSet):
    kind = filters.ChoiceFilter(field_name="kind", choices=AlignerRun.Kind.choices)

    class Meta:
        model = AlignerRun
        fields: list[str] = []


class ReportFilter(ProjectFilterSet):
    class Meta:
        model = AgreementReport
        fields: list[str] = []
