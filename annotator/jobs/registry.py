"""The kinds of job: which work each kind runs, registered by its feature at start-up.

Each feature that runs jobs has a ``jobs.py`` whose ``register_job_kinds()`` adds its kinds here;
``AnnotatorConfig.ready`` calls them all. The runner looks a job's work up here when the job
runs, and ``start_job`` refuses a kind nobody registered. So a new kind of job costs one
``register`` call in its own feature, and nothing in this package names a feature above it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

# ``work(job, reporter) -> dict | None``: the Job row and its ``JobReporter`` (runner).
Work = Callable[[Any, Any], "dict[str, Any] | None"]
# A finished job's result in words, for the job page (None: show the JSON only).
Summary = Callable[[Mapping[str, Any]], "str | None"]


@dataclass(frozen=True)
class JobKind:
    """One kind of job. ``one_at_a_time_per_project``: starting one while another of the same
    project is queued or running returns that one (five quick clicks on "Seed" start one job)."""

    name: str
    work: Work
    summary: Summary | None = None
    one_at_a_time_per_project: bool = False
    # The work is one transaction anyway (an import): its success is recorded inside it, so a
    # worker killed just after the work's commit cannot leave the job "failed" with the work
    # done. Long work (training) keeps the separate update and holds no long transaction.
    record_success_with_work: bool = False
    # ``on_failed(job_id)``: undo what the job left when it is failed, however that happens
    # (its own error, its worker lost, the stale-job sweep): a chunked seeding's work spans
    # many tasks and transactions, so it cleans up here, not by rolling one back.
    on_failed: Callable[[int], None] | None = None


_KINDS: dict[str, JobKind] = {}


def register(kind: JobKind) -> None:
    """Add ``kind``. Registering the same kind again is harmless (``ready`` may run twice in
    tests); a different kind under a name already taken is refused."""
    known = _KINDS.get(kind.name)
    if known is not None and known != kind:
        raise ValueError(f"job kind {kind.name!r} is already registered with other work")
    _KINDS[kind.name] = kind


def job_kind(name: str) -> JobKind:
    """The registered kind ``name``; KeyError names an unknown kind."""
    try:
        return _KINDS[name]
    except KeyError:
        raise KeyError(f"no work registered for job kind {name!r}") from None


def work_for(name: str) -> Work:
    """The work function of job kind ``name``; KeyError names an unknown kind."""
    return job_kind(name).work


def records_success_with_work(name: str) -> bool:
    """Whether kind ``name`` records its success in its work's transaction (unknown: no)."""
    kind = _KINDS.get(name)
    return kind is not None and kind.record_success_with_work


def on_failed_for(name: str) -> Callable[[int], None] | None:
    """The clean-up of job kind ``name`` after a failure, if it has one (unknown: None)."""
    kind = _KINDS.get(name)
    return kind.on_failed if kind is not None else None


def summary_for(name: str) -> Summary | None:
    """The result summariser of job kind ``name``, if it has one (unknown kinds: None)."""
    kind = _KINDS.get(name)
    return kind.summary if kind is not None else None


def registered_kinds() -> list[str]:
    """The names of every registered kind, sorted."""
    return sorted(_KINDS)
