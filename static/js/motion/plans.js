// What each log event shows: from an entry and the snapshots before and after it, the flights
// of ghost cards and sets that tell it (`../motion.js` plays them).

import { cardIn, handSlot, setOf, zone } from "./where.js";

const MAX_DRAWN = 3; // ghosts per draw
const MAX_STACK_FLIGHTS = 6;

// A plan is { kind, flights: [{ from, to, el }], marks: [...] }: each flight is a ghost of `el`
// (a rendered card or set, or a plain card shape when null) from rect `from` to rect `to`.
// A spot is a card, a set or a hand's last card (a "piece"), or else a whole zone, where a
// card-sized rect in its middle stands for it.

const CARD_SIZE = { width: 48, height: 68 };

function centred(rect, size) {
  const width = Math.min(size.width, rect.width);
  const height = Math.min(size.height, rect.height);
  const left = rect.left + (rect.width - width) / 2;
  const top = rect.top + (rect.height - height) / 2;
  return { left, top, width, height };
}

function flight(from, to) {
  if (!from || !to) return null;
  const size = from.piece ? from.rect : to.piece ? to.rect : CARD_SIZE;
  return {
    from: from.piece ? from.rect : centred(from.rect, size),
    to: to.piece ? to.rect : centred(to.rect, size),
    el: to.piece && to.el.isConnected ? to.el : null,
  };
}

/** Cards from where they were (`fromZones`) to where they are now (`toZones`). */
function cardFlights(before, after, ids, { fromZones, toZones, fromFallback, toFallback }) {
  return ids.map((id) =>
    flight(cardIn(before, id, fromZones) ?? fromFallback(id), cardIn(after, id, toZones) ?? toFallback),
  );
}

function setMark(seat, ids, depth = 0) {
  return { type: "set", seat: String(seat), ids: ids.map(String), depth };
}

function cardMark(id) {
  return { type: "card", id: String(id) };
}

function handToSet({ entry, before, after, kind }) {
  const seat = entry.seat;
  const ids = entry.cards ?? [entry.card];
  const set = setOf(after, seat, { ids, depth: 0 });
  const flights = cardFlights(before, after, ids, {
    fromZones: [`hand:${seat}`, "discard"],
    toZones: [`stack:${seat}`],
    fromFallback: () => handSlot(before, seat),
    toFallback: set,
  });
  return { kind, flights, marks: [setMark(seat, ids)] };
}

function toDuel({ entry, before, after, kind }) {
  const seat = entry.seat;
  const piles = entry.piles ?? [];
  const duel = zone(after, "duel") ?? setOf(after, seat, { depth: 0 });
  const flights = cardFlights(before, after, entry.cards, {
    fromZones: [`hand:${seat}`, ...piles.map((p) => `pile:${p}`)],
    toZones: ["duel"],
    fromFallback: (id) =>
      entry.cards.indexOf(id) > 0 && piles.length
        ? zone(before, `pile:${piles[entry.cards.indexOf(id) - 1] ?? piles[0]}`)
        : handSlot(before, seat),
    toFallback: duel,
  });
  return { kind, flights, marks: entry.cards.map(cardMark) };
}

/** A card that leaves the game (Swap, Move, an action card turned up on a pile). */
function toOut(before, after, from) {
  return flight(from, zone(after, "out") ?? zone(after, "discard"));
}

function discard({ entry, before, after }) {
  const from = cardIn(before, entry.card, [`hand:${entry.seat}`]) ?? handSlot(before, entry.seat);
  const to = cardIn(after, entry.card, ["discard"]);
  if (!to) return { kind: "discard", flights: [toOut(before, after, from)], marks: [] };
  return { kind: "discard", flights: [flight(from, to)], marks: [cardMark(entry.card)] };
}

function draw({ entry, before, after }) {
  const seat = entry.seat;
  const held = new Set(
    [...before.cards].filter(([, places]) => places.some((p) => p.zone === `hand:${seat}`)).map(([id]) => id),
  );
  const drawn = [...after.cards]
    .filter(([id, places]) => !held.has(id) && places.some((p) => p.zone === `hand:${seat}`))
    .map(([id]) => cardIn(after, id, [`hand:${seat}`]));
  const deck = zone(before, "deck");
  const count = Math.min(Number(entry.count) || 1, MAX_DRAWN);
  const flights = [];
  for (let i = 0; i < count; i += 1) flights.push(flight(deck, drawn[i] ?? handSlot(after, seat)));
  return { kind: "draw", flights, marks: [] };
}

function challengeWon({ entry, before, after, memory }) {
  const { seat: winner, defender, cards } = entry;
  const won = winner === entry.challenger;
  const held = setOf(before, defender, { ids: cards, depth: memory.depth });
  const target = won ? setOf(after, winner, { ids: cards, depth: 0 }) : setOf(after, defender, { ids: cards });
  // The cards played in the duel join the set; the set's own cards fly with the set.
  const played = cards.filter((id) => !held?.ids.has(String(id)));
  const flights = cardFlights(before, after, played, {
    fromZones: ["duel"],
    toZones: [`stack:${won ? winner : defender}`],
    fromFallback: () => zone(before, "duel"),
    toFallback: target,
  });
  if (!won) return { kind: "defend", flights, marks: [setMark(defender, cards, memory.depth)] };
  return { kind: "steal", flights: [flight(held, target), ...flights], marks: [setMark(winner, cards)] };
}

