"""Turn-based games kept in the database: written through at every commit, parked out of Redis
while nobody looks at them, brought back by a move, a connection or a deadline."""
