"""The server's layering (docs/design.md, "Layering"): the services below the edge (rooms,
the store, matchmaking, the Redis client) never import the edge above them (the WebSocket
play in ``app/ws``, the routes in ``app/api``), so the imports read in one direction."""

from __future__ import annotations

from pathlib import Path

import app
from tests.engine.test_layering import imports

APP = Path(app.__file__).parent
SERVICES = ("rooms", "store", "matchmaking", "resp")
EDGE = ("app.ws", "app.api")


def edge_imports(source: str, package: str) -> list[str]:
    return [
        f"line {line}: {module}"
        for line, module, _ in imports(source, package)
        if any(module == edge or module.startswith(f"{edge}.") for edge in EDGE)
    ]


def test_the_services_never_import_the_websocket_layer_or_the_routes() -> None:
    problems = {
        str(path.relative_to(APP.parent)): edge_imports(
            path.read_text(encoding="utf-8"),
            ".".join(path.relative_to(APP.parent).parent.parts),
        )
        for service in SERVICES
        for path in sorted((APP / service).rglob("*.py"))
    }
    assert {path: found for path, found in problems.items() if found} == {}


def test_the_check_catches_absolute_and_relative_imports_of_the_edge() -> None:
    source = "from app.ws.hub import Hub\nfrom ..api import routes\nfrom app.rooms import play\n"
    assert edge_imports(source, "app.matchmaking") == ["line 1: app.ws.hub", "line 2: app.api"]
