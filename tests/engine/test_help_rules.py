"""The help page is the rules, and it must be true: every statement it marks with ``data-rule``
has a check here that builds positions with the engine's public API (a deal, the legal
actions, an action applied, a view) and proves that the engine does what the page says, with
the page's own numbers, cards and conditions (read from its words), so a wrong number or a rule
the engine does not apply fails its check. The rules in full are in docs/rules.md."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from gameplay import act, card, deal, every_card, finish, legal_of, stack_kinds
from help_page import HELP_PAGE, Rule, parse_rules, rules_on_the_page

import engine
from engine.cards import INFO, KINDS, CardClass, Kind

PAGE = rules_on_the_page()
NAME_TO_KIND = {info.name: info.kind for info in KINDS}
RULE_SET_COLUMNS = {"Simple": "simple", "Simple with actions": "simple_actions"}
COINS = ["coins", "coins"]
GUITARS = ["guitar", "guitar"]
YACHTS = ["yacht", "yacht"]

Check = Callable[[Rule], None]
CHECKS: dict[str, Check] = {}


def check(name: str) -> Callable[[Check], Check]:
    def register(function: Check) -> Check:
        assert name not in CHECKS, f"two checks for {name!r}"
        CHECKS[name] = function
        return function

    return register


def refused(state: engine.State, kind: str, seat: int, **fields: object) -> str:
    with pytest.raises(engine.IllegalAction) as error:
        act(state, kind, seat, **fields)
    return error.value.code


def dollars(words: str) -> int:
    return 0 if words == "none" else int(words.replace("$", "").replace(",", ""))


def kinds_in_play(config: dict[str, Any]) -> Counter[str]:
    return Counter(c["kind"] for c in every_card(engine.new_game(config)))


def view(state: engine.State, seat: int | None = None) -> dict[str, Any]:
    return engine.view_for(state, seat)


def kind_in_hand(state: engine.State, seat: int, card_id: int) -> str:
    """The kind of a card in ``seat``'s hand."""
    return next(str(c["kind"]) for c in view(state, seat)["hand"] if c["id"] == card_id)


def top_set(state: engine.State, seat: int) -> list[str]:
    return stack_kinds(state, seat)[-1]


def challenge_targets(state: engine.State) -> set[tuple[int, int]]:
    return {(a["target"], a["depth"]) for a in legal_of(state, "challenge")}


def need(state: engine.State) -> int:
    challenge = view(state)["challenge"]
    assert challenge is not None
    return int(challenge["need"])


def exposed_flags(rules: str, sets: int) -> list[bool]:
    stack = [COINS, GUITARS, YACHTS, ["stocks", "stocks"]][:sets]
    state = deal([["coins"], ["jewelry"]], rules=rules, stacks=[[], stack])
    return [s["exposed"] for s in view(state)["players"][1]["stack"]]


# --- the cards --------------------------------------------------------------------------------


@check("card-table")
def _card_table(rule: Rule) -> None:
    header, *rows = rule.rows
    assert header == ["Card", "Copies", "Value", "Kind"]
    assert {row[0] for row in rows} == set(NAME_TO_KIND), "every card, once"
    in_play = kinds_in_play({"players": 4, "rules": "advanced", "seed": 3})
    for name, copies, value, kind_words in rows:
        kind = NAME_TO_KIND[name]
        info = INFO[kind]
        assert int(copies) == info.copies == in_play[kind.value], name
        assert dollars(value) == info.value, name
        assert kind_words == info.card_class.value, name
        if info.card_class is CardClass.ASSET:
            state = deal([["coins"], ["jewelry"]], stacks=[[[kind.value, kind.value]], []])
            assert view(state)["players"][0]["stash"] == 2 * dollars(value), name
        elif info.card_class is CardClass.WILD:
            state = deal([["coins"], ["jewelry"]], stacks=[[["piggy_bank", kind.value]], []])
            assert view(state)["players"][0]["stash"] == 5_000 + dollars(value), name
    total = rule.number(r"The (\d+) cards")
    assert total == sum(int(row[1]) for row in rows) == sum(in_play.values())


@check("stash-value")
def _stash_value(rule: Rule) -> None:
    rule.says("sum of the values of every card in it")
    state = deal(
        [["coins"], ["jewelry"]],
        stacks=[[["yacht", "gold_bar"], ["guitar", "guitar", "guitar"]], []],
    )
    assert view(state)["players"][0]["stash"] == 20_000 + 50_000 + 3 * 8_000


@check("set-shape")
def _set_shape(rule: Rule) -> None:
    rule.says(
        "two cards of the same asset, or one asset and one wild",
        "Two wilds never make a set",
        "an action card is never part of a set",
    )
    for a in KINDS:
        for b in KINDS:
            if a.kind is b.kind and a.copies < 2:
                continue
            state = deal([[a.kind.value, b.kind.value], ["jewelry"]])
            assets = [i for i in (a, b) if i.card_class is CardClass.ASSET]
            wilds = [i for i in (a, b) if i.card_class is CardClass.WILD]
            is_set = (len(assets) == 2 and a.kind is b.kind) or (len(assets) == len(wilds) == 1)
            assert bool(legal_of(state, "form_set")) == is_set, (a.name, b.name)


