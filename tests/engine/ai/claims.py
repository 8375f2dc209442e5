"""What a reason (``engine.ai.reasons``) claims, checked against the deciding seat's view.

Every sentence a reason can say is read back here into its claims (this set, these cards in
your hand, this many cards you had not seen could answer, ...) and each claim is held to the
view of the seat the reason is told to, and to nothing else: the check knows no hidden card.
``violations`` lists the claims that are false; a sentence no pattern reads is one too.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

import engine
from engine.cards import INFO, IS_WILD, KIND_OF, Kind

_NAME_OF_KIND = {info.name: kind for kind, info in INFO.items()}
_NUMBERS = {"no": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}

SET = r"\$(?P<value>[\d,]+) (?P<kind>[A-Za-z ]+?) set"
CARD = r"an? (?P<{}>[A-Za-z ]+?)"


def _number(word: str) -> int:
    return _NUMBERS[word] if word in _NUMBERS else int(word)


def _hand_names(view: Mapping[str, Any]) -> Counter[str]:
    return Counter(INFO[KIND_OF[int(card["id"])]].name for card in view["hand"])


def _holds(view: Mapping[str, Any], *names: str) -> bool:
    return not Counter(names) - _hand_names(view)


def _matches(card: int, kind: Kind) -> bool:
    return IS_WILD[card] or KIND_OF[card] == kind


def _unseen_matching(view: Mapping[str, Any], kind: Kind) -> int:
    return sum(_matches(card, kind) for card in engine.Sampler(view).unseen)


def _seat_named(view: Mapping[str, Any], name: str) -> list[int]:
    return [
        index
        for index, player in enumerate(view["players"])
        if (player.get("name") or f"Seat {index + 1}") == name
    ]


def _has_set(stack: list[Mapping[str, Any]], value: str, kind: str) -> list[Mapping[str, Any]]:
    return [
        item
        for item in stack
        if f"{int(item['value']):,}" == value and INFO[Kind(item["kind"])].name == kind
    ]


def _kept_after(view: Mapping[str, Any], action: Mapping[str, Any]) -> list[int]:
    spent = [int(card) for card in action.get("cards", [])]
    if "card" in action:
        spent.append(int(action["card"]))
    kept = [int(card["id"]) for card in view["hand"]]
    for card in spent:
        if card in kept:
            kept.remove(card)
    return kept


def violations(
    view: Mapping[str, Any], played: Mapping[str, Any], best: Mapping[str, Any], said: str
) -> list[str]:
    """The claims of ``said`` (the reason for ``played`` against ``best``) that the seat's
    view does not bear out; empty when every claim holds."""
    seat = int(view["seat"])
    me = view["players"][seat]
    wrong: list[str] = []

    def check(claim: bool, what: str) -> None:
        if not claim:
            wrong.append(what)

    if said.startswith("won less often than the better move"):
        return wrong
    if found := re.fullmatch(
        rf"gave up your {SET} when your (?P<cards>.+) could answer the "
        r"challenge",
        said,
    ):
        challenge = view["challenge"]
        check(challenge is not None and challenge["defender"] == seat, "you defend a set")
        if challenge is not None:
            stack = me["stack"]
            target = stack[len(stack) - 1 - int(challenge["depth"])]
            check(bool(_has_set([target], found["value"], found["kind"])), "the set challenged")
        check(_holds(view, *found["cards"].split(" and ")), "the answer is in your hand")
        check(played["type"] == "concede" and best["type"] == "answer", "conceded an answer")
        return wrong
    if found := re.fullmatch(
        r"conceded the challenge when your (?P<cards>.+) could still "
        r"answer it",
        said,
    ):
        check(view["challenge"] is not None, "a challenge is open")
        check(_holds(view, *found["cards"].split(" and ")), "the answer is in your hand")
        return wrong
    if found := re.fullmatch(
        rf"challenged (?P<who>.+)'s {SET} with (?P<count>\w+) cards? \(\$(?P<risked>[\d,]+)\) "
        r"and (?:no card left to answer|(?P<backing>\w+) cards? to answer), while "
        r"(?P<unseen>\w+) cards? you had not seen could answer",
        said,
    ):
        check(played["type"] == "challenge", "you challenged")
        target = int(played["target"])
        check(target in _seat_named(view, found["who"]), "the rival named")
        stack = view["players"][target]["stack"]
        item = stack[len(stack) - 1 - int(played.get("depth", 0))]
        check(bool(_has_set([item], found["value"], found["kind"])), "the set challenged")
        kind = Kind(item["kind"])
        check(_number(found["count"]) == len(played["cards"]), "the cards played")
        kept = _kept_after(view, played)
        backing = sum(_matches(card, kind) for card in kept)
        check(_number(found["backing"] or "no") == backing, "the cards left to answer")
        unseen = _number(found["unseen"])
        check(unseen == _unseen_matching(view, kind), "the unseen cards that match")
        defender_cards = int(view["players"][target]["hand_size"])
        check(unseen == 0 or defender_cards > 0, "the rival holds a card that could answer")
        return wrong
    if found := re.fullmatch(
        rf"missed a challenge on (?P<who>.+)'s {SET}, which (?:(?P<empty>an empty hand could "
        r"not)|(?:no card|only (?P<unseen>\w+) cards?) you had not seen could) answer",
        said,
    ):
        check(best["type"] == "challenge", "a challenge was better")
        target = int(best["target"])
        check(target in _seat_named(view, found["who"]), "the rival named")
        stack = view["players"][target]["stack"]
        item = stack[len(stack) - 1 - int(best.get("depth", 0))]
        check(bool(_has_set([item], found["value"], found["kind"])), "the set")
        kind = Kind(item["kind"])
        defender_cards = int(view["players"][target]["hand_size"])
        if found["empty"]:
            check(defender_cards == 0, "the rival's hand is empty")
            return wrong
        unseen = _number(found["unseen"] or "no")
        check(unseen == _unseen_matching(view, kind), "the unseen cards that match")
        check(unseen == 0 or defender_cards > 0, "the rival holds a card that could answer")
        return wrong
    if found := re.fullmatch(
        rf"threw away {CARD.format('wild')}, a wild the next player can take from the discard "
        rf"pile(?:, where {CARD.format('instead')} would do)?",
        said,
    ):
        check(played["type"] == "discard", "you discarded")
        check(_holds(view, found["wild"]), "the wild is in your hand")
        check(IS_WILD[int(played["card"])], "the card thrown is a wild")
        if found["instead"]:
            check(_holds(view, found["instead"]), "the other card is in your hand")
        return wrong
    if found := re.fullmatch(
        rf"used {CARD.format('wild')} where {CARD.format('instead')} would do", said
    ):
        check(_holds(view, found["wild"], found["instead"]), "both cards are in your hand")
        return wrong
    if found := re.fullmatch(
        rf"spent {CARD.format('wild')} that the better move keeps in your hand", said
    ):
        check(_holds(view, found["wild"]), "the wild is in your hand")
        return wrong
    if found := re.fullmatch(rf"left your {SET} exposed to a challenge you could not answer", said):
        after = engine.apply_action(engine.determinize(view, random.Random(1)), dict(played))
        mine = engine.view_for(after, seat)["players"][seat]
        exposed = [item for item in mine["stack"] if item["exposed"]]
        sets = _has_set(exposed, found["value"], found["kind"])
        check(bool(sets), "the set is exposed after your move")
        kept = _kept_after(view, played)
        if sets:
            kind = Kind(sets[0]["kind"])
            check(not any(_matches(card, kind) for card in kept), "no card kept answers it")
        return wrong
    if found := re.fullmatch(rf"threw away {CARD.format('card')} that the better move plays", said):
        check(_holds(view, found["card"]), "the card is in your hand")
        return wrong
    if found := re.fullmatch(r"held on to your (?P<card>.+) when playing it was better", said):
        check(_holds(view, found["card"]), "the card is in your hand")
        return wrong
    if found := re.fullmatch(
        r"left \$(?P<value>[\d,]+) out of your stash that the better move banks", said
    ):
        check(int(found["value"].replace(",", "")) > 0, "a gain")
        return wrong
    if found := re.fullmatch(
        rf"discarded {CARD.format('thrown')} where {CARD.format('instead')} would do", said
    ):
        check(_holds(view, found["thrown"], found["instead"]), "both cards are in your hand")
        return wrong
    return [f"a sentence no pattern reads: {said!r}"]
