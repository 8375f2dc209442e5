"""Grouping waiting players (``app.matchmaking.matching``): closest ratings first, a window
that widens with the wait, AI for whoever has waited long enough or asks."""

from __future__ import annotations

from app.matchmaking.matching import Window, ai_level, groups
from app.matchmaking.model import Choice, Waiting

WINDOW = Window(start=5.0, per_second=1.0, widest=50.0)


def _player(ticket: str, rating: float, *, joined_at: float = 0.0, ai_now: bool = False) -> Waiting:
    return Waiting(
        ticket=ticket,
        name=ticket,
        player_id=ticket,
        token_hash="0" * 64,
        rating=rating,
        joined_at=joined_at,
        ai_now=ai_now,
    )


def _tables(found: list) -> list[set[str]]:  # type: ignore[type-arg]
    return [{p.ticket for p in group.players} for group in found]


def test_four_players_of_very_different_ratings_pair_closest_first() -> None:
    waiting = [_player("a", 0), _player("b", 31), _player("c", 2), _player("d", 30)]
    found = groups(waiting, seats=2, now=0.0, window=WINDOW, ai_wait=20)
    assert sorted(_tables(found), key=sorted) == [{"a", "c"}, {"b", "d"}]
    assert all(group.bots == () for group in found)


def test_the_tightest_table_is_made_first_when_players_overlap() -> None:
    # b fits with a (3 apart) and with c (1 apart): c is the closer, a waits.
    waiting = [_player("a", 0), _player("b", 3), _player("c", 4)]
    found = groups(waiting, seats=2, now=0.0, window=WINDOW, ai_wait=20)
    assert _tables(found) == [{"b", "c"}]


def test_players_too_far_apart_wait_until_the_window_has_widened() -> None:
    waiting = [_player("a", 0), _player("b", 12)]
    assert groups(waiting, seats=2, now=1.0, window=WINDOW, ai_wait=20) == []
    # After 7 seconds each one's window is 12 wide.
    found = groups(waiting, seats=2, now=7.0, window=WINDOW, ai_wait=20)
    assert _tables(found) == [{"a", "b"}]


def test_a_lone_player_gets_ai_after_the_wait_and_not_before() -> None:
    alone = [_player("a", 0)]
    assert groups(alone, seats=4, now=19.0, window=WINDOW, ai_wait=20) == []
    (group,) = groups(alone, seats=4, now=20.0, window=WINDOW, ai_wait=20)
    assert [p.ticket for p in group.players] == ["a"]
    assert group.bots == ("easy", "easy", "easy")


def test_asking_for_ai_brings_the_nearest_fitting_players_along() -> None:
    waiting = [_player("a", 20, ai_now=True), _player("b", 22), _player("c", 40)]
    (group,) = groups(waiting, seats=4, now=1.0, window=WINDOW, ai_wait=20)
    assert {p.ticket for p in group.players} == {"a", "b"}
    assert group.bots == ("hard", "hard")


def test_the_ai_level_follows_the_group_rating() -> None:
    assert ai_level([0.0]) == "easy"  # a new player: mu 25 - 3 sigma 8.33
    assert ai_level([12.0, 15.0]) == "medium"
    assert ai_level([26.0]) == "hard"


def test_any_size_makes_a_table_of_six_at_once() -> None:
    waiting = [_player(str(n), n) for n in range(7)]
    (group,) = groups(waiting, seats=None, now=0.0, window=WINDOW, ai_wait=20)
    assert len(group.players) == 6 and group.bots == ()


def test_any_size_seats_whoever_fits_after_half_the_wait() -> None:
    waiting = [_player("a", 0), _player("b", 2), _player("c", 4), _player("far", 40)]
    assert groups(waiting, seats=None, now=9.0, window=WINDOW, ai_wait=20) == []
    (group,) = groups(waiting, seats=None, now=10.0, window=WINDOW, ai_wait=20)
    assert {p.ticket for p in group.players} == {"a", "b", "c"}
    assert group.bots == ()


def test_any_size_gives_a_lone_player_a_table_of_four_with_ai_after_the_wait() -> None:
    alone = [_player("a", 0)]
    assert groups(alone, seats=None, now=15.0, window=WINDOW, ai_wait=20) == []
    (group,) = groups(alone, seats=None, now=20.0, window=WINDOW, ai_wait=20)
    assert group.bots == ("easy", "easy", "easy")


def test_a_turn_based_choice_has_a_queue_of_its_own_and_a_live_one_keeps_its_name() -> None:
    live = Choice(seats=2, rules="simple")
    assert live.key == "queue-2-simple-plain"  # the name it had before tables had a mode
    assert Choice(seats=2, rules="simple", mode="live") == live
    assert Choice(seats=2, rules="simple", mode="turn").key == "queue-2-simple-plain-turn"