@check("rule-sets")
def _rule_sets(rule: Rule) -> None:
    header, *rows = rule.rows
    columns = [RULE_SET_COLUMNS.get(title, title) for title in header[1:]]
    assert columns[2] == "Advanced (default)"
    columns[2] = "advanced"
    assert view(engine.new_game({"seed": 1}))["rules"] == "advanced", "the default"
    table = {row[0]: dict(zip(columns, row[1:], strict=True)) for row in rows}
    for rules in columns:
        config = {"players": 4, "rules": rules, "seed": 5}
        in_play = kinds_in_play(config)
        cards = table["Cards in the deck"][rules]
        assert int(cards.split(":")[0]) == sum(in_play.values()), rules
        if cards.startswith("104"):
            left_out = {kind.value for kind in (Kind.SWAP, Kind.MOVE, Kind.PENNY_JAR)}
            assert cards == "104: no Swap, Move or Penny Jar"
            assert left_out.isdisjoint(in_play), rules
        state = engine.new_game(config)
        size = int(table["Hand size"][rules])
        assert all(len(view(state, seat)["hand"]) == size for seat in range(4)), rules

        actions = int(table["Actions per turn"][rules].removeprefix("up to "))
        state = deal([["guitar", "guitar", "coins"], ["jewelry"]], rules=rules)
        state = act(state, "form_set", 0, cards=legal_of(state, "form_set")[0]["cards"])
        second = view(state)["to_act"] == [0]
        assert second == (actions == 2), rules
        if second:
            assert legal_of(state, "end_turn"), "a second action, or end the turn"
            assert legal_of(state, "form_set") or legal_of(state, "discard")

        improve = table["Improve a set"][rules] == "yes"
        state = deal([["guitar", "coins"], ["jewelry"]], rules=rules, stacks=[[GUITARS], []])
        assert bool(legal_of(state, "improve")) == improve, rules

        depth = {"top only": 1, "top and second from top": 2}[
            table["A rival's sets you may challenge"][rules]
        ]
        assert sum(exposed_flags(rules, 4)) == depth, rules


# --- a turn -------------------------------------------------------------------------------------


@check("first-player")
def _first_player(rule: Rule) -> None:
    rule.says(
        "dealer is drawn at random",
        "the player after the dealer starts",
        "goes round the table in seat order",
        "One card of the deck is turned up to start the discard pile",
    )
    dealers = set()
    for seed in range(12):
        state = engine.new_game({"players": 4, "rules": "simple", "seed": seed})
        public = view(state)
        dealers.add(public["dealer"])
        first = (public["dealer"] + 1) % 4
        assert public["to_act"] == [first]
        assert len(public["discard"]) == 1
        state = engine.apply_action(state, legal_of(state, "discard")[0])
        assert view(state)["to_act"] == [(first + 1) % 4]
    assert len(dealers) > 1, "the dealer changes with the shuffle"


@check("form-set")
def _form_set(rule: Rule) -> None:
    rule.says("two cards of your hand", "on top of your stack")
    state = deal([["yacht", "silver_bar", "coins"], ["jewelry"]], stacks=[[GUITARS], []])
    pair = [card(state, 0, "yacht"), card(state, 0, "silver_bar")]
    state = act(state, "form_set", 0, cards=pair)
    assert stack_kinds(state, 0) == [GUITARS, ["silver_bar", "yacht"]]


@check("complete-discard")
def _complete_discard(rule: Rule) -> None:
    rule.says("top card of the discard pile and one card of your hand", "a wild on the pile pairs")
    state = deal([["guitar", "silver_bar", "coins"], ["jewelry"]], discard=["coins", "gold_bar"])
    completing = {a["card"] for a in legal_of(state, "form_set_discard")}
    assert completing == {card(state, 0, "guitar"), card(state, 0, "coins")}
    state = act(state, "form_set_discard", 0, card=card(state, 0, "guitar"))
    assert top_set(state, 0) == ["gold_bar", "guitar"]
    assert [c["kind"] for c in view(state)["discard"]] == ["coins"]


@check("discard")
def _discard(rule: Rule) -> None:
    rule.says("any card of your hand", "A discarded Swap or Move leaves the game")
    for action_card in ("swap", "move"):
        state = deal([[action_card, "gold_bar", "coins"], ["jewelry"]])
        assert len(legal_of(state, "discard")) == 3, "any card"
        state = act(state, "discard", 0, card=card(state, 0, action_card))
        public = view(state)
        assert public["discard"] == []
        assert public["out"][-1]["kind"] == action_card


