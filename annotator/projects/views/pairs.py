"""The lead's pair browser and read-only pair view (issue 31). Leads and staff only (the blind
rule: annotators never see each other's work)."""

from __future__ import annotations

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from annotator.discussions import selectors as discussion_selectors
from annotator.models import Assignment, Project, SentencePair
from annotator.projects.selectors import pair_browser
from annotator.projects.services.agreement_scores import refresh_scores
from annotator.projects.views.lead import lead_page


class PairFilterForm(forms.Form):
    q = forms.CharField(required=False, label="Id or words", max_length=200)
    subcorpus = forms.ChoiceField(required=False)
    status = forms.ChoiceField(
        required=False,
        choices=[("", "any")]
        + [(s, s.replace("_", " ")) for s in pair_browser.STATUSES],  # fmt: skip
    )
    flag = forms.ChoiceField(
        required=False,
        choices=[("", "any"), ("any", "flagged")] + list(Assignment.Flag.choices)[1:],
    )
    annotator = forms.ChoiceField(required=False)
    max_agreement = forms.FloatField(
        required=False, min_value=0, max_value=1, label="Agreement at most",
        widget=forms.NumberInput(attrs={"step": "0.05"}),
    )  # fmt: skip

    def __init__(self, *args, project: Project, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        names = project.subcorpora.order_by("name").values_list("name", flat=True)
        self.fields["subcorpus"].choices = [("", "any")] + [(n, n) for n in names]
        users = (
            project.memberships.select_related("user").order_by("user__username")
            .values_list("user__username", flat=True)
        )  # fmt: skip
        self.fields["annotator"].choices = [("", "any")] + [(u, u) for u in users]


@lead_page
def pairs_page(request: HttpRequest, project: Project) -> HttpResponse:
    form = PairFilterForm(request.GET or None, project=project)
    filters = pair_browser.PairFilters()
    if form.is_valid():
        filters = pair_browser.PairFilters(**{k: v for k, v in form.cleaned_data.items()
                                              if v not in (None, "")})  # fmt: skip
    if filters.max_agreement is not None:
        refresh_scores(project=project)  # the filter reads the stored agreements
    page = pair_browser.browse_pairs(
        project=project, filters=filters, page=pair_browser.page_number(request.GET.get("page"))
    )
    query = request.GET.copy()
    query.pop("page", None)
    context = {"project": project, "form": form, "rows": page, "query": query.urlencode(),
               "total": page.total, "count_cap": pair_browser.COUNT_CAP}  # fmt: skip
    return render(request, "annotator/pair_browser.html", context)


@lead_page
def pair_view(request: HttpRequest, project: Project, pair_id: int) -> HttpResponse:
    pair = get_object_or_404(
        SentencePair.objects.select_related("subcorpus"), pk=pair_id, project=project
    )
    layers = pair_browser.pair_layers(pair=pair)
    overlay = request.GET.get("view") == "overlay"
    context = {
        "project": project,
        "pair": pair,
        "layers": layers,
        "overlay": overlay,
        "overlay_rows": pair_browser.grid_rows(pair, layers) if overlay else None,
        "grids": []
        if overlay
        else [(layer, pair_browser.layer_grid(pair, layer)) for layer in layers],  # fmt: skip
        "provenance": (pair.metadata or {}).get("provenance"),
        "threads": discussion_selectors.pair_threads(pair=pair),
    }
    return render(request, "annotator/pair_view.html", context)
