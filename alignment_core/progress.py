"""One progress bar for every command line tool (align, agree, import_corpus).

On a terminal the bar is redrawn in place; elsewhere (a log, a pipe, CI) it writes a line when
the stage changes (numbers aside) or another 10 % is done, so logs stay short and still show where work stood.
"""

from __future__ import annotations

import re
import time
from typing import TextIO

_DIGITS = re.compile(r"\d+")


class ProgressBar:
    """Call ``bar.update(percent, message)`` (0–100) as work advances, ``bar.close()`` at the end.

    ``bar.stage(message, fraction)`` takes the aligner's callback shape (fraction 0–1).
    """

    def __init__(self, stream: TextIO, *, enabled: bool = True, width: int = 30) -> None:
        self.stream = stream
        self.enabled = enabled
        self.width = width
        self.tty = enabled and hasattr(stream, "isatty") and stream.isatty()
        self.start = time.monotonic()
        self._drawn = 0
        self._last: tuple[int, str] | None = None

    def update(self, percent: float, message: str = "") -> None:
        if not self.enabled:
            return
        percent = min(max(float(percent), 0.0), 100.0)
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

    __call__ = update

    def stage(self, message: str, fraction: float) -> None:
        self.update(100 * fraction, message)

    def close(self) -> None:
        if self.tty and self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = 0