function claimWon({ entry, before, after }) {
  const target = setOf(after, entry.seat, { ids: entry.cards, depth: 0 });
  const flights = cardFlights(before, after, entry.cards, {
    fromZones: ["duel"],
    toZones: [`stack:${entry.seat}`],
    fromFallback: () => zone(before, "duel"),
    toFallback: target,
  });
  return { kind: "claim", flights, marks: [setMark(entry.seat, entry.cards)] };
}

/** Two seats' top sets trade places. */
function exchange(before, after, a, b) {
  const setA = setOf(before, a, { depth: 0 });
  const setB = setOf(before, b, { depth: 0 });
  if (!setA || !setB) return { flights: [], marks: [] };
  const idsA = [...setA.ids];
  const idsB = [...setB.ids];
  return {
    flights: [
      flight(setA, setOf(after, b, { ids: idsA, depth: 0 })),
      flight(setB, setOf(after, a, { ids: idsB, depth: 0 })),
    ],
    marks: [setMark(b, idsA), setMark(a, idsB)],
  };
}

function swap({ entry, before, after }) {
  const { flights, marks } = exchange(before, after, entry.seat, entry.target);
  const card = toOut(before, after, cardIn(before, entry.card, [`hand:${entry.seat}`]) ?? handSlot(before, entry.seat));
  return { kind: "swap", flights: [...flights, card], marks };
}

function pileSwap({ entry, before, after }) {
  const [a, b] = entry.seats ?? [];
  const { flights, marks } = exchange(before, after, a, b);
  const card = toOut(before, after, cardIn(before, entry.card, [`pile:${entry.pile}`]) ?? zone(before, `pile:${entry.pile}`));
  return { kind: "swap", flights: [...flights, card], marks };
}

/** A stack reordered: its top set to the bottom, or its bottom set to the top. */
function reorder(before, after, seat, newDepth) {
  const sets = before.sets.get(String(seat)) ?? [];
  const count = sets.length;
  const flights = [];
  const marks = [];
  for (const set of sets) {
    const depth = newDepth(set.depth, count);
    const landed = setOf(after, seat, { ids: [...set.ids], depth });
    if (flights.length < MAX_STACK_FLIGHTS) flights.push(flight(set, landed));
    if (set.depth === 0 || set.depth === count - 1) marks.push(setMark(seat, [...set.ids], depth));
  }
  return { flights, marks };
}

const DIRECTIONS = {
  top_to_bottom: (depth, count) => (depth === 0 ? count - 1 : depth - 1),
  bottom_to_top: (depth, count) => (depth === count - 1 ? 0 : depth + 1),
};

function move({ entry, before, after }) {
  const newDepth = DIRECTIONS[entry.direction];
  if (!newDepth) return null;
  const { flights, marks } = reorder(before, after, entry.target, newDepth);
  if (entry.event === "move") {
    const from = cardIn(before, entry.card, [`hand:${entry.seat}`]) ?? handSlot(before, entry.seat);
    flights.push(toOut(before, after, from));
  }
  return { kind: "move", flights, marks };
}

function moved({ entry, before, after }) {
  return { kind: "move", ...reorder(before, after, entry.seat, (depth) => 1 - depth) };
}

function pileMove({ entry, before, after }) {
  const from = cardIn(before, entry.card, [`pile:${entry.pile}`]) ?? zone(before, `pile:${entry.pile}`);
  return { kind: "pile_move", flights: [toOut(before, after, from)], marks: [] };
}

/**
 * How each log event animates. Every other event (turn, deal, end_turn, concede, skip,
 * round_over, game_over, and the server's own ones such as timeout, away, back) shows nothing.
 * To animate a new event, add its name here with a function of { entry, before, after, memory }.
 */
const PLANS = {
  discard,
  draw,
  form_set: (args) => handToSet({ ...args, kind: "form_set" }),
  form_set_discard: (args) => handToSet({ ...args, kind: "form_set" }),
  improve: (args) => handToSet({ ...args, kind: "improve" }),
  challenge: (args) => toDuel({ ...args, kind: "challenge" }),
  answer: (args) => toDuel({ ...args, kind: "answer" }),
  draft: (args) => toDuel({ ...args, kind: "draft" }),
  challenge_won: challengeWon,
  claim_won: claimWon,
  swap,
  pile_swap: pileSwap,
  move,
  choose: move,
  moved,
  pile_move: pileMove,
};

const isCard = (value) => Number.isInteger(value);

/** An entry of the shape the engine writes: seats and cards are integers where present. */
function wellFormed(entry) {
  if (!entry || typeof entry !== "object") return false;
  const { seat, card, cards } = entry;
  return (
    (seat === undefined || seat === null || isCard(seat)) &&
    (card === undefined || isCard(card)) &&
    (cards === undefined || (Array.isArray(cards) && cards.every(isCard)))
  );
}

export function planFor(entry, before, after, memory) {
  const make = wellFormed(entry) && Object.hasOwn(PLANS, entry.event) ? PLANS[entry.event] : null;
  if (!make) return null;
  try {
    const plan = make({ entry, before, after, memory });
    if (!plan) return null;
    plan.flights = plan.flights.filter((f) => f && moves(f.from, f.to));
    return plan;
  } catch {
    return null; // an entry of an unexpected shape animates nothing; the table is still right
  }
}

function moves(from, to) {
  return Math.abs(from.left - to.left) + Math.abs(from.top - to.top) > 2 || Math.abs(from.width - to.width) > 2;
}
