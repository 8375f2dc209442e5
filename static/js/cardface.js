// A card drawn as a card: the kind's illustration from the sprite static/img/cards.svg (one
// <symbol id="art-KIND"> per engine kind id, and "card-back"), its name and value as text, and
// a colour band. It only shows a card: whatever wraps it (a toggle button in the hand, a set on
// a stack) decides what pressing it does.

import { KINDS, kindName, printedName, shortName, shortValue } from "./cards.js";
import { h, money, s } from "./dom.js";

const SPRITE = "/static/img/cards.svg";
const SIZES = new Set(["hand", "set", "mini"]);


function sizeClass(size) {
  if (!SIZES.has(size)) throw new Error(`unknown card size: ${size}`);
  return `cardface--${size}`;
}

function art(symbol, className, viewBox) {
  return s(
    "svg",
    { class: className, viewBox, "aria-hidden": "true", focusable: "false" },
    s("use", { href: `${SPRITE}#${symbol}` }),
  );
}

/** What a screen reader says for a card of this kind: "Gold Bar, wild, $50,000". */
export function faceLabel(kind) {
  const info = KINDS[kind];
  if (!info) return kindName(kind);
  if (info.group === "action") return `${info.name}, action card`;
  const worth = money(info.value);
  if (kind === "penny_jar") return `${info.name}, wild, counts as two in a challenge, ${worth}`;
  return info.group === "wild" ? `${info.name}, wild, ${worth}` : `${info.name}, ${worth}`;
}

function bandText(kind) {
  const info = KINDS[kind];
  if (!info) return "";
  return info.group === "action" ? "Action" : shortValue(kind);
}

/**
 * The face of one card ({id, kind}; id may be left out for a sample of a kind). It carries
 * data-card (when there is an id) and data-kind, and reads as faceLabel(kind). `short` prints
 * the short names (Coins, Guitar, Stocks): the default for the small sizes.
 */
export function cardFace(card, { size = "hand", short = size !== "hand" } = {}) {
  const info = KINDS[card.kind] ?? { group: "asset" };
  const dataset = { kind: card.kind };
  if (card.id !== undefined && card.id !== null) dataset.card = String(card.id);
  const name = short ? shortName(card.kind) : kindName(card.kind);
  return h(
    "span",
    {
      class: `cardface ${sizeClass(size)} group-${info.group} kind-${card.kind}${name.length > (size === "hand" ? 11 : 8) ? " long-name" : ""}`,
      dataset,
    },
    h(
      "span",
      { class: "cf-band", "aria-hidden": "true" },
      h("span", { class: "cf-value" }, bandText(card.kind)),
      info.group === "wild" ? h("span", { class: "cf-tag" }, card.kind === "penny_jar" ? "×2" : "W") : null,
    ),
    art(`art-${card.kind}`, "cf-art", "0 0 100 100"),
    h("span", { class: "cf-name", "aria-hidden": "true" }, printedName(name)),
    h("span", { class: "cf-label" }, faceLabel(card.kind)),
  );
}

/**
 * A card's back: the deck, a draft pile's hidden cards, a rival's hand. With `count`, a small
 * stack with the number on it. `label` replaces the spoken text ("3 cards, face down").
 */
export function cardBack({ count, size = "hand", label } = {}) {
  const stacked = count !== undefined && count !== null;
  const spoken =
    label ?? (stacked ? `${count} ${count === 1 ? "card" : "cards"}, face down` : "A card, face down");
  return h(
    "span",
    {
      class: `cardback ${sizeClass(size)}${stacked ? " stacked" : ""}${stacked && count === 0 ? " empty" : ""}`,
      role: "img",
      "aria-label": spoken,
    },
    art("card-back", "cb-art", "0 0 100 140"),
    stacked ? h("span", { class: "cb-count", "aria-hidden": "true" }, String(count)) : null,
  );
}
