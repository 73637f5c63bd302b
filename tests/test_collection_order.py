"""The collection order for ``--dist worksteal``: every test once, the slow files' tests
together at the head of the processes' first shares, the longest first."""

from __future__ import annotations

from types import SimpleNamespace

from tests.conftest import SLOW_FILES, shares, slow_files_first


def _items(paths: list[str]) -> list[SimpleNamespace]:
    return [SimpleNamespace(nodeid=f"{p}::test_{n}") for n, p in enumerate(paths)]


def test_slow_files_start_each_share_and_no_test_is_lost():
    slowest = sorted(SLOW_FILES, key=lambda p: -SLOW_FILES[p])
    paths = [f"tests/app/test_{n % 7}.py" for n in range(60)] + slowest[:3] * 2
    items = _items(paths)
    ordered = slow_files_first(items, 4)
    assert sorted(i.nodeid for i in ordered) == sorted(i.nodeid for i in items)
    starts = [sum(shares(len(items), 4)[:k]) for k in range(4)]
    heads = [ordered[s].nodeid.split("::")[0] for s in starts]
    assert heads[:3] == slowest[:3] and heads[3].startswith("tests/app/")
    first = ordered[starts[0] : starts[0] + 2]
    assert {i.nodeid.split("::")[0] for i in first} == {slowest[0]}  # a file's tests together


def test_shares_split_as_worksteal_does():
    assert shares(10, 4) == [2, 2, 3, 3] and sum(shares(1_612, 4)) == 1_612
