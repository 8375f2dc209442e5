"""OpenSkill ratings: who moves, by how much, and who never does."""

from __future__ import annotations

import pytest

from app.games.ratings import (
    AI_RATINGS,
    NEW_PLAYER,
    Rating,
    ai_rating,
    counts_for_ratings,
    finishing_ranks,
    updated_ratings,
)


def test_a_game_needs_two_people_to_count() -> None:
    assert not counts_for_ratings([None, "easy", "hard"])
    assert not counts_for_ratings(["easy", "medium"])
    assert counts_for_ratings([None, None])
    assert counts_for_ratings(["hard", None, "easy", None])


def test_winners_share_first_place_and_the_rest_follow_by_total() -> None:
    assert finishing_ranks([1], [5, 9, 7]) == [2, 0, 1]
    assert finishing_ranks([0, 2], [9, 4, 9]) == [0, 1, 0]
    assert finishing_ranks([3], [5, 8, 8, 2]) == [3, 1, 1, 0]


def test_a_winner_by_round_wins_ranks_first_despite_a_lower_total() -> None:
    assert finishing_ranks([0], [900, 1000]) == [0, 1]


def test_the_winner_gains_and_the_loser_drops() -> None:
    winner, loser = updated_ratings([NEW_PLAYER, NEW_PLAYER], [0, 1], fixed=[False, False])
    assert winner.mu > NEW_PLAYER.mu > loser.mu
    assert winner.display > NEW_PLAYER.display


def test_ai_levels_keep_their_fixed_ratings() -> None:
    hard = ai_rating("hard")
    after = updated_ratings([NEW_PLAYER, hard], [0, 1], fixed=[False, True])
    assert after[1] is hard
    assert after[0].mu > NEW_PLAYER.mu


def test_beating_hard_counts_for_more_than_beating_easy() -> None:
    def gain(level: str) -> float:
        me, _ = updated_ratings([NEW_PLAYER, ai_rating(level)], [0, 1], fixed=[False, True])
        return me.mu - NEW_PLAYER.mu

    assert gain("hard") > gain("medium") > gain("easy") > 0


def test_ai_levels_rank_easy_below_medium_below_hard() -> None:
    assert AI_RATINGS["easy"].display < AI_RATINGS["medium"].display < AI_RATINGS["hard"].display


def test_display_is_the_conservative_estimate() -> None:
    assert Rating(mu=30.0, sigma=2.0).display == pytest.approx(24.0)
