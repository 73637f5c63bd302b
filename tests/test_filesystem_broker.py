"""The embedded broker's messages: a worker polling the queue while a message is being written
finds nothing, never a part of it (kombu's own filesystem transport let it read an empty file
and stop on the JSON error), and then finds the whole message, in the order they were put."""

from __future__ import annotations

import os
import subprocess
import sys
from queue import Empty

import pytest
from kombu import Connection

from gridalign import broker
from tests.conftest import REPO_ROOT


@pytest.fixture
def channel(tmp_path):
    folders = {name: tmp_path / name for name in ("queue", "processed", "control")}
    for folder in folders.values():
        folder.mkdir()
    options = {
        "data_folder_in": str(folders["queue"]),
        "data_folder_out": str(folders["queue"]),
        "processed_folder": str(folders["processed"]),
        "control_folder": str(folders["control"]),
        "store_processed": False,
    }
    with Connection("filesystem://", transport="gridalign.broker:Transport",
                    transport_options=options) as connection:  # fmt: skip
        yield connection.default_channel


def transport_setting(tmp_path, **env: str) -> str:
    """CELERY_BROKER_TRANSPORT as the settings make it in a fresh interpreter with ``env``."""
    clean = {k: v for k, v in os.environ.items()
             if k not in ("CELERY_BROKER_URL", "REDIS_URL", "DATABASE_URL")}  # fmt: skip
    clean.update(DJANGO_SETTINGS_MODULE="gridalign.settings", GRIDALIGN_VAR_DIR=str(tmp_path),
                 DEBUG="true", **env)  # fmt: skip
    code = ("import django; from django.conf import settings; django.setup(); "
            "print(getattr(settings, 'CELERY_BROKER_TRANSPORT', None))")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, env=clean,
                          capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout.strip()


def test_the_settings_take_this_transport_for_the_filesystem_broker_only(tmp_path):
    from kombu.transport import resolve_transport

    chosen = transport_setting(tmp_path)
    assert resolve_transport(chosen) is broker.Transport
    assert transport_setting(tmp_path, CELERY_BROKER_URL="redis://127.0.0.1:6379/0") == "None"


def test_a_reader_during_a_write_finds_nothing_then_the_whole_message(channel, monkeypatch):
    seen = []
    real_dumps = broker.dumps

    def dumps_while_a_worker_polls(payload):
        try:  # the writer's file is open: a worker looks at the queue now
            seen.append(channel._get("jobs"))
        except Empty:
            seen.append("nothing")
        return real_dumps(payload)

    monkeypatch.setattr(broker, "dumps", dumps_while_a_worker_polls)
    channel._put("jobs", {"body": "first"})
    monkeypatch.setattr(broker, "dumps", real_dumps)
    channel._put("jobs", {"body": "second"})
    assert seen == ["nothing"]
    assert channel._get("jobs") == {"body": "first"}
    assert channel._get("jobs") == {"body": "second"}
    with pytest.raises(Empty):
        channel._get("jobs")


def test_messages_put_within_one_millisecond_are_read_in_the_order_they_were_put(channel):
    bodies = [f"m{k}" for k in range(200)]
    for body in bodies:  # far faster than one a millisecond
        channel._put("jobs", {"body": body})
    assert [channel._get("jobs")["body"] for _ in bodies] == bodies
