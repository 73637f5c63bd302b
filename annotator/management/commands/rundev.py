"""``manage.py rundev``: the quick start's server — Django's development server and a Celery
worker with Celery beat embedded (``-B``: the periodic sweep for jobs whose worker died) side by
side, all stopped by one Ctrl-C. For production use gunicorn, ``celery -A gridalign worker``
and exactly one ``celery -A gridalign beat`` (see docker-compose.yml)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Run the web server and a Celery worker with beat together (Ctrl-C stops both)."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--host", default="127.0.0.1")

    def handle(self, *args, port: int, host: str, **options):
        python = sys.executable
        env = dict(os.environ)
        worker = [
            python,
            "-m",
            "celery",
            "-A",
            "gridalign",
            "worker",
            "--loglevel",
            "INFO",
            "--concurrency",
            "1",
            "-B",  # embedded beat: one process, so exactly one scheduler (CELERY_BEAT_SCHEDULE)
        ]
        web = [python, "manage.py", "runserver", f"{host}:{port}", "--noreload"]
        self.stdout.write(
            f"gridalign on http://{host}:{port}/  (broker: {settings.CELERY_BROKER_URL})"
        )
        self.stdout.write("Press Ctrl-C to stop the web server and the worker (with beat).")
        procs = [
            subprocess.Popen(worker, env=env, cwd=settings.BASE_DIR, start_new_session=True),
            subprocess.Popen(web, env=env, cwd=settings.BASE_DIR, start_new_session=True),
        ]
        stopping = False

        def stop(*_):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        code = 0
        try:
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
