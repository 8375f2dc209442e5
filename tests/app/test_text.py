"""Typed text that others read: names and chat lines are refused for the same reasons."""

from __future__ import annotations

import pytest

from app.text import TextRefused, clean_text, folded_name


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("\x00Ann", "bad_text"),
        ("Ann\x07", "bad_text"),
        ("An\x1b[31mn", "bad_text"),
        ("Ann\nBea", "bad_text"),
        ("nnA\u202e", "bad_text"),
        ("\u2066Ann", "bad_text"),
        ("\ud800", "bad_text"),
        ("", "blank_text"),
        ("   \u3000 ", "blank_text"),
        ("A" * 31, "text_too_long"),
        ("\u200b", "blank_text"),
        ("\u200d\ufeff", "blank_text"),
        ("\u2060 \u2060", "blank_text"),
        ("\u3164", "blank_text"),
        ("\u115f\u1160\uffa0", "blank_text"),
        ("\U000e0041\u034f", "blank_text"),
        ("Ann\u2028Bea", "bad_text"),
        ("Ann\u2029", "bad_text"),
    ],
)
def test_refused_text_says_why(text: str, code: str) -> None:
    with pytest.raises(TextRefused) as refused:
        clean_text(text, what="A name", max_length=30)
    assert refused.value.code == code
    assert refused.value.message.startswith("A name ")


def test_accepted_text_is_trimmed_and_keeps_any_script() -> None:
    assert clean_text("  Zoë 北京 مرحبا 🎲 ", what="A name", max_length=30) == "Zoë 北京 مرحبا 🎲"
    assert clean_text(" " + "A" * 30 + " ", what="A name", max_length=30) == "A" * 30


def test_multiline_lets_line_breaks_through_but_no_other_control() -> None:
    assert clean_text("a\nb\tc", what="A note", max_length=10, multiline=True) == "a\nb\tc"
    with pytest.raises(TextRefused):
        clean_text("a\x00b", what="A note", max_length=10, multiline=True)


def test_look_alike_names_fold_to_the_same() -> None:
    """Issue 30: invisible characters, compatibility forms and case do not make a new name."""
    assert {
        folded_name(name) for name in ("Host", "Host\u200b", "HOST", "\uff28\uff4f\uff53\uff54")
    } == {"host"}
    assert folded_name("Ann  Lee") == folded_name("ann lee")
    assert folded_name("Ann") != folded_name("Anne")


def test_an_emoji_joined_by_zero_width_joiners_is_still_text() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert clean_text(family, what="A name", max_length=30) == family
