// /games/<id>: a finished game step by step, every hand face up, with its stash chart.

import { api } from "./api.js";
import { seriesFromReplay, stashChart } from "./chart.js";
import { h, money, render } from "./dom.js";
import { describe } from "./moves.js";
import { decisionNote, reviewPanel } from "./review.js";
import { centerPanel, playerPanel } from "./table.js";

const RULE_NAMES = { advanced: "Advanced", simple_actions: "Simple with actions", simple: "Simple" };
const ORDINALS = ["1st", "2nd", "3rd", "4th", "5th", "6th"];

/** The players best first; equal totals share a place (1st, 1st, 3rd). */
function standings(players) {
  const sorted = [...players].sort((a, b) => b.total - a.total || a.seat - b.seat);
  return sorted.map((player) => ({ player, place: sorted.findIndex((other) => other.total === player.total) + 1 }));
}

function ratingChange(player) {
  if (player.rating_before === null || player.rating_after === null) return null;
  const change = player.rating_after - player.rating_before;
  return h("span", { class: "rating" }, `rating ${player.rating_after.toFixed(1)} (${change >= 0 ? "+" : "−"}${Math.abs(change).toFixed(1)})`);
}

function results(players) {
  return h(
    "ol",
    { class: "standings", "aria-label": "Final result" },
    standings(players).map(({ player, place }) =>
      h(
        "li",
        { class: `standing${player.winner ? " winner-row" : ""}`, value: place, dataset: { testid: "standing" } },
        h("span", { class: "place" }, ORDINALS[place - 1] ?? `${place}th`),
        h("span", { class: "who" }, h("strong", {}, player.name), player.ai_level ? h("span", { class: "badge" }, `AI · ${player.ai_level}`) : null, player.winner ? h("span", { class: "badge turn" }, "winner") : null),
        h("span", { class: "total" }, money(player.total)),
        ratingChange(player),
      ),
    ),
  );
}

export async function replayPage(main, gameId) {
  const box = h("div", { class: "replay" }, h("p", { class: "hint" }, "Loading the game…"));
  main.replaceChildren(box);
  let game;
  try {
    game = await api.game(gameId);
  } catch (error) {
    render(box, h("h1", {}, "Replay"), h("p", { class: "notice error", role: "alert" }, error.message), h("p", {}, h("a", { href: "/", class: "button primary" }, "Back to the lobby")));
    return;
  }
  const names = game.players.map((p) => p.name);
  const last = game.replay.length - 1;
  let step = 0;
  const slider = h("input", { type: "range", id: "step", min: 0, max: last, value: 0, "aria-label": "Step" });
  const stepBox = h("div", { class: "step" });
  const counter = h("output", { for: "step", dataset: { testid: "step-counter" } });
  const controls = h(
    "div",
    { class: "replay-controls", role: "group", "aria-labelledby": "steps-title" },
    h("div", { class: "replay-slider" }, slider, counter),
    h("button", { type: "button", onClick: () => go(0) }, "First"),
    h("button", { type: "button", onClick: () => go(step - 1) }, "Previous"),
    h("button", { type: "button", onClick: () => go(step + 1) }, "Next"),
    h("button", { type: "button", onClick: () => go(last) }, "Last"),
  );

  function go(to) {
    step = Math.max(0, Math.min(last, to));
    slider.value = String(step);
    show();
  }
  const review = reviewPanel(game, gameId, {
    start: new URLSearchParams(location.search).has("review"),
    onReady: () => show(),
    onJump(to) {
      go(to);
      // The step controls stay stuck at the top (taller on a phone, where they wrap): the step
      // lands just below them, measured now, so its first line is never under them.
      stepBox.style.scrollMarginTop = `${controls.getBoundingClientRect().height + 8}px`;
      stepBox.scrollIntoView({ block: "start" });
      stepBox.querySelector(".replay-action").focus({ preventScroll: true });
    },
  });
  slider.addEventListener("input", () => go(Number(slider.value)));

  function show() {
    const current = game.replay[step];
    const view = { ...current.view, seat: null, hand: [], log: [] };
    // An action is told with the cards as they were just before it: the previous step.
    const before = step > 0 ? { ...game.replay[step - 1].view, seat: null, hand: [] } : null;
    // The log tells the move as it happened ("Bea plays a Swap: …"); the move's words are the
    // actor's own ("trade your top set …"), so they are only the fallback.
    const told = current.log.find((entry) => entry.text)?.text;
    const actionText = current.action ? (told ?? `${names[current.action.seat]}: ${describe(current.action, before)}`) : "The deal.";
    counter.textContent = `Step ${step} of ${last}`;
    const decision = review.decisionFor(step);
    render(
      stepBox,
      h("p", { class: "replay-action", tabindex: "-1", dataset: { testid: "replay-action" } }, actionText),
      decision ? h("p", { class: "step-review", dataset: { testid: "step-review" } }, decisionNote(game, decision, names)) : null,
      current.log.length ? h("ul", { class: "replay-log" }, current.log.map((entry) => h("li", {}, entry.text))) : null,
      h("div", { class: "rivals" }, view.players.map((player) => playerPanel(view, player, { hand: view.hands[player.seat], toAct: view.to_act.includes(player.seat) }))),
      centerPanel(view),
    );
  }

  const winners = game.winners.map((seat) => names[seat]).join(" and ");
  const ended = new Date(game.ended_at).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  render(
    box,
    h("p", { class: "eyebrow" }, `${RULE_NAMES[game.rules] ?? game.rules} rules${game.draft ? " with draft piles" : ""} · ${ended}`),
    h("h1", {}, "Replay"),
    h("p", { class: "lead" }, `${winners} ${game.winners.length > 1 ? "share the win" : "wins"}.`),
    h(
      "div",
      { class: "replay-summary" },
      h("section", { class: "panel", "aria-labelledby": "result-title" }, h("h2", { id: "result-title" }, "Final result"), results(game.players)),
      h("figure", { class: "panel chart-box" }, stashChart(names, seriesFromReplay(game)), h("figcaption", {}, "Each player's stash value after every action (with several rounds, plus the totals of the rounds already played).")),
    ),
    review.element,
    h("h2", { id: "steps-title" }, "Step by step"),
    controls,
    stepBox,
    h("p", {}, h("a", { href: "/" }, "Back to the lobby")),
  );
  show();
}
