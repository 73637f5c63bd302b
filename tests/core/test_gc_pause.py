"""``gc_pause.fewer_collections``: the collector's first threshold is raised while a seed model
trains or aligns, and what was there before comes back, also when callers overlap in threads
or one fails."""

from __future__ import annotations

import gc
import threading

import pytest

from alignment_core.aligner.gc_pause import FIRST_THRESHOLD, fewer_collections


@pytest.fixture
def thresholds():
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*before)


def test_raised_within_and_restored_after(thresholds):
    with fewer_collections():
        assert gc.get_threshold() == (FIRST_THRESHOLD, 10, 10)
        with fewer_collections():  # nested: still raised
            assert gc.get_threshold()[0] == FIRST_THRESHOLD
        assert gc.get_threshold()[0] == FIRST_THRESHOLD
    assert gc.get_threshold() == (700, 10, 10)
    with pytest.raises(RuntimeError), fewer_collections():
        raise RuntimeError("training failed")
    assert gc.get_threshold() == (700, 10, 10)


def test_overlapping_threads_restore_only_when_the_last_leaves(thresholds):
    entered, release = threading.Event(), threading.Event()

    def other():
        with fewer_collections():
            entered.set()
            release.wait(10)

    with fewer_collections():
        thread = threading.Thread(target=other)
        thread.start()
        assert entered.wait(10)
    # this one left first: the other is still inside
    assert gc.get_threshold()[0] == FIRST_THRESHOLD
    release.set()
    thread.join(10)
    assert gc.get_threshold() == (700, 10, 10)


def test_a_higher_threshold_is_kept(thresholds):
    gc.set_threshold(FIRST_THRESHOLD * 2, 10, 10)
    with fewer_collections():
        assert gc.get_threshold()[0] == FIRST_THRESHOLD * 2
    assert gc.get_threshold()[0] == FIRST_THRESHOLD * 2
