"""Why a move was worse than the best one, in a player's words.

A reason compares what the played move and the best one do to the deciding seat's own
position, as that seat could see it: the cards each spends from the hand (wilds above all),
the card each gives to the discard pile, which of the seat's sets each leaves exposed and
whether a card left in the hand could answer a challenge on it, the stash each banks, and, for
a challenge, how many cards the seat had not seen could answer it. Everything is read from the
seat's view; the moves are tried on one hypothetical deal made from that view with a fixed
generator, and only the seat's own stack and hand cards are read from it, so the hidden cards
never reach a reason.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import engine
from engine.ai.heuristic import Action
from engine.cards import INFO, IS_WILD, KIND_OF, VALUE_OF, CardId, Kind


@dataclass(frozen=True, slots=True)
class _Exposed:
    """One of the seat's sets a rival could challenge after a move."""

    kind: str
    value: int
    answerable: bool
    """Whether a card the seat keeps in hand matches the set (so it could answer)."""


@dataclass(frozen=True, slots=True)
class _Outcome:
    """What a move does to the deciding seat's own position."""

    spent: tuple[CardId, ...]
    """Hand cards the move plays or gives away."""
    kept: tuple[CardId, ...]
    """Hand cards left after it (before any draw)."""
    exposed: tuple[_Exposed, ...]
    stash: int

    @property
    def wild_value(self) -> int:
        return sum(VALUE_OF[card] for card in self.spent if IS_WILD[card])

    def worst_exposed(self) -> _Exposed | None:
        """The most valuable exposed set that no kept card could answer, else the most
        valuable exposed set."""
        bare = [item for item in self.exposed if not item.answerable]
        pool = bare or list(self.exposed)
        return max(pool, key=lambda item: (item.value, not item.answerable), default=None)


def money(value: int) -> str:
    return f"${value:,}"


def kind_name(kind: str | Kind) -> str:
    return INFO[Kind(kind)].name


def _card_name(card: CardId) -> str:
    return INFO[KIND_OF[card]].name


def _a(name: str) -> str:
    return f"an {name}" if name[0] in "AEIOU" else f"a {name}"


def _seat_name(view: Mapping[str, Any], seat: int) -> str:
    name = view["players"][seat].get("name")
    return str(name) if name else f"Seat {seat + 1}"


def _matches(card: CardId, kind: str) -> bool:
    return IS_WILD[card] or KIND_OF[card] == Kind(kind)


def _cards_of(action: Action) -> list[CardId]:
    cards = [int(card) for card in action.get("cards", [])]
    if "card" in action:
        cards.append(int(action["card"]))
    return cards


def _outcome(view: Mapping[str, Any], hypothetical: engine.State, action: Action) -> _Outcome:
    seat = int(view["seat"])
    hand = [int(card["id"]) for card in view["hand"]]
    spent = tuple(card for card in _cards_of(action) if card in hand)
    kept = tuple(card for card in hand if card not in spent)
    after = engine.apply_action(hypothetical, action)
    mine = engine.view_for(after, seat)["players"][seat]
    exposed = tuple(
        _Exposed(
            str(item["kind"]),
            int(item["value"]),
            any(_matches(card, str(item["kind"])) for card in kept),
        )
        for item in mine["stack"]
        if item["exposed"]
    )
    return _Outcome(spent, kept, exposed, int(mine["stash"]))


def _unseen_matching(view: Mapping[str, Any], kind: str) -> int:
    return sum(_matches(card, kind) for card in engine.Sampler(view).unseen)


def _target_set(view: Mapping[str, Any], action: Action) -> Mapping[str, Any]:
    stack: list[Mapping[str, Any]] = view["players"][int(action["target"])]["stack"]
    return stack[len(stack) - 1 - int(action.get("depth", 0))]


def _hand_size(view: Mapping[str, Any], seat: int) -> int:
    return int(view["players"][seat]["hand_size"])


def _count(number: int, thing: str) -> str:
    words = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
    return f"{words.get(number, str(number))} {thing}{'' if number == 1 else 's'}"


def reason(view: Mapping[str, Any], played: Action, best: Action) -> str:
    """Why ``played`` was worse than ``best`` for the view's seat, in one short sentence."""
    hypothetical = engine.determinize(view, random.Random(0))
    mine = _outcome(view, hypothetical, played)
    better = _outcome(view, hypothetical, best)
    for rule in _RULES:
        found = rule(view, played, best, mine, better)
        if found:
            return found
    return (
        "won less often than the better move when the search played both out from what "
        "you could see"
    )


def _conceded_an_answer(
    view: Mapping[str, Any], played: Action, best: Action, mine: _Outcome, better: _Outcome
) -> str | None:
    if played["type"] != "concede" or best["type"] != "answer":
        return None
    challenge = view["challenge"]
    answer = " and ".join(_card_name(card) for card in _cards_of(best))
    seat = int(view["seat"])
    if challenge["defender"] == seat and challenge["claim"] is None:
        stack = view["players"][seat]["stack"]
        target = stack[len(stack) - 1 - int(challenge["depth"])]
        what = f"your {money(target['value'])} {kind_name(target['kind'])} set"
        return f"gave up {what} when your {answer} could answer the challenge"
    return f"conceded the challenge when your {answer} could still answer it"


