"""Game review: how good each decision was, judged from the deciding seat's view alone.

A judgement takes exactly what the seat saw (``view_for`` at that moment) and runs Hard's
search on it: the same determinizations of the hidden cards, the same beliefs from the public
log, the same tree below each move. Unlike Hard's own decision it spreads its iterations
evenly over the moves it compares (the move played and the best few by the rules of thumb),
and in each round it plays every one of them on a copy of the same deal, so the difference
between two moves is measured on common deals and not drowned by the luck of the deal.

The verdict comes from the drop in the seat's estimated chance of winning between the best
move found and the move played (``VERDICTS``). A decision with one distinct choice is
``forced`` and not judged.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import engine
from engine.ai.accuracy import accuracy, decision_accuracy
from engine.ai.calibration import calibrated
from engine.ai.heuristic import Action
from engine.ai.players import seat_to_act
from engine.ai.reasons import reason
from engine.ai.search import HardPlayer, Key, Node, action_key

FORCED = "forced"
VERDICTS: tuple[tuple[str, float], ...] = (
    ("best", 0.02),
    ("good", 0.05),
    ("inaccuracy", 0.10),
    ("mistake", 0.20),
    ("blunder", 1.0),
)
EXPLAINED = ("inaccuracy", "mistake", "blunder")
"""The verdicts that come with a reason in words (``engine.ai.reasons``)."""
"""Each verdict and the largest drop in win chance it covers (0.02 is two points in a
hundred). The first bounds sit above the search's own noise at the default budget, so a move
as good as the best is not called an inaccuracy by chance."""

DEFAULT_ROUNDS = 32
"""Rounds per judgement: each round deals once and plays every compared move on that deal."""


def verdict(drop: float) -> str:
    """The verdict for a drop in win chance (best move's chance minus the played move's)."""
    for name, bound in VERDICTS:
        if drop <= bound:
            return name
    return VERDICTS[-1][0]


@dataclass(frozen=True, slots=True)
class Alternative:
    """One move the review compared, and the seat's win chance after it."""

    action: Action
    win_chance: float


@dataclass(frozen=True, slots=True)
class Judgement:
    """The review of one decision."""

    seat: int
    """The seat that decided."""
    played: Action
    best: Action
    """The best move the search found (the played one when nothing was better)."""
    win_before: float
    """The seat's win chance before the decision: the chance with the best move."""
    win_played: float
    """The seat's win chance after the move played."""
    verdict: str
    """``forced``, or one of ``VERDICTS`` by the drop ``win_before - win_played``."""
    alternatives: tuple[Alternative, ...] = field(default=())
    """Every compared move, best first."""
    reason: str | None = None
    """For the verdicts in ``EXPLAINED``: why the move played was worse than the best."""

    @property
    def drop(self) -> float:
        return max(0.0, self.win_before - self.win_played)

    def to_data(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "played": self.played,
            "best": self.best,
            "win_before": round(self.win_before, 4),
            "win_played": round(self.win_played, 4),
            "drop": round(self.drop, 4),
            "verdict": self.verdict,
            "reason": self.reason,
            "alternatives": [
                {"action": item.action, "win_chance": round(item.win_chance, 4)}
                for item in self.alternatives
            ],
        }


