// The table: rivals along the top, the centre (deck, discard, out, draft piles, the duel), your
// stack, hand and moves at the bottom, the status line above. It renders what the server sent;
// each move button sends one of the server's legal actions.

import { cardFace } from "./cardface.js";
import { duelPanel, optionButton, pendingPanel } from "./duel.js";
import { h } from "./dom.js";
import { ACTION_TYPES, describe, distinct, isHinted, kindsById, matching, typeInRules } from "./moves.js";
import { backs, card, playerPanel } from "./seats.js";

export { playerPanel };

const MAX_OPTIONS = 30;

function zone(name, label, body, extra = {}) {
  return h("div", { class: `zone zone-${name}`, dataset: { zone: name, ...extra } }, body, h("span", { class: "zone-label" }, label));
}

/** Deck, discard pile, out of the game, draft piles (each a `data-zone`). */
export function centerPanel(view) {
  const top = view.discard[view.discard.length - 1];
  return h(
    "section",
    { class: "center", "aria-label": "Deck and piles" },
    zone("deck", `Deck · ${view.deck_size}`, backs(view.deck_size, { size: "set", label: `Deck: ${view.deck_size} cards` })),
    zone(
      "discard",
      `Discard · ${view.discard.length}`,
      top ? card(top, { size: "set", testid: "discard-top" }) : h("span", { class: "slot" }, "empty"),
    ),
    zone("out", `Out · ${view.out.length}`, h("span", { class: "slot out-count", role: "img", "aria-label": `${view.out.length} cards out of the game` }, String(view.out.length))),
    (view.piles || []).map((pile, index) =>
      zone(
        "pile",
        `Pile ${index + 1} · ${pile.size}`,
        pile.top ? card(pile.top, { size: "set" }) : backs(pile.size, { size: "set", label: `Draft pile ${index + 1}: ${pile.size} cards, face down` }),
        { pile: String(index) },
      ),
    ),
  );
}

function handCard(cardData, selected, onToggle) {
  return h(
    "button",
    {
      type: "button",
      class: "hand-card card",
      "aria-pressed": selected ? "true" : "false",
      dataset: { focus: `card-${cardData.id}`, kind: cardData.kind },
      onClick: () => onToggle(cardData.id),
    },
    cardFace(cardData, { size: "hand" }),
  );
}

