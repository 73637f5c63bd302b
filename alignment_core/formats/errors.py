"""The one error every reader raises: it names the file, the line and the reason."""

from __future__ import annotations

from alignment_core.formats.shorten import REASON_LIMIT, cut_middle


class FormatError(ValueError):
    """A file cannot be read (or written) as asked. ``str(err)`` is ``file:line: reason``."""

    def __init__(self, reason: str, *, file: str | None = None, line: int | None = None) -> None:
        self.reason = reason
        self.file = file
        self.line = line
        where = cut_middle(file or "<input>", REASON_LIMIT)
        if line is not None:
            where = f"{where}:{line}"
        # a quoted long value is cut in the middle: file, line and reason stay readable
        super().__init__(f"{where}: {cut_middle(reason, REASON_LIMIT)}")
