"""``fewer_collections``: Python's cyclic garbage collector runs less often while a seed model
trains, aligns or reads its resources.

Why: these allocate millions of short-lived containers (WordNet's sets and tuples, the
resources' tables as they are read), and with the default thresholds (700, 10, 10) the
collector ran ~2,100 times in a fresh process's training plus aligning of Edinburgh++'s
1,020 pairs, six or seven of them over every object the process holds: 2.6 s on the 2-core
VM at load ~2 (6.7 s at load 5–8), all of it holding the GIL the other threads wait for.
With the first threshold at ``FIRST_THRESHOLD`` it ran a dozen times (0.6 s at load 5–8). Nothing here relies on the collector
(the arrays are freed by reference counting), so the results are the same.

Process-wide, as the collector is: the first of overlapping callers (threads) raises the
threshold, the last one out restores what it found."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# Allocations (net of frees) between two collections of the youngest generation.
FIRST_THRESHOLD = 100_000

_lock = threading.Lock()
_state: dict[str, object] = {"inside": 0, "saved": None}


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Within: the collector's first threshold at least ``FIRST_THRESHOLD``."""
    with _lock:
        if _state["inside"] == 0:
            saved = gc.get_threshold()
            _state["saved"] = saved
            gc.set_threshold(max(saved[0], FIRST_THRESHOLD), *saved[1:])
        _state["inside"] = int(_state["inside"]) + 1
    try:
        yield
    finally:
        with _lock:
            _state["inside"] = int(_state["inside"]) - 1
            if _state["inside"] == 0:
                gc.set_threshold(*_state["saved"])