class Reviewer:
    """Judges decisions with Hard's search, ``rounds`` rounds each (see the module's notes).

    With a given ``rng`` a judgement is a pure function of the view, the move played and the
    generator's state: the true hidden cards never enter it. Its chances are calibrated
    (``engine.ai.calibration``) unless ``calibrated=False`` asks for the search's raw ones.
    """

    def __init__(
        self, rounds: int = DEFAULT_ROUNDS, *, width: int = 4, calibrated: bool = True
    ) -> None:
        self.rounds = rounds
        self.search = HardPlayer(iterations=rounds, width=width)
        self.calibrated = calibrated

    def judge(self, view: Mapping[str, Any], played: Action, rng: random.Random) -> Judgement:
        """How good ``played`` was for the view's seat, which must be one of those to act."""
        seat = seat_to_act(view)
        played = {**played, "seat": seat}
        sampler = engine.Sampler(view)
        first = sampler.sample(rng)
        legal = engine.legal_actions(first)
        mine = [action for action in legal if action["seat"] == seat]
        played_key = action_key(played)
        distinct = {action_key(action): action for action in mine}
        if played_key not in distinct:
            raise engine.IllegalAction("not_legal", "The move reviewed was not legal here.")
        if len(distinct) == 1:
            return Judgement(seat, played, played, 0.0, 0.0, FORCED)
        compared = {key: mine[index] for key, index in self.search.candidates(first, mine).items()}
        compared.setdefault(played_key, distinct[played_key])
        chances = self._chances(view, seat, list(compared), sampler, rng)
        if self.calibrated:
            chances = {key: calibrated(chance) for key, chance in chances.items()}
        return judged(view, played, compared, chances)

    def _chances(
        self,
        view: Mapping[str, Any],
        seat: int,
        keys: list[Key],
        sampler: engine.Sampler,
        rng: random.Random,
    ) -> dict[Key, float]:
        """Each move's mean reward for ``seat`` over common deals, with Hard's tree below it."""
        beliefs = self.search.beliefs(view)
        trees = {key: Node(seat) for key in keys}
        totals = dict.fromkeys(keys, 0.0)
        counts = dict.fromkeys(keys, 0)
        for _ in range(self.rounds):
            deal = self.search.deal(sampler, beliefs, rng)
            by_key = {action_key(engine.action_of(move)): move for move in engine.moves(deal)}
            for key in keys:
                move = by_key.get(key)
                if move is None:
                    continue
                state = engine.search_copy(deal)
                engine.play(state, move)
                totals[key] += self.search.iterate(trees[key], state, seat, rng)[seat]
                counts[key] += 1
        return {key: totals[key] / counts[key] if counts[key] else 0.0 for key in keys}


def judged(
    view: Mapping[str, Any],
    played: Action,
    compared: Mapping[Key, Action],
    chances: Mapping[Key, float],
) -> Judgement:
    """The judgement of ``played`` (an action of the view's seat to act) from the chances of
    winning after each compared move, ``played`` among them, by their ``action_key``."""
    seat, played_key = played["seat"], action_key(played)
    order = sorted(compared, key=lambda key: -chances[key])
    best = order[0]
    alternatives = tuple(Alternative(compared[key], chances[key]) for key in order)
    win_before, win_played = chances[best], chances[played_key]
    judged = verdict(max(0.0, win_before - win_played))
    # A move within the search's noise of the best is the best: no better move is named.
    better = compared[best] if judged != "best" and best != played_key else played
    why = reason(view, played, better) if judged in EXPLAINED else None
    return Judgement(seat, played, better, win_before, win_played, judged, alternatives, why)


Progress = Callable[[int, int], None]
"""Called with (decisions judged, decisions in all) as a review goes."""


def _follows(before: engine.State, after: engine.State, seat: int) -> dict[str, int] | None:
    """How decision ``after`` of ``seat`` follows its decision at ``before`` (the state just
    before the previous action, which ``seat`` took): in the same turn, with ``seen`` cards the
    seat had not seen before (a draw, a card turned up) showing by now. None when a new turn
    began between the two."""
    new_entries = after.entries()[len(before.entries()) :]
    if any(entry.get("event") == "turn" for entry in new_entries):
        return None
    unseen_before = set(engine.Sampler(engine.view_for(before, seat)).unseen)
    unseen_after = set(engine.Sampler(engine.view_for(after, seat)).unseen)
    return {"seen": len(unseen_before - unseen_after)}


def judge_steps(
    reviewer: Reviewer,
    config: Mapping[str, Any],
    actions: list[Action],
    start: int,
    stop: int,
    *,
    seed: int = 0,
    progress: Progress | None = None,
) -> list[dict[str, Any]]:
    """The judgements of ``actions[start:stop]``, each on ``view_for`` of the state before it
    for the seat that acted, with a generator seeded by ``seed`` and the step.

    A decision that comes right after the same seat's previous one, in the same turn, says so
    (``follows``: the cards the seat saw in between); ``summarize`` makes the two agree when it
    saw none. Judging a game in pieces gives the same judgements as judging it whole."""
    state = engine.new_game(dict(config))
    previous: engine.State | None = None
    for step, action in enumerate(actions[:start]):
        if step == start - 1:
            previous = state
        state = engine.apply_action(state, action)
    judged: list[dict[str, Any]] = []
    for step in range(start, stop):
        action = actions[step]
        seat = int(action["seat"])
        view = engine.view_for(state, seat)
        judgement = reviewer.judge(view, action, random.Random(f"{seed}:{step}"))
        item: dict[str, Any] = {"step": step, **judgement.to_data()}
        if previous is not None and int(actions[step - 1]["seat"]) == seat:
            follows = _follows(previous, state, seat)
            if follows is not None:
                item["follows"] = follows
        judged.append(item)
        previous, state = state, engine.apply_action(state, action)
        if progress is not None:
            progress(step + 1, len(actions))
    return judged


