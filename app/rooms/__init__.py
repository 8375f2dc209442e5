"""Rooms: seats, tokens, bots, clocks and one authoritative engine state per room."""
