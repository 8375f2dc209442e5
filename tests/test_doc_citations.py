"""Every citation of a document in the project points at something the project holds.

The code, tests and docs cite the rules' rulings (``R-12``, ``test_…_R12``) and sections
(``§5``), which only ``docs/rules.md`` defines; documents by path (``docs/protocol.md``,
``README.md``); a document's section by its title in quotes after the path (``docs/design.md``,
"A view") or by anchor (``design.md#a-view``). Each must exist. A bare ``RULES.md`` or
``DESIGN.md`` (documents this repository never held) fails outside ``docs/`` with a pointer to
the project's own. ``docs/design.md``'s path of one move names files and functions: they must
exist too, so that the page cannot drift from the code unnoticed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("engine", "app", "static", "tests", "bench", "docs", "migrations", "README.md")
SUFFIXES = frozenset({".py", ".md", ".js", ".html", ".css", ".mako", ".ini", ".toml", ".yml"})
RULES = ROOT / "docs" / "rules.md"
DESIGN = ROOT / "docs" / "design.md"
THIS = Path(__file__).resolve()
"""Left out of the scan: its own examples of bad citations are meant to fail."""

_URL = re.compile(r"[a-z]+://\S+")
_DOC = re.compile(r"(?<![\w/.:-])((?:[\w.-]+/)*[\w-]+\.md)(?!\w)(#[\w-]+)?")
_QUOTED = re.compile(r"(?<![\w/.:-])((?:[\w.-]+/)*[\w-]+\.md)`?, \"([^\"\n]+)\"")
_SECTION = re.compile(r"(?:(?<![\w/.:-])((?:[\w.-]+/)*[\w-]+\.md)`? )?§ ?(\d+)")
_RULING = re.compile(r"\bR-(\d+)\b")
_TEST_RULING = re.compile(r"\bdef test_\w*?_R(\d+)\b")
_LOCAL_ANCHOR = re.compile(r"\]\(#([\w-]+)\)")
_RULING_DEFINED = re.compile(r"\*\*R-(\d+)\.")
_RULES_SECTION = re.compile(r"^## (\d+)\. ", re.MULTILINE)
_HEADING = re.compile(r"^#{1,6} +(.+?) *#*$", re.MULTILINE)
_REPO_PATH = re.compile(r"`((?:engine|app|static|tests|bench|migrations|docs)/[\w./-]*)`")
_MOVE_ROW = re.compile(r"^\| \d+ \| `([\w./-]+\.py)` \| (.+?) \|", re.MULTILINE)
_NAME = re.compile(r"`([\w.]+)`")
_BARE = frozenset({"RULES.md", "DESIGN.md"})


def scanned_files() -> Iterator[Path]:
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            yield path
            continue
        for found in sorted(path.rglob("*")):
            if found.is_file() and found.suffix in SUFFIXES and found != THIS:
                yield found


def headings(document: Path) -> list[str]:
    """The titles of a Markdown document's headings, as written."""
    text = document.read_text(encoding="utf-8")
    text = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)  # no code blocks
    return _HEADING.findall(text)


def slug(title: str) -> str:
    """A heading's anchor as GitHub makes it."""
    kept = re.sub(r"[^\w\- ]", "", title.lower())
    return kept.replace(" ", "-")


def rulings(rules: str) -> list[int]:
    """The rulings a rules document defines (``**R-n.``), in the order it defines them."""
    return [int(number) for number in _RULING_DEFINED.findall(rules)]


def rules_sections(rules: str) -> set[int]:
    return {int(number) for number in _RULES_SECTION.findall(rules)}


def _resolve(name: str, source: Path) -> Path | None:
    """The document ``name`` cited from ``source``: beside it, or from the repository's root."""
    for base in (source.parent, ROOT):
        candidate = (base / name).resolve()
        if candidate.is_file():
            return candidate
    return None


