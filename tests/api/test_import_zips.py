"""Audit finding 3 (issue 30): a broken export zip posted to ``POST /api/projects/{id}/imports/``
is a 400 naming the member, whatever breaks while it is read (CRC, deflate stream, encryption,
unknown compression method), and the size limit counts the bytes really extracted."""

from __future__ import annotations

import io
import struct
import zipfile

import pytest

from annotator.corpora.services.uploads import upload_root
from annotator.corpora.services.zip_members import BrokenMember, extract_member
from tests.api.helpers import upload

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def own_upload_folder(settings, tmp_path):
    """This module's own upload folder: other tests running beside it (xdist) upload too, and
    "nothing left behind" compares the folder's contents before and after."""
    settings.VAR_DIR = tmp_path


LINKS = "0-0 1-1\n0-0\n"
PAIRS = "p1\tthe cat\ta cat\np2\tit rained\train fell\n"


def export_zip(*, method=zipfile.ZIP_DEFLATED, pairs: str = PAIRS) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as archive:
        archive.writestr("gold.pharaoh", LINKS)
        archive.writestr("pairs.tsv", pairs)
    return buffer.getvalue()


def member_offsets(data: bytes, name: str) -> tuple[int, int]:
    """(local header offset, central directory entry offset) of ``name``."""
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo(name)
    central = data.index(b"PK\x01\x02")
    while data[central + 46 : central + 46 + len(name)] != name.encode():
        central = data.index(b"PK\x01\x02", central + 4)
    return info.header_offset, central


def data_start(data: bytes, local: int) -> int:
    name_len, extra_len = struct.unpack("<HH", data[local + 26 : local + 30])
    return local + 30 + name_len + extra_len


def bad_crc() -> bytes:
    data = bytearray(export_zip(method=zipfile.ZIP_STORED))
    local, _ = member_offsets(bytes(data), "pairs.tsv")
    data[data_start(bytes(data), local)] ^= 0x01  # "p1" → "q1": same size, wrong CRC
    return bytes(data)


def corrupt_deflate() -> bytes:
    data = bytearray(export_zip())
    local, _ = member_offsets(bytes(data), "pairs.tsv")
    start = data_start(bytes(data), local)
    data[start] = 0xFF  # block type 3: reserved, an invalid deflate stream
    return bytes(data)


def flagged_encrypted() -> bytes:
    data = bytearray(export_zip(method=zipfile.ZIP_STORED))
    local, central = member_offsets(bytes(data), "pairs.tsv")
    for at in (local + 6, central + 8):
        data[at] |= 0x01  # general purpose bit 0: encrypted
    return bytes(data)


def method_99() -> bytes:
    data = bytearray(export_zip(method=zipfile.ZIP_STORED))
    local, central = member_offsets(bytes(data), "pairs.tsv")
    for at in (local + 8, central + 10):
        data[at : at + 2] = struct.pack("<H", 99)  # AES (WinZip): not readable here
    return bytes(data)


def post(client, project, data: bytes):
    return client.post(
        f"/api/projects/{project.pk}/imports/",
        {"file": upload("export.zip", data), "dry_run": True},
        format="multipart",
    )


def test_a_good_export_zip_is_accepted(api, project, lead):
    response = post(api(lead), project, export_zip())
    assert response.status_code == 202, response.content


@pytest.mark.parametrize(
    "make, reason",
    [
        (bad_crc, "bad crc"),
        (corrupt_deflate, "corrupt compressed data"),
        (flagged_encrypted, "encrypted"),
        (method_99, "compressed with a method"),
    ],
    ids=["bad-crc", "corrupt-deflate", "encrypted", "method-99"],
)
def test_a_member_that_breaks_while_read_is_a_400_naming_it(api, project, lead, make, reason):
    before = set(upload_root().iterdir()) if upload_root().is_dir() else set()
    response = post(api(lead), project, make())
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert "export.zip" in error and "pairs.tsv" in error, error
    assert reason in error.lower(), error
    assert "var/uploads" not in error
    assert set(upload_root().iterdir()) == before  # nothing left behind


def test_a_member_over_the_limit_is_refused_by_what_it_unpacks_to(api, project, lead, settings):
    settings.API_UPLOAD_MAX_MB = 1
    big = "".join(f"p{i}\tthe cat\ta cat\n" for i in range(80_000))  # ~1.3 MB, deflates small
    data = export_zip(pairs=big)
    assert len(data) < 1024 * 1024
    response = post(api(lead), project, data)
    assert response.status_code == 400, response.content
    assert "pairs.tsv: unpacks to more than 1 MB" in response.json()["error"]


def test_the_limit_counts_the_bytes_as_they_are_extracted(tmp_path):
    """The copy stops as soon as the extracted bytes pass the limit, and is removed."""
    archive = zipfile.ZipFile(io.BytesIO(export_zip()))
    target = tmp_path / "out.tsv"
    written = extract_member(archive, archive.getinfo("pairs.tsv"), target, limit=len(PAIRS))
    assert written == len(PAIRS) and target.read_text() == PAIRS
    with pytest.raises(BrokenMember, match=r"^pairs.tsv: unpacks to more than"):
        extract_member(archive, archive.getinfo("pairs.tsv"), target, limit=len(PAIRS) - 1)
    assert not target.exists()
