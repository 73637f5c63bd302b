"""The installed resources, for an edge: the worker, the CLI, a benchmark. Nothing in the
core's training imports this module (a test checks it): training takes a ``SeedResources``.

``installed_resources()`` reads what is installed under ``resources.resources_dir()`` once per
process, so every model a worker trains shares one copy (and WordNet's caches); ``preload()``
calls it, and imports scikit-learn, as a worker starts, before its pool forks (with WordNet's
synset tables, which a model otherwise reads at its first lookup)."""

from __future__ import annotations

import time
from functools import lru_cache

from alignment_core.aligner.builtin import load_builtin
from alignment_core.aligner.gc_pause import fewer_collections
from alignment_core.aligner.resources import resources_dir
from alignment_core.aligner.seed_resources import EVIDENCE_KEYS, SeedResources


@lru_cache(maxsize=1)
def _installed() -> tuple[SeedResources, dict[str, float]]:
    """The installed resources and the seconds each took to read."""
    root = resources_dir()
    parts, seconds = {}, {}
    with fewer_collections():  # the tables read allocate ~1M containers
        for key in EVIDENCE_KEYS:
            start = time.perf_counter()
            only = SeedResources.load(root, **{k: k == key for k in EVIDENCE_KEYS})
            parts[key] = getattr(only, key)
            seconds[key] = time.perf_counter() - start
    return SeedResources(**parts), seconds


def installed_resources() -> SeedResources:
    """Every installed resource (one not installed is None), read once per process."""
    return _installed()[0]


def preload() -> dict[str, float]:
    """Import scikit-learn, read the installed outside resources and the built-in model
    now, so that the first model trained in this process does not wait for them. Seconds per
    item (``sklearn``, the ``EVIDENCE_KEYS`` and ``builtin``; 0 for what this process had read
    already); a resource that is not installed reads as None, as it would at training. A
    worker calls it at start (``annotator.signals``): the first retrain in a fresh process
    otherwise pays 2–3 s for it (2.2–2.6 s on a 2-core machine)."""
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    import sklearn.ensemble  # noqa: F401 - what the classifiers read; its import is the slow part

    seconds["sklearn"] = time.perf_counter() - start
    read_before = _installed.cache_info().currsize > 0
    resources, reading = _installed()
    seconds.update({key: 0.0 if read_before else reading[key] for key in EVIDENCE_KEYS})
    if resources.wordnet is not None and not read_before:
        start = time.perf_counter()
        with fewer_collections():
            resources.wordnet.read_tables()  # else read at the first model's first lookup
        seconds["wordnet"] += time.perf_counter() - start
    start = time.perf_counter()
    load_builtin()  # the built-in English model (issue 34): read once per process
    seconds["builtin"] = time.perf_counter() - start
    return seconds
