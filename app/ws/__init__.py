"""Live play over WebSocket: one connection per browser tab, fed by the process's room hub."""
