"""A long pair on a small window, in a real Chromium at 1024 × 700: the two sentence lines give
way to the grid (one line each, scrolled sideways), and hovering a cell still shows both its
words highlighted in those lines, scrolled into view."""

from __future__ import annotations

import pytest

from tests.e2e.test_grid import build, cell, login, open_pair
from tests.e2e.test_grid_sizes import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ROWS = [f"token{n}" for n in range(111)]
COLUMNS = [f"word{n}" for n in range(13)]

INSIDE_ITS_LINE = """(el) => {
  const r = el.getBoundingClientRect(), box = el.parentElement.getBoundingClientRect();
  return r.left >= box.left - 1 && r.right <= box.right + 1
    && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
}"""


def test_a_111_by_13_pair_gives_the_grid_the_room_and_keeps_the_words_highlight(
    live_server, page, django_user_model
):
    page.set_viewport_size({"width": 1024, "height": 700})
    _, (a,) = build(django_user_model, [{"source": ROWS, "target": COLUMNS, "seed": []}])
    base = live_server.url
    login(page, base)
    open_pair(page, base, a)
    line = page.locator(".ga-sentence[data-side=source]")
    word_height = page.locator(".ga-word[data-side=source][data-k='0']").bounding_box()["height"]
    assert line.bounding_box()["height"] < 2 * word_height, "one line, not an inner scroll box"
    rows_shown = page.locator(".ga-scroll").evaluate(
        "s => Math.floor((s.clientHeight - s.querySelector('thead').offsetHeight) / 24)"
    )
    assert rows_shown >= 16, rows_shown  # 14 when each sentence kept two lines of its own
    # hovering a cell far down and along: both its words highlighted and shown in their lines
    target = cell(page, 100, 12)
    target.scroll_into_view_if_needed()
    target.hover()
    for side, k in (("source", 100), ("target", 12)):
        word = page.locator(f".ga-word[data-side={side}][data-k='{k}']")
        assert "ga-hover" in word.get_attribute("class")
        assert word.evaluate(INSIDE_ITS_LINE), side
    screenshot(page, "long-pair-111x13-1024x700")
