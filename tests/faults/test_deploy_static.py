"""With DEBUG off, WhiteNoise serves the static files that ``collectstatic`` made (hashed,
precompressed, cached for good) from gunicorn, as in the Docker image — no
``django.views.static.serve``, no proxy needed. Production-shaped: behind a TLS proxy that sets
X-Forwarded-Proto; a plain-HTTP request is redirected to HTTPS, except the health probe."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from tests.conftest import REPO_ROOT
from tests.faults.test_deploy_settings import manage, production_env

HTTPS = {"X-Forwarded-Proto": "https", "Host": "align.example.org"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def get(url: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(urllib.request.Request(url, headers=headers), timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def test_gunicorn_serves_hashed_compressed_static_files_with_debug_off(tmp_path):
    env = production_env(tmp_path, SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto")
    # Our own files only: compressing admin's, DRF's and Swagger UI's 40 MB takes a minute
    # on a busy machine and proves nothing more (the Dockerfile collects them all).
    ignore = ["-i", "admin", "-i", "rest_framework", "-i", "drf_spectacular_sidecar"]
    collected = manage(env, "collectstatic", "--noinput", "-v", "0", *ignore)
    assert collected.returncode == 0, collected.stderr
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "gridalign.wsgi:application", "--bind",
         f"127.0.0.1:{port}", "--workers", "1"],
        cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                status, _, html = get(f"{base}/accounts/login/", HTTPS)
                break
            except OSError:
                assert server.poll() is None, server.stderr.read()
                assert time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.3)
        assert status == 200
        hashed = re.search(r'/static/(gridalign/jobs\.[0-9a-f]{12}\.js)"', html.decode())
        assert hashed, "the page does not link the hashed (manifest) name"

        status, headers, body = get(f"{base}/static/{hashed[1]}", HTTPS)
        assert status == 200
        assert b"watchJob" in body
        assert "immutable" in headers["Cache-Control"]  # hashed: cached for good

        status, headers, _ = get(f"{base}/static/{hashed[1]}", {**HTTPS, "Accept-Encoding": "gzip"})
        assert status == 200 and headers.get("Content-Encoding") == "gzip"

        # plain HTTP is sent to HTTPS; the health probe (from inside a container) is not
        status, headers, _ = get(f"{base}/static/{hashed[1]}", {"Host": "align.example.org"})
        assert status == 301 and headers["Location"].startswith("https://align.example.org/")
        status, headers, _ = get(f"{base}/healthz", {"Host": "align.example.org"})
        assert status in (200, 503) and "Strict-Transport-Security" not in headers
        status, headers, _ = get(f"{base}/accounts/login/", HTTPS)
        assert "max-age=31536000" in headers["Strict-Transport-Security"]
        assert "Secure" in headers.get("Set-Cookie", "")
    finally:
        server.terminate()
        server.wait(timeout=20)
