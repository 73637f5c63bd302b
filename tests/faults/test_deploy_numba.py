"""Numba in Docker: the image sets NUMBA_CACHE_DIR to a path the app user can write, compiles
every kernel there at build time (``python -m gridalign.warm_jit``), and a new process with the
same environment — a new container — loads the kernels instead of compiling them. No Docker
daemon here, so the image's environment is read from the Dockerfile and the build step run as
the Dockerfile runs it."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO_ROOT

DOCKERFILE = (REPO_ROOT / "Dockerfile").read_text()

ALIGN_A_PAIR = (
    "from alignment_core.aligner import train; "
    "pairs = [('the cat sat'.split(), 'a cat sat down'.split())] * 3; "
    "print(train(pairs).align(pairs)[0])"
)


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (KEYWORD, arguments), continuation lines joined."""
    text = re.sub(r"\\\n", " ", DOCKERFILE)
    lines = [line.strip() for line in text.splitlines()]
    return [
        (line.split(None, 1)[0].upper(), line.split(None, 1)[1])
        for line in lines
        if line and not line.startswith("#")
    ]


def image_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for keyword, args in instructions():
        if keyword == "ENV":
            env.update(item.split("=", 1) for item in shlex.split(args))
    return env


def test_the_image_warms_a_writable_numba_cache_at_build_time():
    env = image_env()
    cache = env["NUMBA_CACHE_DIR"]
    assert cache.startswith(env["GRIDALIGN_VAR_DIR"] + "/")  # /app/var: the app user's
    steps = instructions()
    warm = next(i for i, (k, a) in enumerate(steps) if k == "RUN" and "gridalign.warm_jit" in a)
    user = next(i for i, (k, _) in enumerate(steps) if k == "USER")
    assert warm < user  # built before dropping root, then handed over:
    assert re.search(r"warm_jit .*chown -R gridalign /app/var", steps[warm][1])
    compose = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())
    for name, service in compose["services"].items():
        assert "NUMBA_CACHE_DIR" not in (service.get("environment") or {}), name


@pytest.mark.slow
def test_the_warm_step_fills_numba_cache_dir_and_a_new_process_compiles_nothing(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.pop("GRIDALIGN_ALIGNER_PLAIN", None)
    env.update({k: v for k, v in image_env().items() if k.startswith("NUMBA_")})
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba-cache")  # the image's path, here

    built = subprocess.run(
        [sys.executable, "-m", "gridalign.warm_jit"],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    assert f"compiled into {tmp_path / 'numba-cache'}" in built.stdout
    cache = Path(env["NUMBA_CACHE_DIR"])
    modules = {p.name.split(".")[0] for p in cache.rglob("*.nbi")}  # module.function-line
    assert {"_kernels", "_hmm_kernels", "batch", "chance", "phrases"} <= modules
    before = {p: p.stat().st_mtime_ns for p in cache.rglob("*") if p.is_file()}

    # a new container: a fresh process aligning for real finds every kernel compiled
    run = subprocess.run(
        [sys.executable, "-c", ALIGN_A_PAIR],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    after = {p: p.stat().st_mtime_ns for p in cache.rglob("*") if p.is_file()}
    assert after == before  # loaded, nothing compiled or written