@check("improve")
def _improve(rule: Rule) -> None:
    rule.says("Advanced only", "one asset of the same kind to your own top set", "wild never")
    hand = ["guitar", "silver_bar", "coins"]
    state = deal([hand, ["jewelry"]], stacks=[[COINS, GUITARS], [YACHTS]])
    assert [a["card"] for a in legal_of(state, "improve")] == [card(state, 0, "guitar")]
    assert refused(state, "improve", 0, card=card(state, 0, "silver_bar")) == (
        "improve_needs_asset"
    )
    assert refused(state, "improve", 0, card=card(state, 0, "coins")) == "improve_wrong_kind"
    state = act(state, "improve", 0, card=card(state, 0, "guitar"))
    assert stack_kinds(state, 0) == [COINS, ["guitar"] * 3]
    for rules in ("simple", "simple_actions"):
        state = deal([hand, ["jewelry"]], rules=rules, stacks=[[GUITARS], []])
        assert legal_of(state, "improve") == [], rules


@check("swap")
def _swap(rule: Rule) -> None:
    rule.says(
        "not in Simple",
        "your top set and a rival's top set trade places",
        "You both need at least one set",
        "The Swap leaves the game",
    )
    stacks = [[COINS], [YACHTS, GUITARS], []]
    state = deal([["swap"], ["jewelry"], ["coins"]], rules="simple_actions", stacks=stacks)
    assert {a["target"] for a in legal_of(state, "swap")} == {1}
    state = act(state, "swap", 0, card=card(state, 0, "swap"), target=1)
    assert stack_kinds(state, 0) == [GUITARS]
    assert stack_kinds(state, 1) == [YACHTS, COINS]
    assert view(state)["out"][-1]["kind"] == "swap"
    state = deal([["swap"], ["jewelry"]], rules="simple_actions", stacks=[[], [YACHTS]])
    assert legal_of(state, "swap") == [], "you need a set of your own"
    assert "swap" not in kinds_in_play({"players": 4, "rules": "simple", "seed": 2})


@check("move")
def _move(rule: Rule) -> None:
    rule.says(
        "not in Simple",
        "any stack of at least two sets, yours too",
        "its top set goes to the bottom or its bottom set comes to the top",
        "The Move leaves the game",
    )
    stacks = [[COINS, GUITARS], [COINS, GUITARS, YACHTS], [YACHTS]]
    state = deal([["move"], ["jewelry"], ["coins"]], rules="simple_actions", stacks=stacks)
    assert {(a["target"], a["direction"]) for a in legal_of(state, "move")} == {
        (seat, direction) for seat in (0, 1) for direction in ("top_to_bottom", "bottom_to_top")
    }
    moved = act(state, "move", 0, card=card(state, 0, "move"), target=1, direction="top_to_bottom")
    assert stack_kinds(moved, 1) == [YACHTS, COINS, GUITARS]
    assert view(moved)["out"][-1]["kind"] == "move"
    moved = act(state, "move", 0, card=card(state, 0, "move"), target=1, direction="bottom_to_top")
    assert stack_kinds(moved, 1) == [GUITARS, YACHTS, COINS]
    assert "move" not in kinds_in_play({"players": 4, "rules": "simple", "seed": 2})


@check("draw-up")
def _draw_up(rule: Rule) -> None:
    rule.says(
        "At the end of your turn you draw back up to your hand size while the deck lasts",
        "In Advanced, when your first action is a discard you draw up at once",
    )
    deck = ["piggy_bank"] * 8
    hand = ["guitar", "guitar", "coins", "jewelry", "stocks", "yacht"]
    state = deal([hand, ["fine_art"]], deck=deck)
    state = act(state, "discard", 0, card=card(state, 0, "coins"))
    assert len(view(state, 0)["hand"]) == 6, "drawn at once, before the second action"
    state = deal([hand, ["fine_art"]], deck=deck)
    state = act(state, "form_set", 0, cards=[card(state, 0, "guitar"), card(state, 0, "guitar", 1)])
    assert len(view(state, 0)["hand"]) == 4, "no draw before the turn ends"
    state = act(state, "end_turn", 0)
    assert len(view(state, 0)["hand"]) == 6
    state = deal([hand[:5], ["fine_art"]], rules="simple", deck=["piggy_bank"] * 2)
    state = act(state, "discard", 0, card=card(state, 0, "coins"))
    assert len(view(state, 0)["hand"]) == 5
    state = deal([hand[:5], ["fine_art"]], rules="simple", deck=["piggy_bank"])
    state = act(state, "form_set", 0, cards=[card(state, 0, "guitar"), card(state, 0, "guitar", 1)])
    assert len(view(state, 0)["hand"]) == 4, "only while the deck lasts"


@check("empty-hand")
def _empty_hand(rule: Rule) -> None:
    rule.says(
        "whose hand is empty when their turn comes is skipped",
        "Once the deck is empty, everyone plays on from their hand",
        "In Advanced, if your hand runs out after your first action, all you can do is end",
    )
    state = deal([["guitar", "coins"], [], ["coins"]], rules="simple")
    state = act(state, "discard", 0, card=card(state, 0, "guitar"))
    assert view(state)["to_act"] == [2]
    state = act(state, "discard", 2, card=card(state, 2, "coins"))
    assert view(state)["to_act"] == [0], "the deck is empty: play goes on from the hands"
    state = deal([["guitar", "guitar"], ["coins"]])
    state = act(state, "form_set", 0, cards=[card(state, 0, "guitar"), card(state, 0, "guitar", 1)])
    assert [a["type"] for a in engine.legal_actions(state)] == ["end_turn"]


