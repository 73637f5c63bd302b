"""The corpora feature's job kinds (an uploaded import; the evaluation of a big upload),
registered at start-up."""

from collections.abc import Mapping
from typing import Any

from annotator.corpora.services.evaluation_job import JOB_KIND as EVALUATE_KIND
from annotator.corpora.services.evaluation_job import evaluate_work
from annotator.corpora.services.importing_report import ImportReport
from annotator.corpora.services.uploads import import_work
from annotator.jobs.registry import JobKind, register


def import_summary(result: Mapping[str, Any]) -> str | None:
    """The import report in words, one fact a line (what ``import_corpus`` prints)."""
    if not result:
        return None
    return "\n".join(ImportReport.from_dict(dict(result)).summary_lines())


def register_job_kinds() -> None:
    # An import is one transaction: its success is recorded inside it (issue 30, finding 8).
    register(JobKind("import", import_work, summary=import_summary, record_success_with_work=True))
    # Scores a big system file in the worker; its result is the synchronous evaluate's answer.
    register(JobKind(EVALUATE_KIND, evaluate_work))
