"""The collection order for ``--dist worksteal``: every test once, the slow files' tests
together at the head of the processes' first shares, the longest first, a slow test alone."""

from __future__ import annotations

from types import SimpleNamespace

from tests.conftest import SLOW_TESTS, shares, slow_files_first


def _items(paths: list[str]) -> list[SimpleNamespace]:
    return [SimpleNamespace(nodeid=f"{p}::test_{n}") for n, p in enumerate(paths)]


def test_slow_files_start_each_share_and_no_test_is_lost():
    files = [k for k in SLOW_TESTS if "::" not in k]
    slowest = sorted(files, key=lambda p: -SLOW_TESTS[p])
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


def test_a_slow_test_named_alone_leaves_its_files_other_tests_in_place():
    slow = next(k for k in SLOW_TESTS if "::" in k)
    path = slow.split("::")[0]
    items = [SimpleNamespace(nodeid=f"{path}::test_other")] + _items(["tests/app/a.py"] * 9)
    items.append(SimpleNamespace(nodeid=slow))
    ordered = slow_files_first(items, 2)
    assert ordered[0].nodeid == slow and ordered[1].nodeid == f"{path}::test_other"
