"""The chaos soak matches an error line to a fault only when both its time and what it says
fit (``bench/chaos_errors.py``): an unrelated error during a fault is still a failure."""

from __future__ import annotations

from bench.chaos_errors import ERROR_GRACE, describe, match_errors
from bench.chaos_faults import Fault
from bench.chaos_services import LogLine

DATABASE_DOWN = (
    'time=2026-12-05T21:00:00.000Z level=error logger=app.rooms.due room=ABCD msg="recording'
    ' game *** failed" error="Traceback (most recent call last):\\n  File \\".../sqlalchemy/'
    'engine/base.py\\", line 1\\n  File \\".../asyncpg/connect_utils.py\\", line 2\\n'
    'ConnectionRefusedError: [Errno 111] Connect call failed"'
)
STORE_DOWN = (
    'time=2026-12-05T21:00:00.000Z level=error logger=app.ws.hub msg="room events: the'
    ' subscription failed; starting it again" error="Traceback (most recent call last):\\n'
    '  File \\".../app/resp/connection.py\\", line 3\\nConnectionResetError: reset"'
)
A_BUG = (
    'time=2026-12-05T21:00:00.000Z level=error logger=uvicorn.error msg="Exception in ASGI'
    ' application" error="Traceback (most recent call last):\\nKeyError: \'seat\'"'
)


def faults() -> list[Fault]:
    return [
        Fault("postgres down", started=100.0, ended=130.0),
        Fault("redis client pause", started=200.0, ended=205.0),
    ]


def test_an_error_is_matched_to_a_fault_that_may_cause_it_in_its_time() -> None:
    log = [LogLine(110.0, 0, DATABASE_DOWN), LogLine(203.0, 1, STORE_DOWN)]
    matched = match_errors(log, faults())
    assert not matched.unmatched
    assert matched.count("postgres down") == 1
    assert matched.count("redis client pause") == 1
    assert [(g.fault, g.kind, g.first) for g in matched.groups] == [
        ("postgres down", "database unavailable", DATABASE_DOWN),
        ("redis client pause", "store unavailable", STORE_DOWN),
    ]


def test_an_error_the_fault_in_its_time_cannot_cause_is_unmatched() -> None:
    log = [LogLine(110.0, 0, STORE_DOWN), LogLine(112.0, 2, A_BUG), LogLine(201.0, 1, A_BUG)]
    matched = match_errors(log, faults())
    assert [(e.process, e.text) for e in matched.unmatched] == [
        (0, STORE_DOWN),
        (2, A_BUG),
        (1, A_BUG),
    ]
    assert matched.groups == []


def test_an_error_of_the_right_kind_outside_every_fault_is_unmatched() -> None:
    late = 130.0 + ERROR_GRACE + 1.0
    log = [LogLine(50.0, 0, DATABASE_DOWN), LogLine(late, 0, DATABASE_DOWN)]
    assert len(match_errors(log, faults()).unmatched) == 2


def test_a_plain_traceback_is_one_error_kept_whole() -> None:
    log = [
        LogLine(110.0, 1, "time=2026-12-05T21:00:00.000Z level=info logger=x msg=fine"),
        LogLine(110.0, 1, "Traceback (most recent call last):"),
        LogLine(110.0, 2, "time=2026-12-05T21:00:00.000Z level=info logger=y msg=elsewhere"),
        LogLine(110.1, 1, '  File "x.py", line 1, in <module>'),
        LogLine(110.1, 1, "ZeroDivisionError: division by zero"),
        LogLine(110.2, 1, "time=2026-12-05T21:00:00.000Z level=info logger=x msg=again"),
    ]
    matched = match_errors(log, faults())
    assert [e.text for e in matched.unmatched] == [
        'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\n'
        "ZeroDivisionError: division by zero"
    ]


def test_the_report_counts_each_group_and_shows_its_first_line() -> None:
    log = [LogLine(110.0 + n, n % 3, DATABASE_DOWN) for n in range(4)]
    (line,) = describe(match_errors(log, faults()), width=60)
    assert line.startswith("postgres down: 4 database unavailable (processes 0,1,2); first: ")
    assert line.endswith(
        DATABASE_DOWN[:60] + "… ending ConnectionRefusedError: [Errno 111] Connect call failed"
    )
