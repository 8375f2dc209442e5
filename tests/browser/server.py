"""The real app for the browser tests, served by uvicorn, with one test seam: custom deals.

A room whose name is a key of ``DEALS`` gets that deal (the engine's ``setup`` option) instead
of a random one, so a test can reach a challenge on its first turn. Every other room plays a
normal shuffled game. Run as ``python -m tests.browser.server --port N``.
"""

from __future__ import annotations

import argparse
from typing import Any
from unittest import mock

import uvicorn

from app.db.migrate import upgrade
from app.rooms import play
from app.rooms.lobby import engine_config
from app.rooms.model import RoomOptions
from app.settings import get_settings
from app.transport import server_options

DUEL_ROOM = "Duel table"
STEAL_ROOM = "Steal table"
LONG_DUEL_ROOM = "Long duel table"
BIG_STACK_ROOM = "Big stack table"
PENNY_DUEL_ROOM = "Penny duel table"
CLAIM_ROOM = "Claim table"
SIX_DUEL_ROOM = "Six seat duel table"
HELP_ROOM = "Help pictures table"
RICH_ROOM = "Rich six seat table"
TALL_STACK_SIX_ROOM = "Tall stack six seat table"
TALL_CLAIM_ROOM = "Tall claim table"

DEALS: dict[str, dict[str, Any]] = {
    # Seat 0 (the host) moves first. Bea's top Vintage Guitar set is exposed (her Coin
    # Collection set below it is protected); Ann holds a guitar to challenge it, Bea one to answer.
    DUEL_ROOM: {
        "dealer": 1,
        "hands": [
            ["guitar", "jewelry", "stocks", "fine_art", "yacht", "piggy_bank"],
            ["guitar", "coins", "racehorse", "sports_car", "mansion", "piggy_bank"],
        ],
        "stacks": [
            [["yacht", "yacht"]],
            [["coins", "coins"], ["guitar", "guitar"]],
        ],
    },
    # Seat 0 moves first and can challenge seat 1's top Vintage Guitar set, which seat 1
    # (no guitar, no wild in hand) cannot defend: the set is stolen on the first turn.
    STEAL_ROOM: {
        "dealer": 1,
        "hands": [
            ["guitar", "jewelry", "stocks", "fine_art", "yacht", "piggy_bank"],
            ["coins", "racehorse", "sports_car", "mansion", "piggy_bank", "jewelry"],
        ],
        "stacks": [
            [["yacht", "yacht"]],
            [["coins", "coins"], ["guitar", "guitar"]],
        ],
    },
    # Three seats, seat 0 first: Ann holds four guitars and two wilds, Bea three guitars and
    # three wilds, and Bea's top Vintage Guitar set is exposed, so Ann's challenge of it can go
    # on for a dozen plays. Seat 2 (an AI) has an ordinary hand.
    LONG_DUEL_ROOM: {
        "dealer": 2,
        "hands": [
            ["guitar", "guitar", "guitar", "guitar", "gold_bar", "silver_bar"],
            ["guitar", "guitar", "guitar", "silver_bar", "silver_bar", "gold_bar"],
            ["jewelry", "stocks", "fine_art", "yacht", "piggy_bank", "mansion"],
        ],
        "stacks": [[["yacht", "yacht"]], [["coins", "coins"], ["guitar", "guitar"]], []],
    },
    # Seat 0 moves first and can open a challenge on seat 1's top Racehorse set with a Penny Jar,
    # which only seat 1's Racehorse and Silver Bar together answer (weight 2): the longest answer
    # a phone's bar shows, next to Concede.
    PENNY_DUEL_ROOM: {
        "dealer": 1,
        "hands": [
            ["penny_jar", "jewelry", "stocks", "fine_art", "yacht", "piggy_bank"],
            ["racehorse", "silver_bar", "coins", "sports_car", "mansion", "jewelry"],
        ],
        "stacks": [
            [["yacht", "yacht"]],
            [["coins", "coins"], ["racehorse", "racehorse"]],
        ],
    },
    # Six seats, seat 0 first, every seat with two sets (a phone's rivals are at their tallest):
    # Ann can challenge Bea's top Stock Certificates set (the longest name of a kind), and the
    # two can answer each other six times.
    SIX_DUEL_ROOM: {
        "dealer": 5,
        "hands": [
            ["stocks", "stocks", "stocks", "silver_bar", "piggy_bank", "guitar"],
            ["stocks", "stocks", "silver_bar", "silver_bar", "mansion", "piggy_bank"],
            ["jewelry", "fine_art", "yacht", "piggy_bank", "mansion", "coins"],
            ["guitar", "racehorse", "sports_car", "coins", "yacht", "jewelry"],
            ["piggy_bank", "fine_art", "mansion", "racehorse", "guitar", "sports_car"],
            ["coins", "jewelry", "yacht", "fine_art", "piggy_bank", "racehorse"],
        ],
        "stacks": [
            [["yacht", "yacht"], ["fine_art", "fine_art"]],
            [["coins", "coins"], ["stocks", "stocks"]],
            [["guitar", "guitar"], ["sports_car", "sports_car"]],
            [["mansion", "mansion"], ["piggy_bank", "piggy_bank"]],
            [["jewelry", "jewelry"], ["coins", "coins"]],
            [["racehorse", "racehorse"], ["guitar", "guitar"]],
        ],
    },
    # Six seats, seat 0 first, hands dealt at random: every rival holds three to five sets worth
    # $132,000 to $223,000 (six-digit stashes, the widest a phone's row of rivals must show).
    RICH_ROOM: {
        "dealer": 5,
        "stacks": [
            [["piggy_bank", "piggy_bank"]],
            [
                ["jewelry", "jewelry"],
                ["coins", "coins"],
                ["mansion", "mansion", "silver_bar"],
                ["yacht", "yacht", "gold_bar"],
            ],
            [
                ["guitar", "guitar"],
                ["racehorse", "racehorse", "racehorse"],
                ["fine_art", "fine_art", "gold_bar"],
            ],
            [
                ["sports_car", "sports_car"],
                ["mansion", "mansion", "mansion"],
                ["yacht", "yacht", "silver_bar", "silver_bar"],
            ],
            [
                ["stocks", "stocks", "stocks"],
                ["fine_art", "fine_art", "fine_art"],
                ["mansion", "mansion", "gold_bar"],
            ],
            [
                ["piggy_bank", "piggy_bank"],
                ["yacht", "yacht", "yacht"],
                ["racehorse", "racehorse", "silver_bar"],
                ["sports_car", "sports_car", "gold_bar"],
                ["fine_art", "fine_art"],
            ],
        ],
    },
    # Draft piles, two seats, seat 1 (an AI) first: its one move that makes a set is to claim
    # the Racehorse on top of pile 1 with its own, and seat 0 holds a Racehorse to contest the
    # claim: Let the claim go (concede) and Answer side by side in seat 0's bar.
    CLAIM_ROOM: {
        "dealer": 0,
        "hands": [
            ["racehorse", "guitar", "stocks", "fine_art", "yacht", "piggy_bank"],
            ["racehorse", "jewelry", "stocks", "yacht", "guitar", "piggy_bank"],
        ],
        "stacks": [[], []],
        "discard": ["coins"],
        "piles": [
            ["jewelry", "yacht", "racehorse"],
            ["guitar", "fine_art", "sports_car"],
            ["stocks", "coins", "fine_art"],
        ],
    },
    # Seat 1 (an AI) starts with eleven sets in its stack and seat 0 with ten cards in hand:
    # the table must still fit.
    BIG_STACK_ROOM: {
        "dealer": 1,
        "hands": [
            [
                "guitar",
                "jewelry",
                "stocks",
                "fine_art",
                "yacht",
                "piggy_bank",
                "mansion",
                "racehorse",
                "sports_car",
                "gold_bar",
            ],
            ["guitar", "coins", "racehorse", "sports_car", "mansion", "piggy_bank"],
        ],
        "stacks": [
            [["guitar", "guitar"]],
            [
                ["coins", "coins"],
                ["piggy_bank", "piggy_bank"],
                ["jewelry", "jewelry"],
                ["stocks", "stocks"],
                ["sports_car", "sports_car"],
                ["racehorse", "racehorse"],
                ["fine_art", "fine_art"],
                ["yacht", "yacht"],
                ["mansion", "mansion"],
                ["piggy_bank", "piggy_bank", "piggy_bank"],
                ["coins", "coins", "silver_bar"],
            ],
        ],
    },
    # The help page's pictures: the Penny Jar challenge of PENNY_DUEL_ROOM, with the discard
    # pile and the cards drawn given, so that the pictures come out the same every time.
    HELP_ROOM: {
        "dealer": 1,
        "hands": [
            ["penny_jar", "jewelry", "stocks", "fine_art", "yacht", "piggy_bank"],
            ["racehorse", "silver_bar", "coins", "sports_car", "mansion", "jewelry"],
        ],
        "stacks": [
            [["yacht", "yacht"]],
            [["coins", "coins"], ["racehorse", "racehorse"]],
        ],
        "discard": ["piggy_bank"],
        "deck": ["guitar", "fine_art", "stocks", "coins"],
    },
}

