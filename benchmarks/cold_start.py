"""Cold start (issue 34): `make run` from a fresh clone to a served login page.

    .venv/bin/python benchmarks/cold_start.py [--repo DIR] [--rev HEAD] [--port 8765]
        [--skip cold,warm,anchor] [--keep] [--cache-home DIR]

Each run clones ``--repo`` at ``--rev`` into a new folder under /tmp (``../shared`` beside it
links to the repository's ``../shared``, as in the development layout), starts ``make run
PORT=...`` there with a fresh SQLite database and times until ``GET /accounts/login/``
answers 200; then it stops the server (its whole process group) and removes the clone.

* **cold**: an empty per-machine cache (``XDG_CACHE_HOME`` is a new folder): the resources
  are fetched (npm's own cache may hold the tarballs) and converted, numba compiles;
* **warm**: a second fresh clone with the same cache: a new clone on a machine that has set
  gridalign up before;
* **anchor**, measured in the same run: ``python -m venv`` + ``pip install -r
  requirements.txt`` alone, the floor of any fresh clone.

``--cache-home DIR`` uses DIR as ``XDG_CACHE_HOME`` instead of a new folder (e.g. ``~/.cache``,
already filled by this machine's clones): with ``--skip cold``, a warm run without the
minutes of a cold one first. pip's cache stays the user's (``PIP_CACHE_DIR``): "warm package caches" in every run.
Prints each figure, the anchor, their ratio and difference, and the 1-minute load average;
and, for each ``make run``, the time of its own venv + pip step (until its ``.venv/.runtime``
stamp appears) and of the steps after it: measured in the same process under the same load,
those steps are the part a change to the setup can cut, and on a shared machine they are a
steadier figure than a ratio to an anchor timed minutes apart.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GOAL_SECONDS = 60.0


def load() -> float:
    return os.getloadavg()[0]


def clone(repo: Path, rev: str, parent: Path) -> Path:
    where = parent / "gridalign"
    subprocess.run(["git", "clone", "--quiet", str(repo), str(where)], check=True)
    subprocess.run(["git", "-C", str(where), "checkout", "--quiet", rev], check=True)
    shared = repo.parent / "shared"
    if shared.exists():
        (parent / "shared").symlink_to(shared.resolve())
    return where


def served(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def time_make_run(where: Path, env: dict[str, str], port: int, log: Path) -> tuple[float, float]:
    """Seconds from `make run` to a 200 on the login page, and to the end of its venv + pip
    step (its stamp, ``.venv/.runtime``, appears); the server is stopped after."""
    url = f"http://127.0.0.1:{port}/accounts/login/"
    stamp, pip_done = where / ".venv" / ".runtime", float("nan")
    start = time.perf_counter()
    with open(log, "wb") as out:
        proc = subprocess.Popen(["make", "run", f"PORT={port}"], cwd=where, env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
        try:
            while not served(url):
                if proc.poll() is not None:
                    raise SystemExit(f"make run ended ({proc.returncode}) first: see {log}")
                if pip_done != pip_done and stamp.exists():
                    pip_done = time.perf_counter() - start
                time.sleep(0.2)
            return time.perf_counter() - start, pip_done
        finally:
            os.killpg(proc.pid, signal.SIGINT)  # rundev stops its web server and worker
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            stragglers = subprocess.run(["pgrep", "-g", str(proc.pid)], capture_output=True)
            if stragglers.stdout.strip():  # children that started sessions of their own
                subprocess.run(["pkill", "-KILL", "-g", str(proc.pid)])


def time_anchor(parent: Path, env: dict[str, str]) -> float:
    venv = parent / "anchor-venv"
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                    "--disable-pip-version-check", "-r", str(REPO / "requirements.txt")],
                   check=True, env=env)  # fmt: skip
    return time.perf_counter() - start


def base_env(cache_home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("VIRTUAL_ENV", "GRIDALIGN", "NUMBA_CACHE", "DATABASE_URL"))}  # fmt: skip
    env["PIP_CACHE_DIR"] = env.get("PIP_CACHE_DIR") or str(Path.home() / ".cache" / "pip")
    env["XDG_CACHE_HOME"] = str(cache_home)
    env["DEBUG"] = "true"
    env.pop("CELERY_BROKER_URL", None)
    return env


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repo", type=Path, default=REPO)
    p.add_argument("--rev", default="HEAD")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--skip", default="", help="comma-separated: cold, warm, anchor")
    p.add_argument("--keep", action="store_true", help="keep the clones and logs")
    p.add_argument("--cache-home", type=Path, help="an existing XDG_CACHE_HOME (default: new)")
    args = p.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    rev = subprocess.run(["git", "-C", str(args.repo), "rev-parse", args.rev], check=True,
                         capture_output=True, text=True).stdout.strip()  # fmt: skip
    work = Path(tempfile.mkdtemp(prefix="gridalign-cold-"))
    cache_home = args.cache_home or work / "xdg-cache"
    cache_home.mkdir(exist_ok=True)
    env = base_env(cache_home)
    figures: dict[str, tuple[float, float]] = {}
    try:
        for label in ("cold", "warm"):
            if label in skip:
                continue
            parent = work / label
            parent.mkdir()
            where = clone(args.repo, rev, parent)
            before = load()
            seconds, pip_done = time_make_run(where, env, args.port, work / f"{label}.log")
            figures[label] = (seconds, max(before, load()))
            print(f"{label}: make run → login page in {seconds:.1f} s: its venv + pip step "
                  f"{pip_done:.1f} s, the steps after it {seconds - pip_done:.1f} s "
                  f"(load {load():.1f})", flush=True)  # fmt: skip
            if not args.keep:
                shutil.rmtree(parent, ignore_errors=True)
        if "anchor" not in skip:
            seconds = time_anchor(work, env)
            figures["anchor"] = (seconds, load())
            print(f"anchor: venv + pip install -r requirements.txt in {seconds:.1f} s", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"kept: {work}")
    print(f"\nrev {rev[:10]}, goal ≤ {GOAL_SECONDS:.0f} s from a fresh clone")
    anchor = figures.get("anchor", (float("nan"), 0.0))[0]
    for label, (seconds, at_load) in figures.items():
        ratio = seconds / anchor if anchor == anchor else float("nan")
        print(f"  {label:7s} {seconds:6.1f} s   anchor {anchor:5.1f} s   ratio {ratio:4.2f}×   "
              f"beyond the anchor {seconds - anchor:+6.1f} s   "
              f"load {at_load:.1f} (the higher of start and end)")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
