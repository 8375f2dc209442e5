"""Finished games, players and ratings: SQLAlchemy models, sessions and the repository."""
