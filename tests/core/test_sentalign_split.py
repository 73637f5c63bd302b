"""Sentence splitting per language, one-sentence-per-line text as it is, HTML blocks."""

from __future__ import annotations

import pytest

from alignment_core.sentalign.split import (
    SplitError,
    html_blocks,
    html_sentences,
    lines_as_sentences,
    looks_like_html,
    split_text,
)


def test_lines_are_taken_as_they_are():
    text = "Dr. Smith came. He left.\n\nSecond line\r\n"
    # no splitting inside a line, empty lines kept so indices match the file
    assert lines_as_sentences(text) == ["Dr. Smith came. He left.", "", "Second line"]
    assert lines_as_sentences("") == []


def test_split_follows_the_language_rules():
    assert split_text("Dr. Müller kam am 3. Mai an. Er blieb lange.", "de") == [
        "Dr. Müller kam am 3. Mai an.",
        "Er blieb lange.",
    ]
    assert split_text("M. Dupont est venu. Il est reparti !", "fr") == [
        "M. Dupont est venu.",
        "Il est reparti !",
    ]
    # paragraphs never run together; line breaks inside a paragraph are spaces
    assert split_text("First half\nof a sentence.\n\nNew paragraph", "en") == [
        "First half of a sentence.",
        "New paragraph",
    ]
    assert split_text("   \n\n ", "en") == []


def test_unknown_language_is_refused_with_a_reason():
    with pytest.raises(SplitError, match="no sentence splitter for language 'xx'"):
        split_text("Hello.", "xx")


def test_html_nested_blocks_keep_structure_and_order():
    html = (
        "<!doctype html><html><head><title>T</title><style>p{}</style></head><body>"
        "<nav>Menu Home</nav><script>var x = 1;</script>"
        "<div>Intro <b>bold</b> text.<p>Para one. Para two.</p>After para."
        "<ul><li>Item <i>a</i></li><li>b<br>c</li></ul>"
        "<span>inline<div>deep</div>tail</span></div></body></html>"
    )
    blocks = html_blocks(html)
    assert [(b.text, b.path) for b in blocks] == [
        ("Intro bold text.", "body/div[1]"),
        ("Para one. Para two.", "body/div[1]/p[1]"),
        ("After para.", "body/div[1]"),
        ("Item a", "body/div[1]/ul[1]/li[1]"),
        ("b c", "body/div[1]/ul[1]/li[2]"),
        ("inline", "body/div[1]"),
        ("deep", "body/div[1]/span[1]/div[1]"),
        ("tail", "body/div[1]"),
    ]
    sentences, block_of, _ = html_sentences(html, "en")
    assert sentences[:4] == ["Intro bold text.", "Para one.", "Para two.", "After para."]
    assert block_of[:4] == [0, 1, 1, 2]
    assert block_of == sorted(block_of)


def test_html_detection_and_empty_pages():
    assert looks_like_html("<!DOCTYPE html><html></html>")
    assert looks_like_html("  <p>Hello</p>")
    assert not looks_like_html("a < b and c > d, plain text")
    assert html_blocks("") == []
    assert html_blocks("<html><body></body></html>") == []
