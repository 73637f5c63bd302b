"""The corpora feature's job kind (an uploaded import), registered at start-up."""

from annotator.corpora.services.uploads import import_work
from annotator.jobs.registry import JobKind, register


def register_job_kinds() -> None:
    register(JobKind("import", import_work))
