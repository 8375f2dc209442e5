// The server's legal actions and blocked reasons, in words. Nothing here decides what is
// allowed: the client lists `legal`, filters it by the cards the player selected, and shows
// `blocked` reasons when the player asks for something that is not in `legal`.

import { KINDS, kindName } from "./cards.js";

export const ACTION_TYPES = [
  ["form_set", "Form a set"],
  ["form_set_discard", "Take the discard"],
  ["discard", "Discard"],
  ["improve", "Improve"],
  ["challenge", "Challenge"],
  ["swap", "Swap"],
  ["move", "Move"],
  ["draft", "Draft"],
  ["end_turn", "End turn"],
];

/** The action types each rule set has (RULES.md §2): the others get no button at all. */
const RULE_SET_LACKS = {
  simple: new Set(["improve", "swap", "move", "end_turn"]),
  simple_actions: new Set(["improve", "end_turn"]),
  advanced: new Set(),
};

/** Whether the view's rule set (and variant) has this kind of action. */
export function typeInRules(type, view) {
  if (type === "draft" && !view.draft) return false;
  return !RULE_SET_LACKS[view.rules]?.has(type);
}

export function typeLabel(type) {
  const found = ACTION_TYPES.find(([key]) => key === type);
  return found ? found[1] : type;
}

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

/** The legal actions that use every selected card (all of them when nothing is selected). */
export function matching(legal, selected) {
  if (!selected.size) return legal;
  return legal.filter((action) => {
    const cards = cardsOf(action);
    return [...selected].every((id) => cards.includes(id));
  });
}

/** The actions whose words are the same (two Jewelry cards to discard) listed once. */
export function distinct(actions, view, kinds = kindsById(view)) {
  const seen = new Set();
  return actions.filter((action) => {
    const words = describe(action, view, kinds);
    if (seen.has(words)) return false;
    seen.add(words);
    return true;
  });
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
 * words (a listed move stands for every action with its words, see `distinct`).
 */
export function isHinted(hint, action, words, view, kinds = kindsById(view)) {
  if (!hint) return false;
  return actionKey(hint.action) === actionKey(action) || describe(hint.action, view, kinds) === words;
}