# --- protection and challenges ----------------------------------------------------------------


@check("protected")
def _protected(rule: Rule) -> None:
    rule.says(
        "bottom set of every stack is always protected",
        "a stack of one set is safe",
        "In Simple and Simple with actions only a rival's top set is exposed",
        "In Advanced their top set and the set second from the top are exposed, unless that one "
        "is the bottom set",
    )
    for rules in ("simple", "simple_actions"):
        assert exposed_flags(rules, 1) == [False]
        assert exposed_flags(rules, 3) == [False, False, True]
    assert exposed_flags("advanced", 1) == [False]
    assert exposed_flags("advanced", 2) == [False, True]
    assert exposed_flags("advanced", 3) == [False, True, True]
    state = deal(
        [["guitar", "coins", "gold_bar", "silver_bar"], ["jewelry"], ["stocks"]],
        stacks=[[YACHTS], [COINS], [COINS, GUITARS]],
    )
    assert challenge_targets(state) == {(2, 0)}
    bottom = [card(state, 0, "gold_bar"), card(state, 0, "silver_bar")]
    assert refused(state, "challenge", 0, target=2, depth=1, cards=bottom) == "set_protected"


@check("challenge-who")
def _challenge_who(rule: Rule) -> None:
    rule.says("On your turn", "at least one set of your own", "a rival's exposed set")
    stacks = [[], [COINS, GUITARS]]
    state = deal([["guitar"], ["guitar"]], stacks=stacks)
    assert legal_of(state, "challenge") == []
    state = deal([["guitar"], ["guitar"]], stacks=[[YACHTS], [COINS, GUITARS]])
    assert challenge_targets(state) == {(1, 0)}
    waiting = engine.blocked_actions(state, 1)
    assert {b["code"] for b in waiting if b["type"] == "challenge"} == {"not_your_turn"}


@check("matching")
def _matching(rule: Rule) -> None:
    rule.says("an asset of the set's kind or any wild")
    hand = [info.kind.value for info in KINDS if info.kind is not Kind.GUITAR]
    state = deal([[*hand, "guitar"], ["jewelry"]], stacks=[[YACHTS], [COINS, GUITARS]])
    openings = {kind_in_hand(state, 0, a["cards"][0]) for a in legal_of(state, "challenge")}
    wilds = {info.kind.value for info in KINDS if info.card_class is CardClass.WILD}
    assert openings == {"guitar"} | wilds


@check("weight")
def _weight(rule: Rule) -> None:
    assert rule.number(r"a Penny Jar weighs (\d)") == INFO[Kind.PENNY_JAR].weight == 2
    assert rule.number(r"every other matching card weighs (\d)") == 1
    rule.says(
        "when 1 is needed you play one card",
        "when 2 is needed you play a Penny Jar alone or two other matching cards, never a Penny "
        "Jar with another card",
    )
    hand = ["penny_jar", "coins"]
    state = deal(
        [hand, ["guitar", "guitar", "guitar", "penny_jar", "gold_bar"]],
        stacks=[[COINS], [YACHTS, GUITARS]],
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "penny_jar")])
    assert need(state) == 2
    jar = card(state, 1, "penny_jar")
    guitars = [card(state, 1, "guitar", n) for n in range(3)]
    assert refused(state, "answer", 1, cards=[jar, guitars[0]]) == "too_many_cards"
    assert refused(state, "answer", 1, cards=guitars) == "too_many_cards"
    assert refused(state, "answer", 1, cards=guitars[:1]) == "needs_two_cards"
    answers = [sorted(a["cards"]) for a in legal_of(state, "answer")]
    assert [jar] in answers
    assert all(len(cards) == 2 and jar not in cards for cards in answers if cards != [jar])
    state = deal([["guitar", "coins"], ["guitar", "guitar"]], stacks=[[COINS], [YACHTS, GUITARS]])
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")])
    assert need(state) == 1
    assert all(len(a["cards"]) == 1 for a in legal_of(state, "answer"))


@check("opening")
def _opening(rule: Rule) -> None:
    rule.says(
        "against a top set you play one matching card (a Penny Jar too)",
        "against a set second from the top you need weight 2: two matching cards or a Penny Jar",
    )
    hand = ["coins", "silver_bar", "penny_jar", "guitar"]
    state = deal([hand, ["jewelry"]], stacks=[[YACHTS], [GUITARS, COINS, GUITARS]])
    top = {tuple(a["cards"]) for a in legal_of(state, "challenge") if a["depth"] == 0}
    assert top == {(card(state, 0, k),) for k in ("guitar", "silver_bar", "penny_jar")}
    deep = {tuple(sorted(a["cards"])) for a in legal_of(state, "challenge") if a["depth"] == 1}
    coins, silver, jar = (card(state, 0, k) for k in ("coins", "silver_bar", "penny_jar"))
    assert deep == {(jar,), tuple(sorted([coins, silver]))}
    assert refused(state, "challenge", 0, target=1, depth=1, cards=[coins]) == "needs_two_cards"


