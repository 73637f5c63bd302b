"""Settings come from the environment and fail loudly on a bad value (issue 2 §2)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from gridalign.env import env_bool, env_int, env_list, parse_database_url
from tests.conftest import REPO_ROOT

PRINT_SETTINGS = (
    "import django; from django.conf import settings; django.setup(); "
    "print(settings.DATABASES['default']['ENGINE'], settings.DATABASES['default']['NAME'], "
    "settings.CELERY_BROKER_URL, settings.DEBUG, len(settings.SECRET_KEY), settings.ALLOWED_HOSTS)"
)


def load_settings(tmp_path, **env: str) -> subprocess.CompletedProcess:
    """Import the settings in a fresh interpreter with exactly these variables."""
    clean = {k: v for k, v in os.environ.items() if k not in _SETTINGS_VARS}
    clean.update(
        DJANGO_SETTINGS_MODULE="gridalign.settings", GRIDALIGN_VAR_DIR=str(tmp_path), **env
    )
    return subprocess.run(
        [sys.executable, "-c", PRINT_SETTINGS],
        cwd=REPO_ROOT,
        env=clean,
        capture_output=True,
        text=True,
    )


_SETTINGS_VARS = {
    "DEBUG", "SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "ALLOWED_HOSTS",
    "JOB_STALE_AFTER",
}  # fmt: skip


def test_local_defaults_need_no_server_and_generate_the_secret_key_once(tmp_path):
    first = load_settings(tmp_path, DEBUG="true")
    assert first.returncode == 0, first.stderr
    engine, name, broker, debug, key_len, hosts = first.stdout.split(" ", 5)
    assert engine == "django.db.backends.sqlite3" and name == str(tmp_path / "gridalign.sqlite3")
    assert broker == "filesystem://" and debug == "True" and int(key_len) >= 50
    key = (tmp_path / "secret_key").read_text()
    assert oct((tmp_path / "secret_key").stat().st_mode & 0o777) == "0o600"
    again = load_settings(tmp_path, DEBUG="true")
    assert again.returncode == 0 and (tmp_path / "secret_key").read_text() == key


def test_production_needs_a_secret_key(tmp_path):
    out = load_settings(tmp_path)
    assert out.returncode != 0 and "SECRET_KEY is required when DEBUG is off" in out.stderr
    assert not (tmp_path / "secret_key").exists()
    ok = load_settings(tmp_path, SECRET_KEY="k" * 40, ALLOWED_HOSTS="align.example.org")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.split(" ", 5)[3] == "False" and "align.example.org" in ok.stdout


def test_with_debug_off_the_key_make_run_generated_is_reused(tmp_path):
    """The README's commands run in a fresh shell (no DEBUG) after `make run` made the key."""
    made = load_settings(tmp_path, DEBUG="true")
    assert made.returncode == 0, made.stderr
    plain = load_settings(tmp_path)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.split(" ", 5)[3] == "False"
    assert int(plain.stdout.split(" ", 5)[4]) == len((tmp_path / "secret_key").read_text())
    (tmp_path / "secret_key").write_text("short")
    bad = load_settings(tmp_path)
    assert bad.returncode != 0 and "shorter than 32 characters" in bad.stderr


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DEBUG": "maybe"}, "DEBUG='maybe' is not a boolean"),
        ({"DEBUG": "true", "SECRET_KEY": "short"}, "at least 32 characters"),
        ({"DEBUG": "true", "DATABASE_URL": "mysql://x/y"}, "unsupported scheme 'mysql'"),
        ({"DEBUG": "true", "CELERY_BROKER_URL": "amqp://guest@localhost//"}, "CELERY_BROKER_URL"),
        ({"DEBUG": "true", "JOB_STALE_AFTER": "soon"}, "JOB_STALE_AFTER='soon' is not an integer"),
    ],
)
def test_a_bad_value_stops_start_up_naming_the_variable(tmp_path, env, message):
    out = load_settings(tmp_path, **env)
    assert out.returncode != 0
    assert message in out.stderr


def test_redis_and_postgres_urls_are_taken_from_the_environment(tmp_path):
    out = load_settings(
        tmp_path,
        DEBUG="true",
        DATABASE_URL="postgres://u:p%40ss@db.local:5433/align",
        REDIS_URL="redis://cache:6379/2",
    )
    assert out.returncode == 0, out.stderr
    engine, name, broker, *_ = out.stdout.split(" ", 5)
    assert (engine, name, broker) == (
        "django.db.backends.postgresql",
        "align",
        "redis://cache:6379/2",
    )


def test_parse_database_url():
    pg = parse_database_url("postgresql://user:p%40ss@host:5433/db?sslmode=require", base_dir="/b")
    assert pg["ENGINE"] == "django.db.backends.postgresql"
    assert (pg["USER"], pg["PASSWORD"], pg["HOST"], pg["PORT"], pg["NAME"]) == (
        "user", "p@ss", "host", "5433", "db",
    )  # fmt: skip
    assert pg["OPTIONS"] == {"sslmode": "require"}
    assert parse_database_url("sqlite:////abs/x.db", base_dir="/b")["NAME"] == "/abs/x.db"
    assert parse_database_url("sqlite:///var/x.db", base_dir="/b")["NAME"] == "/b/var/x.db"
    for bad, why in [("postgres://host:5432/", "no database name"), ("sqlite://", "no SQLite file"),
                     ("postgres://host:notaport/db", "bad port")]:  # fmt: skip
        with pytest.raises(ImproperlyConfigured, match=why):
            parse_database_url(bad, base_dir="/b")


def test_typed_readers(monkeypatch):
    monkeypatch.setenv("X_BOOL", "Yes")
    monkeypatch.setenv("X_INT", "3")
    monkeypatch.setenv("X_LIST", " a, b ,,c ")
    assert env_bool("X_BOOL") is True and env_bool("X_UNSET", True) is True
    assert env_int("X_INT", 1) == 3 and env_list("X_LIST", []) == ["a", "b", "c"]
    with pytest.raises(ImproperlyConfigured, match="X_INT=3 must be at least 5"):
        env_int("X_INT", 1, minimum=5)
