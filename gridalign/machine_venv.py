"""The virtualenv, made once per machine: ``python3 gridalign/machine_venv.py [--dev]``.

The Makefile runs this file (with the machine's Python, before any virtualenv exists; standard
library only, and run as a file, so that the ``gridalign`` package is not imported). A new
clone's ``.venv`` becomes a link to ``<cache>/venv/<key>``, where ``<cache>`` is the per-machine
cache of ``alignment_core.machine_cache`` (``$GRIDALIGN_CACHE``, else
``${XDG_CACHE_HOME:-~/.cache}/gridalign``) and ``<key>`` a digest of the Python that makes the
virtualenv and of ``requirements.txt`` and ``requirements-dev.txt``. The first clone installs
the pinned requirements there (minutes of pip on a new machine); every later clone, and every
CI run, takes the same environment in a moment. A change to either requirements file, or
another Python, gives another key, hence a new virtualenv installed from scratch: a shared
one never drifts from the pins.

* ``--dev`` adds the development requirements (``make test``); ``make run`` installs the
  runtime ones only, into the same folder, and a later ``--dev`` adds the rest.
* A stamp file per step (``.runtime``, ``.dev``) holds the key it was made for and is written
  last: a step interrupted half-way is done again, from a new folder when the runtime step
  was the one interrupted. A lock (``<key>.lock``) keeps two clones from installing into the
  same folder at once; the second waits, then finds the work done.
* The folders of other keys not used for ``KEEP_DAYS`` days are removed (never one that is
  in use: its lock is taken first); a clone whose link then points nowhere is given a new
  folder on its next ``make``.
* ``GRIDALIGN_CACHE=off``, or a ``.venv`` that is a folder of its own (made before this
  existed, or by hand), keeps the virtualenv in the clone: installed and stamped the same
  way, as ``make`` did before.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNTIME, DEV = ROOT / "requirements.txt", ROOT / "requirements-dev.txt"
KEEP_DAYS = 14
_OFF = ("off", "0", "no", "false")
MARK = ".machine-venv"  # in each virtualenv this module keeps in the cache


@dataclass(frozen=True)
class Wanted:
    """The requirements files, and whether the development ones are installed too."""

    runtime: Path = RUNTIME
    dev: Path = DEV
    with_dev: bool = False
    without_pip: bool = False  # a virtualenv with nothing to install needs none (the tests)


def cache_dir() -> Path | None:
    """The per-machine cache; the same as ``alignment_core.machine_cache.cache_dir`` (a test
    checks that the two agree), which cannot be imported here: it would load numpy."""
    override = os.environ.get("GRIDALIGN_CACHE")
    if override:
        return None if override.lower() in _OFF else Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gridalign"


def key(runtime: Path, dev: Path) -> str:
    """What the virtualenv is made of: this Python (its version, its real path, the machine)
    and both requirements files' bytes."""
    made_by = (sys.version, os.path.realpath(sys.executable), platform.machine())
    digest = hashlib.sha256(repr(made_by).encode())
    for path in (runtime, dev):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def stamped(venv: Path, step: str, k: str) -> bool:
    try:
        return (venv / f".{step}").read_text().strip() == k
    except OSError:
        return False


def pip_install(venv: Path, requirements: Path) -> None:
    """pip installs ``requirements`` into ``venv`` (not run when the file lists nothing)."""
    listed = [line.split("#")[0].strip() for line in requirements.read_text().splitlines()]
    if any(listed):
        subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
             "--disable-pip-version-check", "-r", str(requirements)],
            check=True,
        )  # fmt: skip


def install(venv: Path, k: str, wanted: Wanted, fresh: bool) -> None:
    """The steps not yet stamped with ``k``: the virtualenv and the runtime requirements (in
    a new folder when ``fresh``), then the development ones when they are wanted."""
    if not stamped(venv, "runtime", k):
        if fresh and venv.exists():
            shutil.rmtree(venv)
        if not (venv / "bin" / "python").exists():
            without_pip = ["--without-pip"] if wanted.without_pip else []
            subprocess.run([sys.executable, "-m", "venv", *without_pip, str(venv)], check=True)
        if fresh:
            (venv / MARK).write_text("made by gridalign/machine_venv.py\n")
        (venv / ".dev").unlink(missing_ok=True)
        pip_install(venv, wanted.runtime)
        (venv / ".runtime").write_text(k + "\n")
    if wanted.with_dev and not stamped(venv, "dev", k):
        pip_install(venv, wanted.dev)
        (venv / ".dev").write_text(k + "\n")


def link(link_path: Path, target: Path) -> None:
    """``link_path`` made a link to ``target`` in one step (a temporary link renamed)."""
    if link_path.is_symlink() and os.readlink(link_path) == str(target):
        return
    tmp = link_path.with_name(f"{link_path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(target, target_is_directory=True)
    os.replace(tmp, link_path)


def prune(folder: Path, keep: str) -> None:
    """Removes the virtualenvs of other keys not used for ``KEEP_DAYS`` days and not in use
    now (their lock free)."""
    too_old = time.time() - KEEP_DAYS * 86400
    for lock_path in folder.glob("*.lock"):
        venv = lock_path.with_suffix("")
        if venv.name == keep:
            continue
        try:
            if venv.exists() and venv.stat().st_mtime > too_old:
                continue
            with open(lock_path) as lock:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                shutil.rmtree(venv, ignore_errors=True)
                lock_path.unlink(missing_ok=True)
        except OSError:  # in use (the lock is held) or already gone
            continue


def _ours(venv_path: Path) -> bool:
    """Is ``venv_path`` a link to a virtualenv of the cache (not one the user linked)?"""
    return venv_path.is_symlink() and (venv_path / MARK).exists()


def ensure(venv_path: Path, wanted: Wanted) -> None:
    """The virtualenv at ``venv_path``, made or reused as the module says."""
    k = key(wanted.runtime, wanted.dev)
    cache = cache_dir()
    if venv_path.is_symlink() and not venv_path.exists():  # its virtualenv was pruned
        venv_path.unlink()
    if cache is None and _ours(venv_path):  # the cache turned off: a folder of the clone's
        venv_path.unlink()
    if cache is None or (venv_path.exists() and not _ours(venv_path)):
        install(venv_path, k, wanted, fresh=False)
        return
    folder = cache / "venv"
    folder.mkdir(parents=True, exist_ok=True)
    shared = folder / k
    with open(folder / f"{k}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        install(shared, k, wanted, fresh=True)
        os.utime(shared)  # used now: not pruned for KEEP_DAYS
    link(venv_path, shared)
    prune(folder, k)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--venv", default=str(ROOT / ".venv"), help="the clone's .venv (default)")
    ap.add_argument("--dev", action="store_true", help="add the development requirements")
    ap.add_argument("--requirements", default=str(RUNTIME), help="requirements.txt (default)")
    ap.add_argument("--dev-requirements", default=str(DEV), help="requirements-dev.txt")
    ap.add_argument("--without-pip", action="store_true", help="make it without pip")
    args = ap.parse_args(argv)
    reqs = Path(args.requirements), Path(args.dev_requirements)
    wanted = Wanted(*reqs, with_dev=args.dev, without_pip=args.without_pip)
    try:
        ensure(Path(args.venv), wanted)
    except subprocess.CalledProcessError as failed:
        print(f"error: {' '.join(map(str, failed.cmd))} failed ({failed.returncode})",
              file=sys.stderr)  # fmt: skip
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
