// Every legal move in words, one tap away: the "All moves" button of the action bar opens this
// list as a popover above the bar. It is the way for the keyboard and screen readers (and for
// anyone who would rather read than point): duplicates merged, natural moves first. A place
// that several moves fit opens the few of them in a chooser beside it.

import { h } from "./dom.js";
import { isHinted, kindsById } from "./moves.js";
import { litPlaces, naturalOrder } from "./places.js";

/** One move as a button that sends it. */
export function optionButton(action, words, onAct, extraClass = "", suggested = false) {
  return h(
    "button",
    {
      type: "button",
      class: `option ${extraClass}${suggested ? " suggested" : ""}`.trim(),
      dataset: { focus: `act-${JSON.stringify(action)}`, move: action.type },
      onClick: () => onAct(action),
    },
    words,
    suggested ? h("span", { class: "suggested-tag" }, "Suggested") : null,
  );
}

const EXTRA_CLASS = { end_turn: "end-turn", concede: "concede", answer: "answer" };

/** The "All moves (N)" button and its popover list; `ui.menuOpen` keeps it open across redraws. */
export function moveMenu(message, ui, handlers) {
  const view = message.view;
  const kinds = kindsById(view);
  const moves = naturalOrder(message.legal, view, kinds);
  if (!moves.length) return [];
  const list = h(
    "div",
    { class: "move-menu", id: "move-menu", popover: "auto", role: "group", "aria-label": "All your moves", dataset: ui.menuOpen ? { openPopover: "menu" } : {} },
    h("p", { class: "move-menu-title", "aria-hidden": "true" }, `All your moves (${moves.length})`),
    h(
      "div",
      { class: "options" },
      moves.map(({ action, words }) => optionButton(action, words, handlers.act, EXTRA_CLASS[action.type] ?? "", isHinted(ui.hint, action, words, view, kinds))),
    ),
  );
  list.addEventListener("beforetoggle", (event) => {
    if (list.isConnected) handlers.menuToggled(event.newState === "open", list);
  });
  // Opened, the menu takes the focus to its first move (or the suggested one).
  list.addEventListener("toggle", (event) => {
    if (event.newState === "open" && !list.contains(document.activeElement)) (list.querySelector("button.option.suggested") ?? list.querySelector("button.option"))?.focus();
  });
  // "All moves (N)"; a phone prints "Moves (N)" to leave the bar room for Concede and an answer.
  const toggle = h(
    "button",
    {
      type: "button",
      class: "menu-toggle",
      popovertarget: "move-menu",
      "aria-label": `All moves (${moves.length})`,
      "aria-expanded": ui.menuOpen ? "true" : "false",
      dataset: { focus: "menu-toggle", testid: "all-moves" },
    },
    h("span", { class: "menu-all", "aria-hidden": "true" }, "All m"),
    h("span", { class: "menu-short", "aria-hidden": "true" }, "M"),
    h("span", { "aria-hidden": "true" }, `oves (${moves.length})`),
  );
  return [toggle, list];
}

/** The small list of moves next to a place that several legal moves fit (`ui.chooser`, the
 * place's key, with the selected cards); closed by the browser, it is forgotten. */
export function chooser(message, ui, onAct) {
  if (!ui.chooser) return null;
  const actions = litPlaces(message.legal, ui.selected, message.view.seat).get(ui.chooser);
  if (!actions) return null;
  const kinds = kindsById(message.view);
  const element = h(
    "div",
    { class: "chooser", popover: "auto", role: "group", "aria-label": "Which move?", dataset: { openPopover: "chooser", anchor: ui.chooser } },
    h("p", { class: "chooser-title", "aria-hidden": "true" }, "Which move?"),
    h("div", { class: "options" }, naturalOrder(actions, message.view, kinds).map(({ action, words }) => optionButton(action, words, onAct))),
  );
  element.addEventListener("toggle", (event) => {
    if (event.newState === "closed" && element.isConnected) ui.chooser = null;
  });
  return element;
}