def review_game(
    config: Mapping[str, Any],
    actions: list[Action],
    *,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = 0,
    progress: Progress | None = None,
    calibrated: bool = True,
) -> dict[str, Any]:
    """The review of a recorded game: ``config`` as ``engine.new_game`` takes it (with its
    seed) and the actions in the order they were applied.

    Each decision is judged on ``view_for`` of the state before it, for the seat that acted,
    with a generator seeded by ``seed`` and the step: the review is repeatable, and nothing
    later in the game or in another hand reaches a judgement.
    """
    reviewer = Reviewer(rounds, calibrated=calibrated)
    judged = judge_steps(reviewer, config, actions, 0, len(actions), seed=seed, progress=progress)
    return summarize(config, judged)


def _anchor(judged: list[dict[str, Any]]) -> None:
    """Make a seat's decisions in one turn agree: when a seat decides again right after its
    own move and saw nothing new in between, the position it decides in is the one its move
    led to, so its chance before this decision is its chance after that move. Both are
    estimates of one position on separate deals; the earlier one stands, and every chance of
    the later decision moves by the same amount, so the differences between its moves (its
    drop, verdict and reason) are kept as measured. A chance never leaves 0 to 1.

    A forced decision (nothing judged) passes the chance on unchanged."""
    carried: float | None = None
    for item in judged:
        follows = item.get("follows")
        anchored = carried if follows is not None and follows["seen"] == 0 else None
        if item["verdict"] == FORCED:
            carried = anchored
            continue
        if anchored is not None:
            shift = anchored - item["win_before"]
            item["win_before"] = anchored
            item["win_played"] = _clamped(item["win_played"] + shift)
            for alternative in item["alternatives"]:
                alternative["win_chance"] = _clamped(alternative["win_chance"] + shift)
        carried = item.get("win_played")


def _clamped(chance: float) -> float:
    return round(min(1.0, max(0.0, chance)), 4)


KEY_MOMENTS = 3
"""How many of the largest swings a review lists first, in all and for each seat."""


def summarize(config: Mapping[str, Any], judged: list[dict[str, Any]]) -> dict[str, Any]:
    """A review's summary: every judgement, and for each seat its win chance over the game (at
    its own decisions), its verdict counts, its accuracy (``engine.ai.accuracy``) and its key
    moments (its largest drops); the game's key moments first."""
    players = int(config["players"])
    _anchor(judged)
    series: list[list[dict[str, Any]]] = [[] for _ in range(players)]
    counts: list[dict[str, int]] = [{} for _ in range(players)]
    scores: list[list[float]] = [[] for _ in range(players)]
    for item in judged:
        seat = item["seat"]
        counts[seat][item["verdict"]] = counts[seat].get(item["verdict"], 0) + 1
        if item["verdict"] != FORCED:
            series[seat].append({"step": item["step"], "win_chance": item["win_before"]})
            scores[seat].append(decision_accuracy(item["drop"], item["verdict"]))
    ranked = sorted(
        (item for item in judged if item["verdict"] != FORCED and item["drop"] > 0),
        key=lambda item: (-item["drop"], item["step"]),
    )
    return {
        "thresholds": {name: bound for name, bound in VERDICTS},
        "decisions": judged,
        "seats": [
            {
                "seat": seat,
                "series": series[seat],
                "verdicts": counts[seat],
                "accuracy": accuracy(scores[seat]),
                "key_moments": [item["step"] for item in ranked if item["seat"] == seat][
                    :KEY_MOMENTS
                ],
            }
            for seat in range(players)
        ],
        "key_moments": [item["step"] for item in ranked[:KEY_MOMENTS]],
    }
