"""Hard: single-observer information-set Monte Carlo tree search (Cowling, Powley, Whitehouse).

Every iteration deals a fresh determinization of the view (``engine.Sampler``) and walks one
shared tree whose edges are actions named by card *kinds* (two Piggy Banks are the same move,
and a rival's move means the same in every deal). The searching seat picks among its best few
moves by UCB1 with availability counts, as a move exists only in the deals that allow it;
rivals' moves are drawn from the Medium rules of thumb. A playout continues with those rules
for a few actions before the position is scored (``evaluate``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping
from typing import Any

import engine
from engine import State
from engine.ai.evaluate import rewards
from engine.ai.heuristic import MEDIUM, ROLLOUT, Action, choose_index, ranked
from engine.ai.inference import guesses
from engine.ai.players import seat_to_act
from engine.cards import KIND_OF, Kind

Key = tuple[Any, ...]
Belief = tuple[int, set[Kind], float]
"""A rival's seat, the kinds it is guessed to lack, and the share of deals that honour it."""

DEFAULT_SECONDS = 0.8
"""The time budget when none is given: p95 decisions stay within a second."""
MAX_ITERATIONS = 100_000
"""The cap when only a time budget is given."""


def action_key(action: Action) -> Key:
    """An action with its cards replaced by their kinds: equal keys are equal moves."""
    cards = action.get("cards")
    card = action.get("card")
    return (
        action["type"],
        action["seat"],
        None if card is None else KIND_OF[card],
        None if cards is None else tuple(sorted(KIND_OF[c] for c in cards)),
        action.get("target"),
        action.get("depth"),
        action.get("direction"),
        None if action.get("piles") is None else tuple(action["piles"]),
    )


class Node:
    """Statistics of one action from one information set of the tree."""

    __slots__ = ("available", "children", "mover", "total", "visits")

    def __init__(self, mover: int) -> None:
        self.mover = mover
        self.visits = 0
        self.total = 0.0
        self.available = 0
        self.children: dict[Key, Node] = {}


