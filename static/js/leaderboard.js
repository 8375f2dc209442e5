// /leaderboard: rated players, best first.

import { api } from "./api.js";
import { h, render } from "./dom.js";

const EXPLAINED = "Games with at least two people are rated. The rating is a cautious estimate of skill: it grows as a player wins and as their games add up.";

function row(entry) {
  return h(
    "tr",
    { class: entry.rank <= 3 ? `podium podium-${entry.rank}` : null },
    h("td", { class: "rank" }, entry.rank),
    h("th", { scope: "row" }, entry.name),
    h("td", { class: "number" }, entry.rating.toFixed(1)),
    h("td", { class: "number" }, entry.rated_games),
    h("td", { class: "number" }, entry.wins),
  );
}

function ranking(entries) {
  return h(
    "div",
    { class: "table-scroll", role: "region", "aria-labelledby": "leaderboard-title", tabindex: 0 },
    h(
      "table",
      {},
      h("caption", { class: "visually-hidden" }, "Rated players, best first"),
      h("thead", {}, h("tr", {}, ["Rank", "Player", "Rating", "Rated games", "Wins"].map((title) => h("th", { scope: "col", class: title === "Player" ? null : "number" }, title)))),
      h("tbody", {}, entries.map(row)),
    ),
  );
}

export async function leaderboardPage(main) {
  const box = h("div", { class: "leaderboard" }, h("h1", { id: "leaderboard-title" }, "Leaderboard"), h("p", { class: "hint" }, "Loading…"));
  main.replaceChildren(box);
  const heading = h("h1", { id: "leaderboard-title" }, "Leaderboard");
  try {
    const board = await api.leaderboard();
    render(
      box,
      heading,
      h("p", { class: "lead" }, EXPLAINED),
      board.entries.length
        ? ranking(board.entries)
        : h("div", { class: "panel empty-board" }, h("p", {}, "No rated games yet."), h("p", {}, h("a", { href: "/", class: "button primary" }, "Create a room"), " and play a game with a friend to open the ranking.")),
      h("p", {}, h("a", { href: "/" }, "Back to the lobby")),
    );
  } catch (error) {
    render(box, heading, h("p", { class: "notice error", role: "alert" }, error.message));
  }
}
