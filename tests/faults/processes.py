"""Real processes for the fault tests, all on loopback and all stopped by the test that starts
them: a private PostgreSQL cluster (never the machine's shared one, which other people use) and
a web server (gunicorn) on this checkout that a test may kill -9 and start again."""

from __future__ import annotations

import contextlib
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.conftest import REPO_ROOT

SECRET_KEY = "fault-tests-secret-key-that-is-long-enough-0123456789"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def postgres_bin() -> Path | None:
    """The newest /usr/lib/postgresql/*/bin holding initdb, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: p.split("/")[-3])
    return Path(found[-1]).parent if found else None


def _as_postgres(cmd: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: run it as the ``postgres`` OS user then."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *cmd]
    return cmd


def wait_until(predicate, *, timeout: float, what: str, interval: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout} s waiting for {what}")


class PrivatePostgres:
    """``initdb`` into a temporary folder, a server on a free loopback port (its unix socket in
    that folder), ``restart()`` like a DBA would (``pg_ctl restart -m fast``), ``stop()``."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="gridalign-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
        self._run(
            str(bindir / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust",
            "--no-sync", "-E", "UTF8", "--locale", "C",
        )  # fmt: skip
        self.start()

    def _run(self, *cmd: str, timeout: float = 60) -> str:
        done = subprocess.run(
            _as_postgres(list(cmd)), capture_output=True, text=True, timeout=timeout, cwd="/"
        )
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def _pg_ctl(self, action: str, *extra: str) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            str(self.bindir / "pg_ctl"), action, "-D", str(self.data), "-w", "-t", "60",
            "-l", str(self.root / "log"), "-o", options, *extra,
        )  # fmt: skip

    def start(self) -> None:
        self._pg_ctl("start")

    def restart(self) -> None:
        """A fast restart: open connections are terminated, clean shutdown, start again."""
        self._pg_ctl("restart", "-m", "fast")

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self._pg_ctl("stop", "-m", "immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        self._run(str(self.bindir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port),
                  "-U", "postgres", name)  # fmt: skip
        return self.url(name)

    def log(self) -> str:
        with contextlib.suppress(OSError):
            return (self.root / "log").read_text()[-4000:]
        return ""


def app_env(*, database_url: str, var_dir: Path, **extra: str) -> dict[str, str]:
    """The environment of a production-shaped process of this checkout (DEBUG off)."""
    env = dict(os.environ)
    for name in ("CELERY_BROKER_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"):
        env.pop(name, None)
    env.update(
        DATABASE_URL=database_url,
        GRIDALIGN_VAR_DIR=str(var_dir),
        DEBUG="false",
        SECRET_KEY=SECRET_KEY,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        PYTHONUNBUFFERED="1",
        DJANGO_SETTINGS_MODULE="gridalign.settings",
        # plain HTTP on loopback, as docker-compose serves it (a TLS proxy would sit in front)
        SECURE_SSL_REDIRECT="false",
        SECURE_HSTS_SECONDS="0",
        SESSION_COOKIE_SECURE="false",
        CSRF_COOKIE_SECURE="false",
    )
    env.update(extra)
    return env


def manage(env: dict[str, str], *args: str, timeout: float = 180) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


# Our own static files only: compressing admin's, DRF's and Swagger UI's (12 MB, brotli and
# gzip) took 25 s of CPU a deployment, and the pages these tests open use none of them
# (test_deploy_static.py collects the same way; the Dockerfile collects them all).
_PREPARE = """
from django.core.management import call_command
call_command("migrate", interactive=False, verbosity=0)
call_command("collectstatic", interactive=False, verbosity=0,
             ignore_patterns=["admin", "rest_framework", "drf_spectacular_sidecar"])
"""


def prepare(env: dict[str, str], setup: str = "print('null')") -> Any:
    """A fresh deployment: the schema, the static files gathered under the var folder
    (WhiteNoise serves them: there is no proxy in front), then the Django code ``setup`` (as
    ``django_script``: it prints one JSON value, returned). One process for all three: each
    start of Django took seconds on the loaded CI machine."""
    return django_script(env, _PREPARE + setup, timeout=300)


def django_script(env: dict[str, str], code: str, timeout: float = 120) -> Any:
    """Run ``code`` in a Django shell of that environment; it prints one JSON value."""
    return json.loads(manage(env, "shell", "-c", code, timeout=timeout).strip().splitlines()[-1])


class WebServer:
    """gunicorn serving this checkout on 127.0.0.1:port; ``kill()`` is SIGKILL to the whole
    process group (master and workers), ``start()`` brings it back on the same port."""

    def __init__(
        self,
        env: dict[str, str],
        *,
        port: int | None = None,
        workers: int = 2,
        access_log: bool = True,
    ) -> None:
        self.env, self.port, self.workers = env, port or free_port(), workers
        self.access_log = access_log
        self.process: subprocess.Popen[str] | None = None
        self.lines: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable, "-m", "gunicorn", "gridalign.wsgi:application",
                "--bind", f"127.0.0.1:{self.port}", "--workers", str(self.workers),
                "--timeout", "60", "--graceful-timeout", "2",
                *(["--access-logfile", "-"] if self.access_log else []),
            ],
            cwd=REPO_ROOT, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, start_new_session=True,
        )  # fmt: skip
        process = self.process
        threading.Thread(target=self._read, args=(process,), daemon=True).start()
        wait_until(
            lambda: self.answers() or process.poll() is not None,
            timeout=timeout,
            what=f"gunicorn on port {self.port}",
        )
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited:\n{self.log}")

    def _read(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            self.lines.append(line.rstrip())

    @property
    def log(self) -> str:
        return "\n".join(self.lines[-80:])

    def answers(self) -> bool:
        try:
            with urllib.request.urlopen(self.url + "/healthz", timeout=2) as response:
                return response.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def kill(self) -> None:
        """SIGKILL to master and workers: no graceful shutdown, in-flight requests are cut."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        elif self.process is not None:  # the master is gone: make sure no worker is left
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
