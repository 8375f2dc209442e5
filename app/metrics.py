"""What one server process counts, in Prometheus's text format at ``GET /metrics``."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

AI_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class Metrics:
    """One registry per app, so several apps in one process (tests) never share counts."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.connections = Gauge(
            "cash_stash_connections",
            "Open WebSocket connections in this process.",
            registry=self.registry,
        )
        self.rooms = Gauge(
            "cash_stash_rooms",
            "Rooms with at least one connection in this process.",
            registry=self.registry,
        )
        self.actions = Counter(
            "cash_stash_actions",
            "Game actions committed by this process, by who made them.",
            ["mover"],
            registry=self.registry,
        )
        self.commit_conflicts = Counter(
            "cash_stash_commit_conflicts",
            "Commits refused because the room's version had moved (compare-and-set lost).",
            registry=self.registry,
        )
        self.ai_decision_seconds = Histogram(
            "cash_stash_ai_decision_seconds",
            "Time from asking the AI for a move to getting it, by level.",
            ["level"],
            buckets=AI_BUCKETS,
            registry=self.registry,
        )
        self.queue_drops = Counter(
            "cash_stash_queue_drops",
            "Connections dropped because their outgoing queue was full (a client too slow).",
            registry=self.registry,
        )
        self.room_events = Counter(
            "cash_stash_room_events",
            "Events this process heard on its rooms' channels, by kind: commit announcements "
            "(its own included), room messages such as chat, and resyncs.",
            ["kind"],
            registry=self.registry,
        )
        self.room_events_by = {
            kind: self.room_events.labels(kind) for kind in ("commit", "message", "resync")
        }
        self.actions_by = {mover: self.actions.labels(mover) for mover in ("player", "ai", "clock")}
        """``actions`` by mover, looked up once (``labels`` takes a lock on every call)."""
