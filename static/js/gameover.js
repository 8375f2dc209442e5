// The game over panel: winners, final stashes (best first), the stash chart, Rematch, and
// links to the replay and its review. A practice table's game is not recorded: its chart is
// drawn from the states this tab was sent, and it links to no replay.

import { rememberStashes, rememberedSeries, seriesFromReplay, stashChart } from "./chart.js";
import { h, money } from "./dom.js";

/** A practice table's game (``app.games.practice``): its log opens with the practice note. */
export function isPracticeGame(view) {
  return view.log?.[0]?.event === "practice";
}

/** Called with every state of room `code`: a practice game keeps its stashes for its chart. */
export function notePracticeState(code, view) {
  if (isPracticeGame(view)) rememberStashes(code, view);
}

const CAPTION = "Each player's stash value after every action (with several rounds, plus the totals of the rounds already played).";

function practiceChart(names, code) {
  const series = rememberedSeries(code);
  const note = "Practice games are not recorded: there is no replay or review of this one.";
  if (series.length < 2) return h("p", { class: "hint", dataset: { testid: "practice-note" } }, note);
  return h(
    "figure",
    { class: "chart-box" },
    stashChart(names, series, "Stash value over the practice game", { xLabel: "moves" }),
    h("figcaption", { dataset: { testid: "practice-note" } }, `Each player's stash value after every move of this practice game, as this tab saw it. ${note}`),
  );
}

function winnerText(winners, view, names) {
  if (!winners.length) return "";
  const who = winners.map((s) => (s === view.seat ? "You" : names[s])).join(" and ");
  if (winners.length > 1) return `${who} share the win!`;
  return `${who} ${winners[0] === view.seat ? "win" : "wins"}!`;
}

/**
 * `finished` is the recorded game (or null while it is being written, or `{error}`),
 * `gameId` the room's game id, `code` the room's, `onRematch` set for the host only. "Review
 * this game" waits for the record: the review is made from it.
 */
export function gameOver(view, { finished, gameId, code, onRematch }) {
  const standings = view.rounds;
  const totals = standings.totals && standings.rounds.length ? standings.totals : view.players.map((p) => p.stash);
  const winners = standings.winners?.length ? standings.winners : [];
  const names = view.players.map((p) => p.name ?? `Seat ${p.seat + 1}`);
  const order = [...view.players].sort((a, b) => totals[b.seat] - totals[a.seat]);
  const practice = isPracticeGame(view);
  const recorded = gameId && !practice;
  let chart;
  if (practice) chart = practiceChart(names, code);
  else if (!finished) chart = h("p", { class: "hint" }, "Loading the chart…");
  else if (finished.error) chart = h("p", { class: "hint" }, finished.error);
  else {
    chart = h(
      "figure",
      { class: "chart-box" },
      stashChart(names, seriesFromReplay(finished)),
      h("figcaption", {}, CAPTION),
    );
  }
  return h(
    "section",
    { class: "game-over", "aria-labelledby": "over-title" },
    h(
      "div",
      { class: "over-summary" },
      h("h2", { id: "over-title", tabindex: "-1" }, "Game over"),
      h("p", { class: "winner", dataset: { testid: "winner" } }, winnerText(winners, view, names)),
      h(
        "ol",
        { class: "final" },
        order.map((p) =>
          h(
            "li",
            { class: winners.includes(p.seat) ? "won" : "" },
            h("strong", {}, names[p.seat]),
            ` ${money(totals[p.seat])}`,
            winners.includes(p.seat) ? h("span", { class: "badge turn" }, "winner") : null,
          ),
        ),
      ),
      h(
        "p",
        { class: "links" },
        onRematch ? h("button", { type: "button", class: "primary", dataset: { focus: "rematch" }, onClick: onRematch }, "Rematch") : null,
        recorded ? h("a", { href: `/games/${gameId}`, class: "button", dataset: { focus: "replay" } }, "Watch the replay") : null,
        recorded && finished && !finished.error ? h("a", { href: `/games/${gameId}?review`, class: "button", dataset: { focus: "review" } }, "Review this game") : null,
        h("a", { href: "/", class: "button" }, "Lobby"),
      ),
    ),
    chart,
  );
}
