"""The agreement dashboard (stored report, tables, charts, CSV) and the disagreement browser.
Leads and staff only (``lead.lead_page``): annotators get 403, outsiders 404, anonymous users
the login page."""

from __future__ import annotations

import csv

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from annotator.jobs.views import _wants_json, lead_starts_job
from annotator.models import Job, Project
from annotator.projects.views.lead import lead_page
from annotator.reports import services as report_services
from annotator.reports.selectors import disagreements as disagreement_selectors
from annotator.reports.selectors import reports as report_selectors
from annotator.reports.views.report_tables import PCT, chart_data, format_value, report_tables

DISAGREEMENTS_PER_PAGE = 100


def adjudication_url(project_id: int, pair_id: int) -> str:
    return reverse("project-adjudicate", args=[project_id, pair_id])


def _csv_response(rows: list[list], filename: str) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    writer = csv.writer(response)
    writer.writerows(rows)
    return response


@require_GET
@lead_page
def agreement_dashboard(request: HttpRequest, project: Project) -> HttpResponse:
    """The stored report (instant: nothing is recomputed), its freshness, and the button that
    starts a new one. ``?format=csv&table=<slug>`` downloads one table."""
    report = report_selectors.latest_report(project=project)
    tables = report_tables(report.result or {}) if report else {}
    if request.GET.get("format") == "csv":
        slug = request.GET.get("table", "")
        if report is None:
            return HttpResponse("No agreement report yet: compute one first.", status=404)
        if slug not in tables:
            choices = ", ".join(sorted(tables))
            return HttpResponse(f"Unknown table {slug!r}; choose one of: {choices}.", status=400)
        name = f"{project.name}-agreement-{report.pk}-{slug}.csv".replace(" ", "_")
        return _csv_response(tables[slug].csv_rows(), name)
    if request.GET.get("format") not in (None, "", "html"):
        return HttpResponse("format must be csv or html.", status=400)
    job = Job.objects.filter(project=project, kind="report").order_by("-created_at", "-id").first()
    context = {
        "project": project,
        "report": report,
        "freshness": report_selectors.report_freshness(report=report) if report else None,
        # templates cannot read keys with a hyphen: seed-word → seed_word
        "tables": {slug.replace("-", "_"): table for slug, table in tables.items()},
        "charts": chart_data(report.result or {}) if report else None,
        "job": job,
        "defaults": report_services.clean_params({}),
    }
    return render(request, "annotator/dashboard.html", context)


@lead_starts_job
def start_report(request: HttpRequest, project: Project) -> Job | HttpResponse:
    """ "Compute agreement": a report job with J, random seed and trial pairs from the form."""
    params = {
        key: request.POST[key]
        for key in ("samples", "rng_seed", "bin_width", "include_trial")
        if key in request.POST
    }
    try:
        job = report_services.start_report_job(project=project, user=request.user, params=params)
    except ValueError as exc:
        if _wants_json(request):
            return JsonResponse({"error": str(exc)}, status=400)
        return HttpResponse(f"Cannot compute agreement: {exc}", status=400)
    if _wants_json(request):
        return job
    return redirect(reverse("project-agreement", args=[project.pk]) + f"#job-{job.pk}")


@require_GET
@lead_page
def disagreement_browser(request: HttpRequest, project: Project) -> HttpResponse:
    """Doubly annotated pairs, lowest word F1 first; filters ``subcorpus`` and ``annotators``."""
    subcorpus = request.GET.get("subcorpus")
    annotator_pair = request.GET.get("annotators") or None
    report_services.refresh_disagreements(project=project)  # pairs changed since: scored now
    found = disagreement_selectors.disagreements(
        project=project,
        subcorpus=subcorpus if subcorpus not in (None, "*") else None,
        annotator_pair=annotator_pair,
    )
    page = Paginator(found.rows, DISAGREEMENTS_PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "project": project,
        "found": found,
        "page": page,
        "rows": [
            (
                row,
                adjudication_url(project.pk, row.pair_id),
                [
                    format_value(v, PCT)
                    for v in (row.word_f1, row.word_precision, row.word_recall, row.phrase_f1)
                ],
            )
            for row in page.object_list
        ],
        "subcorpus": subcorpus if subcorpus is not None else "*",
        "annotator_pair": annotator_pair or "",
        "query": query.urlencode(),
    }
    return render(request, "annotator/disagreements.html", context)
