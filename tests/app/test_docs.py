"""The README is a front door and the documentation site holds together: the README stays
short, its links and images lead somewhere, its demo users are the ones setup_demo creates, its
two commands are the Makefile's, and every page of docs/ is in the site's navigation and reads
nothing from the network. (``mkdocs build --strict`` in .ci/run checks the pages' own links.)"""

from __future__ import annotations

import re

import pytest
import yaml

from annotator.management.commands.setup_demo import DEMO_USERS
from tests.conftest import REPO_ROOT

README = REPO_ROOT / "README.md"
DOCS = REPO_ROOT / "docs"
MKDOCS = REPO_ROOT / "mkdocs.yml"
LINK = re.compile(r"\]\(([^)\s]+)\)")  # markdown links and images: [text](target)


def readme() -> str:
    return README.read_text(encoding="utf-8")


def nav_pages(entries) -> list[str]:
    pages: list[str] = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages += nav_pages(value) if isinstance(value, list) else [value]
    return pages


def test_the_readme_is_a_front_door_of_at_most_250_lines():
    assert len(readme().splitlines()) <= 250


def test_every_relative_link_and_image_of_the_readme_exists():
    targets = [t for t in LINK.findall(readme()) if not t.startswith(("http://", "https://"))]
    assert any(t.startswith("docs/img/") and t.endswith(".png") for t in targets)  # the grid
    missing = [t for t in targets if not (REPO_ROOT / t.split("#")[0]).is_file()]
    assert missing == []


def test_the_readme_names_the_demo_users_with_their_passwords():
    text = readme()
    for username, password, _role in DEMO_USERS:
        assert re.search(rf"\| `{username}` \| `{password}` \|", text), username


def test_the_readme_quick_start_commands_are_make_targets():
    text = readme()
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("run", "test"):
        assert f"make {target}" in text
        assert re.search(rf"^{target}:", makefile, re.M), target


@pytest.fixture(scope="module")
def mkdocs() -> dict:
    # mkdocs.yml may hold Python tags (!!python/name) in future; none are used now
    return yaml.safe_load(MKDOCS.read_text(encoding="utf-8"))


def test_every_page_is_in_the_navigation_and_every_entry_is_a_page(mkdocs):
    nav = nav_pages(mkdocs["nav"])
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    assert sorted(nav) == pages


def test_the_site_fetches_nothing_from_the_network(mkdocs):
    assert mkdocs["theme"]["font"] is False  # no web fonts
    assert "extra_javascript" not in mkdocs and "extra_css" not in mkdocs
    for page in DOCS.rglob("*.md"):
        text = page.read_text(encoding="utf-8")
        images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", text)
        assert not [i for i in images if "://" in i], page.name
        assert not re.search(r"<(script|img|iframe|link)\b[^>]*(src|href)=\"?https?:", text)
        assert "```mermaid" not in text, page.name  # Material would fetch mermaid from a CDN


def test_every_image_a_page_shows_is_there_and_small():
    for page in DOCS.rglob("*.md"):
        for image in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            path = (page.parent / image).resolve()
            assert path.is_file(), f"{page.name}: {image}"
            assert path.stat().st_size < 250_000, f"{image} is over 250 KB"
