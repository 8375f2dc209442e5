"""Hard's soft inference: a seat that conceded probably held no matching asset (issue 4)."""

from __future__ import annotations

from engine.ai.inference import guesses
from engine.cards import IDS_OF, Kind

YACHTS = list(IDS_OF[Kind.YACHT][:3])
GOLD = IDS_OF[Kind.GOLD_BAR][0]


def entry(event: str, seat: int | None, **data: object) -> dict[str, object]:
    return {"round": 0, "event": event, "seat": seat, "text": "", **data}


def test_a_conceder_is_guessed_to_lack_the_contested_kind() -> None:
    log = [
        entry("challenge", 0, target=1, depth=0, cards=[GOLD]),
        entry("concede", 1),
        entry("challenge_won", 0, cards=[*YACHTS, GOLD]),
    ]
    found = guesses({"seat": 0, "log": log})
    assert found[1].kinds == {Kind.YACHT}
    assert found[1].drawn == 0


def test_the_guess_weakens_with_every_card_drawn_and_ends_with_the_round() -> None:
    log = [
        entry("concede", 1),
        entry("claim_won", 0, cards=[*YACHTS]),
        entry("draw", 1, count=2),
        entry("draw", 0, count=3),
    ]
    assert guesses({"seat": 0, "log": log})[1].drawn == 2
    assert guesses({"seat": 0, "log": [*log, entry("deal", None, dealer=1)]}) == {}


def test_no_guess_about_the_viewer_itself() -> None:
    log = [entry("concede", 0), entry("challenge_won", 1, cards=YACHTS)]
    assert guesses({"seat": 0, "log": log}) == {}
