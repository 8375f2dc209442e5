// The duel panel (`data-zone="duel"`): an open challenge or draft contest, what is at stake,
// the newest cards played and by whom (older plays condensed into words), what the next
// answer needs. A Move card turned up on a draft pile gets a panel saying who chooses.

import { kindName } from "./cards.js";
import { h, money } from "./dom.js";
import { card } from "./seats.js";

function needText(need) {
  return need === 2 ? "a Penny Jar, or two matching cards" : "one matching card";
}

/** What the next answer needs, in words: "one matching card (Yacht or a wild)". */
export function needWords(duel) {
  return `${needText(duel.need)} (${kindName(duel.kind)} or a wild)`;
}

/** The duel in one sentence; this seat is "you" in it ("Ann challenges your top Yacht set"):
 * shorter than a name of up to 30 letters, and it says at once whose set is at stake. */
function subjectOf(view, duel) {
  const challenger = playerLabel(view, duel.challenger);
  const defender = playerLabel(view, duel.defender);
  const youDefend = duel.defender === view.seat;
  if (duel.claim) {
    return h(
      "p",
      { class: "duel-subject" },
      `${defender} ${youDefend ? "claim" : "claims"} `,
      h("span", { class: "duel-cards" }, duel.claim.map((c) => card(c))),
      ` from draft pile ${duel.piles.map((p) => p + 1).join(" and ")}`,
    );
  }
  const stack = view.players[duel.target].stack;
  const set = stack[stack.length - 1 - duel.depth];
  return h(
    "p",
    { class: "duel-subject" },
    `${challenger} ${duel.challenger === view.seat ? "challenge" : "challenges"} ${youDefend ? "your" : `${defender}'s`} ${duel.depth ? "second-from-top" : "top"} ${kindName(duel.kind)} set`,
    set ? ` (${money(set.value)})` : "",
  );
}

/** The plays shown as cards: the newest; older ones are condensed into one line of words. */
const PLAYS_AS_CARDS = 2;

function playerLabel(view, seat) {
  return seat === view.seat ? "You" : (view.players[seat].name ?? `Seat ${seat + 1}`);
}

function playedList(view, plays) {
  const older = plays.slice(0, Math.max(0, plays.length - PLAYS_AS_CARDS));
  const newest = plays.slice(older.length);
  return [
    older.length
      ? h(
          "p",
          { class: "plays-earlier" },
          h("span", { class: "earlier-all" }, `Earlier: ${older.map((play) => `${playerLabel(view, play.seat)} ${play.cards.map((c) => kindName(c.kind)).join(" + ")}`).join(" · ")}`),
          h("span", { class: "earlier-count", "aria-hidden": "true" }, `${older.length} earlier play${older.length === 1 ? "" : "s"}`),
        )
      : null,
    h(
      "ol",
      { class: "plays", "aria-label": older.length ? "The newest cards played" : "Cards played" },
      newest.map((play) =>
        h(
          "li",
          { dataset: { seat: String(play.seat) } },
          h("strong", {}, playerLabel(view, play.seat)),
          h("span", { class: "played-word", "aria-hidden": "true" }, " played"),
          h("span", { class: "duel-cards", "aria-hidden": "true" }, play.cards.map((c) => card(c))),
          h("span", { class: "visually-hidden" }, ` played ${play.cards.map((c) => kindName(c.kind)).join(" + ")}`),
        ),
      ),
    ),
  ];
}

/**
 * The duel panel. The side to answer gets a place ("Your answer") that selected cards go to;
 * the answers and Concede themselves are buttons in the action bar (js/actionbar.js).
 */
export function duelPanel(message, ui, place) {
  const view = message.view;
  const duel = view.challenge;
  const mine = duel.to_answer === view.seat;
  const answerPlace = mine ? place("duel", "Your answer to the challenge") : null;
  return h(
    "section",
    { class: `duel ${mine ? "yours" : ""}`, id: "duel", dataset: { zone: "duel" }, "aria-labelledby": "duel-title" },
    h("div", { class: "duel-head" }, h("h2", { id: "duel-title" }, duel.claim ? "Draft contest:" : "Challenge:"), subjectOf(view, duel)),
    h(
      "div",
      { class: "duel-body" },
      h("div", { class: "duel-plays" }, playedList(view, duel.plays)),
      answerPlace ? h("button", {
        type: "button",
        class: `place answer-place${answerPlace.lit ? " lit" : ""}`,
        "aria-label": answerPlace.name,
        "aria-disabled": answerPlace.lit ? "false" : "true",
        "aria-describedby": answerPlace.lit ? "place-lit-help" : undefined,
        tabindex: answerPlace.lit ? undefined : "-1",
        dataset: { place: "duel", focus: "place-duel" },
        onClick: answerPlace.onActivate,
      }, h("span", { class: "new-set-slot" }, "Answer")) : null,
    ),
    h(
      "p",
      { class: "duel-need" },
      mine
        ? `Your answer: ${needWords(duel)}, or concede.`
        : `Waiting for ${playerLabel(view, duel.to_answer)} to answer with ${needText(duel.need)}, or concede.`,
    ),
  );
}

/** A Move card turned up on a draft pile: who chooses; the choices are in the action bar. */
export function pendingPanel(message) {
  const view = message.view;
  const pending = view.pending;
  const mine = pending.chooser === view.seat;
  const target = view.players[pending.target];
  return h(
    "section",
    { class: "duel pending", "aria-labelledby": "pending-title" },
    h("h2", { id: "pending-title" }, "A Move card turned up"),
    h("p", {}, mine ? `Choose how ${target.name}'s stack moves.` : `Waiting for ${view.players[pending.chooser].name} to choose how ${target.name}'s stack moves.`),
  );
}

/** How the duel closes up, step by step, when the centre is too short for all of it: its title
 * and the earlier plays go, then its sentence, then the newest plays close up into one row. */
const CLOSER = ["short", "shorter", "shortest"];

/**
 * Keep the duel's newest plays and the Answer place in sight: while the panel holds more than
 * the room the centre leaves it (your stack and the rivals grow through a game, and a window
 * may be short), take the next step of CLOSER. Measured at every redraw and resize.
 */
export function fitDuel(root) {
  const duel = root.querySelector("#duel");
  if (!duel) return;
  duel.classList.remove(...CLOSER);
  for (const step of CLOSER) {
    if (duel.scrollHeight <= duel.clientHeight + 1) return;
    duel.classList.add(step);
  }
}
