"""The embedded broker (``make run``'s, no server): kombu's filesystem transport, with each
message written whole before any worker can see it.

kombu's own ``_put`` (5.7) opens the message file under its final name, then locks it, then
writes; a worker polling the folder moves and reads files without the lock, so it can take a
file still empty and fail to decode it. That is not an error its consumer survives: the worker
stops with "Unrecoverable error: JSONDecodeError" and the jobs it was running stay running
(seen in CI: a chunked seeding's chord of 120 tasks, two worker processes). Here the message is
written under a name no queue reads (``….msg.part``) and renamed into place, which is atomic on
one filesystem: a reader finds no file or the whole message.

Selected by ``CELERY_BROKER_TRANSPORT`` in the settings when the broker URL is
``filesystem://``; the URL, the folders and the health check are unchanged.
"""

from __future__ import annotations

import contextlib
import os
import threading
import uuid
from time import monotonic_ns

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

_order_lock = threading.Lock()
_last = 0


def _stamp() -> str:
    """A name prefix that sorts after every one this process gave before: the monotonic clock
    in nanoseconds, zero-padded (readers take files in name order), never repeated. With
    milliseconds, two messages of one millisecond were ordered by their random uuids: the
    second one put could be read first."""
    global _last
    with _order_lock:
        _last = max(monotonic_ns(), _last + 1)
        return f"{_last:020d}"


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        """Put ``payload`` on ``queue``: written to a ``.part`` file, then renamed to the name
        kombu's readers look for (``<ns>_<uuid>.<queue>.msg``: the order of the puts kept)."""
        name = f"{_stamp()}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = f"{final}.part"  # its name after the first dot is not "<queue>.msg"
        try:
            with open(partial, "wb") as f:
                f.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(partial)
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel
