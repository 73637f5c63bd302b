"""The lead's Import page (issue 31, "project life in the browser"): upload a corpus in any
import format with the options of ``POST /api/projects/{id}/imports/``, watch the import job's
bar and read its report; the same page adds more pairs later. The upload goes through the
service the API uses (``uploads.accept_upload``), so a bad file is refused the same way: the
reason on the page (400) and nothing written."""

from __future__ import annotations

import codecs
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache

from alignment_core.formats import FORMATS
from annotator.common.plain_words import in_plain_words
from annotator.corpora.services import uploads
from annotator.corpora.services.importing import LOAD_MODES, TOKEN_MISMATCH_POLICIES
from annotator.corpora.services.importing_checks import subcorpus_problem, username_problem
from annotator.models import Project
from annotator.projects.views.lead import lead_page

SHOWN_JOBS = 5


def _choices(names: Any, blank: str) -> list[tuple[str, str]]:
    return [("", blank)] + [(n, n) for n in names]


class ImportForm(forms.Form):
    """The fields of the API's ImportRequest, checked the same way."""

    file = forms.FileField(label="Corpus file", help_text="or an export zip (pharaoh/naacl)")
    format = forms.ChoiceField(
        choices=_choices(FORMATS, "guess from the file name"), required=False
    )
    encoding = forms.CharField(max_length=40, initial="utf-8", required=False)
    source_text = forms.FileField(
        required=False, help_text="pharaoh/naacl: source sentences, or a tsv/bitext/jsonl of pairs"
    )
    target_text = forms.FileField(required=False, help_text="pharaoh/naacl: target sentences")
    text_format = forms.ChoiceField(
        choices=_choices(FORMATS, "guess"), required=False, help_text="the source text's format"
    )
    sure_file = forms.FileField(required=False, help_text="edinburgh: the sure-only file")
    load_as = forms.ChoiceField(
        choices=_choices(LOAD_MODES, "text only"), required=False, label="Load alignments as"
    )
    annotator = forms.CharField(
        max_length=150,
        required=False,
        help_text="with alignments loaded as annotator: whose annotations (a project member)",
    )
    subcorpus = forms.CharField(max_length=100, required=False)
    max_length_ratio = forms.FloatField(
        min_value=1.0, required=False, help_text="drop pairs whose token counts differ more"
    )
    token_mismatch = forms.ChoiceField(
        choices=[(p, p) for p in TOKEN_MISMATCH_POLICIES], initial="error", required=False
    )
    replace_gold = forms.BooleanField(required=False)
    dry_run = forms.BooleanField(required=False, help_text="check and report, write nothing")
    normalize = forms.BooleanField(
        required=False,
        label="Clean the text",
        help_text="remove control characters (e.g. U+0082) from inside tokens and apply Unicode "
        "NFC; without it a file with control characters is refused",
    )

    def clean_encoding(self) -> str:
        value = self.cleaned_data.get("encoding") or "utf-8"
        try:
            codecs.lookup(value)
        except LookupError:
            raise forms.ValidationError(f"unknown encoding {value!r}") from None
        return value

    def clean_token_mismatch(self) -> str:
        return self.cleaned_data.get("token_mismatch") or "error"

    def clean_subcorpus(self) -> str:
        value = self.cleaned_data.get("subcorpus") or ""
        if value and (problem := subcorpus_problem(value)):
            raise forms.ValidationError(problem)
        return value

    def clean_annotator(self) -> str:
        value = self.cleaned_data.get("annotator") or ""
        if value and (problem := username_problem(value)):
            raise forms.ValidationError(problem)
        return value

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        limit = settings.API_UPLOAD_MAX_MB
        for role in uploads.FILE_ROLES:
            f = data.get(role)
            if f is not None and f.size > limit * 1024 * 1024:
                self.add_error(role, f"{f.name} is larger than {limit} MB")
        if data.get("annotator"):
            if data.get("load_as") not in ("", None, "annotator"):
                self.add_error(
                    "annotator",
                    "loads one annotator's annotations; it cannot go with alignments loaded as "
                    f"{data['load_as']}",
                )
            data["load_as"] = "annotator"
        return {k: (None if v == "" else v) for k, v in data.items()}


@never_cache
@lead_page
def import_page(request: HttpRequest, project: Project) -> HttpResponse:
    form = ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        files = {role: data[role] for role in uploads.FILE_ROLES if data.get(role) is not None}
        try:
            job = uploads.accept_upload(
                project=project, user=request.user, files=files, options=data
            )
        except uploads.ImportRefused as exc:
            form.add_error(None, in_plain_words(str(exc)))
        else:
            messages.success(request, f"{files['file'].name} uploaded; importing in job {job.pk}.")
            return redirect("project-import", project_id=project.pk)
    context = {
        "project": project,
        "form": form,
        "jobs": project.jobs.filter(kind="import").order_by("-created_at", "-pk")[:SHOWN_JOBS],
    }
    return render(request, "annotator/import.html", context, status=400 if form.errors else 200)
