"""Reading members of an uploaded zip without trusting it.

A hostile or damaged archive fails in many ways while a member is *read*, not only when the
archive is opened: a wrong CRC (``BadZipFile``), a corrupt deflate stream (``zlib.error``), an
encrypted member (``RuntimeError``), an unknown compression method (``NotImplementedError``),
a truncated one (``EOFError``). Each becomes :class:`BrokenMember` naming the member. The size
limit is checked against the bytes actually extracted, never the sizes the archive declares
(a bomb declares small ones).
"""

from __future__ import annotations

import lzma
import zipfile
import zlib
from pathlib import Path

CHUNK = 1024 * 1024

# What reading a member (or opening an archive) can raise on bad bytes.
READ_ERRORS: tuple[type[BaseException], ...] = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    lzma.LZMAError,
    RuntimeError,  # encrypted member (needs a password)
    NotImplementedError,  # compression method 99 (AES) and other unknown ones
    EOFError,
    ValueError,
    OSError,  # bzip2's bad data, truncated reads
)


class BrokenMember(ValueError):
    """A member could not be extracted; the message names it and says why."""

    def __init__(self, member: str, reason: str) -> None:
        self.member = member
        super().__init__(f"{member}: {reason}")


def open_archive(path: Path) -> zipfile.ZipFile:
    """Open a zip; any failure to read its directory is a ValueError saying so."""
    try:
        return zipfile.ZipFile(path)
    except READ_ERRORS as exc:
        raise ValueError(f"not a readable zip archive ({describe(exc)})") from None


def describe(exc: BaseException) -> str:
    """A short reason for a read failure (its own message, or its kind)."""
    text = str(exc).strip()
    if isinstance(exc, RuntimeError) and "encrypted" in text:
        return "encrypted (a password-protected member cannot be imported)"
    if isinstance(exc, NotImplementedError):
        return f"compressed with a method this server cannot read ({text or 'unsupported'})"
    if isinstance(exc, zlib.error):
        return f"corrupt compressed data ({text})"
    return text or type(exc).__name__


def extract_member(
    archive: zipfile.ZipFile, member: zipfile.ZipInfo, target: Path, *, limit: int
) -> int:
    """Copy ``member`` into ``target``, counting the bytes actually extracted; more than
    ``limit`` bytes, or any read failure, removes ``target`` and raises BrokenMember naming the
    member. Returns the number of bytes written."""
    written = 0
    try:
        with open(target, "wb") as dst:
            try:
                src = archive.open(member)
            except READ_ERRORS as exc:
                raise BrokenMember(member.filename, describe(exc)) from None
            with src:
                while True:
                    try:
                        chunk = src.read(CHUNK)
                    except READ_ERRORS as exc:
                        raise BrokenMember(member.filename, describe(exc)) from None
                    if not chunk:
                        break
                    written += len(chunk)
                    if written > limit:
                        raise BrokenMember(
                            member.filename, f"unpacks to more than {limit // (1024 * 1024)} MB"
                        )
                    dst.write(chunk)
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    return written
