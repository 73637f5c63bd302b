"""The agreement report of a project, as a job (issue 8 §4).

The job reads the project's final annotations (``annotator.reports.selectors.reports``), hands
them to ``alignment_core.agreement.build_report`` — every figure comes from there — and stores the
result as an ``AgreementReport`` with its parameters, the fingerprint of its inputs and the
newest annotation revision it saw, so the dashboard opens instantly and can tell when it is
stale.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.db import transaction

from alignment_core.progress import Progress, part, silent
from annotator.jobs.services import start_job
from annotator.models import AgreementReport, Job, Project
from annotator.projects.services.agreement_scores import refresh_scores
from annotator.reports.selectors import reports as report_selectors

DEFAULT_SAMPLES = 1000
DEFAULT_RNG_SEED = 0
DEFAULT_BIN_WIDTH = 5
MAX_SAMPLES = 100_000
MAX_RNG_SEED = 2**32 - 1
MAX_BIN_WIDTH = 100

# Share of the progress bar spent reading the database; build_report takes the rest.
_READ_SHARE = 0.1


def _int_param(params: dict[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = params.get(name, default)
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    try:
        number = int(str(value).strip())
    except ValueError:
        raise ValueError(f"{name} must be a whole number, got {value!r}") from None
    if not low <= number <= high:
        raise ValueError(f"{name} must be between {low} and {high}, got {number}")
    return number


def clean_params(params: dict[str, Any] | None) -> dict[str, Any]:
    """The report's parameters with defaults: ``samples`` (J), ``rng_seed``, ``bin_width``
    (tokens per length bin) and ``include_trial``. ValueError names a bad one."""
    params = dict(params or {})
    unknown = sorted(set(params) - {"samples", "rng_seed", "bin_width", "include_trial"})
    if unknown:
        raise ValueError(f"unknown report parameter(s): {', '.join(unknown)}")
    include_trial = params.get("include_trial", False)
    if isinstance(include_trial, str):
        if include_trial.lower() not in ("true", "false", "on", "1", "0", ""):
            raise ValueError(f"include_trial must be true or false, got {include_trial!r}")
        include_trial = include_trial.lower() in ("true", "on", "1")
    elif not isinstance(include_trial, bool):
        raise ValueError(f"include_trial must be true or false, got {include_trial!r}")
    return {
        "samples": _int_param(params, "samples", DEFAULT_SAMPLES, 1, MAX_SAMPLES),
        "rng_seed": _int_param(params, "rng_seed", DEFAULT_RNG_SEED, 0, MAX_RNG_SEED),
        "bin_width": _int_param(params, "bin_width", DEFAULT_BIN_WIDTH, 1, MAX_BIN_WIDTH),
        "include_trial": include_trial,
    }


def start_report_job(*, project: Project, user: Any, params: dict[str, Any] | None) -> Job:
    """Queue a report job; bad parameters raise ValueError before anything is written."""
    return start_job(kind="report", project=project, user=user, params=clean_params(params))


def compute_report(
    *,
    project: Project,
    params: dict[str, Any] | None = None,
    user: Any = None,
    job: Job | None = None,
    progress: Progress | None = None,
    on_stored: Callable[[AgreementReport, str], None] | None = None,
) -> AgreementReport:
    """Build and store the project's agreement report (see the module doc).
    ``on_stored(report, message)`` is called inside the transaction that stores it, as its
    last step (a job records its success there)."""
    say = progress or silent
    params = clean_params(params)
    started = time.monotonic()
    say(0.01, "Reading annotations")
    keys = report_selectors.input_keys(project=project, include_trial=params["include_trial"])
    records = report_selectors.pair_annotations(keys=keys)
    say(_READ_SHARE, f"Read {keys.annotations} annotations of {len(records)} pairs")

    from alignment_core.agreement.report import (
        build_report,  # numba: loaded when first used, never by an idle web process
    )

    result = build_report(
        records,
        samples=params["samples"],
        rng_seed=params["rng_seed"],
        bin_width=params["bin_width"],
        pairwise_kappa_c=False,
        progress=part(say, _READ_SHARE, 0.99),
    )
    result["inputs"] = {
        "pairs": len(records),
        "annotations": keys.annotations,
        "doubly_annotated": keys.doubly_annotated,
        "seconds": round(time.monotonic() - started, 3),
    }
    with transaction.atomic():
        report = AgreementReport.objects.create(
            project=project,
            job=job,
            params=params,
            fingerprint=report_selectors.fingerprint(keys=keys, params=params),
            latest_revision_at=keys.latest_revision_at,
            result=result,
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        message = f"Report of {keys.doubly_annotated} doubly annotated pairs stored"
        if on_stored is not None:
            on_stored(report, message)
    say(1.0, message)
    return report


def report_work(job: Job, reporter: Any) -> dict[str, Any]:
    """The report job's work. Its result names the stored report, never its figures (the job's
    state is visible to every member; the figures are for leads)."""

    def result_of(report: AgreementReport) -> dict[str, Any]:
        return {"report": report.pk, "pairs": report.result["inputs"]["pairs"]}

    report = compute_report(
        project=job.project,
        params=job.params,
        user=job.created_by,
        job=job,
        progress=reporter.as_progress(),
        # the job's success commits with the report (issue 30, finding 8)
        on_stored=lambda report, message: reporter.record_success(result_of(report), message),
    )
    return result_of(report)


def refresh_disagreements(*, project: Project) -> int:
    """Before the disagreement browser reads: rescore the pairs whose final annotations changed
    since the last read (``projects.services.agreement_scores``, shared with the pair browser's
    agreement filter); the number of pairs rescored."""
    return refresh_scores(project=project)
