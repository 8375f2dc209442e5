"""Finished games: their replay, the ratings they move, their reviews and the practice tables
opened from a reviewed decision."""
