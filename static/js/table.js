// The felt: rivals along the top, the centre (deck, discard, out, draft piles, the duel), your
// stack and hand at the bottom. It renders what the server sent; the places where the selected
// cards may go light up from the `legal` list (js/places.js), and pressing one plays there.

import { cardFace } from "./cardface.js";
import { kindName } from "./cards.js";
import { duelPanel, pendingPanel } from "./duel.js";
import { h, money } from "./dom.js";
import { litPlaces, pilePlace, setPlace } from "./places.js";
import { backs, card, playerPanel } from "./seats.js";

export { playerPanel };

const COMPACT = "(max-width: 959px)";
/** A phone's row of rivals holds three; four or five rivals take two rows. */
const PHONE_RIVALS_PER_ROW = 3;

/** A zone of the centre: its cards over "Name · count" (a phone's draft table sets the count
 * under the name, style.css). */
function zone(name, label, count, body, extra = {}) {
  return h(
    "div",
    { class: `zone zone-${name}`, dataset: { zone: name, ...extra } },
    body,
    h("span", { class: "zone-label", "aria-hidden": "true" }, h("span", { class: "zone-name" }, label), h("span", { class: "zone-dot" }, " · "), h("span", { class: "zone-count" }, String(count))),
  );
}

/** A place on the table that cards go to: a button, lit when the selection may go there. */
function placeButton(spec, content, extraClass = "") {
  if (!spec) return content;
  return h(
    "button",
    {
      type: "button",
      class: `place ${extraClass}${spec.lit ? " lit" : ""}`.trim(),
      "aria-label": spec.name,
      "aria-disabled": spec.lit ? "false" : "true",
      "aria-describedby": spec.lit ? "place-lit-help" : undefined,
      tabindex: spec.lit ? undefined : "-1",
      dataset: { place: spec.key, focus: `place-${spec.key}` },
      onClick: spec.onActivate,
    },
    content,
  );
}

/** "1 card", "6 cards". */
export function cardCount(count) {
  return `${count} card${count === 1 ? "" : "s"}`;
}

/**
 * Deck, discard pile, out of the game, draft piles (each a `data-zone`). `place(key, name)`
 * makes the discard pile and the draft piles places (at the table; not in a replay).
 */
export function centerPanel(view, place = () => null) {
  const top = view.discard[view.discard.length - 1];
  const discardName = top ? `Discard pile: ${kindName(top.kind)} on top, ${cardCount(view.discard.length)}` : "Discard pile, empty";
  return h(
    "section",
    { class: "center", "aria-label": "Deck and piles" },
    zone("deck", "Deck", view.deck_size, backs(view.deck_size, { size: "set", label: `Deck: ${cardCount(view.deck_size)}` })),
    zone(
      "discard",
      "Discard",
      view.discard.length,
      placeButton(place("discard", discardName), top ? card(top, { size: "set", testid: "discard-top" }) : h("span", { class: "slot" }, "empty")),
    ),
    zone("out", "Out", view.out.length, h("span", { class: "slot out-count", role: "img", "aria-label": `${cardCount(view.out.length)} out of the game` }, String(view.out.length))),
    (view.piles || []).map((pile, index) => {
      const name = pile.top ? `Draft pile ${index + 1}: ${kindName(pile.top.kind)} on top, ${cardCount(pile.size)}` : `Draft pile ${index + 1}: ${cardCount(pile.size)}, face down`;
      const body = pile.top ? card(pile.top, { size: "set" }) : backs(pile.size, { size: "set", label: `Draft pile ${index + 1}: ${cardCount(pile.size)}, face down` });
      return zone("pile", `Pile ${index + 1}`, pile.size, placeButton(place(pilePlace(index), name), body), { pile: String(index) });
    }),
  );
}

function handCard(cardData, selected, handlers, short) {
  const button = h(
    "button",
    {
      type: "button",
      class: "hand-card card",
      "aria-pressed": selected ? "true" : "false",
      dataset: { focus: `card-${cardData.id}`, kind: cardData.kind, cardId: String(cardData.id) },
      onClick: (event) => {
        if (!handlers.wasDragged(event)) handlers.toggleCard(cardData.id);
      },
    },
    cardFace(cardData, { size: "hand", short }),
  );
  button.addEventListener("pointerdown", (event) => handlers.startDrag(event, cardData.id));
  return button;
}

