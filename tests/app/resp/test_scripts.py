"""The Lua scripts in files (``app/store/scripts/``, ``app/matchmaking/scripts/``): each names
its ``KEYS`` and ``ARGV`` in its header, and a call passes them by those names
(``app.resp.nodes.Script``)."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from app.resp.nodes import Script

PACKAGES = ("app.store", "app.matchmaking")


def _script_files() -> list[tuple[str, str]]:
    found = []
    for package in PACKAGES:
        folder = resources.files(package) / "scripts"
        for entry in folder.iterdir():
            if entry.name.endswith(".lua"):
                found.append((f"{package}/{entry.name}", entry.read_text(encoding="utf-8")))
    return sorted(found)


SCRIPT_FILES = _script_files()


def test_every_package_ships_its_scripts() -> None:
    assert {name.split("/")[0] for name, _ in SCRIPT_FILES} == set(PACKAGES)


@pytest.mark.parametrize(("name", "text"), SCRIPT_FILES, ids=[n for n, _ in SCRIPT_FILES])
def test_a_script_uses_only_the_keys_and_arguments_its_header_names(name: str, text: str) -> None:
    """A file that is a script (not a function others load first) names every ``KEYS[n]``
    and ``ARGV[n]`` it reads; a last argument named ``...`` takes the rest."""
    if not text.startswith("-- KEYS:"):
        assert "KEYS[" not in text and "ARGV[" not in text, f"{name} reads KEYS unnamed"
        return
    header = text.splitlines()[:2]
    assert header[1].startswith("-- ARGV:"), f"{name}: KEYS then ARGV on its first two lines"
    keys = header[0].removeprefix("-- KEYS:").split()
    args = header[1].removeprefix("-- ARGV:").split()
    used_keys = {int(n) for n in re.findall(r"KEYS\[(\d+)\]", text)}
    used_args = {int(n) for n in re.findall(r"ARGV\[(\d+)\]", text)}
    assert used_keys == set(range(1, len(keys) + 1)), f"{name}: KEYS {keys}, uses {used_keys}"
    if args and args[-1].endswith("..."):
        assert max(used_args, default=0) <= len(args), f"{name}: ARGV {args}"
    else:
        assert used_args == set(range(1, len(args) + 1)), f"{name}: ARGV {args}, uses {used_args}"


def test_a_call_names_what_it_passes_in_the_headers_order() -> None:
    script = Script("return 1", keys=("room", "chat"), args=("version", "tickets..."))
    keys, args = script.bound({"room": "r", "chat": "c"}, {"version": 3, "tickets...": ["a", "b"]})
    assert keys == ["r", "c"]
    assert args == [3, "a", "b"]
    with pytest.raises(ValueError, match="takes KEYS"):
        script.bound({"chat": "c", "room": "r"}, {"version": 3, "tickets...": []})
    with pytest.raises(ValueError, match="takes KEYS"):
        script.bound({"room": "r", "chat": "c"}, {"version": 3})


def test_a_script_from_files_is_its_functions_then_itself() -> None:
    folder = resources.files("app.store") / "scripts"
    script = Script.from_files(folder / "write_room.lua", folder / "commit_room.lua")
    assert script.text.index("local function write_room") < script.text.index("-- KEYS: room")
    assert script.keys == ("room", "chat")
    assert script.args[:3] == ("expected", "version", "data")
