"""The one shape of progress, and one progress bar for every command line tool.

Every function of the core that reports progress takes a :data:`Progress`:
``progress(fraction, message)`` with ``fraction`` the share of the work done, in [0, 1], never
decreasing, and 1.0 when the work is done. Work made of parts hands each part
:func:`part` of its own callback. The edges adapt it: :class:`ProgressBar` (align, agree,
import_corpus) draws it, the app's ``JobReporter.as_progress()`` stores it on a Job.

On a terminal the bar is redrawn in place; elsewhere (a log, a pipe, CI) it writes a line when
the stage changes (numbers aside) or another 10 % is done, so logs stay short and still show where work stood.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TextIO

Progress = Callable[[float, str], None]

_DIGITS = re.compile(r"\d+")


def silent(fraction: float, message: str) -> None:
    """A :data:`Progress` that reports nowhere (for callers that passed none)."""


def part(progress: Progress | None, start: float, end: float) -> Progress:
    """The callback of a part of the work that spans [start, end] of ``progress``: the part's
    0 is ``start``, its 1 is ``end`` (fractions outside [0, 1] are clamped). ``None``: silent."""
    if progress is None:
        return silent
    parent = progress

    def report(fraction: float, message: str) -> None:
        parent(start + (end - start) * min(max(float(fraction), 0.0), 1.0), message)

    return report


class ProgressBar:
    """A :data:`Progress`: call ``bar(fraction, message)`` (0–1) as work advances, ``bar.close()``
    at the end."""

    def __init__(self, stream: TextIO, *, enabled: bool = True, width: int = 30) -> None:
        self.stream = stream
        self.enabled = enabled
        self.width = width
        self.tty = enabled and hasattr(stream, "isatty") and stream.isatty()
        self.start = time.monotonic()
        self._drawn = 0
        self._last: tuple[int, str] | None = None

    def report(self, fraction: float, message: str = "") -> None:
        if not self.enabled:
            return
        percent = min(max(100 * float(fraction), 0.0), 100.0)
        elapsed = time.monotonic() - self.start
        if self.tty:
            filled = int(self.width * percent / 100)
            bar = "#" * filled + "." * (self.width - filled)
            line = f"[{bar}] {percent:5.1f}% {elapsed:6.1f}s {message}"[:120]
            self.stream.write("\r" + line.ljust(self._drawn))
            self._drawn = len(line)
        else:
            key = (int(percent // 10), _DIGITS.sub("#", message))  # "stored 2000 pairs": one stage
            if key == self._last:
                return
            self._last = key
            self.stream.write(f"{percent:5.1f}% {elapsed:6.1f}s {message}\n")
        self.stream.flush()

    __call__ = report

    def close(self) -> None:
        if self.tty and self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = 0
