"""The full game state. It never leaves the engine except through ``view_for``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.cards import Kind
from engine.rules import RULE_SETS, RuleSet, hand_size

Seat = int
LogEntry = dict[str, Any]

ROUNDS_MILLION = "million"
ROUNDS_TWO_WINS = "two_round_wins"
Rounds = int | str


@dataclass(frozen=True, slots=True)
class Config:
    """A validated game configuration."""

    players: int
    """2 to 6 seats."""
    rules: str
    """A key of ``RULE_SETS``."""
    draft: bool
    """Draft piles (2 or 3 players only)."""
    seed: int | str
    """Seeds every shuffle; never leaves the engine."""
    rounds: Rounds
    """Win condition: a fixed number of rounds, ``"million"`` or ``"two_round_wins"``."""
    names: tuple[str, ...] | None = None
    """Optional display names, used in the log's words."""
    rule_set: RuleSet = field(init=False, compare=False, repr=False)
    """``RULE_SETS[rules]``, looked up once: the engine asks for it on every move."""
    hand_size: int = field(init=False, compare=False, repr=False)
    """Deal and draw up to this many cards."""

    def __post_init__(self) -> None:
        rule_set = RULE_SETS[self.rules]
        object.__setattr__(self, "rule_set", rule_set)
        size = hand_size(rule_set, players=self.players, draft=self.draft)
        object.__setattr__(self, "hand_size", size)


@dataclass(slots=True)
class Challenge:
    """An open challenge (docs/rules.md §5), or a draft claim waiting to be contested (§8).

    A challenge always has a challenger and a defender. For a draft claim the claimer defends and
    ``claim`` holds the claimed cards; ``target`` is None and ``plays`` is empty until the
    contester opens.
    """

    challenger: Seat
    defender: Seat
    kind: Kind
    """The kind of the contested set."""
    target: Seat | None
    """Whose stack holds the set (None for a draft claim)."""
    depth: int
    """0 for the top set, 1 for second-from-top."""
    plays: list[tuple[Seat, list[int]]] = field(default_factory=list)
    """Every play so far, in order."""
    to_answer: Seat = 0
    """Who must answer or concede now."""
    need: int = 1
    """The weight the next answer needs."""
    claim: list[int] | None = None
    """The claimed cards of a draft claim."""
    piles: list[int] | None = None
    """The draft piles the claim was taken from."""

    def copy(self) -> Challenge:
        return Challenge(
            self.challenger,
            self.defender,
            self.kind,
            self.target,
            self.depth,
            [(seat, list(cards)) for seat, cards in self.plays],
            self.to_answer,
            self.need,
            None if self.claim is None else list(self.claim),
            None if self.piles is None else list(self.piles),
        )


@dataclass(slots=True)
class Pending:
    """A choice one player must make for another (a Move turned up on a draft pile, R-13)."""

    chooser: Seat
    target: Seat
    queue: list[tuple[Seat, Seat]] = field(default_factory=list)
    """Further (chooser, target) choices to ask after this one."""
    piles: list[int] = field(default_factory=list)
    """Draft piles still to turn up once every choice is made (the first is the current one)."""


@dataclass(slots=True)
class State:
    """Everything about one game, hidden parts included. Mutated only inside the engine."""

    config: Config
    round: int
    dealer: Seat
    active: Seat
    actions_done: int
    """Actions completed in this turn."""
    hands: list[list[int]]
    stacks: list[list[list[int]]]
    """Per seat, bottom→top, each set a list of card ids (never mutated: states share sets)."""
    deck: list[int]
    """The draw pile; the next card drawn is the LAST element."""
    discard: list[int]
    """Bottom→top."""
    out: list[int]
    """Cards out of the game, in the order they left."""
    piles: list[list[int]]
    """Draft piles, bottom→top; the top is face up unless ``covered``."""
    covered: list[bool]
    """A pile whose top a pending claim took shows no top until the claim is settled (R-14)."""
    barred: list[Seat]
    """Rivals the active player lost a challenge against this turn (advanced, R-16)."""
    challenge: Challenge | None
    pending: Pending | None
    history: list[list[int]]
    """Stash values of every finished round."""
    over: bool
    log: list[LogEntry]
    """Shared append-only between a state and its successors; only ``log[:log_length]`` is ours."""
    log_length: int = 0
    log_enabled: bool = True
    """Off for search copies that nobody reads."""

    @property
    def rules(self) -> RuleSet:
        return self.config.rule_set

    def copy(self) -> State:
        return State(
            self.config,
            self.round,
            self.dealer,
            self.active,
            self.actions_done,
            [list(hand) for hand in self.hands],
            [list(stack) for stack in self.stacks],  # the sets themselves are never mutated
            list(self.deck),
            list(self.discard),
            list(self.out),
            [list(pile) for pile in self.piles],
            list(self.covered),
            list(self.barred),
            None if self.challenge is None else self.challenge.copy(),
            None
            if self.pending is None
            else Pending(
                self.pending.chooser,
                self.pending.target,
                list(self.pending.queue),
                list(self.pending.piles),
            ),
            [list(scores) for scores in self.history],
            self.over,
            self.log,
            self.log_length,
            self.log_enabled,
        )

    def entries(self) -> list[LogEntry]:
        """This state's log."""
        return self.log[: self.log_length]

    def add_entry(self, entry: LogEntry) -> None:
        if len(self.log) != self.log_length:
            # Another state branched from the shared log: take our own copy first.
            self.log = self.log[: self.log_length]
        self.log.append(entry)
        self.log_length += 1

    def to_act(self) -> list[Seat]:
        if self.over:
            return []
        if self.pending is not None:
            return [self.pending.chooser]
        if self.challenge is not None:
            return [self.challenge.to_answer]
        return [self.active]
