"""The one headless Chromium of a test session: Debian's /usr/bin/chromium driven by Playwright
for Python (never a downloaded browser). Its fixtures are exposed by tests/conftest.py so every
folder shares ONE browser: Playwright's sync API runs an event loop in this thread, and a
second ``sync_playwright()`` in the same session would fail.

Without Chromium or Playwright the tests that use it skip on a laptop and fail under CI=true.
"""

from __future__ import annotations

import os
import shutil

import pytest

from tests.conftest import need

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Playwright's sync API runs an event loop in this thread; the test body's ORM calls are
# still synchronous, so tell Django not to refuse them.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="session")
def chromium_browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - depends on the environment
        need(False, "Playwright for Python")
    need(os.path.exists(CHROMIUM) or bool(shutil.which("chromium")), f"Chromium at {CHROMIUM}")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium_browser):
    context = chromium_browser.new_context()
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def log_in(browser, base: str, username: str, password: str, width: int = 1400, height: int = 900):
    """A new browser context of ``width`` × ``height``, logged in as ``username`` on the live
    server at ``base``; returns its page."""
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(base + "/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    return page