def problems_in(text: str, source: Path, *, rules: str) -> list[str]:
    """Every citation in ``text`` (the contents of ``source``) that points at nothing."""
    text = _URL.sub(lambda url: " " * len(url[0]), text)
    defined, sections = set(rulings(rules)), rules_sections(rules)
    inside_docs = source.is_relative_to(ROOT / "docs")
    found: list[str] = []

    def line_of(index: int) -> int:
        return text.count("\n", 0, index) + 1

    for match in _DOC.finditer(text):
        name, anchor = match[1], match[2]
        where = f"line {line_of(match.start())}"
        if Path(name).name in _BARE and not inside_docs:
            own = "docs/rules.md" if Path(name).name == "RULES.md" else "docs/design.md"
            found.append(f"{where}: {name} is not in the repository; cite {own}")
            continue
        document = _resolve(name, source)
        if document is None:
            found.append(f"{where}: no document {name}")
        elif anchor and anchor[1:] not in {slug(title) for title in headings(document)}:
            found.append(f"{where}: {name} has no heading for {anchor}")
    for match in _QUOTED.finditer(text):
        document = _resolve(match[1], source)
        wanted = match[2].casefold()
        if document is not None and not any(wanted in t.casefold() for t in headings(document)):
            found.append(f'line {line_of(match.start())}: {match[1]} has no section "{match[2]}"')
    for match in _SECTION.finditer(text):
        where = f"line {line_of(match.start())}"
        if match[1] is not None and Path(match[1]).name != "rules.md":
            found.append(f"{where}: only docs/rules.md has numbered sections (§), not {match[1]}")
        elif int(match[2]) not in sections:
            found.append(f"{where}: docs/rules.md has no section §{match[2]}")
    for pattern in (_RULING, _TEST_RULING):
        for match in pattern.finditer(text):
            if int(match[1]) not in defined:
                found.append(
                    f"line {line_of(match.start())}: docs/rules.md defines no ruling R-{match[1]}"
                )
    if source.suffix == ".md":
        anchors = {slug(title) for title in headings(source)}
        for match in _LOCAL_ANCHOR.finditer(text):
            if match[1] not in anchors:
                found.append(f"line {line_of(match.start())}: no heading here for #{match[1]}")
    return found


def test_every_citation_points_at_a_document_section_or_ruling_that_exists() -> None:
    rules = RULES.read_text(encoding="utf-8")
    problems = {
        str(path.relative_to(ROOT)): found
        for path in scanned_files()
        if (found := problems_in(path.read_text(encoding="utf-8"), path, rules=rules))
    }
    assert problems == {}


def test_the_rules_define_each_ruling_once_with_no_number_missing() -> None:
    """Rulings keep their numbers for good (code cites them), so they are defined where the
    rule is told, not in the order of their numbers."""
    numbers = rulings(RULES.read_text(encoding="utf-8"))
    assert sorted(numbers) == list(range(1, len(numbers) + 1))


def test_the_rules_number_their_sections_in_order() -> None:
    sections = _RULES_SECTION.findall(RULES.read_text(encoding="utf-8"))
    assert [int(number) for number in sections] == list(range(1, len(sections) + 1))


def test_the_rules_and_design_name_only_paths_that_exist() -> None:
    missing = {
        str(document.relative_to(ROOT)): [
            path
            for path in _REPO_PATH.findall(document.read_text(encoding="utf-8"))
            if not (ROOT / path).exists()
        ]
        for document in (RULES, DESIGN)
    }
    assert missing == {"docs/rules.md": [], "docs/design.md": []}


def defines(source: str, name: str) -> bool:
    """Whether Python ``source`` defines ``name``: a function, a class or a module-level name."""
    pattern = rf"^\s*(?:async\s+def|def|class)\s+{re.escape(name)}\b|^{re.escape(name)}\s*[:=]"
    return re.search(pattern, source, re.MULTILINE) is not None


def test_the_path_of_one_move_names_functions_that_exist() -> None:
    design = DESIGN.read_text(encoding="utf-8")
    rows = _MOVE_ROW.findall(design)
    assert len(rows) >= 10, "the table of the path of one move was not found"
    missing = []
    for path, cell in rows:
        source = (ROOT / path).read_text(encoding="utf-8")
        for dotted in _NAME.findall(cell):
            if not defines(source, dotted.split(".")[-1]):
                missing.append(f"{path}: {dotted}")
    assert missing == []


def test_the_check_catches_each_kind_of_bad_citation() -> None:
    rules = "## 1. Cards\n**R-1. The first.**\n## 2. Rule sets\n"
    source = ROOT / "engine" / "example.py"
    bad = "\n".join(
        [
            "as RULES.md says",
            "the contract of DESIGN.md",
            "see docs/nowhere.md",
            'see docs/protocol.md, "No such section"',
            "see docs/protocol.md#no-such-heading",
            "docs/rules.md §3",
            "docs/protocol.md §1",
            "by R-2",
            "def test_something_R7() -> None:",
        ]
    )
    found = problems_in(bad, source, rules=rules)
    lines = sorted(int(problem.split(":")[0].removeprefix("line ")) for problem in found)
    assert lines == list(range(1, 10))
    good = "\n".join(
        [
            "docs/rules.md §2, R-1; https://example.com/RULES.md",
            'docs/protocol.md, "Play now", `docs/deploy.md`, "What gets installed"',
            "README.md and docs/protocol.md#close-codes",
            "def test_a_rule_R1() -> None:",
        ]
    )
    assert problems_in(good, source, rules=rules) == []
