"""Work spread over threads, for the aligner's kernels and the link model's trees: both
release the GIL, so threads share the cores. Results come in the items' order whatever the
number of threads, so nothing computed depends on it."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any


def in_threads(fn: Callable[[Any], Any], items: Sequence[Any], workers: int) -> list[Any]:
    """``[fn(x) for x in items]``, run in up to ``workers`` threads."""
    if workers <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(max_workers=min(workers, len(items))) as pool:
        return list(pool.map(fn, items))


def in_order(fn: Callable[[Any], Any], items: Iterable[Any], workers: int) -> Iterator[Any]:
    """``map(fn, items)`` on up to ``workers`` threads, lazily: at most ``workers`` results
    ahead of the one read are held (the M-step's blocks of counts: a few MB each, a thousand
    of them at a million pairs)."""
    if workers <= 1:
        yield from map(fn, items)
        return
    with ThreadPoolExecutor(workers) as pool:
        pending: deque = deque()
        for item in items:
            pending.append(pool.submit(fn, item))
            if len(pending) > workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
