"""The one error every reader raises: it names the file, the line and the reason."""

from __future__ import annotations


class FormatError(ValueError):
    """A file cannot be read (or written) as asked. ``str(err)`` is ``file:line: reason``."""

    def __init__(self, reason: str, *, file: str | None = None, line: int | None = None) -> None:
        self.reason = reason
        self.file = file
        self.line = line
        where = file or "<input>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {reason}")
