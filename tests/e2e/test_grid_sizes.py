"""The grid at every size (issue 32), in a real Chromium at 1400 × 900 and 1024 × 700: the zoom
(buttons, Ctrl + − 0, fit to window, remembered per user), the Keys panel collapsed and
remembered, the overview's jump, the toolbar on screen after scrolling a 150 × 150 pair, the
grid taking most of a small window, and the column header band opaque (a screenshot's pixels
under it). Screenshots go to var/screenshots/ (gitignored), to be looked at."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from tests.e2e.test_grid import PASSWORD, build, cell, login, open_pair

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
SIZES = {"1400x900": (1400, 900), "1024x700": (1024, 700)}
WORDS = [f"word-{n}" for n in range(150)]


@pytest.fixture(params=list(SIZES), ids=list(SIZES))
def size(request, page):
    width, height = SIZES[request.param]
    page.set_viewport_size({"width": width, "height": height})
    return request.param


def screenshot(page, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def big_pair(django_user_model, n=150, username="ann", **extra):
    seed = [[k, k, "S"] for k in range(0, n, 4)]
    return build(
        django_user_model,
        [{"source": WORDS[:n], "target": WORDS[:n], "seed": seed, **extra}],
        username=username,
    )


def cell_px(page) -> float:
    return cell(page, 0, 0).evaluate("e => e.getBoundingClientRect().width")


def test_zoom_by_buttons_and_keys_fits_the_window_and_is_remembered_per_user(
    live_server, page, chromium_browser, django_user_model, size
):
    from playwright.sync_api import expect

    _, (a,) = big_pair(django_user_model, n=60)
    base = live_server.url
    login(page, base)
    open_pair(page, base, a)
    assert cell_px(page) == pytest.approx(24, abs=0.5), "the normal size"
    zoom = page.locator("[data-field=zoom]")
    expect(zoom).to_have_text("100%")
    page.click("[data-action=zoom-in]")
    assert cell_px(page) == pytest.approx(28, abs=0.5)
    expect(zoom).to_have_text("117%")
    page.locator("[role=grid]").focus()
    page.keyboard.press("Control+=")
    assert cell_px(page) == pytest.approx(32, abs=0.5)
    page.keyboard.press("Control+-")
    page.keyboard.press("Control+-")
    page.keyboard.press("Control+-")
    assert cell_px(page) == pytest.approx(20, abs=0.5)
    page.keyboard.press("Control+0")
    assert cell_px(page) == pytest.approx(24, abs=0.5)
    # the words grow with the cells: a row word's font follows the zoom
    font = page.locator(".ga-rowword").first.evaluate(
        "e => parseFloat(getComputedStyle(e).fontSize)"
    )
    page.click("[data-action=zoom-out]")
    smaller = page.locator(".ga-rowword").first.evaluate(
        "e => parseFloat(getComputedStyle(e).fontSize)"
    )
    assert smaller < font

    # fit: the whole 60 × 60 pair in the scroller, nothing left to scroll
    page.click("[data-action=zoom-fit]")
    fits = page.locator(".ga-scroll").evaluate(
        "e => [e.scrollWidth <= e.clientWidth + 1, e.scrollHeight <= e.clientHeight + 1]"
    )
    assert fits == [True, True], fits
    fitted = cell_px(page)
    assert fitted < 24
    screenshot(page, f"zoom-fit-60x60-{size}")

    # remembered for this user after a reload; another user starts at the normal size
    page.reload()
    page.wait_for_selector("#annotate[data-ready='1']")
    assert cell_px(page) == pytest.approx(fitted, abs=0.5)
    Membership = a.pair.project.memberships.model
    other = django_user_model.objects.create_user("other", password=PASSWORD)
    Membership.objects.create(project=a.pair.project, user=other, role="annotator")
    other_assignment = type(a).objects.create(pair=a.pair, annotator=other, seed=a.seed, slot=2)
    page.context.clear_cookies()
    login(page, base, username="other")
    open_pair(page, base, other_assignment)
    assert cell_px(page) == pytest.approx(24, abs=0.5), "another user's zoom is their own"


def test_the_keys_panel_collapses_and_stays_collapsed(live_server, page, django_user_model, size):
    from playwright.sync_api import expect

    _, (a,) = big_pair(django_user_model, n=80)
    base = live_server.url
    login(page, base)
    open_pair(page, base, a)
    toggle = page.locator("[data-action=keys]")
    panel = page.locator("[data-field=side]")
    if toggle.get_attribute("aria-expanded") == "false":  # a small window starts collapsed
        assert size == "1024x700"
        toggle.click()
    expect(panel).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    narrow = page.locator(".ga-scroll").bounding_box()["width"]
    toggle.click()
    expect(panel).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    wide = page.locator(".ga-scroll").bounding_box()["width"]
    assert wide > narrow + 150, (narrow, wide)
    page.reload()
    page.wait_for_selector("#annotate[data-ready='1']")
    expect(panel).to_be_hidden()
    screenshot(page, f"keys-collapsed-80x80-{size}")


def test_a_150_by_150_pair_keeps_the_toolbar_and_cursor_in_view_and_the_overview_jumps(
    live_server, page, django_user_model, size
):
    from playwright.sync_api import expect

    width, height = SIZES[size]
    _, (a,) = big_pair(django_user_model)
    base = live_server.url
    login(page, base)
    open_pair(page, base, a)
    scroller = page.locator(".ga-scroll")
    box = scroller.bounding_box()
    # the grid takes most of the window on opening, and ends inside it
    assert box["y"] + box["height"] <= height + 1, box
    assert box["height"] >= 0.55 * height and box["width"] >= 0.6 * width, (box, size)
    screenshot(page, f"open-150x150-{size}")

    # the overview frames the part shown; a press on its far corner moves the view there
    overview = page.locator(".ga-overview-map")
    expect(overview).to_be_visible()
    region = page.locator(".ga-overview-region").bounding_box()
    mapbox = overview.bounding_box()
    assert region["width"] < mapbox["width"] and region["height"] < mapbox["height"]
    page.mouse.click(mapbox["x"] + mapbox["width"] - 3, mapbox["y"] + mapbox["height"] - 3)
    page.wait_for_timeout(100)
    scrolled = scroller.evaluate("e => [e.scrollLeft, e.scrollTop]")
    assert scrolled[0] > 1000 and scrolled[1] > 1000, scrolled
    assert page.evaluate("document.activeElement.getAttribute('role')") != "textbox"
    after = page.locator(".ga-overview-region").bounding_box()
    assert after["x"] > region["x"] and after["y"] > region["y"], (region, after)
    corner = cell(page, 148, 148)
    cbox, sbox = corner.bounding_box(), scroller.bounding_box()
    assert sbox["y"] <= cbox["y"] <= sbox["y"] + sbox["height"]
    screenshot(page, f"overview-jump-150x150-{size}")

    # the keyboard cursor keeps itself in view beside the sticky header bands
    page.locator("[role=grid]").focus()
    page.keyboard.press("Control+Home")
    assert scroller.evaluate("e => [e.scrollLeft, e.scrollTop]") == [0, 0]
    for _ in range(60):
        page.keyboard.press("ArrowDown")
    for _ in range(40):
        page.keyboard.press("ArrowRight")
    cursor = page.locator("td.ga-cursor")
    assert cursor.get_attribute("data-i") == "60" and cursor.get_attribute("data-j") == "40"
    head = page.locator("thead").bounding_box()
    rowhead = page.locator(".ga-rowword[data-i='60']").bounding_box()
    c = cursor.bounding_box()
    sbox = scroller.bounding_box()
    assert (
        c["y"] >= head["y"] + head["height"] - 1
        and c["y"] + c["height"] <= sbox["y"] + sbox["height"]
    )
    assert (
        c["x"] >= rowhead["x"] + rowhead["width"] - 1
        and c["x"] + c["width"] <= sbox["x"] + sbox["width"]
    )
    # the row words are one sticky column (not a sticky box per row): each word level with
    # its row however far the grid is scrolled, at the scroller's start edge
    assert abs(rowhead["y"] - c["y"]) <= 1 and abs(rowhead["height"] - c["height"]) <= 1
    assert abs(rowhead["x"] - sbox["x"]) <= 2
    page.keyboard.press("Control+End")
    expect(page.locator("td.ga-cursor")).to_have_attribute("data-i", "149")
    page.keyboard.press("s")
    assert page.locator("td.ga-cursor").is_visible()

    # scrolled to the end (the grid and, were it possible, the page): the toolbar is on screen
    scroller.evaluate("e => { e.scrollTop = e.scrollHeight; e.scrollLeft = e.scrollWidth; }")
    page.mouse.wheel(0, 3000)
    page.wait_for_timeout(100)
    for selector in (
        "[data-action=submit]",
        "[data-field=save]",
        "[data-tool=sure]",
        "[data-action=zoom-fit]",
    ):
        b = page.locator(selector).bounding_box()
        assert b and b["y"] >= 0 and b["y"] + b["height"] <= height, (selector, b)
    screenshot(page, f"scrolled-150x150-{size}")


BLUE_UNDER_BAND_JS = """async ({png, colours}) => {
  const img = new Image();
  img.src = "data:image/png;base64," + png;
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = img.width; canvas.height = img.height;
  const ctx = canvas.getContext("2d");
  ctx.drawImage(img, 0, 0);
  const px = ctx.getImageData(0, 0, img.width, img.height).data;
  let hits = 0;
  for (let k = 0; k < px.length; k += 4) {
    for (const c of colours) {
      const d = Math.abs(px[k] - c[0]) + Math.abs(px[k + 1] - c[1]) + Math.abs(px[k + 2] - c[2]);
      if (d < 40) { hits += 1; break; }
    }
  }
  return {hits, pixels: px.length / 4};
}"""


def test_the_column_header_band_is_opaque(live_server, page, django_user_model, size):
    """A column of sure links scrolled under the band must not show through above its short
    column word: the screenshot of the band holds no pixel of the sure mark's colour."""
    source = [f"row-{n}" for n in range(60)]
    target = ["a", "b", "cc", "i"] + [f"long-word-{n}" for n in range(20)]
    links = [[i, j, "S"] for i in range(60) for j in (0, 1, 3)]
    _, (a,) = build(django_user_model, [{"source": source, "target": target, "seed": links}])
    base = live_server.url
    login(page, base)
    open_pair(page, base, a)
    page.locator("[data-action=posteriors]").uncheck()
    scroller = page.locator(".ga-scroll")
    scroller.evaluate("e => { e.scrollTop = 20 * 24 + 7; }")  # rows pass under the band
    page.wait_for_timeout(100)
    band = page.locator("thead").bounding_box()
    heads = [page.locator(f"th.ga-colhead[data-j='{j}']").bounding_box() for j in (0, 1, 3)]
    clip = {
        "x": heads[0]["x"] + 1,
        "y": band["y"] + 1,
        "width": heads[2]["x"] + heads[2]["width"] - heads[0]["x"] - 2,
        "height": band["height"] - 2,
    }
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    png = page.screenshot(clip=clip, path=str(SCREENSHOTS / f"header-band-{size}.png"))
    # grid.css: --ga-sure, and the paler sure of an untouched seed link
    sure = [[0x1D, 0x3D, 0x7A], [0x7D, 0x8F, 0xB3]]
    got = page.evaluate(
        BLUE_UNDER_BAND_JS, {"png": base64.b64encode(png).decode(), "colours": sure}
    )
    assert got["pixels"] > 100
    assert got["hits"] == 0, f"{got['hits']} pixels of the sure colour show through the band"
    # and the check can see them: the same clip just below the band holds the marks
    below = {**clip, "y": band["y"] + band["height"] + 2, "height": 30}
    png = page.screenshot(clip=below)
    seen = page.evaluate(
        BLUE_UNDER_BAND_JS, {"png": base64.b64encode(png).decode(), "colours": sure}
    )
    assert seen["hits"] > 50, seen
    screenshot(page, f"header-band-page-{size}")
