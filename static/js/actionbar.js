// The action bar, always in view under the table: the prompt, the last move, one line for a
// notice, a hint or what the selection can do, and the buttons for what needs no place on the
// table (End turn, Answer, Concede, Swap and Move targets, a Move card's choice, All moves).

import { kindName, shortName } from "./cards.js";
import { h } from "./dom.js";
import { needWords } from "./duel.js";
import { cardsOf, describe, isMine, kindsById } from "./moves.js";
import { litPlaces, naturalOrder } from "./places.js";
import { moveMenu, optionButton } from "./movemenu.js";

/** How many answers, and Swap or Move targets, the bar shows (the rest are on the table or in the menu). */
const SHOWN = { wide: { answers: 3, extra: 2 }, compact: { answers: 1, extra: 1 } };
const QUIET_EVENTS = new Set(["turn", "draw"]);
/** The key that takes the focus to End turn from anywhere at the table but a text field. */
export const END_TURN_KEY = "E";

const VERBS = [
  [["form_set", "form_set_discard"], "form a set"],
  [["improve"], "improve"],
  [["challenge"], "challenge"],
  [["swap"], "swap"],
  [["move"], "move"],
  [["draft"], "draft"],
  [["discard"], "discard"],
  [["end_turn"], "end your turn"],
];

function inWords(list) {
  if (list.length <= 1) return list.join("");
  return `${list.slice(0, -1).join(", ")} or ${list[list.length - 1]}`;
}

/** Whose move it is, and on your turn what you may do, from the `legal` list. */
export function turnStatus(view, legal = []) {
  const names = view.players.map((p) => p.name ?? `Seat ${p.seat + 1}`);
  if (view.over) return "The game is over.";
  if (view.seat !== null && view.to_act.includes(view.seat)) {
    if (view.challenge) return `Your answer: ${needWords(view.challenge)}, or concede.`;
    if (view.pending) return "Your choice: a Move card turned up.";
    const types = new Set(legal.map((action) => action.type));
    const verbs = VERBS.filter(([kinds]) => kinds.some((type) => types.has(type))).map(([, verb]) => verb);
    return `Your turn${view.actions_done > 0 ? " (second action)" : ""}: ${inWords(verbs)}.`;
  }
  const waiting = view.to_act.filter((seat) => seat !== view.seat).map((seat) => names[seat]);
  const watching = view.seat === null ? "Watching. " : "";
  return waiting.length ? `${watching}Waiting for ${waiting.join(" and ")}.` : watching;
}

/** Events whose words name their target's set or stack ("…challenges Ann's top…"). */
const TARGETED_EVENTS = new Set(["challenge", "swap", "move", "choose"]);

/**
 * A log entry's words from this seat's side: the set or stack it targets is "your" when it is
 * yours, as the duel says ("Medium Bot challenges your top Yacht set"). The name is looked for
 * after the mover's, so a mover whose name holds yours is left alone.
 */
export function fromYourSide(entry, view) {
  const me = view.seat;
  if (me === null || me === undefined || entry.target !== me || entry.seat === me || !TARGETED_EVENTS.has(entry.event)) return entry.text;
  const mover = view.players[entry.seat]?.name ?? "";
  const mine = `${view.players[me]?.name ?? ""}'s`;
  const at = entry.text.indexOf(mine, mover.length);
  if (at < 0) return entry.text;
  const after = entry.text.slice(at + mine.length);
  // "…trades places with Ann's." ends on the name: "…with yours."
  const word = after.startsWith(" ") ? "your" : "yours";
  return `${entry.text.slice(0, at)}${word}${after}`;
}

/** The newest entry of the log that tells a move (not a turn passing or a draw). */
function lastMove(view) {
  for (let index = view.log.length - 1; index >= 0; index -= 1) {
    if (!QUIET_EVENTS.has(view.log[index].event)) return fromYourSide(view.log[index], view);
  }
  return "The cards are dealt.";
}

/** What the selected cards can do, in words, for the bar's note line. */
function selectionNote(message, ui) {
  const view = message.view;
  if (!ui.selected.size || !view.to_act.includes(view.seat)) return null;
  const kinds = kindsById(view);
  const names = [...ui.selected].map((id) => kindName(kinds.get(id))).join(" + ");
  const lit = litPlaces(message.legal, ui.selected, view.seat);
  if (!lit.size && !buttonMoves(message, ui).length) return `${names}: no move uses every selected card. Select fewer or other cards.`;
  return `${names}: press a lit place${lit.size ? ` (${lit.size})` : ""} or drag ${ui.selected.size === 1 ? "it" : "them"} there.`;
}

/** The moves that have no place on the table, for the selected cards: Swap and Move. */
function buttonMoves(message, ui) {
  if (!ui.selected.size) return [];
  return message.legal.filter((action) => (action.type === "swap" || action.type === "move") && [...ui.selected].every((id) => cardsOf(action).includes(id)));
}

