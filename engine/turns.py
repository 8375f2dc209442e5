"""How a game moves on: turns, drawing, settling challenges, draft reveals, rounds, the end."""

from __future__ import annotations

from typing import Any

from engine.cards import INFO, IS_ACTION, KIND_OF, VALUE_OF, CardId, Kind
from engine.setup import deal_round
from engine.state import ROUNDS_MILLION, ROUNDS_TWO_WINS, Pending, Seat, State

MILLION = 1_000_000


def name(state: State, seat: Seat) -> str:
    names = state.config.names
    return names[seat] if names else f"Seat {seat}"


def log(state: State, event: str, seat: Seat | None, text: str, **data: Any) -> None:
    """Record what happened, in words and data. Only public facts ever go in here."""
    if state.log_enabled:
        state.add_entry({"round": state.round, "event": event, "seat": seat, "text": text, **data})


def stash(state: State, seat: Seat) -> int:
    return sum(VALUE_OF[card] for cards in state.stacks[seat] for card in cards)


def draw_up(state: State, seat: Seat) -> None:
    """Draw up to the hand size while the deck lasts."""
    hand, deck = state.hands[seat], state.deck
    count = min(state.config.hand_size - len(hand), len(deck))
    if count <= 0:
        return
    hand += deck[-count:][::-1]
    del deck[-count:]
    if state.log_enabled:
        text = f"{name(state, seat)} draws {_cards_word(count)}."
        log(state, "draw", seat, text, count=count)


def _cards_word(count: int) -> str:
    return "1 card" if count == 1 else f"{count} cards"


def exhausted(state: State) -> bool:
    """The deck and every hand are empty (docs/rules.md §6)."""
    return not state.deck and not any(state.hands)


def start_turn(state: State, seat: Seat) -> None:
    """Give the turn to ``seat``, skipping players whose hand is empty (docs/rules.md §4)."""
    state.actions_done = 0
    state.barred = []
    players = state.config.players
    for offset in range(players):
        candidate = (seat + offset) % players
        if state.hands[candidate]:
            state.active = candidate
            if state.log_enabled:
                log(state, "turn", candidate, f"{name(state, candidate)}'s turn.")
            return
        if state.log_enabled:
            text = f"{name(state, candidate)} has no cards and is skipped."
            log(state, "skip", candidate, text)
    if state.deck:
        # Only a custom deal can leave every hand empty with cards still in the deck.
        state.active = seat
        draw_up(state, seat)
        log(state, "turn", seat, f"{name(state, seat)}'s turn.")
        return
    end_round(state)


def end_turn(state: State) -> None:
    draw_up(state, state.active)
    start_turn(state, (state.active + 1) % state.config.players)


def after_action(state: State) -> None:
    """An action (with its challenge, if any) is complete: end the game, the turn, or go on."""
    state.actions_done += 1
    if exhausted(state):
        end_round(state)
    elif state.actions_done >= state.config.rule_set.actions_per_turn:
        end_turn(state)


def settle_challenge(state: State) -> None:
    """Whoever played last wins the set and every card played, as one set (docs/rules.md §5, §8)."""
    challenge = state.challenge
    assert challenge is not None
    winner = challenge.plays[-1][0] if challenge.plays else challenge.defender
    played = [card for _, cards in challenge.plays for card in cards]
    state.challenge = None
    if challenge.claim is not None:
        won = challenge.claim + played
        state.stacks[winner].append(won)
        log(
            state,
            "claim_won",
            winner,
            f"{name(state, winner)} stacks the claim of {_kind_name(challenge.kind)} "
            f"(${sum(VALUE_OF[c] for c in won):,}).",
            cards=won,
        )
    else:
        assert challenge.target is not None
        stack = state.stacks[challenge.target]
        index = len(stack) - 1 - challenge.depth
        if winner == challenge.challenger:
            won = stack.pop(index) + played
            state.stacks[winner].append(won)
            what = _kind_name(challenge.kind)
            text = f"{name(state, winner)} wins the challenge and takes the {what} set"
        else:
            won = stack[index] + played
            stack[index] = won
            if state.rules.actions_per_turn > 1:
                state.barred.append(challenge.defender)
            text = f"{name(state, winner)} defends the {_kind_name(challenge.kind)} set"
        log(
            state,
            "challenge_won",
            winner,
            f"{text} (${sum(VALUE_OF[c] for c in won):,}).",
            challenger=challenge.challenger,
            defender=challenge.defender,
            cards=won,
        )
    for seat in dict.fromkeys([seat for seat, _ in challenge.plays]):
        if seat != state.active:
            draw_up(state, seat)
    if challenge.piles and reveal_piles(state, list(challenge.piles)):
        return
    after_action(state)


def _kind_name(kind: str) -> str:
    return INFO[Kind(kind)].name


def touching(state: State, pile: int) -> list[Seat]:
    """Seats touching a draft pile, the active player first (docs/rules.md §8)."""
    seats = [0, 1] if state.config.players == 2 else [pile, (pile + 1) % 3]
    return sorted(seats, key=lambda seat: seat != state.active)


