// The duel panel (`data-zone="duel"`): an open challenge or draft contest, what is at stake,
// every card played and by whom, what the next answer needs; the side to answer gets the
// server's legal answers and Concede. A Move card turned up on a draft pile gets a chooser.

import { kindName } from "./cards.js";
import { h, money } from "./dom.js";
import { describe, distinct, isHinted, kindsById, matching, reasonsFor } from "./moves.js";
import { card } from "./seats.js";

const MAX_ANSWERS = 30;

function needText(need) {
  return need === 2 ? "a Penny Jar, or two matching cards" : "one matching card";
}

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

function subjectOf(view, duel) {
  const challenger = view.players[duel.challenger];
  const defender = view.players[duel.defender];
  if (duel.claim) {
    return h(
      "p",
      { class: "duel-subject" },
      `${defender.name} claims `,
      h("span", { class: "duel-cards" }, duel.claim.map((c) => card(c))),
      ` from draft pile ${duel.piles.map((p) => p + 1).join(" and ")}`,
    );
  }
  const stack = view.players[duel.target].stack;
  const set = stack[stack.length - 1 - duel.depth];
  return h(
    "p",
    { class: "duel-subject" },
    `${challenger.name} challenges ${defender.name}'s ${duel.depth ? "second-from-top" : "top"} ${kindName(duel.kind)} set`,
    set ? ` (${money(set.value)})` : "",
  );
}

export function duelPanel(message, ui, handlers) {
  const view = message.view;
  const duel = view.challenge;
  const kinds = kindsById(view);
  const mine = duel.to_answer === view.seat;
  const legal = message.legal.filter((a) => a.type === "answer" || a.type === "concede");
  const answers = distinct(matching(legal.filter((a) => a.type === "answer"), ui.selected), view, kinds);
  const concede = legal.find((a) => a.type === "concede");
  const answerReasons = reasonsFor(message.blocked, "answer");
  let actions = null;
  if (mine) {
    actions = h(
      "div",
      { class: "duel-actions options", role: "group", "aria-label": "Answer or concede" },
      answers.slice(0, MAX_ANSWERS).map((a) => {
        const words = describe(a, view, kinds);
        return optionButton(a, words, handlers.act, "answer", isHinted(ui.hint, a, words, view, kinds));
      }),
      answers.length ? null : h("p", { class: "reason" }, ui.selected.size && legal.some((a) => a.type === "answer") ? "No answer uses every selected card." : answerReasons.join(" ") || "You cannot answer."),
      concede ? optionButton(concede, duel.claim && duel.plays.length === 0 ? "Let the claim go (concede)" : "Concede", handlers.act, "concede", isHinted(ui.hint, concede, "Concede", view, kinds)) : null,
    );
  }
  return h(
    "section",
    { class: `duel ${mine ? "yours" : ""}`, id: "duel", dataset: { zone: "duel" }, "aria-labelledby": "duel-title" },
    h("h2", { id: "duel-title" }, duel.claim ? "Draft contest" : "Challenge"),
    subjectOf(view, duel),
    h(
      "ol",
      { class: "plays", "aria-label": "Cards played" },
      duel.plays.map((play) =>
        h(
          "li",
          { dataset: { seat: String(play.seat) } },
          h("strong", {}, play.seat === view.seat ? "You" : view.players[play.seat].name),
          " played",
          h("span", { class: "duel-cards" }, play.cards.map((c) => card(c))),
          h("span", { class: "visually-hidden" }, play.cards.map((c) => kindName(c.kind)).join(" + ")),
        ),
      ),
    ),
    h(
      "p",
      { class: "duel-need" },
      mine
        ? `Your answer: ${needText(duel.need)} (${kindName(duel.kind)} or a wild), or concede.`
        : `Waiting for ${view.players[duel.to_answer].name} to answer with ${needText(duel.need)}, or concede.`,
    ),
    actions,
  );
}

export function pendingPanel(message, handlers) {
  const view = message.view;
  const pending = view.pending;
  const kinds = kindsById(view);
  const mine = pending.chooser === view.seat;
  const target = view.players[pending.target];
  return h(
    "section",
    { class: "duel pending", "aria-labelledby": "pending-title" },
    h("h2", { id: "pending-title" }, "A Move card turned up"),
    h("p", {}, mine ? `Choose how ${target.name}'s stack moves.` : `Waiting for ${view.players[pending.chooser].name} to choose how ${target.name}'s stack moves.`),
    mine
      ? h(
          "div",
          { class: "options", role: "group", "aria-label": "Choices" },
          message.legal.filter((a) => a.type === "choose").map((a) => optionButton(a, describe(a, view, kinds), handlers.act)),
        )
      : null,
  );
}
