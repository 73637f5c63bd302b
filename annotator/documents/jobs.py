"""The documents feature's job kind, registered at start-up (``AnnotatorConfig.ready``)."""

from annotator.documents.services import ALIGN_JOB, align_work
from annotator.jobs.registry import JobKind, register


def _summary(result):
    if not result:
        return None
    return f"{result.get('beads', 0)} beads in {result.get('document_pairs', 0)} document pairs"


def register_job_kinds() -> None:
    register(JobKind(ALIGN_JOB, align_work, summary=_summary))
