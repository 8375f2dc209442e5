// The game over panel: winners, final stashes (best first), the stash chart, Rematch, and
// links to the replay and its review.

import { seriesFromReplay, stashChart } from "./chart.js";
import { h, money } from "./dom.js";

function winnerText(winners, view, names) {
  if (!winners.length) return "";
  const who = winners.map((s) => (s === view.seat ? "You" : names[s])).join(" and ");
  if (winners.length > 1) return `${who} share the win!`;
  return `${who} ${winners[0] === view.seat ? "win" : "wins"}!`;
}

/**
 * `finished` is the recorded game (or null while it is being written, or `{error}`),
 * `gameId` the room's game id, `onRematch` set for the host only. "Review this game" waits for
 * the record: the review is made from it.
 */
export function gameOver(view, { finished, gameId, onRematch }) {
  const standings = view.rounds;
  const totals = standings.totals && standings.rounds.length ? standings.totals : view.players.map((p) => p.stash);
  const winners = standings.winners?.length ? standings.winners : [];
  const names = view.players.map((p) => p.name ?? `Seat ${p.seat + 1}`);
  const order = [...view.players].sort((a, b) => totals[b.seat] - totals[a.seat]);
  let chart;
  if (!finished) chart = h("p", { class: "hint" }, "Loading the chart…");
  else if (finished.error) chart = h("p", { class: "hint" }, finished.error);
  else {
    chart = h(
      "figure",
      { class: "chart-box" },
      stashChart(names, seriesFromReplay(finished)),
      h("figcaption", {}, "Each player's stash value after every action (with several rounds, plus the totals of the rounds already played)."),
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
        gameId ? h("a", { href: `/games/${gameId}`, class: "button", dataset: { focus: "replay" } }, "Watch the replay") : null,
        gameId && finished && !finished.error ? h("a", { href: `/games/${gameId}?review`, class: "button", dataset: { focus: "review" } }, "Review this game") : null,
        h("a", { href: "/", class: "button" }, "Lobby"),
      ),
    ),
    chart,
  );
}
