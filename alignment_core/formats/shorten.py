"""Long values in error messages, cut in the middle.

A reason that quotes a 5,000-character id would push the file, line and the reason itself out
of any one-line display (and out of a job's 500-character reason). Cut in the middle, a value
keeps its start and end (often what tells two ids apart) and says how much was left out.
"""

from __future__ import annotations

# Longest value quoted whole; a reason as a whole is allowed a few such values.
VALUE_LIMIT = 60
REASON_LIMIT = 300


def cut_middle(text: str, limit: int = VALUE_LIMIT) -> str:
    """``text`` if it has at most ``limit`` characters, else its start and end around a marker
    saying how many characters were cut; the result has at most ``limit`` characters plus the
    marker's (under 30)."""
    if len(text) <= limit:
        return text
    head = (limit + 1) // 2
    tail = limit - head
    cut = len(text) - head - tail
    return f"{text[:head]}…[{cut:,} characters]…{text[len(text) - tail :]}"
