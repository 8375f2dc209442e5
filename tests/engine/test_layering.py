"""The engine's layering (docs/design.md, "Layering"): standard library only; the AI sees the
public API."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import engine

ENGINE = Path(engine.__file__).parent
AI = ENGINE / "ai"
TABLES = frozenset({"engine.cards", "engine.rules"})
"""Static card and rule-set tables: data, not game state, so the AI may read them."""

Import = tuple[int, str, list[str]]
"""(line, absolute module, names imported from it)."""


def imports(source: str, package: str) -> Iterator[Import]:
    """Every import in ``source``, a module of ``package``; relative imports made absolute."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, []
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            yield node.lineno, module, [alias.name for alias in node.names]


def file_imports(path: Path) -> Iterator[Import]:
    package = ".".join(path.relative_to(ENGINE.parent).parent.parts)
    yield from imports(path.read_text(encoding="utf-8"), package)


def outside_stdlib(found: Iterator[Import]) -> list[str]:
    problems = []
    for line, module, _ in found:
        top = module.partition(".")[0]
        if top != "engine" and top not in sys.stdlib_module_names and top != "__future__":
            problems.append(f"line {line}: {module}")
    return problems


def _ai_or_table(module: str) -> bool:
    return module == "engine.ai" or module.startswith("engine.ai.") or module in TABLES


def engine_internals(found: Iterator[Import]) -> list[str]:
    public = set(engine.__all__) | {"ai"}
    problems = []
    for line, module, names in found:
        if module == "engine":
            problems += [f"line {line}: engine.{n}" for n in names if n not in public]
        elif module.startswith("engine.") and not _ai_or_table(module):
            problems.append(f"line {line}: {module}")
    return problems


BUILD_TOOLS = {"engine/compiled.py": {"mypyc.build", "setuptools"}}
"""Modules that compile the engine, imported only inside the function that builds it: a build
needs them, the engine at run time does not."""


def test_engine_imports_only_the_standard_library() -> None:
    problems = {
        str(path.relative_to(ENGINE.parent)): outside_stdlib(file_imports(path))
        for path in sorted(ENGINE.rglob("*.py"))
    }
    for path, tools in BUILD_TOOLS.items():
        problems[path] = [found for found in problems[path] if found.split(": ")[1] not in tools]
        body = ast.parse((ENGINE.parent / path).read_text(encoding="utf-8")).body
        top_level = [node for node in body if isinstance(node, ast.Import | ast.ImportFrom)]
        source = "\n".join(ast.unparse(node) for node in top_level)
        assert outside_stdlib(imports(source, "engine")) == [], f"{path} at import"
    assert {path: found for path, found in problems.items() if found} == {}


def test_ai_uses_only_the_public_engine_api() -> None:
    problems = {
        str(path.relative_to(ENGINE.parent)): engine_internals(file_imports(path))
        for path in sorted(AI.rglob("*.py"))
    }
    assert {path: found for path, found in problems.items() if found} == {}


def test_the_checks_catch_internal_relative_and_third_party_imports() -> None:
    source = (
        "import numpy\n"
        "from engine.state import State\n"
        "from .. import turns\n"
        "from ..actions import apply_action\n"
        "from engine import new_game, stash\n"
        "from . import search\n"
        "from engine.cards import KIND_OF\n"
        "import json\n"
    )
    assert outside_stdlib(imports(source, "engine.ai")) == ["line 1: numpy"]
    assert engine_internals(imports(source, "engine.ai")) == [
        "line 2: engine.state",
        "line 3: engine.turns",
        "line 4: engine.actions",
        "line 5: engine.stash",
    ]
