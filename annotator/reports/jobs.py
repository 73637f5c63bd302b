"""The reports feature's job kind (an agreement report), registered at start-up."""

from annotator.jobs.registry import JobKind, register
from annotator.reports.services import report_work


def register_job_kinds() -> None:
    register(JobKind("report", report_work))