def _spent_a_wild(
    view: Mapping[str, Any], played: Action, best: Action, mine: _Outcome, better: _Outcome
) -> str | None:
    if mine.wild_value <= better.wild_value:
        return None
    wild = max((card for card in mine.spent if IS_WILD[card]), key=VALUE_OF.__getitem__)
    name = _card_name(wild)
    instead = [card for card in better.spent if not IS_WILD[card]]
    if played["type"] == "discard":
        gift = f"threw away {_a(name)}, a wild the next player can take from the discard pile"
        if best["type"] == "discard" and instead:
            return f"{gift}, where {_a(_card_name(instead[0]))} would do"
        return gift
    if instead and best["type"] == played["type"]:
        return f"used {_a(name)} where {_a(_card_name(instead[0]))} would do"
    return f"spent {_a(name)} that the better move keeps in your hand"


def _left_exposed(
    view: Mapping[str, Any], played: Action, best: Action, mine: _Outcome, better: _Outcome
) -> str | None:
    worst = mine.worst_exposed()
    if worst is None or worst.answerable:
        return None
    other = better.worst_exposed()
    if other is not None and not other.answerable and other.value >= worst.value:
        return None
    what = f"your {money(worst.value)} {kind_name(worst.kind)} set"
    return f"left {what} exposed to a challenge you could not answer"


def _missed_a_challenge(
    view: Mapping[str, Any], played: Action, best: Action, mine: _Outcome, better: _Outcome
) -> str | None:
    if best["type"] != "challenge" or played["type"] == "challenge":
        return None
    target = _target_set(view, best)
    rival = int(best["target"])
    what = f"{_seat_name(view, rival)}'s {money(target['value'])} {kind_name(target['kind'])} set"
    if _hand_size(view, rival) == 0:
        # Only the defender's hand answers: an empty one answers nothing, whatever is unseen.
        return f"missed a challenge on {what}, which an empty hand could not answer"
    unseen = _unseen_matching(view, str(target["kind"]))
    answers = "no card" if unseen == 0 else "only " + _count(unseen, "card")
    return f"missed a challenge on {what}, which {answers} you had not seen could answer"


def _risky_challenge(
    view: Mapping[str, Any], played: Action, best: Action, mine: _Outcome, better: _Outcome
) -> str | None:
    if played["type"] != "challenge" or best["type"] == "challenge":
        return None
    if _hand_size(view, int(played["target"])) == 0:
        # A defender with an empty hand cannot answer: the challenge risked nothing.
        return None
    target = _target_set(view, played)
    kind = str(target["kind"])
    backing = sum(_matches(card, kind) for card in mine.kept)
    unseen = _unseen_matching(view, kind)
    what = (
        f"{_seat_name(view, int(played['target']))}'s {money(target['value'])} "
        f"{kind_name(kind)} set"
    )
    risked = sum(VALUE_OF[card] for card in mine.spent)
    backed = "no card left to answer" if backing == 0 else _count(backing, "card") + " to answer"
    return (
        f"challenged {what} with {_count(len(mine.spent), 'card')} ({money(risked)}) and "
        f"{backed}, while {_count(unseen, 'card')} you had not seen could answer"
    )


def _banked_less(
    view: Mapping[str, Any], played: Action, best: Action, mine: _Outcome, better: _Outcome
) -> str | None:
    gained = better.stash - mine.stash
    if gained <= 0:
        return None
    return f"left {money(gained)} out of your stash that the better move banks"


def _threw_away_an_action(
    view: Mapping[str, Any], played: Action, best: Action, mine: _Outcome, better: _Outcome
) -> str | None:
    if played["type"] != "discard" or best["type"] not in ("swap", "move"):
        return None
    thrown = int(played["card"])
    if thrown != int(best["card"]):
        return None
    return f"threw away {_a(_card_name(thrown))} that the better move plays"


def _kept_an_action(
    view: Mapping[str, Any], played: Action, best: Action, mine: _Outcome, better: _Outcome
) -> str | None:
    if best["type"] not in ("swap", "move") or played["type"] in ("swap", "move"):
        return None
    if int(best["card"]) in mine.spent:
        return None
    return f"held on to your {_card_name(int(best['card']))} when playing it was better"


def _discarded_instead(
    view: Mapping[str, Any], played: Action, best: Action, mine: _Outcome, better: _Outcome
) -> str | None:
    if played["type"] != "discard" or best["type"] != "discard":
        return None
    thrown, instead = _card_name(int(played["card"])), _card_name(int(best["card"]))
    if thrown == instead:
        return None
    return f"discarded {_a(thrown)} where {_a(instead)} would do"


_Rule = Callable[[Mapping[str, Any], Action, Action, _Outcome, _Outcome], str | None]

_RULES: tuple[_Rule, ...] = (
    _conceded_an_answer,
    _risky_challenge,
    _spent_a_wild,
    _left_exposed,
    _missed_a_challenge,
    _threw_away_an_action,
    _kept_an_action,
    _banked_less,
    _discarded_instead,
)
"""The reasons in the order they are tried: the first that applies is given."""