@check("answers")
def _answers(rule: Rule) -> None:
    rule.says(
        "the defender and the challenger answer in turn",
        "An answer needs weight 1, except after a play that held a Penny Jar: then it needs "
        "weight 2",
        "the first answer to a challenge on a set second from the top needs weight 1, even when "
        "that challenge was opened with a Penny Jar",
    )
    state = deal(
        [["guitar", "guitar", "guitar", "coins"], ["guitar", "penny_jar"]],
        stacks=[[COINS], [YACHTS, GUITARS]],
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")])
    assert view(state)["to_act"] == [1]
    assert need(state) == 1
    state = act(state, "answer", 1, cards=[card(state, 1, "penny_jar")])
    assert view(state)["to_act"] == [0], "back to the challenger"
    assert need(state) == 2
    state = act(state, "answer", 0, cards=[card(state, 0, "guitar"), card(state, 0, "guitar", 1)])
    assert view(state)["to_act"] == [1]
    assert need(state) == 1, "two guitars hold no Penny Jar"
    for opening in (["penny_jar"], ["coins", "silver_bar"]):
        state = deal(
            [[*opening, "yacht"], ["coins", "penny_jar", "gold_bar"]],
            stacks=[[YACHTS], [GUITARS, COINS, GUITARS]],
        )
        cards = [card(state, 0, kind) for kind in opening]
        state = act(state, "challenge", 0, target=1, depth=1, cards=cards)
        assert need(state) == 1, opening
        assert all(len(a["cards"]) == 1 for a in legal_of(state, "answer")), opening


@check("concede")
def _concede(rule: Rule) -> None:
    rule.says("may concede at any time", "must when it has no answer")
    state = deal([["guitar", "coins"], ["guitar", "jewelry"]], stacks=[[COINS], [YACHTS, GUITARS]])
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")])
    assert {a["type"] for a in engine.legal_actions(state)} == {"answer", "concede"}
    state = act(state, "answer", 1, cards=[card(state, 1, "guitar")])
    assert [a["type"] for a in engine.legal_actions(state)] == ["concede"], "no guitar, no wild"


@check("outcome")
def _outcome(rule: Rule) -> None:
    rule.says(
        "Whoever played last wins the set and every card played in the challenge",
        "If the challenger wins, the set goes on top of the challenger's stack",
        "If the defender wins, the set, now bigger, stays where it was",
    )
    stacks = [[COINS], [YACHTS, GUITARS, ["stocks", "stocks"]]]
    state = deal([["guitar", "guitar", "coins"], ["guitar", "jewelry"]], stacks=stacks)
    state = act(
        state,
        "challenge",
        0,
        target=1,
        depth=1,
        cards=[card(state, 0, "guitar"), card(state, 0, "guitar", 1)],
    )
    state = act(state, "answer", 1, cards=[card(state, 1, "guitar")])
    defended = act(state, "concede", 0)
    assert stack_kinds(defended, 1) == [YACHTS, ["guitar"] * 5, ["stocks", "stocks"]]
    assert stack_kinds(defended, 0) == [COINS]
    state = deal([["silver_bar", "coins"], ["jewelry"]], stacks=stacks)
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "silver_bar")])
    won = act(state, "concede", 1)
    assert stack_kinds(won, 0) == [COINS, ["silver_bar", "stocks", "stocks"]]
    assert stack_kinds(won, 1) == [YACHTS, GUITARS]


@check("challenge-draw")
def _challenge_draw(rule: Rule) -> None:
    rule.says(
        "every other player who played cards in it draws back up to their hand size at once",
        "the player whose turn it is draws at the end of the turn",
    )
    hands = [["guitar", "coins", "jewelry", "stocks", "yacht", "fine_art"]] * 2
    state = deal(hands, stacks=[[COINS], [YACHTS, GUITARS]], deck=["piggy_bank"] * 6)
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")])
    state = act(state, "answer", 1, cards=[card(state, 1, "guitar")])
    state = act(state, "concede", 0)
    assert len(view(state, 1)["hand"]) == 6, "the defender drew at once"
    assert len(view(state, 0)["hand"]) == 5, "the challenger draws at the end of the turn"
    state = act(state, "end_turn", 0)
    assert len(view(state, 0)["hand"]) == 6


