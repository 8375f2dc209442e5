// The table's places (the discard pile, a new set, a top set, a draft pile, the duel) and the
// legal actions each one stands for with the selected cards. Nothing here decides what is
// allowed: every place is lit from the server's `legal` list alone.

import { KINDS } from "./cards.js";
import { cardsOf, describe, kindsById, reasonsFor } from "./moves.js";

/** The place key of a player's set: `set:SEAT:DEPTH` (depth 0 = the top set). */
export function setPlace(seat, depth) {
  return `set:${seat}:${depth}`;
}

export function pilePlace(pile) {
  return `pile:${pile}`;
}

/** Where on the table an action is made: the places a card goes to for it (none: a button). */
export function placesOf(action, me) {
  switch (action.type) {
    case "discard":
    case "form_set_discard":
      return ["discard"];
    case "form_set":
      return ["new-set"];
    case "improve":
      return [setPlace(me, 0)];
    case "challenge":
      return [setPlace(action.target, action.depth)];
    case "swap":
    case "move":
      return [setPlace(action.target, 0)];
    case "draft":
      return action.piles.map(pilePlace);
    case "answer":
      return ["duel"];
    default:
      return [];
  }
}

function usesAll(action, selected) {
  const cards = cardsOf(action);
  return [...selected].every((id) => cards.includes(id));
}

function usesExactly(action, selected) {
  const cards = cardsOf(action);
  return cards.length === selected.size && usesAll(action, selected);
}

/**
 * The lit places for the selected cards: a Map from place key to the legal actions made there.
 * A place is lit when some action there uses every selected card; where some use exactly the
 * selection, only those count (one Yacht selected: "Discard Yacht", not a pair with it).
 */
export function litPlaces(legal, selected, me) {
  const lit = new Map();
  if (!selected.size) return lit;
  for (const action of legal) {
    if (!usesAll(action, selected)) continue;
    for (const place of placesOf(action, me)) {
      if (!lit.has(place)) lit.set(place, []);
      lit.get(place).push(action);
    }
  }
  for (const [place, actions] of lit) {
    const exact = actions.filter((action) => usesExactly(action, selected));
    if (exact.length) lit.set(place, exact);
  }
  return lit;
}

/** Why the selected cards cannot go to the place `key`, from the server's `blocked` reasons. */
export function whyNot(message, selected, key) {
  const view = message.view;
  if (!view.to_act.includes(view.seat)) return "It is not your move.";
  const [kind, seatText, depthText] = key.split(":");
  const rivalSet = kind === "set" && Number(seatText) !== view.seat;
  let reasons = [];
  if (rivalSet) reasons = reasonsFor(message.blocked, "challenge", { target: Number(seatText), depth: Number(depthText) });
  else if (key === "new-set") reasons = reasonsFor(message.blocked, "form_set");
  else if (key === "discard") reasons = reasonsFor(message.blocked, "discard");
  else if (kind === "set") reasons = reasonsFor(message.blocked, "improve");
  else if (key === "duel") reasons = reasonsFor(message.blocked, "answer");
  if (rivalSet && reasons.length) return `You cannot challenge that set: ${reasons.join(" ")}`;
  if (!selected.size) return "Select cards in your hand first, then press where they go (or drag them there).";
  return `No move puts the selected cards there. ${reasons.join(" ")}`.trim();
}

const TYPE_ORDER = ["form_set", "form_set_discard", "improve", "challenge", "answer", "swap", "move", "draft", "discard", "choose", "concede", "end_turn"];

function wildsIn(action, kinds) {
  return cardsOf(action).filter((id) => KINDS[kinds.get(id)]?.group !== "asset").length;
}

/**
 * The actions in the order a player reads them: by kind of move, natural moves before those
 * spending a wild (a pair of Yachts before a Yacht with a Gold Bar), and each form of words
 * once (two Jewelry cards to discard are one move).
 */
export function naturalOrder(actions, view, kinds = kindsById(view)) {
  const seen = new Set();
  const described = [];
  for (const action of actions) {
    const words = describe(action, view, kinds);
    if (seen.has(words)) continue;
    seen.add(words);
    described.push({ action, words, rank: TYPE_ORDER.indexOf(action.type), wilds: wildsIn(action, kinds) });
  }
  described.sort((a, b) => a.rank - b.rank || a.wilds - b.wilds);
  return described;
}
