// The server's legal actions and blocked reasons, in words. Nothing here decides what is
// allowed: the table lights places from `legal` (js/places.js), lists it in the move menu, and
// shows `blocked` reasons when the player asks for something that is not in `legal`.

import { KINDS, kindName } from "./cards.js";

export function cardsOf(action) {
  if (Array.isArray(action.cards)) return action.cards;
  if (action.card !== undefined) return [action.card];
  return [];
}

/** Every card id the view shows, by kind: the hand, the piles, every set and every play. */
export function kindsById(view) {
  const kinds = new Map();
  const note = (cards) => {
    for (const card of cards || []) if (card) kinds.set(card.id, card.kind);
  };
  note(view.hand);
  note(view.discard);
  note(view.out);
  note((view.piles || []).map((pile) => pile.top));
  for (const player of view.players) for (const set of player.stack) note(set.cards);
  if (view.challenge) {
    note(view.challenge.claim);
    for (const play of view.challenge.plays) note(play.cards);
  }
  for (const hand of view.hands || []) note(hand);
  return kinds;
}

/** Whether the view's seat is asked to act now: its turn, its answer or its choice. */
export function isMine(view) {
  return view.seat !== null && view.seat !== undefined && view.to_act.includes(view.seat);
}

/** Whether two states offer the same moves (`legal`, as the server lists them). */
export function sameMoves(legal, other) {
  if (legal.length !== other.length) return false;
  return legal.every((action, index) => JSON.stringify(action) === JSON.stringify(other[index]));
}

export function playerName(view, seat) {
  if (seat === view.seat) return "you";
  return view.players[seat]?.name ?? `Seat ${seat + 1}`;
}

function possessive(view, seat) {
  return seat === view.seat ? "your" : `${playerName(view, seat)}'s`;
}

/** Cards in words, the kind's own cards before wilds, so a pair reads the same either way. */
function cardsText(ids, kinds) {
  const wild = (id) => (KINDS[kinds.get(id)]?.group === "asset" ? 0 : 1);
  const name = (id) => kindName(kinds.get(id));
  const ordered = [...ids].sort((a, b) => wild(a) - wild(b) || name(a).localeCompare(name(b)));
  return ordered.map(name).join(" + ");
}

const DIRECTIONS = {
  top_to_bottom: "top set to the bottom",
  bottom_to_top: "bottom set to the top",
};

/** One legal action as a sentence for its button. */
export function describe(action, view, kinds = kindsById(view)) {
  const cards = cardsText(cardsOf(action), kinds);
  switch (action.type) {
    case "form_set":
      return `Form a set: ${cards}`;
    case "form_set_discard": {
      const top = view.discard[view.discard.length - 1];
      return `Complete the ${kindName(top?.kind)} on the discard pile with your ${cards}`;
    }
    case "discard":
      return `Discard ${cards}`;
    case "improve":
      return `Improve your top set with ${cards}`;
    case "challenge": {
      const stack = view.players[action.target].stack;
      const set = stack[stack.length - 1 - action.depth];
      const where = action.depth ? "second-from-top" : "top";
      return `Challenge ${possessive(view, action.target)} ${where} ${kindName(set?.kind)} set with ${cards}`;
    }
    case "answer":
      return `Answer with ${cards}`;
    case "concede":
      return "Concede";
    case "swap":
      return `Swap: trade your top set with ${possessive(view, action.target)}`;
    case "move":
      return `Move ${possessive(view, action.target)} stack: ${DIRECTIONS[action.direction]}`;
    case "draft": {
      const piles = action.piles.map((pile) => pile + 1).join(" and ");
      return `Draft from pile ${piles} with ${cards}`;
    }
    case "choose":
      return `Move the ${DIRECTIONS[action.direction]}`;
    case "end_turn":
      return "End your turn";
    default:
      return action.type;
  }
}

/** The blocked reasons for one action type (optionally one target set), without repeats. */
export function reasonsFor(blocked, type, where = {}) {
  const reasons = blocked
    .filter((entry) => entry.type === type)
    .filter((entry) => where.target === undefined || entry.target === undefined || entry.target === where.target)
    .filter((entry) => where.depth === undefined || entry.depth === undefined || entry.depth === where.depth)
    .map((entry) => entry.reason);
  return [...new Set(reasons)];
}

/** A stable key for an action, so a re-render can put keyboard focus back on it. */
export function actionKey(action) {
  return JSON.stringify(action);
}

/**
 * Whether a listed move is the one a hint suggests: the same action, or one told in the same
 * words (a listed move stands for every action with its words, see `naturalOrder` in js/places.js).
 */
export function isHinted(hint, action, words, view, kinds = kindsById(view)) {
  if (!hint) return false;
  return actionKey(hint.action) === actionKey(action) || describe(hint.action, view, kinds) === words;
}
