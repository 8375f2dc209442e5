"""The chaos soak's error lines: each one matched to a fault by its time and by what it says.

A fault may cause only some kinds of error: Postgres down, the database errors of whatever
writes to it; a Redis node killed or paused, the store's errors (refused or reset connections,
timeouts, ``CLUSTERDOWN``, a slot map being read again). Killing or restarting a server process
may cause nothing in the other processes (their clients simply reconnect), and the burst of
reconnecting clients nothing at all. A line is matched to a fault only when it falls in the
fault's time (from a second before it hit until ``ERROR_GRACE`` after it ended) and its kind is
one the fault may cause; any other error line is a loss of its own, printed whole, so that an
unrelated bug cannot hide behind a fault that happened at the same time.

What is an error line, and how each kind reads, follows what the server writes: its own lines
are ``time=… level=error logger=… msg="…" error="Traceback …"`` (``app/logs.py``, the traceback
escaped onto the one line); Python's own output (an uncaught exception's traceback, the
resource tracker's warnings) comes as plain lines on stderr, a traceback's lines grouped here
into one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from bench.chaos_faults import Fault
from bench.chaos_services import LogLine

ERROR_GRACE = 15.0
"""An error line logged up to this long after a fault ended is that fault's (a retry's last
failure, a reconnect's timeout)."""
ERROR_MARKS = (" level=error ", " level=critical ", "Traceback", "resource_tracker")
"""What makes a log line an error line: the app's own levels, and what Python itself writes
to stderr (an uncaught exception, the resource tracker's warnings)."""

_CONNECTION = (
    r"(ConnectionRefusedError|ConnectionResetError|ConnectionAbortedError|BrokenPipeError"
    r"|TimeoutError|IncompleteReadError|OSError|ConnectionError|Connect call failed)"
)
"""Exceptions a client raises when the server it talks to is gone, closing or slow."""


@dataclass(frozen=True, slots=True)
class ErrorKind:
    """A kind of error line, recognised by what it says."""

    name: str
    says: re.Pattern[str]
    """Searched for in the whole line (a traceback's lines joined)."""

    def fits(self, text: str) -> bool:
        return self.says.search(text) is not None


DATABASE = ErrorKind(
    "database unavailable",
    re.compile(
        r"level=error .*(asyncpg|sqlalchemy).*("
        + _CONNECTION
        + r"|CannotConnectNowError|ConnectionDoesNotExistError|InterfaceError"
        r"|OperationalError|AdminShutdownError|the database system is)",
        re.S,
    ),
)
"""A write to Postgres (a finished game's record, its review, a turn-based game) that failed
because the database was stopped or starting."""
STORE = ErrorKind(
    "store unavailable",
    re.compile(
        r"level=error .*(redis|app/resp/|app/store/).*("
        + _CONNECTION
        + r"|ClusterDownError|TryAgainError|MasterDownError|BusyLoadingError|ReadOnlyError"
        r"|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|LOADING|READONLY|slot map)",
        re.S,
    ),
)
"""A Redis call that failed because its node was killed, paused or not yet taken over."""

KINDS: tuple[ErrorKind, ...] = (DATABASE, STORE)

MAY_CAUSE: dict[str, tuple[ErrorKind, ...]] = {
    "app kill -9": (),
    "rolling restart": (),
    "redis primary kill -9": (STORE,),
    "shard with no replica": (STORE,),
    "postgres down": (DATABASE,),
    "redis client pause": (STORE,),
    "reconnect burst": (),
}
"""The kinds of error each fault of the schedule may legitimately cause, in any process."""


@dataclass(frozen=True, slots=True)
class ErrorLine:
    at: float
    process: int
    text: str
    """The line, or a plain traceback's lines joined by newlines."""


@dataclass
class ErrorGroup:
    """The error lines of one kind matched to one fault."""

    fault: str
    kind: str
    count: int = 0
    first: str = ""
    processes: set[int] = field(default_factory=set)


@dataclass
class Matched:
    groups: list[ErrorGroup] = field(default_factory=list)
    unmatched: list[ErrorLine] = field(default_factory=list)

    def count(self, fault: str) -> int:
        return sum(group.count for group in self.groups if group.fault == fault)


def error_lines(log: Sequence[LogLine]) -> list[ErrorLine]:
    """The error lines among ``log``, a plain traceback's lines (those that follow it from the
    same process until its next ``time=`` line) joined into one."""
    found: list[ErrorLine] = []
    open_traceback: dict[int, int] = {}
    """Per process, the index in ``found`` of the plain traceback still being read."""
    for line in log:
        at = open_traceback.get(line.process)
        if at is not None:
            if not line.text.startswith("time="):
                first = found[at]
                found[at] = ErrorLine(first.at, first.process, f"{first.text}\n{line.text}")
                continue
            del open_traceback[line.process]
        if not any(mark in line.text for mark in ERROR_MARKS):
            continue
        if line.text.startswith("Traceback"):
            open_traceback[line.process] = len(found)
        found.append(ErrorLine(line.at, line.process, line.text))
    return found


def match_errors(log: Sequence[LogLine], faults: Iterable[Fault]) -> Matched:
    """Each error line in ``log`` matched to the latest fault whose time and kinds fit it."""
    faults = list(faults)
    matched = Matched()
    groups: dict[tuple[str, str], ErrorGroup] = {}
    for error in error_lines(log):
        fitting = (
            (fault, kind)
            for fault in reversed(faults)
            if fault.started - 1.0 <= error.at <= fault.ended + ERROR_GRACE
            for kind in MAY_CAUSE.get(fault.name, ())
            if kind.fits(error.text)
        )
        found = next(fitting, None)
        if found is None:
            matched.unmatched.append(error)
            continue
        fault, kind = found
        group = groups.get((fault.name, kind.name))
        if group is None:
            group = groups[(fault.name, kind.name)] = ErrorGroup(fault.name, kind.name)
            group.first = error.text
            matched.groups.append(group)
        group.count += 1
        group.processes.add(error.process)
    return matched


def raised(text: str) -> str:
    """The exception an error line's traceback ends on (``ConnectionRefusedError: …``), or ""
    (a line without one): what a report shows of a line too long to print whole."""
    lines = text.replace("\\n", "\n").rstrip('"').splitlines()
    return lines[-1].strip() if len(lines) > 1 else ""


def describe(matched: Matched, width: int = 300) -> list[str]:
    """Every group as a line: fault, kind, count, processes, and the first line (cut to
    ``width``, the exception it ended on after it)."""
    lines = []
    for group in matched.groups:
        first = group.first.replace("\n", " | ")
        if len(first) > width:
            first = f"{first[:width]}… ending {raised(group.first)}"
        processes = ",".join(str(p) for p in sorted(group.processes))
        lines.append(
            f"{group.fault}: {group.count} {group.kind} (processes {processes}); first: {first}"
        )
    return lines
