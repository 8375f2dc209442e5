"""The 110 physical cards: kinds, values, and the stable id of every card."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

CardId = int
"""A physical card, 0 to 109. Ids follow the table order of docs/rules.md §1."""


class Kind(StrEnum):
    """What a card is; the value is the id used on the wire (docs/rules.md §1)."""

    PIGGY_BANK = "piggy_bank"
    COINS = "coins"
    GUITAR = "guitar"
    JEWELRY = "jewelry"
    STOCKS = "stocks"
    SPORTS_CAR = "sports_car"
    RACEHORSE = "racehorse"
    FINE_ART = "fine_art"
    YACHT = "yacht"
    MANSION = "mansion"
    SILVER_BAR = "silver_bar"
    GOLD_BAR = "gold_bar"
    PENNY_JAR = "penny_jar"
    SWAP = "swap"
    MOVE = "move"


class CardClass(StrEnum):
    ASSET = "asset"
    WILD = "wild"
    ACTION = "action"


@dataclass(frozen=True, slots=True)
class KindInfo:
    """One row of the card table."""

    kind: Kind
    """The kind this row describes."""
    name: str
    """How players call it."""
    copies: int
    """How many physical cards of this kind the full deck holds."""
    value: int
    """Dollar value in a stash (0 for action cards)."""
    card_class: CardClass
    """Asset, wild or action."""
    weight: int = 1
    """Weight in a challenge: 2 for the Penny Jar, else 1."""


KINDS: tuple[KindInfo, ...] = (
    KindInfo(Kind.PIGGY_BANK, "Piggy Bank", 10, 5_000, CardClass.ASSET),
    KindInfo(Kind.COINS, "Coin Collection", 10, 7_000, CardClass.ASSET),
    KindInfo(Kind.GUITAR, "Vintage Guitar", 10, 8_000, CardClass.ASSET),
    KindInfo(Kind.JEWELRY, "Jewelry", 9, 10_000, CardClass.ASSET),
    KindInfo(Kind.STOCKS, "Stock Certificates", 9, 10_000, CardClass.ASSET),
    KindInfo(Kind.SPORTS_CAR, "Sports Car", 9, 12_000, CardClass.ASSET),
    KindInfo(Kind.RACEHORSE, "Racehorse", 9, 12_000, CardClass.ASSET),
    KindInfo(Kind.FINE_ART, "Fine Art", 9, 15_000, CardClass.ASSET),
    KindInfo(Kind.YACHT, "Yacht", 9, 20_000, CardClass.ASSET),
    KindInfo(Kind.MANSION, "Mansion", 8, 20_000, CardClass.ASSET),
    KindInfo(Kind.SILVER_BAR, "Silver Bar", 8, 25_000, CardClass.WILD),
    KindInfo(Kind.GOLD_BAR, "Gold Bar", 4, 50_000, CardClass.WILD),
    KindInfo(Kind.PENNY_JAR, "Penny Jar", 2, 5_000, CardClass.WILD, weight=2),
    KindInfo(Kind.SWAP, "Swap", 2, 0, CardClass.ACTION),
    KindInfo(Kind.MOVE, "Move", 2, 0, CardClass.ACTION),
)
INFO: dict[Kind, KindInfo] = {info.kind: info for info in KINDS}

KIND_OF: tuple[Kind, ...] = tuple(info.kind for info in KINDS for _ in range(info.copies))
"""The kind of each card id."""
VALUE_OF: tuple[int, ...] = tuple(INFO[kind].value for kind in KIND_OF)
CARD_COUNT = len(KIND_OF)
IDS_OF: dict[Kind, tuple[CardId, ...]] = {
    info.kind: tuple(i for i in range(CARD_COUNT) if KIND_OF[i] is info.kind) for info in KINDS
}

ASSETS: frozenset[Kind] = frozenset(i.kind for i in KINDS if i.card_class is CardClass.ASSET)
WILDS: frozenset[Kind] = frozenset(i.kind for i in KINDS if i.card_class is CardClass.WILD)
ACTIONS: frozenset[Kind] = frozenset(i.kind for i in KINDS if i.card_class is CardClass.ACTION)

IS_ASSET: tuple[bool, ...] = tuple(kind in ASSETS for kind in KIND_OF)
IS_WILD: tuple[bool, ...] = tuple(kind in WILDS for kind in KIND_OF)
IS_ACTION: tuple[bool, ...] = tuple(kind in ACTIONS for kind in KIND_OF)
IS_PENNY_JAR: tuple[bool, ...] = tuple(kind is Kind.PENNY_JAR for kind in KIND_OF)


KIND_NAME: tuple[str, ...] = tuple(kind.value for kind in KIND_OF)
"""Each card's kind as the plain string sent on the wire (an enum's ``.value`` is a slow
descriptor, and views carry every visible card)."""


def card_json(card: CardId) -> dict[str, object]:
    """How a visible card goes on the wire."""
    return {"id": card, "kind": KIND_NAME[card]}


def cards_json(cards: list[CardId]) -> list[dict[str, object]]:
    """``card_json`` of each card, written out rather than called: a view holds dozens,
    built at every move."""
    return [{"id": card, "kind": KIND_NAME[card]} for card in cards]


def matches(card: CardId, kind: Kind) -> bool:
    """A card matches a set of ``kind`` when it is that asset or any wild (docs/rules.md §5)."""
    return IS_WILD[card] or KIND_OF[card] is kind


def pair_kind(a: CardId, b: CardId) -> Kind | None:
    """The kind of the set two cards form, or None: two of an asset, or an asset and a wild."""
    ka, kb = KIND_OF[a], KIND_OF[b]
    if IS_ASSET[a]:
        if ka is kb or IS_WILD[b]:
            return ka
        return None
    if IS_WILD[a] and IS_ASSET[b]:
        return kb
    return None


PAIRS: tuple[tuple[bool, ...], ...] = tuple(
    tuple(pair_kind(a, b) is not None for b in range(CARD_COUNT)) for a in range(CARD_COUNT)
)
"""PAIRS[a][b]: whether cards a and b form a set (a lookup table: legal moves need it often)."""


MATCHES: dict[Kind, tuple[bool, ...]] = {
    kind: tuple(matches(card, kind) for card in range(CARD_COUNT)) for kind in ASSETS
}
"""MATCHES[kind][card]: whether a card matches a set of that kind (an asset or any wild)."""
SINGLES: tuple[tuple[CardId], ...] = tuple((card,) for card in range(CARD_COUNT))
"""A one-card play of each card, built once."""


def set_kind(cards: list[CardId]) -> Kind:
    """The kind of a set: the kind of its assets (a set always holds at least one)."""
    for card in cards:
        if IS_ASSET[card]:
            return KIND_OF[card]
    raise ValueError("a set without an asset")
