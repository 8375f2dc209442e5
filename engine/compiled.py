"""The engine and its AI compiled to C by mypyc, and the guard that keeps an old build from
running.

``build`` (``make engine``; every ``make`` target that runs the engine depends on it)
compiles the modules of ``engine/`` and ``engine/ai/``, all but the packages' ``__init__``
and this one, into extension modules beside their sources, as one group: a call from one
compiled module to another is a C call. It then writes ``MANIFEST``, each compiled source's
SHA-256. The code is the same either way; compiled, the engine plays games about twice as
fast (``docs/engine.md``, "Compiled").

Python imports an extension module before a source of the same name, so an extension left
behind by an edit would play the old rules. ``choose`` (called by ``engine/__init__.py``
before it imports any module of the engine) checks the manifest against the sources and,
unless every source is the one compiled, makes the engine's modules import from their
sources, with a warning. ``CASH_STASH_ENGINE=source`` does the same on purpose: for the tests
of the sources, and for profilers that see only Python code.
"""

from __future__ import annotations

import hashlib
import os
import sys
import warnings
from importlib.machinery import EXTENSION_SUFFIXES, SOURCE_SUFFIXES, FileFinder, SourceFileLoader
from pathlib import Path

FOLDER = Path(__file__).parent
PACKAGES = (".", "ai")
"""The folders compiled, from the engine's: its rules and its AI."""
MANIFEST = "MANIFEST"
"""``<sha256> <path>`` for each source compiled, written in the engine's folder after a build
succeeded."""
KEPT_AS_SOURCE = frozenset({"__init__.py", "compiled.py", "ai/__init__.py"})
"""Never compiled: ``__init__`` runs the guard before it imports a compiled module; this one
is the guard and the build; a package compiled in this group would get a wrong ``__path__``
(mypyc places it from the shared library's folder)."""
GROUP = "engine.native"
"""mypyc's name for the group: its shared library is ``engine/native__mypyc``, found
wherever the engine is (a name of mypyc's own choosing would sit at the top level)."""
SOURCE_ONLY = "source"
"""``CASH_STASH_ENGINE``'s value that makes the engine run from its sources."""


def sources(folder: Path = FOLDER) -> list[Path]:
    """The modules that are compiled: the engine's own and its AI's."""
    return sorted(
        path
        for package in PACKAGES
        for path in (folder / package).glob("*.py")
        if path.relative_to(folder).as_posix() not in KEPT_AS_SOURCE
    )


def extensions(folder: Path = FOLDER) -> list[Path]:
    """The extension modules in those folders that this interpreter would import."""
    return sorted(
        path
        for package in PACKAGES
        for path in (folder / package).glob("*")
        if path.name.endswith(tuple(EXTENSION_SUFFIXES))
    )


def digests(folder: Path = FOLDER) -> dict[str, str]:
    """Each compiled module's source, by its path in the engine, as its SHA-256."""
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sources(folder)
    }


def read_manifest(folder: Path = FOLDER) -> dict[str, str] | None:
    try:
        lines = (folder / MANIFEST).read_text().splitlines()
    except FileNotFoundError:
        return None
    return {name: digest for digest, name in (line.split(" ", 1) for line in lines if line)}


def status(folder: Path = FOLDER) -> str:
    """``"compiled"``: every source is the one its extension was built from; ``"stale"``:
    extensions there, but a source changed, came or went since; ``"source"``: none built."""
    if not extensions(folder):
        return "source"
    return "compiled" if read_manifest(folder) == digests(folder) else "stale"


def choose(package_path: str) -> str:
    """Make the engine's modules import from their sources unless they are compiled and
    current (and ``CASH_STASH_ENGINE`` does not ask for the sources); says which it is."""
    forced = os.environ.get("CASH_STASH_ENGINE") == SOURCE_ONLY
    found = status(Path(package_path))
    if found == "compiled" and not forced:
        return found
    if found == "stale" and not forced:
        warnings.warn(
            "the compiled engine is older than its sources: running the sources "
            "(`make engine` compiles them again)",
            RuntimeWarning,
            stacklevel=2,
        )
    # The finders Python caches for the packages' folders, with no loader for extensions.
    for package in PACKAGES:
        path = str(Path(package_path) / package)  # a package's __path__, as Python makes it
        sys.path_importer_cache[path] = FileFinder(path, (SourceFileLoader, SOURCE_SUFFIXES))
    return "source"


def build() -> None:
    """Compile the engine's modules in place and write the manifest (the old build's
    extensions are removed first: a process may still have them mapped, so they are
    unlinked rather than written over)."""
    from mypyc.build import mypycify
    from setuptools import setup

    (FOLDER / MANIFEST).unlink(missing_ok=True)
    for path in extensions():
        path.unlink()
    # setuptools reads the project's pyproject.toml and calls its [tool.setuptools] beta.
    warnings.filterwarnings("ignore", message=r"Support for `\[tool.setuptools\]`")
    root = FOLDER.parent
    compiled = digests()
    os.chdir(root)  # mypyc names each module by its path from here
    setup(
        name="cash-stash-engine",
        ext_modules=mypycify(
            [str(path.relative_to(root)) for path in sources()],
            opt_level="3",
            group_name=GROUP,
        ),
        script_args=["--quiet", "build_ext", "--inplace"],
    )
    (FOLDER / MANIFEST).write_text(
        "".join(f"{digest} {name}\n" for name, digest in compiled.items())
    )