function moveFocusWithArrows(event) {
  if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
  const cards = [...event.currentTarget.querySelectorAll("button.hand-card")];
  const index = cards.indexOf(document.activeElement);
  if (index < 0) return;
  const next = cards[(index + (event.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length];
  next.focus();
  event.preventDefault();
}

function handZone(view, ui, handlers) {
  return h(
    "section",
    { class: "hand", dataset: { zone: "hand" }, "aria-labelledby": "hand-title" },
    h("h2", { id: "hand-title", class: "visually-hidden" }, "Your hand"),
    view.hand.length
      ? h(
          "div",
          { class: "cards", role: "group", "aria-label": "Your hand: select cards, then pick a move", onKeydown: moveFocusWithArrows },
          view.hand.map((c) => handCard(c, ui.selected.has(c.id), handlers.toggleCard)),
        )
      : h("p", { class: "empty" }, "Your hand is empty."),
  );
}

/** What the seat may do now: action types (with reasons when unavailable) and the moves. */
function movesPanel(message, ui, handlers) {
  const view = message.view;
  const kinds = kindsById(view);
  const legal = message.legal.filter((a) => a.type !== "answer" && a.type !== "concede" && a.type !== "choose");
  const present = new Set([...legal.map((a) => a.type), ...message.blocked.filter((b) => b.code !== "not_in_rules").map((b) => b.type)]);
  const chips = ACTION_TYPES.filter(([type]) => present.has(type) && typeInRules(type, view) && type !== "end_turn").map(([type, label]) => {
    const available = legal.some((a) => a.type === type);
    return h(
      "button",
      {
        type: "button",
        class: `chip ${available ? "available" : "unavailable"}`,
        "aria-pressed": ui.filter?.type === type ? "true" : "false",
        "aria-disabled": available ? undefined : "true",
        dataset: { focus: `type-${type}`, type },
        onClick: () => handlers.pickType(type, available),
      },
      label,
    );
  });
  let options = legal;
  if (ui.filter) {
    options = options.filter((a) => a.type === ui.filter.type);
    if (ui.filter.target !== undefined) options = options.filter((a) => a.target === ui.filter.target && a.depth === ui.filter.depth);
  }
  options = distinct(matching(options, ui.selected), view, kinds);
  const endTurn = options.find((a) => a.type === "end_turn");
  const listed = options.filter((a) => a.type !== "end_turn");
  const hinted = (a) => isHinted(ui.hint, a, describe(a, view, kinds), view, kinds);
  const shown = listed.slice(0, MAX_OPTIONS);
  // The suggested move is always among the buttons, however many moves there are.
  const suggestion = listed.slice(MAX_OPTIONS).find(hinted);
  if (suggestion) shown.push(suggestion);
  let hint = null;
  if (legal.length && !options.length) hint = "No move uses every selected card. Select fewer cards, or another action.";
  else if (listed.length > MAX_OPTIONS) hint = `${listed.length} moves: select cards in your hand to narrow them down.`;
  return h(
    "section",
    { class: "moves", "aria-labelledby": "moves-title" },
    h("h2", { id: "moves-title", class: "visually-hidden" }, "Your moves"),
    h("div", { class: "chips", role: "group", "aria-label": "Actions" }, chips),
    hint ? h("p", { class: "hint" }, hint) : null,
    listed.length || endTurn
      ? h(
          "div",
          { class: "options", role: "group", "aria-label": "Moves" },
          shown.map((a) => optionButton(a, describe(a, view, kinds), handlers.act, "", hinted(a))),
          endTurn ? optionButton(endTurn, describe(endTurn, view, kinds), handlers.act, "end-turn", hinted(endTurn)) : null,
        )
      : null,
  );
}

export function turnStatus(view) {
  const names = view.players.map((p) => p.name ?? `Seat ${p.seat + 1}`);
  if (view.over) return "The game is over.";
  const waiting = view.to_act.filter((seat) => seat !== view.seat).map((seat) => names[seat]);
  if (view.seat !== null && view.to_act.includes(view.seat)) {
    if (view.challenge) return "Your answer: the challenge is waiting for you.";
    if (view.pending) return "Your choice: a Move card turned up.";
    const second = view.actions_done > 0 ? " (second action, or end your turn)" : "";
    return `Your turn${second}.`;
  }
  const watching = view.seat === null ? "Watching. " : "";
  return waiting.length ? `${watching}Waiting for ${waiting.join(" and ")}.` : watching;
}

/** The status line: whose move it is and the clock (filled in every second by the page). */
export function statusLine(view) {
  const roundInfo = view.rounds && view.rounds.condition !== 1 ? ` · Round ${view.round + 1}` : "";
  return [
    h("p", { class: "turn-status", role: "status", tabindex: "-1", dataset: { testid: "turn-status" } }, turnStatus(view)),
    h("span", { class: "clock", role: "timer", "aria-label": "Time left" }),
    h("span", { class: "rules-note" }, `${view.rules.replace("_", " + ")} rules${roundInfo}`),
  ];
}

/** The felt: every zone of the view, your hand and your moves. */
export function tableView(message, ui, handlers) {
  const view = message.view;
  const seated = view.seat !== null && view.seat !== undefined;
  const myTurn = seated && view.to_act.includes(view.seat) && !view.challenge && !view.pending;
  const rivals = view.players.filter((p) => p.seat !== view.seat);
  const me = seated ? view.players[view.seat] : null;
  const seatOptions = (p) => ({
    toAct: view.to_act.includes(p.seat),
    info: ui.room?.seats?.[p.seat],
    expanded: ui.expanded.has(p.seat),
    onExpand: handlers.toggleStack,
  });
  let duel = null;
  if (view.challenge) duel = duelPanel(message, ui, handlers);
  else if (view.pending) duel = pendingPanel(message, handlers);
  const showMoves = seated && !view.over && !view.challenge && !view.pending;
  const rivalRow = h(
    "div",
    { class: "rivals" },
    rivals.map((p) => playerPanel(view, p, { ...seatOptions(p), onPickSet: myTurn ? handlers.pickSet : null })),
  );
  // Through the CSSOM: the Content-Security-Policy forbids style attributes.
  rivalRow.style.setProperty("--rivals", String(Math.max(rivals.length, 1)));
  return h(
    "div",
    { class: "felt", dataset: { version: String(message.version) } },
    rivalRow,
    h("div", { class: `middle ${duel ? "with-duel" : ""}` }, centerPanel(view), duel),
    me
      ? playerPanel(view, me, {
          ...seatOptions(me),
          children: h("div", { class: "dock" }, handZone(view, ui, handlers), showMoves ? movesPanel(message, ui, handlers) : null),
        })
      : null,
  );
}
