"""Invariants over random games of all 21 configurations (hypothesis).

Each example draws a game seed and a policy seed for one configuration, then plays the whole
game. Cheap checks run at every step; costly ones (serializing, every legal action applied and
its near misses, re-dealing hidden cards) on a sample of the steps chosen by the policy seed.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from gameplay import (
    CONFIGS,
    SEEDS,
    Action,
    canonical,
    census,
    config_id,
    pick,
    pool_size,
    whole_games,
)
from hypothesis import given

import engine

SETTINGS = whole_games(4)

by_config = pytest.mark.parametrize("config", CONFIGS, ids=config_id)


def game(config: dict[str, Any], seed: int) -> engine.State:
    return engine.new_game({**config, "seed": seed})


def random_game(config: dict[str, Any], seed: int, policy: int) -> list[engine.State]:
    rng = random.Random(policy)
    state = game(config, seed)
    states = [state]
    for _ in range(3000):
        if engine.is_over(state):
            return states
        state = engine.apply_action(state, pick(rng, engine.legal_actions(state)))
        states.append(state)
    raise AssertionError("the game did not end within 3000 actions")


@by_config
@SETTINGS
@given(seed=SEEDS, policy=SEEDS)
def test_every_card_is_accounted_for_at_every_step(
    config: dict[str, Any], seed: int, policy: int
) -> None:
    expected = pool_size(config)
    limit = engine.view_for(game(config, seed), None)["hand_size_limit"]
    for state in random_game(config, seed, policy):
        ids = census(state)
        assert len(ids) == expected
        assert len(set(ids)) == expected
        view = engine.view_for(state, None)
        assert all(p["hand_size"] <= limit for p in view["players"])
        assert all(c["kind"] not in ("swap", "move") for c in view["discard"])
        assert all(
            p["top"] is None or p["top"]["kind"] not in ("swap", "move") for p in view["piles"]
        )


@by_config
@SETTINGS
@given(seed=SEEDS, policy=SEEDS)
def test_every_game_ends_with_scores_equal_to_the_stacks(
    config: dict[str, Any], seed: int, policy: int
) -> None:
    states = random_game(config, seed, policy)
    last = states[-1]
    assert engine.is_over(last)
    view = engine.view_for(last, None)
    assert view["to_act"] == []
    assert view["challenge"] is None
    assert view["deck_size"] == 0
    assert all(p["hand_size"] == 0 for p in view["players"])
    stacks = [sum(s["value"] for s in p["stack"]) for p in view["players"]]
    assert engine.scores(last) == stacks == [p["stash"] for p in view["players"]]
    assert engine.result(last)["rounds"] == [stacks]
    for state in states:
        player_view = engine.view_for(state, None)["players"]
        assert engine.scores(state) == [p["stash"] for p in player_view]


def sampled(states: list[engine.State], rng: random.Random) -> list[engine.State]:
    """The first and last states of a game and ten more at random."""
    return [states[0], states[-1], *rng.sample(states, min(len(states), 10))]


@by_config
@SETTINGS
@given(seed=SEEDS, policy=SEEDS)
def test_views_for_several_seats_are_each_seats_own_view(
    config: dict[str, Any], seed: int, policy: int
) -> None:
    seats = [None, *range(config["players"])]
    for state in sampled(random_game(config, seed, policy), random.Random(policy)):
        views = engine.views_for(state)
        assert list(views) == seats
        assert engine.views_for(state, [1, None]) == {1: views[1], None: views[None]}
        for seat in seats:
            assert json.dumps(views[seat]) == json.dumps(engine.view_for(state, seat))


@by_config
@SETTINGS
@given(seed=SEEDS, policy=SEEDS)
def test_serialization_round_trips(config: dict[str, Any], seed: int, policy: int) -> None:
    rng = random.Random(policy)
    for state in sampled(random_game(config, seed, policy), rng):
        text = engine.dumps(state)
        restored = engine.loads(text)
        assert engine.dumps(restored) == text
        # The same text without it: the data an application may encode with another library.
        assert json.dumps(engine.to_data(state), separators=(",", ":")) == text
        assert engine.dumps(engine.from_data(json.loads(text))) == text
        assert engine.view_for(restored, None) == engine.view_for(state, None)
        legal = engine.legal_actions(state)
        assert engine.legal_actions(restored) == legal
        if legal:
            action = rng.choice(legal)
            after = engine.apply_action(state, action)
            assert engine.dumps(engine.apply_action(restored, action)) == engine.dumps(after)
            # Kept apart: the state without its log plays on, and its log grows by exactly
            # the entries the move added to the whole one.
            bare = engine.from_data(json.loads(json.dumps(engine.to_data(state, log=False))))
            assert engine.log_entries(bare) == []
            played = engine.apply_action(bare, action)
            added = engine.log_entries(after, since=state)
            assert engine.log_entries(played, since=bare) == added == engine.log_entries(played)
            assert engine.log_entries(after) == engine.log_entries(state) + added
            assert engine.to_data(played, log=False) == engine.to_data(after, log=False)


@pytest.mark.parametrize(
    "config",
    [
        {"players": 2, "rules": "advanced", "draft": True, "rounds": 2},
        {"players": 3, "rules": "simple_actions", "draft": True, "rounds": "two_round_wins"},
        {"players": 5, "rules": "advanced", "draft": False, "rounds": 3},
    ],
    ids=["2p-advanced-draft-2-rounds", "3p-simple_actions-draft-two-wins", "5p-advanced-3-rounds"],
)
@whole_games(2)
@given(seed=SEEDS, policy=SEEDS)
def test_every_round_deals_every_card_afresh(
    config: dict[str, Any], seed: int, policy: int
) -> None:
    expected = pool_size(config)
    rounds_seen = set()
    for state in random_game(config, seed, policy):
        ids = census(state)
        assert len(ids) == len(set(ids)) == expected
        view = engine.view_for(state, None)
        rounds_seen.add(view["round"])
        assert len(view["rounds"]["rounds"]) == view["round"] + int(view["over"])
    assert len(rounds_seen) >= 2


@by_config
@SETTINGS
@given(seed=SEEDS, policy=SEEDS)
def test_turns_pass_up_the_seats_and_players_draw_up_when_the_rules_say(
    config: dict[str, Any], seed: int, policy: int
) -> None:
    """The next seat with cards moves next; players draw at the end of their turn, after R-5's
    discard, and after a challenge they played in without being the active player."""
    rng = random.Random(policy)
    state = game(config, seed)
    while not engine.is_over(state):
        action = pick(rng, engine.legal_actions(state))
        before = engine.view_for(state, None)
        state = engine.apply_action(state, action)
        after = engine.view_for(state, None)
        if after["over"]:
            break
        if after["active"] != before["active"] or after["actions_done"] < before["actions_done"]:
            assert drawn_up(after, before["active"]), "the turn ended without drawing up"
            if after["round"] == before["round"]:
                assert after["active"] == next_with_cards(after, before["active"])
        r5 = action["type"] == "discard" and before["actions_done"] == 0
        if r5 and config["rules"] == "advanced":
            assert drawn_up(after, before["active"]), "R-5"
        if before["challenge"] and not after["challenge"]:
            for play in before["challenge"]["plays"]:
                if play["seat"] != before["active"]:
                    assert drawn_up(after, play["seat"]), "a player who played did not draw up"


def next_with_cards(view: dict[str, Any], seat: int) -> int:
    """The seat after ``seat`` going up the numbers, skipping empty hands (docs/rules.md §4)."""
    players = view["players"]
    for step in range(1, len(players) + 1):
        candidate = (seat + step) % len(players)
        if players[candidate]["hand_size"]:
            return candidate
    raise AssertionError("every hand is empty but the game goes on")


def drawn_up(view: dict[str, Any], seat: int) -> bool:
    full: bool = view["players"][seat]["hand_size"] == view["hand_size_limit"]
    return full or view["deck_size"] == 0


def hidden_from(state: engine.State, seat: int | None) -> list[tuple[list[int], int]]:
    """Every position ``seat`` cannot see: other hands, the deck, draft piles below the top."""
    positions: list[tuple[list[int], int]] = []
    for other, cards in enumerate(state.hands):
        if other != seat:
            positions += [(cards, i) for i in range(len(cards))]
    positions += [(state.deck, i) for i in range(len(state.deck))]
    for pile, cards in enumerate(state.piles):
        shown = 0 if state.covered[pile] else 1
        positions += [(cards, i) for i in range(len(cards) - shown)]
    return positions


def redealt(state: engine.State, seat: int | None, rng: random.Random) -> engine.State:
    """A copy of ``state`` with the cards ``seat`` cannot see shuffled among their places."""
    copy = engine.loads(engine.dumps(state))
    positions = hidden_from(copy, seat)
    cards = [zone[i] for zone, i in positions]
    rng.shuffle(cards)
    for (zone, i), card in zip(positions, cards, strict=True):
        zone[i] = card
    return copy


@by_config
@SETTINGS
@given(seed=SEEDS, policy=SEEDS)
def test_a_view_is_unchanged_when_hidden_cards_are_redealt(
    config: dict[str, Any], seed: int, policy: int
) -> None:
    rng = random.Random(policy)
    states = random_game(config, seed, policy)
    seats: list[int | None] = [None, *range(config["players"])]
    for state in rng.sample(states, min(len(states), 8)):
        for seat in seats:
            other = redealt(state, seat, rng)
            assert engine.view_for(other, seat) == engine.view_for(state, seat)
            if seat is not None and seat in engine.to_act(state):
                assert engine.legal_actions(other) == engine.legal_actions(state)
            if seat is not None:
                assert engine.blocked_actions(other, seat) == engine.blocked_actions(state, seat)


def mutations(action: Action, rng: random.Random, players: int) -> list[Action]:
    """Actions near a legal one: another card, seat, target, depth, direction, pile or type."""
    out: list[Action] = []
    any_card = rng.randrange(110)
    for key, value in action.items():
        changed = dict(action)
        if key == "type":
            changed[key] = rng.choice(
                ["form_set", "discard", "improve", "challenge", "swap", "move", "draft", "answer"]
            )
        elif key in ("seat", "target"):
            changed[key] = rng.choice([value + 1, value - 1, players, -1, str(value), None])
        elif key == "card":
            changed[key] = rng.choice([any_card, str(value), float(value), True, None])
        elif key == "cards":
            changed[key] = rng.choice(
                [[*value, any_card], value[:-1], [any_card], [value[0], value[0]], value[0], []]
            )
        elif key == "depth":
            changed[key] = rng.choice([1 - value, 2, -1, True, "0"])
        elif key == "direction":
            changed[key] = rng.choice(["sideways", None])
        elif key == "piles":
            changed[key] = rng.choice([[0, 1, 2], [0], [1], [2], [3], [0, 0], [], 0])
        out.append(changed)
        dropped = dict(action)
        del dropped[key]
        out.append(dropped)
    return out


@by_config
@SETTINGS
@given(seed=SEEDS, policy=SEEDS)
def test_legal_actions_are_accepted_and_near_misses_refused(
    config: dict[str, Any], seed: int, policy: int
) -> None:
    rng = random.Random(policy)
    states = random_game(config, seed, policy)
    for state in rng.sample(states, min(len(states), 6)):
        if engine.is_over(state):
            assert engine.legal_actions(state) == []
            continue
        text = engine.dumps(state)
        legal = engine.legal_actions(state)
        assert legal
        spelled = {canonical(a) for a in legal}
        assert len(spelled) == len(legal), "legal_actions lists an action twice"
        assert {a["seat"] for a in legal} == set(engine.to_act(state))
        for action in legal:
            engine.apply_action(state, action)
        assert engine.dumps(state) == text, "apply_action changed the state it was given"
        for action in legal:
            for near in mutations(action, rng, config["players"]):
                if canonical(near) in spelled:
                    continue
                with pytest.raises(engine.IllegalAction):
                    engine.apply_action(state, near)
        assert engine.dumps(state) == text


@by_config
@SETTINGS
@given(seed=SEEDS, policy=SEEDS)
def test_blocked_actions_agree_with_legal_actions(
    config: dict[str, Any], seed: int, policy: int
) -> None:
    rng = random.Random(policy)
    states = random_game(config, seed, policy)
    for state in rng.sample(states, min(len(states), 15)):
        legal = engine.legal_actions(state)
        acting = engine.to_act(state)
        for seat in range(config["players"]):
            blocked = engine.blocked_actions(state, seat)
            assert all(re.fullmatch("[a-z_]+", b["code"]) for b in blocked)
            assert all(b["reason"][0].isupper() and "_" not in b["reason"] for b in blocked)
            if engine.is_over(state):
                assert {b["code"] for b in blocked} == {"game_over"}
            elif seat not in acting:
                assert blocked and {b["code"] for b in blocked} == {"not_your_turn"}
            else:
                for entry in blocked:
                    assert not [a for a in legal if _covers(entry, a)], (entry, legal)
                explained = {b["type"] for b in blocked} | {a["type"] for a in legal}
                assert set(_kinds_now(state, config)) <= explained


def _kinds_now(state: engine.State, config: dict[str, Any]) -> list[str]:
    """The action kinds a player might try now; each is either legal or explained."""
    view = engine.view_for(state, None)
    if view["pending"] is not None:
        return ["choose"]
    if view["challenge"] is not None:
        return ["answer", "concede"]
    kinds = ["form_set", "form_set_discard", "discard", "improve", "challenge", "swap", "move"]
    if config["draft"]:
        kinds.append("draft")
    if config["rules"] == "advanced":
        kinds.append("end_turn")
    return kinds


def _covers(entry: dict[str, Any], action: Action) -> bool:
    """Whether a blocked entry names this legal action's type and instance."""
    if entry["type"] != action["type"]:
        return False
    if entry["code"] == "one_pile_at_a_time":
        return len(action["piles"]) > 1
    return all(
        entry[key] == action.get(key) for key in ("target", "depth", "piles") if key in entry
    )


def public_ids(view: dict[str, Any]) -> set[int]:
    ids = {c["id"] for c in view["discard"] + view["out"]}
    ids |= {c["id"] for p in view["players"] for s in p["stack"] for c in s["cards"]}
    ids |= {p["top"]["id"] for p in view["piles"] if p["top"]}
    if view["challenge"]:
        ids |= {c["id"] for play in view["challenge"]["plays"] for c in play["cards"]}
        ids |= {c["id"] for c in view["challenge"]["claim"] or []}
    return ids


@by_config
def test_log_entries_name_only_cards_on_the_table(config: dict[str, Any]) -> None:
    states = random_game(config, 17, 17)
    before = engine.view_for(states[0], None)
    for state in states[1:]:
        after = engine.view_for(state, None)
        json.dumps(after["log"])
        shown = public_ids(before) | public_ids(after)
        for entry in after["log"][len(before["log"]) :]:
            named = entry.get("card", entry.get("cards", []))
            named = [named] if isinstance(named, int) else named
            assert set(named) <= shown, entry
        before = after
