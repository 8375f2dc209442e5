// /leaderboard: rated players, best first.

import { api } from "./api.js";
import { h, render } from "./dom.js";

export async function leaderboardPage(main) {
  const box = h("div", { class: "leaderboard" }, h("h1", {}, "Leaderboard"), h("p", { class: "hint" }, "Loading…"));
  main.replaceChildren(box);
  try {
    const board = await api.leaderboard();
    render(
      box,
      h("h1", {}, "Leaderboard"),
      h("p", { class: "hint" }, "Games with at least two people are rated; the rating is a cautious skill estimate that grows with games played."),
      board.entries.length
        ? h(
            "table",
            {},
            h("thead", {}, h("tr", {}, ["Rank", "Player", "Rating", "Rated games", "Wins"].map((title) => h("th", { scope: "col" }, title)))),
            h("tbody", {}, board.entries.map((entry) => h("tr", {}, h("td", {}, entry.rank), h("th", { scope: "row" }, entry.name), h("td", {}, entry.rating.toFixed(1)), h("td", {}, entry.rated_games), h("td", {}, entry.wins)))),
          )
        : h("p", {}, "No rated games yet."),
      h("p", {}, h("a", { href: "/" }, "Lobby")),
    );
  } catch (error) {
    render(box, h("h1", {}, "Leaderboard"), h("p", { class: "notice error", role: "alert" }, error.message));
  }
}
