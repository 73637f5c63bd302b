"""The grid in every script (issue 32), in a real Chromium at 1400 × 900 and 1024 × 700, with
hand-made bilingual pairs (tests/e2e/fixtures/bilingual.json): the columns run in the column
sentence's own direction (Arabic or Hebrew columns right to left, with the row words at the
right and the first column beside them; English columns left to right beside Arabic rows),
each text line in its own direction, Chinese and Japanese in their order, combining marks, emoji and a long URL
shown whole or cut with the whole token on hover, never overlapping a neighbour; and the trial
feedback's headline when the reference links only identical words. Positions are checked on
the elements' boxes, not only their text. Screenshots go to var/screenshots/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e import test_grid_sizes
from tests.e2e.test_grid import build, cell, login, open_pair
from tests.e2e.test_grid_sizes import screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

size = test_grid_sizes.size  # the same two window sizes (a fixture)
FIXTURES = json.loads((Path(__file__).parent / "fixtures" / "bilingual.json").read_text("utf-8"))

OVERLAPS_JS = """(selector) => {
  const boxes = [...document.querySelectorAll(selector)].map((e) => e.getBoundingClientRect())
    .filter((b) => b.width > 0);
  const hits = [];
  for (let a = 0; a < boxes.length; a++) for (let b = a + 1; b < boxes.length; b++) {
    const p = boxes[a], q = boxes[b];
    if (p.left < q.right - 0.5 && q.left < p.right - 0.5 && p.top < q.bottom - 0.5 && q.top < p.bottom - 0.5)
      hits.push([a, b]);
  }
  return hits;
}"""


def specs(language):
    return [
        {"source": p["source"], "target": p["target"], "seed": p["links"]}
        for p in FIXTURES[language]
    ]


def word_box(page, side, k):
    return page.locator(f".ga-word[data-side={side}][data-k='{k}']").bounding_box()


def assert_nothing_overlaps(page):
    for selector in (
        ".ga-word[data-side=source]",
        ".ga-word[data-side=target]",
        "th.ga-colhead span",
        ".ga-rowword",
    ):
        assert page.evaluate(OVERLAPS_JS, selector) == [], selector


RIGHT_TO_LEFT = {"ar", "he"}


def swapped(spec):
    """The same pair with its sentences' roles exchanged: rows become columns."""
    links = [[j, i, kind] for i, j, kind in spec["seed"]]
    return {"source": spec["target"], "target": spec["source"], "seed": links}


# (pair set, rows and columns exchanged): an RTL sentence as rows, as columns, and both RTL
RTL_CASES = [(lang, swap) for lang in ("ar-en", "he-en", "he-ar") for swap in (False, True)]


@pytest.mark.parametrize(("language", "swap"), RTL_CASES)
def test_the_columns_run_in_the_column_sentences_own_direction(
    live_server, page, django_user_model, size, language, swap
):
    row_lang, col_lang = language.split("-")[:: -1 if swap else 1]
    row_dir, col_dir = ("rtl" if x in RIGHT_TO_LEFT else "ltr" for x in (row_lang, col_lang))
    pairs = [swapped(p) if swap else p for p in specs(language)]
    _, assignments = build(django_user_model, pairs)
    base = live_server.url
    login(page, base)
    for n, a in enumerate(assignments):
        open_pair(page, base, a)
        pair = pairs[n]
        assert page.locator(".ga-scroll").get_attribute("dir") == col_dir
        # the text lines: each sentence in its own direction
        assert page.locator(".ga-sentence[data-side=source]").get_attribute("dir") == row_dir
        assert page.locator(".ga-sentence[data-side=target]").get_attribute("dir") == col_dir
        for side, direction in (("source", row_dir), ("target", col_dir)):
            first, second = word_box(page, side, 0), word_box(page, side, 1)
            assert first["y"] == pytest.approx(second["y"], abs=2), "one line"
            assert (first["x"] > second["x"]) == (direction == "rtl"), side
        # the grid: the first column beside the row words, the columns in the column
        # sentence's reading order, each header over its column
        row = page.locator(".ga-rowword[data-i='0']").bounding_box()
        c00, c01 = cell(page, 0, 0).bounding_box(), cell(page, 0, 1).bounding_box()
        if col_dir == "rtl":
            assert row["x"] >= c00["x"] + c00["width"] - 1, (row, c00)
            assert c00["x"] > c01["x"], "columns run from right to left"
        else:
            assert row["x"] + row["width"] <= c00["x"] + 1, (row, c00)
            assert c00["x"] < c01["x"], "columns run from left to right"
        h0 = page.locator("th.ga-colhead[data-j='0']").bounding_box()
        assert abs((h0["x"] + h0["width"] / 2) - (c00["x"] + c00["width"] / 2)) <= 1
        # each word is its own direction inside its header, and is shown whole
        word = page.locator(".ga-rowword[data-i='0'] bdi")
        assert word.get_attribute("dir") == row_dir
        assert word.inner_text() == pair["source"][0]
        assert (
            page.eval_on_selector_all(
                ".ga-rowword", "els => els.filter(e => e.scrollWidth > e.clientWidth).length"
            )
            == 0
        )
        assert_nothing_overlaps(page)
        # the keys follow the layout: the arrow towards the next column moves to it
        page.locator("[role=grid]").focus()
        onward, back = ("ArrowLeft", "ArrowRight")[:: 1 if col_dir == "rtl" else -1]
        page.keyboard.press(onward)
        assert page.locator("td.ga-cursor").get_attribute("data-j") == "1"
        page.keyboard.press(back)
        assert page.locator("td.ga-cursor").get_attribute("data-j") == "0"
        # the annotator's links are the fixture's, drawn in their cells
        link = pair["seed"][0]
        state = cell(page, link[0], link[1]).get_attribute("data-state")
        assert state == {"S": "sure", "P": "possible"}[link[2]]
        screenshot(page, f"rtl-{row_lang}-rows-{col_lang}-columns-{n}-{size}")


