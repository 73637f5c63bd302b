"""Fixtures shared by every test folder.

Tests that need something outside the repository (the shared corpora, PostgreSQL, Redis, a
Celery worker, Chromium) call ``need(...)``: on a laptop without it they skip, but under
``CI=true`` a missing dependency is a failure, never a silent skip.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis checks behaviour, not speed: on a loaded 2-core machine (CI runs four test
# processes beside Chromium and Celery workers) its per-example deadline and its "generation
# is slow" health check fail correct code. Both are off for every property test.
settings.register_profile("gridalign", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("gridalign")

REPO_ROOT = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def need(available: bool, what: str) -> None:
    """Skip (or, in CI, fail) the calling test unless ``available``."""
    if available:
        return
    if IN_CI:
        pytest.fail(f"{what} is required when CI=true", pytrace=False)
    pytest.skip(f"{what} not available")


def shared_data_dir() -> Path:
    """The shared real corpora: $GRIDALIGN_SHARED_DATA, else ../shared/data beside the repo."""
    return Path(os.environ.get("GRIDALIGN_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))


@pytest.fixture
def shared_data() -> Path:
    path = shared_data_dir()
    need(path.is_dir(), f"the shared corpora folder {path} (set GRIDALIGN_SHARED_DATA)")
    return path


# The session's one Chromium (tests/browser.py): defined once here so that tests/e2e and the
# fault tests share it.
from tests.browser import chromium_browser, page  # noqa: E402, F401
