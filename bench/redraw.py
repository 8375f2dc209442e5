"""Redraw: what each message costs the table's page in Chromium, over whole games against AI.

Starts the app as the browser tests do (``tests/browser/harness.py``: memory store, a fresh
SQLite file, no AI pause), opens a table of one person and three AI players in Debian's
Chromium at a laptop's size (``--phone``: 360x740, touch), and plays it to the end taking the
first move listed, with Chromium's timeline traced. For each message the socket hands the page
(its handler in ``js/socket.js``) it reports the main thread's time in it, the layouts the
script forced in it and their time; the median over ``--games`` games, each game's own too.
What the figures mean: ``docs/client.md``, "The table".
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

# The project, not this folder, is what ``tests`` must name.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from tests.browser.harness import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    WAIT_MS,
    add_ai_players,
    chromium_problem,
    create_room,
    play_until_over,
    running_app,
)

CATEGORIES = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "disabled-by-default-devtools.timeline.stack",
]


@dataclass(frozen=True)
class Game:
    messages: int
    """Messages the socket handed the page (states, room summaries, answers)."""
    ms: float
    """Median main-thread time a message took, ms."""
    layouts: float
    """Forced layouts a message, on average."""
    layout_ms: float
    """Their time a message, on average, ms."""


def measured(trace: Path) -> Game:
    """The socket's message handlers in a timeline trace, and the layouts inside them."""
    events = json.loads(trace.read_text())["traceEvents"]
    names = {
        (e["pid"], e["tid"]): e["args"]["name"]
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name"
    }
    main = {key for key, name in names.items() if name == "CrRendererMain"}
    spans = [e for e in events if (e.get("pid"), e.get("tid")) in main and e.get("ph") == "X"]
    handled = [
        e
        for e in spans
        if e["name"] == "FunctionCall"
        and e.get("args", {}).get("data", {}).get("url", "").endswith("/socket.js")
    ]
    layouts = [e for e in spans if e["name"] == "Layout"]
    inside = [
        layout
        for message in handled
        for layout in layouts
        if message["ts"] <= layout["ts"] < message["ts"] + message["dur"]
    ]
    count = max(len(handled), 1)
    return Game(
        messages=len(handled),
        ms=statistics.median(e["dur"] / 1000 for e in handled) if handled else 0.0,
        layouts=len(inside) / count,
        layout_ms=sum(e["dur"] for e in inside) / 1000 / count,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--phone", action="store_true", help="360x740 with touch")
    args = parser.parse_args()
    problem = chromium_problem()
    if problem:
        raise SystemExit(problem)
    width, height = (360, 740) if args.phone else (1280, 800)
    games: list[Game] = []
    with (
        tempfile.TemporaryDirectory() as folder,
        running_app(Path(folder) / "redraw.db") as server,
        sync_playwright() as playwright,
    ):
        expect.set_options(timeout=WAIT_MS)
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for number in range(args.games):
            context = browser.new_context(
                viewport={"width": width, "height": height}, has_touch=args.phone
            )
            page = context.new_page()
            create_room(page, server, name="Ann", seats=4)
            add_ai_players(page, 3)
            page.get_by_role("button", name="Start the game").click()
            expect(page.locator(".hand-card").first).to_be_visible()
            trace = Path(folder) / f"game{number}.json"
            browser.start_tracing(page=page, path=str(trace), categories=CATEGORIES)
            play_until_over(page)
            browser.stop_tracing()
            context.close()
            game = measured(trace)
            games.append(game)
            print(
                f"game {number + 1}: {game.messages} messages, {game.ms:.1f} ms each (median),"
                f" {game.layouts:.2f} forced layouts ({game.layout_ms:.1f} ms) each",
                flush=True,
            )
        browser.close()
    print(
        f"median of {len(games)} games at {width}x{height}:"
        f" {statistics.median(g.ms for g in games):.1f} ms a message,"
        f" {statistics.median(g.layouts for g in games):.2f} forced layouts"
        f" ({statistics.median(g.layout_ms for g in games):.1f} ms)"
    )


if __name__ == "__main__":
    main()
