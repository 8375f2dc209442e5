// Keyboard focus that follows the play: after each redraw it goes to the control that makes
// sense (the first move, the answer, the game over title), and E takes it to End turn.

import { END_TURN_KEY } from "../actionbar.js";
import { isMine } from "../moves.js";

/** Where keyboard focus belongs now: the first move, the answer, or the status line. */
function sensibleControl(mainSlot, view) {
  if (!view) return null;
  if (view.over) return mainSlot.querySelector("#over-title");
  if (isMine(view)) {
    // In a challenge the first answer, never Concede: with no answer shown the prompt takes
    // the focus, which says the answer needs and that Concede is in the bar.
    const first = view.challenge ? [".bar-buttons > button.answer", ".turn-status"] : view.pending ? [".bar-buttons > button.option"] : [".hand button.hand-card"];
    for (const selector of ["button.option.suggested", ".chooser:popover-open button.option", ".move-menu:popover-open button.option", ...first, ".bar-buttons > button.option", ".menu-toggle"]) {
      const control = mainSlot.querySelector(selector);
      if (control) return control;
    }
  }
  return mainSlot.querySelector(".turn-status");
}

/** After a redraw of the page `main`: a focus lost, or left where the play has moved on from,
 * goes to the sensible control. `ui.focusVersion` and `ui.focusMode` remember the state the
 * focus was last placed in. */
export function placeFocus({ main, mainSlot, ui }) {
  const active = document.activeElement;
  const version = ui.message?.version;
  const lost = !active || active === document.body || active === main || !active.isConnected;
  // A place played on keeps its focus only until the state it was played in is gone.
  const view = ui.message?.view;
  const mode = view ? `${isMine(view)}|${Boolean(view.challenge)}|${Boolean(view.pending)}` : "";
  // A place or a bar button keeps the focus only in the state it was used in; a hand card
  // keeps it while the kind of move asked for (your turn, your answer, none) stays the same.
  const played =
    (version !== ui.focusVersion && active?.matches?.(".felt .place, .bar-buttons > button.option")) ||
    (mode !== ui.focusMode && active?.matches?.(".hand-card"));
  ui.focusVersion = version;
  ui.focusMode = mode;
  const parked = (active?.matches?.(".turn-status, #over-title") || played) && mainSlot.contains(active);
  if (!lost && !parked) return;
  const target = sensibleControl(mainSlot, view);
  if (target && target !== active) target.focus({ preventScroll: !window.matchMedia("(max-width: 719px)").matches });
}

/** The game over panel scrolled into view and focused, once per state that ended the game. */
export function revealGameOver(mainSlot, ui) {
  const view = ui.message?.view;
  const panel = mainSlot.querySelector(".game-over");
  if (!view?.over || !panel || ui.overShown === ui.message.version) return;
  ui.overShown = ui.message.version;
  panel.scrollIntoView({ block: "start" });
  panel.querySelector("#over-title").focus({ preventScroll: true });
}

/** E takes the focus to End turn (Enter then ends it), from anywhere but a text field; the
 * function returned stops it. */
export function endTurnShortcut(mainSlot) {
  function shortcut(event) {
    if (event.key.toUpperCase() !== END_TURN_KEY || event.altKey || event.ctrlKey || event.metaKey || event.repeat) return;
    if (event.target.closest?.("input, textarea, select, [contenteditable]")) return;
    const endTurn = mainSlot.querySelector(".bar-buttons > button.end-turn");
    if (!endTurn) return;
    endTurn.focus();
    event.preventDefault();
  }
  document.addEventListener("keydown", shortcut);
  return () => document.removeEventListener("keydown", shortcut);
}
