"""Small helpers shared by the API tests."""

from __future__ import annotations

import io

from annotator.jobs.runner import run_job
from annotator.models import Job


def upload(name: str, text: str | bytes) -> io.BytesIO:
    data = io.BytesIO(text.encode("utf-8") if isinstance(text, str) else text)
    data.name = name
    return data


def run_queued(job_id: int) -> Job:
    """Run a queued job in this process, as a worker would, and return it finished."""
    run_job(job_id)
    return Job.objects.get(pk=job_id)


def body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content
