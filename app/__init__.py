"""Cash Stash web server: rooms, live play over WebSocket, finished games."""
