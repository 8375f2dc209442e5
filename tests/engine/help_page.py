"""The rule statements of the help page (``static/help.html``): every element marked with
``data-rule``, its text and, for a table, its rows."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

HELP_PAGE = Path(__file__).resolve().parents[2] / "static" / "help.html"
VOID = frozenset({"img", "br", "hr", "meta", "link", "input", "source", "use", "col", "wbr"})


@dataclass
class Rule:
    """One statement of the page."""

    name: str
    """Its ``data-rule``: the name of the check that holds it to the engine."""
    text: str = ""
    """Its words, whitespace collapsed."""
    rows: list[list[str]] = field(default_factory=list)
    """A table's rows (header row included), each a list of its cells' words."""
    items: list[str] = field(default_factory=list)
    """A list's items, each its words."""

    def says(self, *phrases: str) -> None:
        """Fail unless every phrase is in the statement (case and spacing ignored): the words
        a check proves are the words the page shows."""
        text = self.text.casefold()
        missing = [phrase for phrase in phrases if " ".join(phrase.split()).casefold() not in text]
        assert not missing, f"the help page's {self.name!r} no longer says {missing}: {self.text}"

    def number(self, pattern: str) -> int:
        """The number the statement gives where ``pattern`` (with one group) matches."""
        found = re.search(pattern, self.text, re.IGNORECASE)
        assert found, f"the help page's {self.name!r} says nothing like {pattern!r}: {self.text}"
        return int(found.group(1).replace(",", "").replace("$", ""))


def _words(parts: list[str]) -> str:
    return " ".join("".join(parts).split())


class _RuleParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rules: list[Rule] = []
        self._open: list[tuple[str, Rule | None]] = []
        self._text: list[list[str]] = []
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._item: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        name = dict(attrs).get("data-rule")
        rule = Rule(name) if name else None
        if rule is not None:
            assert not self._text, f"data-rule {name!r} is inside another rule"
            self.rules.append(rule)
            self._text.append([])
        self._open.append((tag, rule))
        if not self._text:
            return
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "li":
            self._item = []

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        open_tag, rule = self._open.pop()
        assert open_tag == tag, f"<{open_tag}> closed by </{tag}>"
        if self._text:
            current = self.rules[-1]
            if tag in ("td", "th") and self._cell is not None and self._row is not None:
                self._row.append(_words(self._cell))
                self._cell = None
            elif tag == "tr" and self._row is not None:
                current.rows.append(self._row)
                self._row = None
            elif tag == "li" and self._item is not None:
                current.items.append(_words(self._item))
                self._item = None
        if rule is not None:
            rule.text = _words(self._text.pop())

    def handle_data(self, data: str) -> None:
        for part in (*self._text, self._cell, self._item):
            if part is not None:
                part.append(data)


def parse_rules(html: str) -> list[Rule]:
    """The statements a page marks with ``data-rule``, in the page's order."""
    parser = _RuleParser()
    parser.feed(html)
    parser.close()
    return parser.rules


def rules_on_the_page() -> list[Rule]:
    return parse_rules(HELP_PAGE.read_text(encoding="utf-8"))
