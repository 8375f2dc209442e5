"""Play now: a queue per choice of table, matched by rating, filled with AI after a wait."""
