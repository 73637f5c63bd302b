"""``manage.py rundev``: the quick start's server — Django's development server and a Celery
worker with Celery beat embedded (``-B``: the periodic sweep for jobs whose worker died) side by
side, all stopped by one Ctrl-C. For production use gunicorn, ``celery -A gridalign worker``
and exactly one ``celery -A gridalign beat`` (see docker-compose.yml).

The web server starts first and the worker once the server listens (at most ``WORKER_DELAY``
seconds later): the worker's start-up (it preloads scikit-learn and the seed model's resources)
would otherwise share the machine's cores with the server's, and ``make run``'s login page
would be served a few seconds later (issue 34). A job queued before (the demo's first
seeding) waits those seconds. This command runs no system checks of its own: the web server
runs them, and refuses to start when they fail."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable

from django.conf import settings
from django.core.management.base import BaseCommand

# -B: embedded beat, one process, so exactly one scheduler (CELERY_BEAT_SCHEDULE)
WORKER_ARGS = ("worker", "--loglevel", "INFO", "--concurrency", "1", "-B")
# The longest the worker waits for the web server to listen before it starts anyway.
WORKER_DELAY = 20.0


def wait_listening(
    host: str, port: int, web: subprocess.Popen, timeout: float, stopping: Callable[[], bool]
) -> None:
    """Return once ``host:port`` accepts a connection, ``web`` has ended, we are stopping, or
    after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and web.poll() is None and not stopping():
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
            return
        time.sleep(0.1)


class Command(BaseCommand):
    help = "Run the web server and a Celery worker with beat together (Ctrl-C stops both)."
    requires_system_checks: list[str] = []  # the web server it starts runs them

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--host", default="127.0.0.1")

    def handle(self, *args, port: int, host: str, **options):
        python = sys.executable
        env = dict(os.environ)
        worker = [python, "-m", "celery", "-A", "gridalign", *WORKER_ARGS]
        web = [python, "manage.py", "runserver", f"{host}:{port}", "--noreload"]
        self.stdout.write(
            f"gridalign on http://{host}:{port}/  (broker: {settings.CELERY_BROKER_URL})"
        )
        self.stdout.write("Press Ctrl-C to stop the web server and the worker (with beat).")
        stopping = False

        def stop(*_):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)

        def spawn(command: list[str]) -> subprocess.Popen:
            return subprocess.Popen(command, env=env, cwd=settings.BASE_DIR, start_new_session=True)

        procs: list[subprocess.Popen] = []
        code = 0
        try:
            procs.append(spawn(web))
            wait_listening(host, port, procs[0], WORKER_DELAY, lambda: stopping)
            if not stopping:
                procs.append(spawn(worker))
            while not stopping:
                for p in procs:
                    if p.poll() is not None:
                        self.stderr.write(
                            f"{p.args[2:4]} exited with status {p.returncode}; stopping."
                        )
                        code = p.returncode or 1
                        stopping = True
                time.sleep(0.3)
        finally:
            for p in procs:  # each leader shuts its own children down (celery: warm shutdown)
                if p.poll() is None:
                    p.terminate()
            deadline = time.monotonic() + 10
            for p in procs:
                try:
                    p.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
            for p in procs:  # nothing of either may outlive us (e.g. a pool child)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGKILL)
            self.stdout.write("Stopped.")
        if code:
            sys.exit(code)
