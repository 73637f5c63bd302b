"""Browser tests. The browser fixtures (``chromium_browser``, ``page``: Debian's Chromium through
Playwright for Python, never a downloaded browser) live in tests/browser.py and are shared by
every folder through tests/conftest.py; here are the real-worker fixtures the e2e tests add.
"""

from __future__ import annotations

# The real-worker fixtures (PostgreSQL + Redis; skip on a laptop, fail under CI=true).
from tests.integration.conftest import (  # noqa: F401
    postgres_and_redis,
    start_worker,
    worker_queue,
)