@pytest.mark.parametrize("language", ["zh-en", "ja-en"])
def test_chinese_and_japanese_pairs_read_in_order_and_long_tokens_never_overlap(
    live_server, page, django_user_model, size, language
):
    _, assignments = build(django_user_model, specs(language))
    base = live_server.url
    login(page, base)
    for n, a in enumerate(assignments):
        open_pair(page, base, a)
        pair = FIXTURES[language][n]
        assert page.locator(".ga-scroll").get_attribute("dir") == "ltr"
        assert page.locator(".ga-sentence[data-side=source]").get_attribute("dir") == "ltr"
        xs = [word_box(page, "source", k)["x"] for k in range(3)]
        assert xs == sorted(xs), "CJK tokens left to right"
        row = page.locator(".ga-rowword[data-i='0']").bounding_box()
        assert row["x"] + row["width"] <= cell(page, 0, 0).bounding_box()["x"] + 1
        assert cell(page, 0, 0).bounding_box()["x"] < cell(page, 0, 1).bounding_box()["x"]
        words = page.eval_on_selector_all(
            ".ga-word[data-side=source]", "els => els.map(e => [e.textContent, e.title])"
        )
        assert [w for w, _ in words] == pair["source"], "every token, in order"
        assert all(w == t for w, t in words), "the whole token on hover"
        # a long token (a URL) is cut in the text line and the headers, whole in its title
        long = [k for k, t in enumerate(pair["source"]) if len(t) > 30]
        for k in long:
            el = page.locator(f".ga-word[data-side=source][data-k='{k}']")
            assert el.evaluate("e => e.scrollWidth > e.clientWidth"), "elided"
            assert el.get_attribute("title") == pair["source"][k]
            head = page.locator(f".ga-rowword[data-i='{k}']")
            assert head.get_attribute("title") == pair["source"][k]
            assert head.bounding_box()["width"] < 250
            el.hover()  # hovering the word marks its row
            assert "ga-hover" in page.locator(f".ga-rowword[data-i='{k}']").get_attribute("class")
        assert_nothing_overlaps(page)
        screenshot(page, f"cjk-{language}-{n}-{size}")


def test_combining_marks_and_scripts_without_spaces_are_shown_whole(
    live_server, page, django_user_model, size
):
    pair = FIXTURES["combining"]
    _, (a,) = build(
        django_user_model,
        [{"source": pair["source"], "target": pair["target"], "seed": pair["links"]}],
    )
    base = live_server.url
    login(page, base)
    open_pair(page, base, a)
    shown = page.eval_on_selector_all(".ga-rowword", "els => els.map(e => e.textContent)")
    assert shown == pair["source"], "combining marks kept with their letters"
    assert (
        page.eval_on_selector_all(
            ".ga-rowword", "els => els.filter(e => e.scrollWidth > e.clientWidth).length"
        )
        == 0
    )
    assert cell(page, 5, 5).get_attribute("aria-label") == "ग्राहक – customer: sure link (seed)"
    assert_nothing_overlaps(page)
    screenshot(page, f"combining-{size}")


def test_trial_feedback_headline_when_the_reference_links_only_identical_words(
    live_server, page, django_user_model, size
):
    from playwright.sync_api import expect

    source = ["the", "committee", "approved", "the", "plan", "on", "Monday"]
    target = ["on", "Monday", "the", "committee", "approved", "the", "plan"]
    reference = [
        [0, 2, "S"],
        [1, 3, "S"],
        [2, 4, "S"],
        [3, 5, "S"],
        [4, 6, "S"],
        [5, 0, "S"],
        [6, 1, "S"],
    ]
    seed = [*reference[:6], [3, 2, "P"]]
    _, (trial, _) = build(
        django_user_model,
        [{"source": source, "target": target, "seed": seed, "trial": True, "gold": reference}, {}],
    )
    base = live_server.url
    login(page, base)
    open_pair(page, base, trial)
    page.click("[data-action=submit]")
    score = page.locator("[data-field=feedback-score]")
    expect(score).to_be_visible()
    text = score.inner_text()
    assert text.startswith("Word F1 0."), text
    assert "over all links" in text and "only identical words" in text, text
    assert "—" not in text.split("(")[0], "a figure, not a dash"
    assert score.get_attribute("data-over") == "all"
    screenshot(page, f"trial-feedback-identical-{size}")