# The rich table's rivals, and seat 0 with eight sets under a Stock Certificates set (the
# longest name of a kind): "+7 sets" and the chip of the set below its top. On a phone the
# two rows of rivals and that stack leave the centre less than a zone's whole height.
DEALS[TALL_STACK_SIX_ROOM] = {
    **DEALS[RICH_ROOM],
    "stacks": [
        [
            ["piggy_bank", "piggy_bank"],
            ["coins", "coins"],
            ["guitar", "guitar"],
            ["jewelry", "jewelry"],
            ["yacht", "yacht"],
            ["sports_car", "sports_car"],
            ["racehorse", "racehorse", "silver_bar"],
            ["stocks", "stocks", "stocks"],
        ],
        *DEALS[RICH_ROOM]["stacks"][1:],
    ],
}
# The claim of CLAIM_ROOM between tall stacks: seat 0 with five sets and seat 1 with six (the
# top ones exposed), so a short laptop window leaves the centre little height for the duel.
DEALS[TALL_CLAIM_ROOM] = {
    **DEALS[CLAIM_ROOM],
    "stacks": [
        [
            ["piggy_bank", "piggy_bank"],
            ["coins", "coins"],
            ["guitar", "guitar"],
            ["sports_car", "sports_car"],
            ["fine_art", "fine_art", "gold_bar"],
        ],
        [
            ["jewelry", "jewelry"],
            ["yacht", "yacht"],
            ["fine_art", "fine_art"],
            ["stocks", "stocks"],
            ["coins", "coins"],
            ["sports_car", "sports_car", "silver_bar"],
        ],
    ],
}


def _config_with_deal(
    options: RoomOptions, *, players: int, seed: int, names: list[str] | None = None
) -> dict[str, Any]:
    config = engine_config(options, players=players, seed=seed, names=names)
    deal = DEALS.get(options.room_name)
    if deal is not None:
        config["setup"] = deal
    return config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    upgrade(get_settings().database_url)
    with mock.patch.object(play, "engine_config", _config_with_deal):
        uvicorn.run(
            "app.main:create_app",
            factory=True,
            host="127.0.0.1",
            port=args.port,
            log_level="warning",
            **server_options(get_settings()),
        )


if __name__ == "__main__":
    main()
