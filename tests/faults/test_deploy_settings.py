"""Deployment settings: with DEBUG off and nothing else said, ``manage.py check --deploy
--fail-level WARNING`` passes (HTTPS redirect, HSTS, secure cookies are the defaults); each is a
typed environment variable that a plain-HTTP site can turn off, and a bad value stops start-up
naming the variable."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT

# Everything a production environment might set, removed so each test says what it sets.
DEPLOY_VARS = {
    "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS", "DATABASE_URL",
    "CELERY_BROKER_URL", "REDIS_URL", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD", "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE", "SECURE_PROXY_SSL_HEADER",
}  # fmt: skip


def production_env(tmp_path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in DEPLOY_VARS}
    env.update(
        DJANGO_SETTINGS_MODULE="gridalign.settings",
        GRIDALIGN_VAR_DIR=str(tmp_path),
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="align.example.org",
        **extra,
    )
    return env


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_check_deploy_passes_on_production_defaults(tmp_path):
    out = manage(production_env(tmp_path), "check", "--deploy", "--fail-level", "WARNING")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no issues" in out.stdout


def test_plain_http_overrides_bring_back_the_warnings_the_issue_found(tmp_path):
    """The variables work (and the check above could fail): turning the HTTPS settings off,
    as docker-compose does on localhost, gives exactly the warnings the issue listed."""
    env = production_env(
        tmp_path,
        SECURE_SSL_REDIRECT="false",
        SECURE_HSTS_SECONDS="0",
        SESSION_COOKIE_SECURE="no",
        CSRF_COOKIE_SECURE="0",
    )
    out = manage(env, "check", "--deploy", "--fail-level", "WARNING")
    assert out.returncode != 0
    found = set(re.findall(r"security\.(W\d{3})", out.stderr + out.stdout))
    assert found == {"W004", "W008", "W012", "W016"}


PRINT = (
    "import django; from django.conf import settings as s; django.setup(); "
    "print(s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS, "
    "s.SECURE_HSTS_PRELOAD, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, "
    "s.SECURE_PROXY_SSL_HEADER, s.STORAGES['staticfiles']['BACKEND'])"
)


def settings_seen(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", PRINT], cwd=REPO_ROOT, env=env, capture_output=True, text=True
    )


def test_values_are_read_typed_from_the_environment(tmp_path):
    out = settings_seen(
        production_env(
            tmp_path,
            SECURE_HSTS_SECONDS="3600",
            SECURE_HSTS_PRELOAD="false",
            SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto",
        )
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [
        "True", "3600", "True", "False", "True", "True",
        "('HTTP_X_FORWARDED_PROTO',", "'https')",
        "whitenoise.storage.CompressedManifestStaticFilesStorage",
    ]  # fmt: skip


def test_debug_on_needs_no_https(tmp_path):
    out = settings_seen(production_env(tmp_path, DEBUG="true"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[:7] == ["False", "0", "False", "False", "False", "False", "None"]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SECURE_HSTS_SECONDS": "a year"}, "SECURE_HSTS_SECONDS='a year' is not an integer"),
        ({"SECURE_HSTS_SECONDS": "-1"}, "SECURE_HSTS_SECONDS=-1 must be at least 0"),
        ({"SECURE_SSL_REDIRECT": "sometimes"}, "SECURE_SSL_REDIRECT='sometimes' is not a boolean"),
        ({"SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto: https"}, "not an HTTP header name"),
    ],
)
def test_a_bad_value_stops_start_up_naming_the_variable(tmp_path, env, message):
    out = settings_seen(production_env(tmp_path, **env))
    assert out.returncode != 0
    assert message in out.stderr