/** Left and right move along the hand; up goes to the first lit place. */
function handKeys(event) {
  const cards = [...event.currentTarget.querySelectorAll("button.hand-card")];
  const index = cards.indexOf(document.activeElement);
  if (index < 0) return;
  if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
    cards[(index + (event.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length].focus();
    event.preventDefault();
  } else if (event.key === "ArrowUp") {
    const lit = document.querySelector(".felt .place.lit");
    if (lit) {
      lit.focus();
      event.preventDefault();
    }
  }
}

function handZone(view, ui, handlers) {
  const cards = view.hand.length
    ? h(
        "div",
        { class: "cards", role: "group", "aria-label": "Your hand: select cards, then press a lit place (Up arrow goes to the first)", onKeydown: handKeys },
        view.hand.map((c) => handCard(c, ui.selected.has(c.id), handlers, window.matchMedia(COMPACT).matches)),
      )
    : h("p", { class: "empty" }, "Your hand is empty.");
  // Through the CSSOM (the Content-Security-Policy forbids style attributes): the fan's overlap.
  cards.style.setProperty("--hand-count", String(Math.max(view.hand.length, 1)));
  return h("section", { class: "hand", dataset: { zone: "hand" }, "aria-labelledby": "hand-title" }, h("h2", { id: "hand-title", class: "visually-hidden" }, "Your hand"), cards);
}

function whose(view, seat) {
  return seat === view.seat ? "Your" : `${view.players[seat].name ?? `Seat ${seat + 1}`}'s`;
}

/** The places of the table and whether each is lit for the selected cards. */
function placeMaker(message, ui, handlers) {
  const view = message.view;
  const seated = view.seat !== null && view.seat !== undefined;
  if (!seated || view.over) return { place: () => null, setPlaceFor: null, lit: new Map() };
  const mine = view.to_act.includes(view.seat);
  const lit = mine ? litPlaces(message.legal, ui.selected, view.seat) : new Map();
  const place = (key, name) => ({ key, name, lit: lit.has(key), onActivate: () => handlers.playAt(key) });
  const setPlaceFor = (seat, depth, set) => {
    if (depth > 1 || (seat === view.seat && depth > 0)) return null;
    const where = depth === 0 ? "top set" : "second set";
    return place(setPlace(seat, depth), `${whose(view, seat)} ${where}: ${kindName(set.kind)}, ${money(set.value)}, ${set.exposed ? "exposed" : "protected"}`);
  };
  return { place, setPlaceFor, lit };
}

/** The felt: every zone of the view and your hand. */
export function tableView(message, ui, handlers) {
  const view = message.view;
  const seated = view.seat !== null && view.seat !== undefined;
  const rivals = view.players.filter((p) => p.seat !== view.seat);
  const me = seated ? view.players[view.seat] : null;
  const { place, setPlaceFor } = placeMaker(message, ui, handlers);
  const seatOptions = (p) => ({
    toAct: view.to_act.includes(p.seat),
    info: ui.room?.seats?.[p.seat],
    expanded: ui.expanded.has(p.seat),
    onExpand: handlers.toggleStack,
    onToggled: handlers.stackToggled,
    place: setPlaceFor,
  });
  let duel = null;
  if (view.challenge) duel = duelPanel(message, ui, place);
  else if (view.pending) duel = pendingPanel(message);
  // A phone (or a table of five or six) draws the stacks' cards small; their words stay in the set's label.
  const compact = window.matchMedia(COMPACT).matches;
  // A phone's rivals stand three to a row, each with its name whole, its stash in short and
  // its top set in words (kind, value, exposed or protected).
  const rivalSize = compact ? "words" : rivals.length >= 4 ? "mini" : "set";
  const rivalRow = h("div", { class: `rivals${compact || rivals.length >= 4 ? " compact" : ""}` }, rivals.map((p) => playerPanel(view, p, { ...seatOptions(p), size: rivalSize, narrow: compact })));
  rivalRow.style.setProperty("--rivals", String(Math.max(compact ? Math.min(rivals.length, PHONE_RIVALS_PER_ROW) : rivals.length, 1)));
  const newSet = me ? placeButton(place("new-set", "Start a new set"), h("span", { class: "new-set-slot" }, "New set"), "new-set-place") : null;
  return h(
    "div",
    { class: "felt", dataset: { version: String(message.version) } },
    h("p", { id: "place-lit-help", class: "visually-hidden" }, "Lit: the selected cards can be played here."),
    rivalRow,
    h("div", { class: `middle ${duel ? "with-duel" : ""}` }, centerPanel(view, place), h("div", { class: "duel-slot" }, duel)),
    me ? playerPanel(view, me, { ...seatOptions(me), size: compact ? "mini" : "set", leading: newSet, children: handZone(view, ui, handlers) }) : null,
  );
}
