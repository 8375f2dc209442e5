// /games/<id>: a finished game step by step, every hand face up, with its stash chart.

import { api } from "./api.js";
import { seriesFromReplay, stashChart } from "./chart.js";
import { h, money, render } from "./dom.js";
import { describe } from "./moves.js";
import { centerPanel, playerPanel } from "./table.js";

export async function replayPage(main, gameId) {
  const box = h("div", { class: "replay" }, h("p", { class: "hint" }, "Loading the game…"));
  main.replaceChildren(box);
  let game;
  try {
    game = await api.game(gameId);
  } catch (error) {
    render(box, h("h1", {}, "Replay"), h("p", { class: "notice error", role: "alert" }, error.message), h("a", { href: "/" }, "Lobby"));
    return;
  }
  const names = game.players.map((p) => p.name);
  const last = game.replay.length - 1;
  let step = 0;
  const slider = h("input", { type: "range", id: "step", min: 0, max: last, value: 0, "aria-label": "Step" });
  const stepBox = h("div", { class: "step" });
  const counter = h("output", { for: "step", dataset: { testid: "step-counter" } });

  function go(to) {
    step = Math.max(0, Math.min(last, to));
    slider.value = String(step);
    show();
  }
  slider.addEventListener("input", () => go(Number(slider.value)));

  function show() {
    const current = game.replay[step];
    const view = { ...current.view, seat: null, hand: [], log: [] };
    // An action is told with the cards as they were just before it: the previous step.
    const before = step > 0 ? { ...game.replay[step - 1].view, seat: null, hand: [] } : null;
    const actionText = current.action ? `${names[current.action.seat]}: ${describe(current.action, before)}` : "The deal.";
    counter.textContent = `Step ${step} of ${last}`;
    render(
      stepBox,
      h("p", { class: "replay-action", dataset: { testid: "replay-action" } }, actionText),
      current.log.length ? h("ul", { class: "replay-log" }, current.log.map((entry) => h("li", {}, entry.text))) : null,
      h("div", { class: "rivals" }, view.players.map((player) => playerPanel(view, player, { hand: view.hands[player.seat], toAct: view.to_act.includes(player.seat) }))),
      centerPanel(view),
    );
  }

  const winners = game.winners.map((seat) => names[seat]).join(" and ");
  render(
    box,
    h("h1", {}, "Replay"),
    h("p", {}, `${game.rules.replace("_", " + ")} rules${game.draft ? " with draft piles" : ""}. ${winners} ${game.winners.length > 1 ? "share the win" : "wins"}.`),
    h("ol", { class: "final" }, game.players.map((p) => h("li", {}, h("strong", {}, p.name), p.ai_level ? ` (AI, ${p.ai_level})` : "", ` ${money(p.total)}`))),
    h("figure", { class: "chart-box" }, stashChart(names, seriesFromReplay(game)), h("figcaption", {}, "Each player's stash value after every action (with several rounds, plus the totals of the rounds already played).")),
    h(
      "div",
      { class: "replay-controls", role: "group", "aria-label": "Step through the game" },
      h("button", { type: "button", onClick: () => go(0) }, "First"),
      h("button", { type: "button", onClick: () => go(step - 1) }, "Previous"),
      slider,
      h("button", { type: "button", onClick: () => go(step + 1) }, "Next"),
      h("button", { type: "button", onClick: () => go(last) }, "Last"),
      counter,
    ),
    stepBox,
    h("p", {}, h("a", { href: "/" }, "Lobby")),
  );
  show();
}
