"""The corpora feature's job kind (an uploaded import), registered at start-up."""

from annotator.corpora.services.uploads import import_work
from annotator.jobs.registry import JobKind, register


def register_job_kinds() -> None:
    # An import is one transaction: its success is recorded inside it (issue 30, finding 8).
    register(JobKind("import", import_work, record_success_with_work=True))
