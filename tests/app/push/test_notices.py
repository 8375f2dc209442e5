"""A notification holds public facts only: structurally, by the notice types' fields."""

from __future__ import annotations

import dataclasses
import typing

import pytest

from app.push import notices
from app.push.notices import Challenged, GameOver, Notice, YourMove, render
from engine.cards import Kind

PUBLIC_FIELDS: dict[str, type] = {
    "host": str,
    "by": str,
    "room_code": str,
    "set_kind": Kind,
    "place": int,
}
"""Every field a notice may have, each a fact everyone at the table sees: a display name, the
room, a set's kind on the table, a final place. A new field must be added here, by a reviewer
who has checked it reveals no hand, no card drawn, no deck and no seed."""


def test_the_notice_kinds_are_a_closed_set() -> None:
    assert set(typing.get_args(Notice)) == {YourMove, Challenged, GameOver}
    assert {kind.kind for kind in typing.get_args(Notice)} == {
        "your_move",
        "challenged",
        "game_over",
    }


@pytest.mark.parametrize("kind", typing.get_args(Notice), ids=lambda kind: kind.__name__)
def test_a_notice_carries_only_public_fields(kind: type) -> None:
    hints = typing.get_type_hints(kind, vars(notices))
    for each in dataclasses.fields(kind):
        assert each.name in PUBLIC_FIELDS, f"{kind.__name__}.{each.name} is not a public field"
        assert hints[each.name] is PUBLIC_FIELDS[each.name]


def test_a_notice_is_frozen() -> None:
    notice = YourMove("Ann", "ABCD")
    with pytest.raises(dataclasses.FrozenInstanceError):
        notice.host = "someone's hand"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("notice", "title", "body"),
    [
        (YourMove("Ann", "ABCD"), "Your move", "Your move at Ann's table"),
        (
            Challenged("Bea", Kind.GOLD_BAR, "ABCD"),
            "Challenged",
            "Bea challenges your Gold Bar set",
        ),
        (GameOver(1, "ABCD"), "Game over", "Game over: you came 1st"),
        (GameOver(2, "ABCD"), "Game over", "Game over: you came 2nd"),
        (GameOver(3, "ABCD"), "Game over", "Game over: you came 3rd"),
        (GameOver(4, "ABCD"), "Game over", "Game over: you came 4th"),
    ],
)
def test_a_notice_renders_to_a_short_title_body_and_the_table(
    notice: Notice, title: str, body: str
) -> None:
    rendered = render(notice)
    assert (rendered.title, rendered.body, rendered.url) == (title, body, "/room/ABCD")


def test_a_room_code_cannot_leave_the_table_address() -> None:
    assert render(YourMove("Ann", "../api/x?y")).url == "/room/..%2Fapi%2Fx%3Fy"
