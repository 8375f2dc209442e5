"""Rooms: seats, tokens, bots, timers, one authoritative engine state per room."""
