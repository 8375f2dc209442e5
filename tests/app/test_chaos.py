"""The chaos soak sized for the suite: its whole schedule of faults, compressed, on a few rooms.

``bench/chaos.py`` runs the same schedule larger (its results are in docs/performance.md,
"Chaos"). It starts its own Redis Cluster, Postgres and three server processes.
"""

from __future__ import annotations

import pytest

from bench.chaos import Plan, report, run_chaos
from bench.chaos_faults import Durations
from bench.chaos_services import postgres_problem
from tests.conftest import need_service
from tests.redis_cluster import cluster_tools_problem

pytestmark = [pytest.mark.redis, pytest.mark.postgres]

SMALL = Plan(
    rooms=10,
    think=0.2,
    gap=2.0,
    durations=Durations(
        app_down=2.0, postgres_down=4.0, pause=2.0, shard_down=2.0, replica_back=2.0
    ),
    burst=60,
    finish_seconds=90.0,
)

FAULTS = [
    "app kill -9",
    "rolling restart",
    "redis primary kill -9",
    "shard with no replica",
    "postgres down",
    "redis client pause",
    "reconnect burst",
]


@pytest.mark.timeout(600)  # under 2 minutes on two quiet cores; far more on a loaded machine
def test_every_game_and_acknowledged_move_survives_the_schedule_of_faults() -> None:
    need_service("Redis Cluster", cluster_tools_problem())
    need_service("a Postgres of the test's own", postgres_problem())
    outcome = run_chaos(SMALL)
    assert [fault.name for fault in outcome.faults] == FAULTS
    assert not outcome.losses, report(outcome)
    assert outcome.games > SMALL.rooms, "the rooms played on through the faults"
    assert outcome.acked > 0
