"""Property-based fuzzing of the whole REST API from its own OpenAPI description (issue 22).

Schemathesis draws requests for every operation, valid and invalid, and checks each answer:
never a 5xx, and always a status, content type and body that the description declares.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import positive_data_acceptance

from app.db.migrate import upgrade
from app.main import create_app
from tests.app.conftest import base_settings
from tests.app.processes import ServerProcess, server_env, start_servers

EXAMPLES_PER_OPERATION = 30
"""Enough to reach past the obvious for each route; the whole module stays under a minute."""


@pytest.fixture(scope="module")
def api_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A real server process with rooms in memory and a migrated SQLite file, its OpenAPI
    description switched on."""
    database = tmp_path_factory.mktemp("fuzz") / "games.db"
    url = f"sqlite+aiosqlite:///{database}"
    upgrade(url)
    env = server_env(f"fuzz:{uuid.uuid4().hex[:8]}:", Path(database), api_docs="true")
    del env["CASH_STASH_REDIS_URL"]
    env["CASH_STASH_DATABASE_URL"] = url
    (server,) = start_servers(env, 1)
    yield server
    server.stop()


REJECTIONS = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]
"""What a request that breaks the description may be answered: Schemathesis's own list, with
``413`` besides (a string within its ``maxLength`` can still make a body past the server's
byte limit once JSON escapes each character; ``docs/security.md``)."""

schema = schemathesis.openapi.from_dict(
    create_app(base_settings(api_docs=True)).openapi(),
    config=SchemathesisConfig.from_dict(
        {"checks": {"negative_data_rejection": {"expected-statuses": REJECTIONS}}}
    ),
)
"""The description the server serves at ``/openapi.json`` (the same app makes it)."""


@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_no_request_gets_a_5xx_or_an_undeclared_answer(
    case: schemathesis.Case, api_server: ServerProcess
) -> None:
    # Not "positive data acceptance": a body can fit the schema and still name a game the
    # engine cannot deal (a draft for four), which is refused with a 422 as it should be.
    case.call_and_validate(
        base_url=api_server.endpoint.base_url, excluded_checks=[positive_data_acceptance]
    )