def piles_of(state: State, seat: Seat) -> list[int]:
    """The draft piles a seat may draft from."""
    if state.config.players == 2:
        return [0, 1, 2]
    return sorted({seat, (seat - 1) % 3})


def reveal_piles(state: State, piles: list[int]) -> bool:
    """Turn up the next card of each pile a claim took from; action cards act at once (R-13, R-14).

    Returns True when a Move needs a player's choice first; ``choose`` resumes from there.
    """
    while piles:
        pile_index = piles[0]
        state.covered[pile_index] = False
        pile = state.piles[pile_index]
        if not pile or not IS_ACTION[pile[-1]]:
            piles.pop(0)
            continue
        card = pile.pop()
        state.out.append(card)
        seats = touching(state, pile_index)
        if KIND_OF[card] is Kind.SWAP:
            _pile_swap(state, card, pile_index, seats)
            continue
        log(
            state,
            "pile_move",
            None,
            f"A Move turns up on pile {pile_index + 1} and acts on "
            f"{' and '.join(name(state, s) for s in seats)}.",
            card=card,
            pile=pile_index,
        )
        choices: list[tuple[Seat, Seat]] = []
        for seat in seats:
            stack = state.stacks[seat]
            if len(stack) == 2:
                stack.reverse()
                log(state, "moved", seat, f"{name(state, seat)}'s two sets trade places.")
            elif len(stack) >= 3:
                other = seats[1] if seat == seats[0] else seats[0]
                choices.append((other, seat))
        if choices:
            chooser, target = choices[0]
            state.pending = Pending(chooser, target, choices[1:], piles)
            state.covered[pile_index] = True  # the next card turns up once the Move is done
            return True
    return False


def _pile_swap(state: State, card: CardId, pile_index: int, seats: list[Seat]) -> None:
    a, b = seats
    if state.stacks[a] and state.stacks[b]:
        state.stacks[a][-1], state.stacks[b][-1] = state.stacks[b][-1], state.stacks[a][-1]
        outcome = "their top sets trade places"
    else:
        outcome = "nothing happens, as both need a set"
    log(
        state,
        "pile_swap",
        None,
        f"A Swap turns up on pile {pile_index + 1}: {name(state, a)} and {name(state, b)}, "
        f"{outcome}.",
        card=card,
        pile=pile_index,
        seats=[a, b],
    )


def move_stack(stack: list[list[CardId]], direction: str) -> None:
    if direction == "top_to_bottom":
        stack.insert(0, stack.pop())
    else:
        stack.append(stack.pop(0))


def end_round(state: State) -> None:
    """Score the round; deal the next one or end the game (docs/rules.md §6)."""
    scores = [stash(state, seat) for seat in range(state.config.players)]
    state.history.append(scores)
    log(
        state,
        "round_over",
        None,
        f"Round {state.round + 1} is over: "
        + ", ".join(f"{name(state, s)} ${v:,}" for s, v in enumerate(scores))
        + ".",
        scores=scores,
    )
    if match_over(state):
        state.over = True
        winners = standings(state)["winners"]
        log(
            state,
            "game_over",
            None,
            " and ".join(name(state, s) for s in winners)
            + (" share the win." if len(winners) > 1 else " wins."),
            winners=winners,
        )
        return
    state.round += 1
    deal_round(state)
    begin_round(state)


def begin_round(state: State) -> None:
    """Say who deals, and give the first turn to the dealer's left (a freshly dealt round)."""
    names = [f"Seat {seat}" for seat in range(state.config.players)]
    if state.config.names:
        names = list(state.config.names)
    log(
        state,
        "deal",
        None,
        f"Round {state.round + 1}: {names[state.dealer]} deals.",
        dealer=state.dealer,
    )
    start_turn(state, (state.dealer + 1) % state.config.players)


def round_winners(scores: list[int]) -> list[Seat]:
    best = max(scores)
    return [seat for seat, score in enumerate(scores) if score == best]


def totals(state: State) -> list[int]:
    return [
        sum(round_scores[seat] for round_scores in state.history)
        for seat in range(state.config.players)
    ]


def round_wins(state: State) -> list[int]:
    wins = [0] * state.config.players
    for scores in state.history:
        for seat in round_winners(scores):
            wins[seat] += 1
    return wins


def match_over(state: State) -> bool:
    rounds = state.config.rounds
    if rounds == ROUNDS_MILLION:
        return max(totals(state)) >= MILLION
    if rounds == ROUNDS_TWO_WINS:
        return max(round_wins(state)) >= 2
    assert isinstance(rounds, int)
    return len(state.history) >= rounds


def standings(state: State) -> dict[str, Any]:
    """Totals, round wins and the winners so far (the final ones once the game is over)."""
    sums = totals(state)
    wins = round_wins(state)
    if not state.history:
        winners: list[Seat] = []
    elif state.config.rounds == ROUNDS_TWO_WINS:
        best = max(wins)
        winners = [seat for seat, count in enumerate(wins) if count == best]
    else:
        winners = round_winners(sums)
    return {
        "rounds": [list(scores) for scores in state.history],
        "totals": sums,
        "round_wins": wins,
        "winners": winners,
    }