/** The Hint button, when the room offers hints and it is this seat's move; `ui.hintAsked` while
 * the server thinks. */
export function hintButton(view, ui, onAsk) {
  if (!ui.room.options.hints || !isMine(view) || view.over) return null;
  return h("button", { type: "button", class: "hint-button", disabled: ui.hintAsked, dataset: { focus: "hint" }, onClick: onAsk }, ui.hintAsked ? "Thinking…" : "Hint");
}

/** What the hint `ui.hint` suggests, in words, with the chance of winning it gives. */
export function hintLine(view, ui) {
  if (!ui.hint || !isMine(view)) return null;
  const chance = ui.hint.win_chance === null ? "the only choice" : `about ${Math.round(ui.hint.win_chance * 100)}% chance to win`;
  return h("p", { class: "bar-note hint-line", role: "status", dataset: { testid: "hint" } }, `Suggested: ${describe(ui.hint.action, view)} (${chance}).`);
}

/** The bar; `notice` and `hint` are elements for its note line, `extras` the clock and Hint. */
export function actionBar(message, ui, handlers, { notice, hint, extras = null }) {
  const view = message.view;
  const kinds = kindsById(view);
  const seated = view.seat !== null && view.seat !== undefined;
  const mine = seated && view.to_act.includes(view.seat) && !view.over;
  const buttons = [];
  if (mine) {
    const shown = SHOWN[window.matchMedia("(max-width: 959px)").matches ? "compact" : "wide"];
    // The answers come first and take the focus (js/room/focus.js): Concede is never the default.
    if (view.challenge) {
      const answers = naturalOrder(message.legal.filter((a) => a.type === "answer" && [...ui.selected].every((id) => cardsOf(a).includes(id))), view, kinds);
      for (const { action, words } of answers.slice(0, shown.answers)) {
        // Short on the button ("Answer: Guitar"), whole in its name ("Answer with Vintage Guitar").
        const label = `Answer: ${cardsOf(action).map((id) => shortName(kinds.get(id))).join(" + ")}`;
        const button = optionButton(action, label, handlers.act, "answer");
        button.setAttribute("aria-label", words);
        buttons.push(button);
      }
    }
    for (const type of ["choose", "end_turn", "concede"]) {
      for (const { action, words } of naturalOrder(message.legal.filter((a) => a.type === type), view, kinds)) {
        const label = type === "concede" && view.challenge?.claim && !view.challenge.plays.length ? "Let the claim go (concede)" : words;
        const button = optionButton(action, label, handlers.act, { end_turn: "end-turn", concede: "concede" }[type] ?? "");
        if (type === "end_turn") button.setAttribute("aria-keyshortcuts", END_TURN_KEY);
        buttons.push(button);
      }
    }
    // A Swap or Move card selected: its targets as buttons when they are few (else its places).
    const extra = naturalOrder(buttonMoves(message, ui), view, kinds);
    if (extra.length <= shown.extra) for (const { action, words } of extra) buttons.push(optionButton(action, words, handlers.act));
  }
  const note = notice ?? hint ?? (seated ? selectionNote(message, ui) : null);
  return h(
    "section",
    { class: `action-bar${mine ? " yours" : ""}`, role: "region", "aria-label": "Your move", "aria-describedby": "bar-keys" },
    h("p", { id: "bar-keys", class: "visually-hidden" }, `Press ${END_TURN_KEY} to go to End turn.`),
    h(
      "div",
      { class: "bar-text" },
      h("p", { class: "turn-status", role: "status", tabindex: "-1", dataset: { testid: "turn-status" } }, turnStatus(view, message.legal)),
      h("p", { class: "last-move", dataset: { testid: "last-move" } }, h("span", { class: "last-move-label" }, "Last move: "), lastMove(view)),
      note instanceof Node ? note : h("p", { class: "bar-note" }, note ?? ""),
    ),
    h("div", { class: "bar-buttons", role: "group", "aria-label": "Moves" }, mine ? moveMenu(message, ui, handlers) : null, buttons),
    h("div", { class: "bar-tools" }, extras),
  );
}

/** The bar's lines that scroll inside (a prompt, last move or note longer than its room). */
const BAR_SCROLLERS = ".action-bar :is(.turn-status, .last-move, .bar-note)";

/**
 * A line of the bar holding more than it shows can be reached with the keyboard (Tab, then the
 * arrows scroll it); one that shows all it holds is no tab stop. Measured at every redraw and
 * resize.
 */
export function reachScrolledLines(root) {
  for (const line of root.querySelectorAll(BAR_SCROLLERS)) {
    const scrolls = line.scrollHeight > line.clientHeight + 1;
    if (line.classList.contains("turn-status")) line.tabIndex = scrolls ? 0 : -1; // focus() lands here
    else if (scrolls) line.tabIndex = 0;
    else line.removeAttribute("tabindex");
  }
}
