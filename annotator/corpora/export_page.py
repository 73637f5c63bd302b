"""The lead's Export page (issue 31, "everything the lead can do on the command line, in the
browser"): the gold of the project in every export format of ``GET /api/projects/{id}/export/``
with the same options (format, subcorpus, trial pairs, pharaoh/naacl text file), as a download.
It runs the export service the API and ``manage.py export_gold`` run, so a bad option or a pair
the format cannot carry is refused the same way: the reason on the page (400), no file."""

from __future__ import annotations

from django import forms
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from annotator.corpora.services.export import (
    EXPORT_FORMATS,
    TEXT_CHOICES,
    ExportOptions,
    export_chunks,
    file_name,
    media_type,
    prepare_export,
)
from annotator.models import GoldAlignment, Project
from annotator.projects.views.lead import lead_page

ALL = "*"
FORMAT_LABELS = {"jsonl": "JSONL", "pharaoh": "Pharaoh", "naacl": "NAACL", "giza-a3": "GIZA++ A3"}


class ExportForm(forms.Form):
    format = forms.ChoiceField(
        choices=[(f, FORMAT_LABELS[f]) for f in EXPORT_FORMATS],
        help_text="JSONL and GIZA++ A3 carry the sentences; Pharaoh and NAACL come as a zip",
    )
    subcorpus = forms.ChoiceField(
        required=False, help_text="GIZA++ A3 has no subcorpus field: one at a time keeps it"
    )
    include_trial = forms.BooleanField(
        required=False, label="Include trial pairs", help_text="marked trial in the file"
    )
    text = forms.ChoiceField(
        required=False,
        label="Pharaoh/NAACL: one file only",
        choices=[("", "no: the zip")] + [(t, t) for t in TEXT_CHOICES],
        help_text="the zip holds the links, both sides' sentences and a TSV of the pairs",
    )

    def __init__(self, *args, project: Project, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        names = list(project.subcorpora.order_by("name").values_list("name", flat=True))
        self.fields["subcorpus"].choices = [(ALL, "all subcorpora")] + [(n, n) for n in names]

    def options(self) -> ExportOptions:
        data = self.cleaned_data
        subcorpus = data.get("subcorpus") or ALL
        return ExportOptions(
            fmt=data["format"],
            subcorpus=None if subcorpus == ALL else subcorpus,
            include_trial=bool(data.get("include_trial")),
            text=data.get("text") or None,
        )


@never_cache
@lead_page
def export_page(request: HttpRequest, project: Project) -> HttpResponse:
    """The form; with ``download`` in the query, the file itself (or the form and the reason)."""
    wants_file = "download" in request.GET
    form = ExportForm(request.GET if wants_file else None, project=project)
    if wants_file and form.is_valid():
        options = form.options()
        try:
            prepare_export(project=project, options=options)
        except ValueError as exc:  # an option the format refuses, or a pair it cannot carry
            form.add_error(None, str(exc))
        else:
            response = StreamingHttpResponse(
                export_chunks(project=project, options=options), content_type=media_type(options)
            )
            name = file_name(project=project, options=options)
            response["Content-Disposition"] = f'attachment; filename="{name}"'
            response["Cache-Control"] = "no-store"
            return response
    golds = GoldAlignment.objects.filter(pair__project=project)
    context = {
        "project": project,
        "form": form,
        "gold_pairs": golds.filter(pair__is_trial=False).count(),
        "trial_gold": golds.filter(pair__is_trial=True).count(),
    }
    return render(request, "annotator/export.html", context, status=400 if form.errors else 200)