@check("barred")
def _barred(rule: Rule) -> None:
    rule.says(
        "In Advanced, if you open a challenge against a rival and lose it, you may not challenge "
        "that rival again this turn"
    )
    state = deal(
        [["guitar", "guitar", "coins"], ["guitar", "jewelry"], ["stocks"]],
        stacks=[[COINS], [YACHTS, GUITARS], [YACHTS, GUITARS]],
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")])
    state = act(state, "answer", 1, cards=[card(state, 1, "guitar")])
    state = act(state, "concede", 0)
    assert challenge_targets(state) == {(2, 0)}
    codes = {b["code"] for b in engine.blocked_actions(state, 0) if b.get("target") == 1}
    assert "lost_challenge_this_turn" in codes
    state = act(state, "end_turn", 0)
    assert view(state)["barred"] == []


UNAVAILABLE = {
    "not your turn": "not_your_turn",
    "no set of your own": "no_set_of_your_own",
    "it is protected": "set_protected",
    "no card of that set's kind and no wild": "no_matching_card",
    "two matching cards or a Penny Jar": "needs_two_cards",
    "lost a challenge against that player": "lost_challenge_this_turn",
    "Your hand is empty": "hand_empty",
}
"""The page's reasons a set cannot be challenged, by the words that say each, and the engine's
code for it."""


@check("unavailable")
def _unavailable(rule: Rule) -> None:
    said = []
    for item in rule.items:
        codes = [code for words, code in UNAVAILABLE.items() if words.casefold() in item.casefold()]
        assert len(codes) == 1, f"no single reason in {item!r}"
        said.append(codes[0])
    assert sorted(said) == sorted(UNAVAILABLE.values()), "each reason once"
    # Every reason the engine gives against a set that is there to press, over random games.
    given: set[str] = set()
    for config in ({"players": 4, "rules": "advanced"}, {"players": 3, "rules": "simple"}):
        rng = random.Random(7)
        for seed in range(6):
            state = engine.new_game({**config, "seed": seed})
            while not engine.is_over(state):
                for seat in range(config["players"]):
                    for entry in engine.blocked_actions(state, seat):
                        if entry["type"] == "challenge" and entry["code"] != "no_set_to_challenge":
                            given.add(entry["code"])
                legal = engine.legal_actions(state)
                busy = [a for a in legal if a["type"] not in ("discard", "end_turn", "concede")]
                state = engine.apply_action(state, rng.choice(busy or legal))
    assert given == set(said)


# --- draft piles ------------------------------------------------------------------------------


@check("draft-piles")
def _draft_piles(rule: Rule) -> None:
    players = rule.number(r"With 2 or (\d) players")
    assert rule.number(r"three draft piles of (\d+) cards") == 10
    rule.says(
        "With 2 or 3 players",
        "each with its top card face up",
        "An action card turned up while the piles are dealt leaves the game, and that pile stays "
        "one card short",
    )
    with pytest.raises(engine.InvalidConfig):
        engine.new_game({"players": players + 1, "draft": True})
    short = 0
    for seed in range(40):
        state = engine.new_game({"players": players, "draft": True, "seed": seed})
        public = view(state)
        sizes = [pile["size"] for pile in public["piles"]]
        assert len(sizes) == 3
        actions_out = [
            c for c in public["out"] if INFO[Kind(c["kind"])].card_class is CardClass.ACTION
        ]
        assert sum(sizes) + len(actions_out) >= 30
        assert all(size <= 10 for size in sizes)
        assert all(
            INFO[Kind(p["top"]["kind"])].card_class is not CardClass.ACTION for p in public["piles"]
        )
        short += sizes.count(9)
    assert short, "some deal turned up an action card on a pile"


def draft_deal(hands: list[list[str]], piles: list[list[str]], **options: Any) -> engine.State:
    return deal(hands, draft=True, piles=piles, **options)


@check("draft-claim")
def _draft_claim(rule: Rule) -> None:
    rule.says(
        "Drafting is an action",
        "one card from your hand and the top card of a pile",
        "A claim needs an asset, all its assets of one kind, and at most one wild",
    )
    hand = ["guitar", "gold_bar", "jewelry", "swap"]
    state = draft_deal([hand, ["coins"]], [["guitar"], ["silver_bar"], ["coins"]])
    claims = {
        (kind_in_hand(state, 0, a["card"]), tuple(a["piles"])) for a in legal_of(state, "draft")
    }
    assert claims == {
        ("guitar", (0,)),
        ("guitar", (1,)),
        ("guitar", (0, 1)),
        ("gold_bar", (0,)),
        ("gold_bar", (2,)),
        ("jewelry", (1,)),
    }


@check("draft-two")
def _draft_two(rule: Rule) -> None:
    rule.says("several piles in one claim")
    hand_size = rule.number(r"hands hold (\d+) cards")
    left_out = {
        Kind.MANSION: rule.number(r"the (\d+) Mansions"),
        Kind.SILVER_BAR: rule.number(r"(\d+) Silver Bars"),
        Kind.GOLD_BAR: rule.number(r"(\d+) Gold\s+Bar"),
    }
    for rules in ("simple", "advanced"):
        config = {"players": 2, "rules": rules, "seed": 9}
        full = kinds_in_play(config)
        drafted = kinds_in_play({**config, "draft": True})
        for kind, count in left_out.items():
            assert full[kind.value] - drafted[kind.value] == count, (rules, kind)
        assert sum(full.values()) - sum(drafted.values()) == sum(left_out.values())
        state = engine.new_game({**config, "draft": True})
        assert len(view(state, 0)["hand"]) == hand_size, rules
    state = draft_deal([["guitar"], ["coins"]], [["guitar"], ["guitar"], ["silver_bar"]])
    assert {tuple(a["piles"]) for a in legal_of(state, "draft")} == {
        (0,),
        (1,),
        (2,),
        (0, 1),
        (0, 2),
        (1, 2),
        (0, 1, 2),
    }


@check("draft-three")
def _draft_three(rule: Rule) -> None:
    rule.says(
        "With 3 players each pile sits between two neighbours",
        "the two piles beside you, one pile at a time",
    )
    piles = [["guitar"], ["guitar"], ["guitar"]]
    beside: list[set[int]] = []
    for first in range(3):
        state = draft_deal([["guitar"]] * 3, piles, dealer=(first - 1) % 3)
        assert view(state)["to_act"] == [first]
        drafts = [tuple(a["piles"]) for a in legal_of(state, "draft")]
        assert all(len(p) == 1 for p in drafts), "one pile at a time"
        beside.append({p[0] for p in drafts})
    assert all(len(near) == 2 for near in beside)
    assert all(sum(pile in near for near in beside) == 2 for pile in range(3)), "two neighbours"


@check("draft-contest")
def _draft_contest(rule: Rule) -> None:
    rule.says(
        "contested before it is placed",
        "the other player (with 3 players, the neighbour who shares the pile) lets it go",
        "opens a challenge on it with one matching card, with no set of their own needed",
        "The winner puts the claim, with every card played, on top of their own stack",
        "The pile turns up its next card once the claim is placed",
    )
    piles = [["coins", "guitar"], ["jewelry"], ["stocks"]]
    state = draft_deal(
        [["guitar", "yacht"], ["guitar", "silver_bar"]], piles, stacks=[[YACHTS], []]
    )
    state = act(state, "draft", 0, card=card(state, 0, "guitar"), piles=[0])
    assert view(state)["to_act"] == [1]
    assert view(state)["piles"][0]["top"] is None, "no top while the claim is pending"
    contests = legal_of(state, "answer")
    assert contests and all(len(a["cards"]) == 1 for a in contests)
    let_go = act(state, "concede", 1)
    assert stack_kinds(let_go, 0) == [YACHTS, GUITARS]
    assert view(let_go)["piles"][0]["top"]["kind"] == "coins"
    state = act(state, "answer", 1, cards=[card(state, 1, "silver_bar")])
    won = act(state, "concede", 0)
    assert stack_kinds(won, 1) == [["guitar", "guitar", "silver_bar"]]
    three = draft_deal([["guitar"], ["guitar"], ["guitar"]], [["guitar"]] * 3, dealer=2)
    claim = legal_of(three, "draft")[0]
    pile = claim["piles"][0]
    three = engine.apply_action(three, claim)
    assert view(three)["to_act"] == [{0: 1, 2: 2}[pile]], "the neighbour who shares the pile"


@check("draft-action-card")
def _draft_action_card(rule: Rule) -> None:
    rule.says(
        "acts at once on the players beside it, then leaves the game",
        "A Swap trades their top sets if both have one",
        "a stack of two sets trades its two sets",
        "for a stack of three or more, the other player chooses whether its top set goes to the "
        "bottom or its bottom set comes to the top",
    )
    stacks = [[COINS], [YACHTS]]
    state = draft_deal(
        [["guitar", "jewelry"], ["coins"]],
        [["swap", "guitar"], ["stocks"], ["fine_art"]],
        stacks=stacks,
    )
    state = act(state, "draft", 0, card=card(state, 0, "guitar"), piles=[0])
    state = act(state, "concede", 1)
    assert stack_kinds(state, 0) == [COINS, YACHTS]
    assert stack_kinds(state, 1) == [GUITARS]
    assert view(state)["out"][-1]["kind"] == "swap"
    stacks = [[COINS], [COINS, YACHTS, ["stocks", "stocks"]]]
    state = draft_deal(
        [["guitar", "jewelry"], ["coins"]],
        [["move", "guitar"], ["stocks"], ["fine_art"]],
        stacks=stacks,
    )
    state = act(state, "draft", 0, card=card(state, 0, "guitar"), piles=[0])
    state = act(state, "concede", 1)
    assert stack_kinds(state, 0) == [GUITARS, COINS], "with the claim, two sets: they trade"
    assert view(state)["to_act"] == [0], "the other player chooses"
    choices = {a["direction"] for a in legal_of(state, "choose")}
    assert choices == {"top_to_bottom", "bottom_to_top"}
    state = act(state, "choose", 0, direction="top_to_bottom")
    assert stack_kinds(state, 1) == [["stocks", "stocks"], COINS, YACHTS]
    assert view(state)["out"][-1]["kind"] == "move"


# --- the end ----------------------------------------------------------------------------------


@check("round-end")
def _round_end(rule: Rule) -> None:
    rule.says(
        "ends as soon as the deck and every hand are empty, even in the middle of a turn",
        "cards left on draft piles do not count",
        "The highest stash wins; equal stashes share the win",
    )
    state = deal([["guitar", "guitar"], []], stacks=[[], [COINS]])
    state = act(state, "form_set", 0, cards=[card(state, 0, "guitar"), card(state, 0, "guitar", 1)])
    assert engine.is_over(state), "mid-turn"
    assert engine.result(state)["winners"] == [0]
    state = deal([["coins"], ["coins"]], rules="simple", stacks=[[GUITARS], [GUITARS]])
    state = act(state, "discard", 0, card=card(state, 0, "coins"))
    assert not engine.is_over(state)
    state = act(state, "discard", 1, card=card(state, 1, "coins"))
    assert engine.is_over(state)
    assert engine.result(state)["winners"] == [0, 1]
    state = draft_deal([["coins"], []], [["guitar"], ["stocks"], ["yacht"]], rules="simple")
    state = act(state, "discard", 0, card=card(state, 0, "coins"))
    assert engine.is_over(state)


@check("rounds")
def _rounds(rule: Rule) -> None:
    rule.says(
        "a new deal each round and the dealer one seat further on",
        "three rounds (the highest total wins)",
        "after the round in which someone reaches it, the highest total wins",
        "first to win two rounds",
    )
    target = rule.number(r"first to a total of (\$[\d,]+)")
    rng = random.Random(3)
    three = finish(engine.new_game({"players": 3, "rules": "simple", "rounds": 3, "seed": 1}), rng)
    result = engine.result(three)
    assert len(result["rounds"]) == 3
    assert result["winners"] == [
        s for s, t in enumerate(result["totals"]) if t == max(result["totals"])
    ]
    deals = [e["dealer"] for e in engine.log_entries(three) if e["event"] == "deal"]
    assert deals == [(deals[0] + n) % 3 for n in range(3)]
    million = engine.result(
        finish(
            engine.new_game({"players": 2, "rules": "simple", "rounds": "million", "seed": 2}), rng
        )
    )
    before = [sum(scores[s] for scores in million["rounds"][:-1]) for s in range(2)]
    assert max(before) < target <= max(million["totals"])
    wins = engine.result(
        finish(
            engine.new_game(
                {"players": 2, "rules": "simple", "rounds": "two_round_wins", "seed": 4}
            ),
            rng,
        )
    )
    assert max(wins["round_wins"]) == 2
    assert wins["winners"] == [s for s, w in enumerate(wins["round_wins"]) if w == 2]


# --- the page and its checks ------------------------------------------------------------------


def test_every_rule_on_the_help_page_has_a_check_and_every_check_a_rule() -> None:
    names = [rule.name for rule in PAGE]
    assert len(names) == len(set(names)), "a rule marked twice"
    assert set(names) - set(CHECKS) == set(), "rules on the page with no check"
    assert set(CHECKS) - set(names) == set(), "checks of rules the page no longer states"


@pytest.mark.parametrize("rule", PAGE, ids=[rule.name for rule in PAGE])
def test_the_help_page_rule_is_what_the_engine_does(rule: Rule) -> None:
    CHECKS[rule.name](rule)


WRONG_STATEMENTS = {
    "penny-jar-copies": ("<td>2</td><td>$5,000</td>", "<td>3</td><td>$5,000</td>"),
    "gold-bar-value": ("<td>$50,000</td>", "<td>$40,000</td>"),
    "advanced-hand": ("<td>5</td><td>6</td>", "<td>5</td><td>7</td>"),
    "penny-jar-weight": ("a Penny Jar weighs 2", "a Penny Jar weighs 3"),
    "answer-after-a-penny-jar": ("then it needs weight 2", "then it needs weight 1"),
    "no-second-from-top-exception": (
        """ <strong>The one exception</strong>: the first answer
        to a challenge on a set second from the top needs weight 1, even when that challenge was
        opened with a Penny Jar.""",
        "",
    ),
    "draft-mansions": ("the 8 Mansions", "the 7 Mansions"),
    "draft-pile-size": ("piles of 10", "piles of 12"),
    "million": ("$1,000,000 (after", "$500,000 (after"),
    "a reason the engine never gives": (
        "<li>It is not your turn.</li>",
        "<li>It is too late.</li>",
    ),
}
"""Statements made wrong on purpose, each as (the page's words, wrong words)."""


@pytest.mark.parametrize("wrong", WRONG_STATEMENTS, ids=list(WRONG_STATEMENTS))
def test_a_wrong_statement_on_the_help_page_fails_its_check(wrong: str) -> None:
    right, mistaken = WRONG_STATEMENTS[wrong]
    page = HELP_PAGE.read_text(encoding="utf-8")
    assert page.count(right) == 1, f"the page no longer says {right!r} once"
    changed = {rule.name: rule for rule in parse_rules(page.replace(right, mistaken))}
    failed = []
    for rule in parse_rules(page):
        if rule.text != changed[rule.name].text or rule.rows != changed[rule.name].rows:
            with pytest.raises(AssertionError):
                CHECKS[rule.name](changed[rule.name])
            failed.append(rule.name)
    assert failed, "the change touched no rule"
