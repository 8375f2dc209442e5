"""The compiled engine's guard (engine/compiled.py): a build runs only while its sources are the
ones it was built from; the engine runs compiled wherever ``make`` built it."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import engine
import engine.actions
from engine import compiled
from tests.conftest import need_service

ROOT = Path(engine.__file__).parent.parent


def fake_build(folder: Path, sources: dict[str, str]) -> None:
    """A folder as a build leaves it: the sources, an extension beside one, the manifest."""
    (folder / "ai").mkdir(parents=True)
    for name, text in sources.items():
        (folder / name).write_text(text)
    (folder / f"rules{EXTENSION_SUFFIXES[0]}").write_bytes(b"")
    manifest = "".join(
        f"{hashlib.sha256(text.encode()).hexdigest()} {name}\n"
        for name, text in sources.items()
        if name not in compiled.KEPT_AS_SOURCE
    )
    (folder / "MANIFEST").write_text(manifest)


def test_a_build_is_current_until_a_source_changes_comes_or_goes(tmp_path: Path) -> None:
    folder = tmp_path / "engine"
    fake_build(
        folder,
        {"__init__.py": "", "rules.py": "A = 1\n", "view.py": "B = 2\n", "ai/search.py": "D = 4\n"},
    )
    assert compiled.status(folder) == "compiled"

    (folder / "ai" / "search.py").write_text("D = 5\n")
    assert compiled.status(folder) == "stale"
    (folder / "ai" / "search.py").write_text("D = 4\n")
    assert compiled.status(folder) == "compiled"

    (folder / "__init__.py").write_text("# not compiled: no part of the build\n")
    assert compiled.status(folder) == "compiled"

    (folder / "rules.py").write_text("A = 2\n")
    assert compiled.status(folder) == "stale"
    (folder / "rules.py").write_text("A = 1\n")
    assert compiled.status(folder) == "compiled"

    (folder / "new.py").write_text("C = 3\n")
    assert compiled.status(folder) == "stale"
    (folder / "new.py").unlink()
    (folder / "view.py").unlink()
    assert compiled.status(folder) == "stale"


def test_no_extension_or_no_manifest(tmp_path: Path) -> None:
    folder = tmp_path / "engine"
    fake_build(folder, {"rules.py": "A = 1\n"})
    (folder / "MANIFEST").unlink()
    assert compiled.status(folder) == "stale"
    for path in compiled.extensions(folder):
        path.unlink()
    assert compiled.status(folder) == "source"


def built_problem() -> str | None:
    if compiled.status(compiled.FOLDER) == "source":
        return "no compiled engine here (`make engine` builds it)"
    return None


def run_engine(path: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """A new interpreter that imports the engine found at ``path``; prints how it runs and
    where a compiled module came from."""
    code = "import engine, engine.actions; print(engine.BUILD, engine.actions.__spec__.origin)"
    return subprocess.run(
        [sys.executable, "-W", "always::RuntimeWarning", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=path,
        env={**os.environ, "PYTHONPATH": str(path), **(env or {})},
    )


def test_the_engine_runs_compiled_where_it_was_built() -> None:
    need_service("The compiled engine", built_problem())
    if os.environ.get("CASH_STASH_ENGINE") == compiled.SOURCE_ONLY:
        assert engine.BUILD == "source"
        assert engine.actions.__file__.endswith(".py")
    else:
        assert compiled.status(compiled.FOLDER) == "compiled"
        assert engine.BUILD == "compiled"
        assert engine.actions.__file__.endswith(tuple(EXTENSION_SUFFIXES))


def test_an_edited_source_runs_as_source_and_says_so(tmp_path: Path) -> None:
    need_service("The compiled engine", built_problem())
    copy = tmp_path / "project"
    shutil.copytree(ROOT / "engine", copy / "engine", ignore=shutil.ignore_patterns("__pycache__"))

    current = run_engine(copy, {"CASH_STASH_ENGINE": ""})
    build, where = current.stdout.split()
    assert (build, Path(where).parent) == ("compiled", copy / "engine")
    assert where.endswith(tuple(EXTENSION_SUFFIXES))
    assert current.stderr == ""

    asked = run_engine(copy, {"CASH_STASH_ENGINE": compiled.SOURCE_ONLY})
    assert asked.stdout.split() == ["source", str(copy / "engine" / "actions.py")]
    assert asked.stderr == ""

    rules = copy / "engine" / "rules.py"
    rules.write_text(rules.read_text() + "\n# edited\n")
    stale = run_engine(copy, {"CASH_STASH_ENGINE": ""})
    assert stale.stdout.split() == ["source", str(copy / "engine" / "actions.py")]
    assert "the compiled engine is older than its sources" in stale.stderr
