"""Live rooms: each room's JSON with its version, and how commits reach every process."""
