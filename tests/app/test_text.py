"""Typed text that others read: names and chat lines are refused for the same reasons."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rooms import lobby
from app.rooms.errors import RoomError
from app.rooms.model import RoomOptions, Seat
from app.text import DEFAULT_IGNORABLE, TextRefused, clean_text, folded_name


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


def test_default_ignorable_is_unicodes_whole_property() -> None:
    """Issue 44 point 9: the set is Default_Ignorable_Code_Point as DerivedCoreProperties.txt
    lists it (4,174 code points in Unicode 14 and 15), every variation selector included, and
    not the format characters that show (U+0600 ARABIC NUMBER SIGN, U+FFF9)."""
    assert len(DEFAULT_IGNORABLE) == 4174
    selectors = {"\u180b", "\u180c", "\u180d", "\u180f"} | {chr(c) for c in range(0xFE00, 0xFE10)}
    selectors |= {chr(c) for c in range(0xE0100, 0xE01F0)}
    assert selectors <= DEFAULT_IGNORABLE
    assert {"\u200b", "\u00ad", "\ufeff", "\u3164", "\U000e0001", "\U000e0fff"} <= DEFAULT_IGNORABLE
    assert not {"\u0600", "\u06dd", "\ufff9", "\U00013430", " ", "A"} & DEFAULT_IGNORABLE


def test_no_default_ignorable_alone_is_a_name() -> None:
    """Every one of them, alone and with spaces around it, is blank; appended to a name it
    folds to the name's own look."""
    for char in sorted(DEFAULT_IGNORABLE):
        for text in (char, f" {char} {char}"):
            with pytest.raises(TextRefused) as refused:
                clean_text(text, what="A name", max_length=30)
            assert refused.value.code in ("blank_text", "bad_text"), hex(ord(char))
        assert folded_name("Host" + char) == "host", hex(ord(char))


_IGNORABLE = st.sampled_from(sorted(DEFAULT_IGNORABLE))


@given(st.lists(_IGNORABLE | st.just(" "), min_size=1, max_size=30))
def test_a_name_of_ignorables_and_spaces_is_blank(chars: list[str]) -> None:
    with pytest.raises(TextRefused) as refused:
        clean_text("".join(chars), what="A name", max_length=30)
    assert refused.value.code in ("blank_text", "bad_text")


@given(
    st.sampled_from(["Host", "Ann Lee", "Zoë", "北京", "مرحبا", "🎲"]),
    st.lists(st.tuples(st.integers(min_value=0), _IGNORABLE), min_size=1, max_size=6),
)
def test_ignorables_anywhere_in_a_name_do_not_make_a_new_name(
    name: str, inserted: list[tuple[int, str]]
) -> None:
    disguised = name
    for position, char in inserted:
        at = position % (len(disguised) + 1)
        disguised = disguised[:at] + char + disguised[at:]
    assert folded_name(disguised) == folded_name(name)


@pytest.mark.parametrize("invisible", ["\u180b", "\U000e0100", "\ufe0f", "\U000e01ef"])
def test_host_with_a_variation_selector_cannot_sit_beside_host(invisible: str) -> None:
    room = lobby.new_room(
        code="ABCDE",
        options=RoomOptions(room_name="Table", seats=4),
        host=Seat(name="Host", token_hash="a" * 64),
        now=1.0,
    )
    with pytest.raises(RoomError) as taken:
        lobby.take_seat(room, Seat(name="Host" + invisible, token_hash="b" * 64))
    assert taken.value.code == "name_taken"
