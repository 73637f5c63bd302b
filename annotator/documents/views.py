"""The lead's document pages (issue 33): the project's document pairs with an upload form, and
the review screen (the two documents' beads side by side; its script talks to the documents
API, so every decision is saved as it is made)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache

from annotator.documents import selectors, services, uploads
from annotator.documents.reading import SPLIT_MODES, DocumentError
from annotator.models import DocumentPair, Project
from annotator.projects.views.lead import lead_page

# A browser upload this small is aligned in the request, so the review opens at once; a larger
# one is aligned by a job whose bar the page shows.
ALIGN_IN_REQUEST_SENTENCES = 2000
# The review list draws this many beads at a time: a browser lays a table out whole, so a
# change to one row of a 40,000-row table took it 0.7 s (docs/benchmarks.md).
REVIEW_PAGE = 200


class UploadForm(forms.Form):
    source = forms.FileField(required=False, label="Source document")
    target = forms.FileField(required=False, label="Target document")
    archive = forms.FileField(required=False, label="…or a zip of many pairs")
    source_language = forms.RegexField(r"^[a-z]{2,3}$", initial="en", label="Source language")
    target_language = forms.RegexField(r"^[a-z]{2,3}$", initial="en", label="Target language")
    kind = forms.ChoiceField(choices=DocumentPair.Kind.choices)
    split = forms.ChoiceField(
        choices=[(m, m) for m in SPLIT_MODES],
        help_text="auto: HTML by its tags, one sentence per line when the text has no blank "
        "line, else split by the language's rules",
    )
    name = forms.CharField(required=False, max_length=150)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not data.get("archive") and not (data.get("source") and data.get("target")):
            raise forms.ValidationError("Choose a source and a target document, or a zip.")
        return data


@never_cache
@lead_page
def documents_page(request: HttpRequest, project: Project) -> HttpResponse:
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:  # big files and zips are stored here and read by the align job (uploads)
            pairs = uploads.accept_upload(
                project=project, user=request.user, kind=data["kind"], split=data["split"],
                name=data.get("name") or "", source_language=data["source_language"],
                target_language=data["target_language"], source=data.get("source"),
                target=data.get("target"), archive=data.get("archive"),
            )  # fmt: skip
        except DocumentError as exc:
            form.add_error(None, str(exc))
        else:
            return _after_upload(request, project, pairs)
    context = {
        "project": project,
        "form": form,
        "document_pairs": selectors.document_pairs_of(project=project),
        "jobs": project.jobs.filter(kind=services.ALIGN_JOB)[:3],
    }
    return render(request, "annotator/documents.html", context, status=400 if form.errors else 200)


def _after_upload(request: HttpRequest, project: Project, pairs: list[DocumentPair]):
    size = sum(len(p.source_sentences) + len(p.target_sentences) for p in pairs)
    read = all(p.state == DocumentPair.State.READY for p in pairs)
    if read and size <= ALIGN_IN_REQUEST_SENTENCES:
        for dp in pairs:
            services.align_document_pair(document_pair=dp)
        messages.success(request, f"{_document_pairs(len(pairs))} uploaded and aligned.")
        if len(pairs) == 1:
            return redirect("document-review", document_pair_id=pairs[0].pk)
    else:
        services.start_align_job(project=project, user=request.user, document_pairs=pairs)
        messages.success(request, f"{_document_pairs(len(pairs))} uploaded; aligning in a job.")
    return redirect(reverse("project-documents", args=[project.pk]))


def _document_pairs(n: int) -> str:
    return "The document pair" if n == 1 else f"{n} document pairs"


@never_cache
@login_required
def document_review(request: HttpRequest, document_pair_id: int) -> HttpResponse:
    # the page reads its beads from the API a page at a time: nothing of the documents here
    pairs = selectors.reviewable_document_pairs(user=request.user).defer(*selectors.HEAVY_FIELDS)
    dp = pairs.filter(pk=document_pair_id).first()
    if dp is None:
        raise Http404("No such document pair, or you do not lead its project.")
    context = {
        "project": dp.project,
        "document_pair": dp,
        "review_config": {
            "stateUrl": reverse("document-pair-detail", args=[dp.pk]),
            "documentPair": dp.pk,
            "pageSize": REVIEW_PAGE,
        },
    }
    return render(request, "annotator/document_review.html", context)
