"""The virtualenv made once per machine (``gridalign/machine_venv.py``, run by ``make``): a
second clone links to the first one's instead of installing, a change to the requirements
makes a new one, an interrupted install is done again from scratch, ``GRIDALIGN_CACHE=off``
and a clone's own ``.venv`` keep it in the clone, and old ones are pruned unless in use.

Real virtualenvs, made by the script as ``make`` runs it (the machine's Python, the file run
as a script), from requirements files of this test's own that list nothing, without pip:
what is checked is where the virtualenv is and what it was made for, not pip."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

from alignment_core.machine_cache import cache_dir as core_cache_dir
from gridalign import machine_venv
from tests.conftest import REPO_ROOT

SCRIPT = REPO_ROOT / "gridalign" / "machine_venv.py"
BASE_PYTHON = os.path.realpath(sys.executable)  # the venv's link resolves to the machine's


def requirements(folder: Path, runtime: str = "# nothing\n", dev: str = "# nothing\n"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "r.txt").write_text(runtime)
    (folder / "r-dev.txt").write_text(dev)
    return folder / "r.txt", folder / "r-dev.txt"


def make_venv(clone: Path, reqs, cache: Path | str, dev: bool = False) -> None:
    """The script as ``make venv`` / ``make venv-dev`` runs it, in ``clone``."""
    clone.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GRIDALIGN_CACHE": str(cache)}
    argv = [BASE_PYTHON, str(SCRIPT), "--venv", str(clone / ".venv"), "--without-pip"]
    argv += ["--requirements", str(reqs[0]), "--dev-requirements", str(reqs[1])]
    done = subprocess.run(argv + (["--dev"] if dev else []), env=env, capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr


def python_works(venv: Path) -> str:
    probe = [str(venv / "bin" / "python"), "-c", "import sys; print(sys.prefix)"]
    return subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip()


def test_a_second_clone_links_to_the_first_ones_virtualenv(tmp_path):
    cache, reqs = tmp_path / "cache", requirements(tmp_path / "reqs")
    first, second = tmp_path / "first", tmp_path / "second"
    make_venv(first, reqs, cache)
    shared = (first / ".venv").resolve()
    assert (first / ".venv").is_symlink() and shared.parent == cache / "venv"
    made = (shared / ".runtime").stat().st_mtime_ns
    make_venv(second, reqs, cache, dev=True)
    assert (second / ".venv").resolve() == shared
    assert (shared / ".runtime").stat().st_mtime_ns == made  # not installed again
    assert (shared / ".dev").read_text() == (shared / ".runtime").read_text()  # dev added
    assert python_works(second / ".venv") == str(second / ".venv")  # its own prefix, via the link


def test_other_requirements_make_another_virtualenv(tmp_path):
    cache = tmp_path / "cache"
    make_venv(tmp_path / "a", requirements(tmp_path / "one"), cache)
    make_venv(tmp_path / "b", requirements(tmp_path / "two", dev="# pytest, say\n"), cache)
    a, b = (tmp_path / "a" / ".venv").resolve(), (tmp_path / "b" / ".venv").resolve()
    assert a != b and a.exists() and b.exists()  # the other clone's is kept


def test_an_interrupted_install_is_done_again_from_scratch(tmp_path):
    cache, reqs = tmp_path / "cache", requirements(tmp_path / "reqs")
    make_venv(tmp_path / "clone", reqs, cache)
    shared = (tmp_path / "clone" / ".venv").resolve()
    (shared / ".runtime").unlink()  # as if pip had been stopped half-way
    (shared / "half-installed").write_text("")
    make_venv(tmp_path / "clone", reqs, cache)
    assert (shared / ".runtime").exists() and not (shared / "half-installed").exists()


def test_off_or_a_folder_of_its_own_keeps_the_virtualenv_in_the_clone(tmp_path):
    reqs = requirements(tmp_path / "reqs")
    clone = tmp_path / "clone"
    make_venv(clone, reqs, tmp_path / "cache")
    assert (clone / ".venv").is_symlink()
    make_venv(clone, reqs, "off")  # the link to the cache's is replaced by a folder
    assert (clone / ".venv").is_dir() and not (clone / ".venv").is_symlink()
    assert (clone / ".venv" / ".runtime").exists()
    make_venv(clone, reqs, tmp_path / "cache")  # and, the cache on again, left alone
    assert not (clone / ".venv").is_symlink()


def test_a_link_made_by_hand_is_left_alone(tmp_path):
    reqs = requirements(tmp_path / "reqs")
    mine, clone = tmp_path / "mine", tmp_path / "clone"
    make_venv(tmp_path / "elsewhere", reqs, "off")
    (tmp_path / "elsewhere" / ".venv").rename(mine)
    clone.mkdir()
    (clone / ".venv").symlink_to(mine)
    make_venv(clone, reqs, tmp_path / "cache")
    assert os.readlink(clone / ".venv") == str(mine)
    assert not (tmp_path / "cache" / "venv").exists()


def test_old_virtualenvs_are_pruned_unless_in_use(tmp_path):
    cache = tmp_path / "cache"
    old_reqs = [requirements(tmp_path / f"old{n}", runtime=f"# {n}\n") for n in range(2)]
    for n, reqs in enumerate(old_reqs):
        make_venv(tmp_path / f"clone{n}", reqs, cache)
    old = [(tmp_path / f"clone{n}" / ".venv").resolve() for n in range(2)]
    long_ago = time.time() - (machine_venv.KEEP_DAYS + 1) * 86400
    for venv in old:
        os.utime(venv, (long_ago, long_ago))
    with open(old[1].with_suffix(".lock")) as lock:
        fcntl.flock(lock, fcntl.LOCK_SH)  # a clone installing into it now
        make_venv(tmp_path / "new", requirements(tmp_path / "new-reqs"), cache)
    assert not old[0].exists() and old[1].exists()
    make_venv(tmp_path / "clone0", old_reqs[0], cache)  # its link pointed nowhere: a new one
    assert (tmp_path / "clone0" / ".venv").resolve() == old[0] and old[0].exists()


def test_the_cache_folder_is_the_core_one(tmp_path, monkeypatch):
    for env in ({}, {"XDG_CACHE_HOME": str(tmp_path / "xdg")},
                {"GRIDALIGN_CACHE": str(tmp_path / "mine")}, {"GRIDALIGN_CACHE": "off"}):  # fmt: skip
        monkeypatch.delenv("GRIDALIGN_CACHE", raising=False)
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        assert machine_venv.cache_dir() == core_cache_dir(), env
