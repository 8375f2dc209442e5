"""What each seat sees (docs/rules.md §9; docs/design.md, "A view")."""

from __future__ import annotations

import json
import random

import pytest
from gameplay import act, card, deal, finish

import engine

MINIMUM = {
    "seat",
    "hand",
    "deck_size",
    "discard",
    "out",
    "piles",
    "players",
    "to_act",
    "challenge",
    "pending",
    "rounds",
    "over",
    "log",
}
SEED = 123456789


def test_a_view_has_every_field_the_contract_names() -> None:
    state = engine.new_game({"players": 3, "draft": True, "seed": SEED})
    for seat in (None, 0, 1, 2):
        view = engine.view_for(state, seat)
        assert set(view) >= MINIMUM
        assert view["seat"] == seat
        for player in view["players"]:
            assert set(player) >= {"seat", "hand_size", "stack", "stash"}


def test_a_view_never_holds_the_seed_another_hand_or_the_deck() -> None:
    config = {"players": 3, "rules": "advanced", "draft": True, "seed": SEED, "names": list("ABC")}
    state = engine.new_game(config)
    secret = engine.open_view(state)
    for seat in (None, 0, 1, 2):
        text = json.dumps(engine.view_for(state, seat))
        assert str(SEED) not in text
        assert '"seed"' not in text
        view = engine.view_for(state, seat)
        shown = {c["id"] for c in view["hand"]} | {c["id"] for c in view["discard"] + view["out"]}
        shown |= {p["top"]["id"] for p in view["piles"] if p["top"]}
        for other, cards in enumerate(secret["hands"]):
            if other != seat:
                assert not {c["id"] for c in cards} & shown
        assert not {c["id"] for c in secret["deck"]} & shown


def test_a_spectator_sees_no_hand_and_a_seat_sees_its_own() -> None:
    state = deal([["coins", "yacht"], ["guitar"]])
    assert engine.view_for(state, None)["hand"] == []
    assert sorted(c["kind"] for c in engine.view_for(state, 0)["hand"]) == ["coins", "yacht"]
    assert [p["hand_size"] for p in engine.view_for(state, 1)["players"]] == [2, 1]


def test_names_appear_in_the_view_and_the_log() -> None:
    state = engine.new_game({"players": 2, "seed": 1, "names": ["Ann", "Bo"]})
    view = engine.view_for(state, 0)
    assert [p["name"] for p in view["players"]] == ["Ann", "Bo"]
    assert "deals" in view["log"][0]["text"]
    assert view["log"][0]["text"].split(":")[1].strip().split()[0] in ("Ann", "Bo")


def test_the_log_says_what_happened_in_words_and_data() -> None:
    state = deal([["coins", "coins"], ["guitar"]], rules="simple")
    cards = [card(state, 0, "coins"), card(state, 0, "coins", 1)]
    state = act(state, "form_set", 0, cards=cards)
    entry = next(e for e in engine.view_for(state, 1)["log"] if e["event"] == "form_set")
    assert entry["seat"] == 0
    assert entry["cards"] == cards
    assert "Coin Collection" in entry["text"]


def test_a_finished_game_is_over_in_every_view() -> None:
    state = finish(engine.new_game({"players": 2, "rules": "simple", "seed": 4}), random.Random(4))
    for seat in (None, 0, 1):
        view = engine.view_for(state, seat)
        assert view["over"] is True
        assert view["to_act"] == []
        assert view["rounds"]["winners"]
    assert engine.view_for(state, None)["log"][-1]["event"] == "game_over"


@pytest.mark.parametrize(
    ("seat", "error"), [(-1, ValueError), (2, ValueError), ("0", TypeError), (1.0, TypeError)]
)
def test_a_view_for_a_seat_not_in_the_game_is_refused(seat: object, error: type) -> None:
    """A number that is no seat is a ValueError; a seat that is not a number a TypeError from
    the compiled engine (its functions check their arguments' types), a ValueError from the
    sources."""
    state = deal([["coins"], ["guitar"]])
    refused = error if engine.BUILD == "compiled" else ValueError
    with pytest.raises(refused):
        engine.view_for(state, seat)  # type: ignore[arg-type]
    with pytest.raises(refused):
        engine.views_for(state, [0, seat])  # type: ignore[list-item]