class HardPlayer:
    """Searches for ``iterations`` iterations or ``seconds`` of CPU time, whichever ends first.

    With only ``iterations`` given the decision is a pure function of the view and the random
    generator's state. ``depth`` is how many actions a playout runs before the position is
    scored (None: to the end of the game); ``width`` how many of the best actions by the rules
    of thumb the tree considers in each position; ``inference`` is the share of deals that
    honour the guess that a conceding seat held no matching asset (fewer as it draws cards).
    """

    def __init__(
        self,
        iterations: int | None = None,
        seconds: float | None = None,
        *,
        depth: int | None = 12,
        width: int = 4,
        exploration: float = 0.7,
        inference: float = 0.75,
    ) -> None:
        if iterations is None and seconds is None:
            seconds = DEFAULT_SECONDS
        self.iterations = MAX_ITERATIONS if iterations is None else iterations
        self.seconds = seconds
        self.depth = depth
        self.width = width
        self.exploration = exploration
        self.inference = inference
        self.last_iterations = 0
        """Iterations the last decision ran (for benchmarks)."""

    def decide(self, view: Mapping[str, Any], rng: random.Random) -> Action:
        seat = seat_to_act(view)
        search_rng = random.Random(rng.getrandbits(64))
        sampler = engine.Sampler(view)
        first = sampler.sample(search_rng)
        legal = engine.legal_actions(first)
        choices = {key: legal[index] for key, index in self._candidates(first, legal).items()}
        self.last_iterations = 0
        if len(choices) == 1:
            return next(iter(choices.values()))
        beliefs = self.beliefs(view)
        root = Node(-1)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        for iteration in range(self.iterations):
            if deadline is not None and iteration and time.perf_counter() >= deadline:
                break
            state = self.deal(sampler, beliefs, search_rng)
            self._iterate(root, state, seat, search_rng)
            self.last_iterations = iteration + 1
        best = max(
            choices,
            key=lambda key: (
                root.children[key].visits if key in root.children else -1,
                root.children[key].total if key in root.children else 0.0,
            ),
        )
        return choices[best]

    def beliefs(self, view: Mapping[str, Any]) -> list[Belief]:
        """The soft guesses about rivals' hands: which kinds a seat is thought to lack, and
        the share of deals that honour each guess (fewer as the seat draws new cards)."""
        hand_limit = int(view["hand_size_limit"])
        return [
            (seat, guess.kinds, self.inference * max(0.0, 1.0 - guess.drawn / hand_limit))
            for seat, guess in sorted(guesses(view).items())
        ]

    @staticmethod
    def deal(sampler: engine.Sampler, beliefs: list[Belief], rng: random.Random) -> State:
        """One determinization of the view, honouring each belief in its share of deals."""
        lacking = {seat: kinds for seat, kinds, odds in beliefs if rng.random() < odds}
        return sampler.sample(rng, lacking=lacking)

    def iterate(self, root: Node, state: State, seat: int, rng: random.Random) -> list[float]:
        """One iteration below ``root`` on ``state`` (a deal the caller gives up), ``seat``
        searching; returns every seat's reward at the end of its playout."""
        return self._iterate(root, state, seat, rng)

    def _iterate(self, root: Node, state: State, seat: int, rng: random.Random) -> list[float]:
        """One iteration on ``state``, a fresh deal this search owns: moves are played on it."""
        path: list[Node] = []
        node = root
        while not engine.is_over(state):
            found = engine.moves(state)
            legal = [engine.action_of(move) for move in found]
            if found[0][1] != seat:
                # Rivals play by the rules of thumb: with UCB they would learn to answer this
                # seat's real hand, which every deal shares, and the search would grow paranoid.
                index = choose_index(state, legal, rng, ROLLOUT)
                key = action_key(legal[index])
                child = node.children.get(key)
                engine.play(state, found[index])
                if child is None:
                    node.children[key] = child = Node(found[index][1])
                    path.append(child)
                    break
                node = child
                path.append(node)
                continue
            by_key = self._candidates(state, legal)
            untried = [key for key in by_key if key not in node.children]
            for key in by_key:
                child = node.children.get(key)
                if child is not None:
                    child.available += 1
            if untried:
                key = rng.choice(untried)
                child = Node(seat)
                child.available = 1
                node.children[key] = child
                path.append(child)
                engine.play(state, found[by_key[key]])
                break
            key = self._select(node, by_key)
            node = node.children[key]
            path.append(node)
            engine.play(state, found[by_key[key]])
        self._playout(state, rng)
        values = rewards(state)
        for visited in path:
            visited.visits += 1
            visited.total += values[visited.mover]
        return values

    def candidates(self, state: State, legal: list[Action]) -> dict[Key, int]:
        """The ``width`` best distinct moves by the rules of thumb, best first, by index."""
        return self._candidates(state, legal)

    def _candidates(self, state: State, legal: list[Action]) -> dict[Key, int]:
        """The ``width`` best distinct moves by the rules of thumb, best first, by index."""
        if len(legal) == 1:
            return {action_key(legal[0]): 0}
        best: dict[Key, int] = {}
        for index in ranked(state, legal, MEDIUM):
            best.setdefault(action_key(legal[index]), index)
            if len(best) == self.width:
                break
        return best

    def _select(self, node: Node, by_key: dict[Key, int]) -> Key:
        best_key: Key | None = None
        best = float("-inf")
        for key in by_key:
            child = node.children[key]
            score = child.total / child.visits + self.exploration * math.sqrt(
                math.log(child.available) / child.visits
            )
            if score > best:
                best_key, best = key, score
        assert best_key is not None
        return best_key

    def _playout(self, state: State, rng: random.Random) -> None:
        """Play on by the rules of thumb, in place, for ``depth`` actions or to the end."""
        steps = 0
        while not engine.is_over(state) and (self.depth is None or steps < self.depth):
            found = engine.moves(state)
            legal = [engine.action_of(move) for move in found]
            engine.play(state, found[choose_index(state, legal, rng, ROLLOUT)])
            steps += 1
