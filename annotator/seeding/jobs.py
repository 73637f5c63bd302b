"""The seeding feature's job kind, registered at start-up (``AnnotatorConfig.ready``)."""

from annotator.jobs.registry import JobKind, register
from annotator.seeding.chunked import discard_unpublished
from annotator.seeding.selectors import seed_result_summary
from annotator.seeding.services import seed_work


def register_job_kinds() -> None:
    # One seeding per project at a time: five clicks on "Seed" start one job, not five.
    register(
        JobKind(
            "seed",
            seed_work,
            summary=seed_result_summary,
            one_at_a_time_per_project=True,
            on_failed=discard_unpublished,  # a chunked seeding's unpublished run and folder
        )
    )
