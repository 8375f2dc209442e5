// /players/<id>: a player's profile (docs/protocol.md, "Players and profiles"). Anyone sees the
// name, the rating and the public tables' games; friends see every game and where the player
// is; the owner sees their friends too. What is shown is what the server answered, no more.

import { ApiError, call } from "./api.js";
import { h, money } from "./dom.js";

const readProfile = (id) => call("GET", `/api/players/${encodeURIComponent(id)}/profile`);

function when(iso) {
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

function game(played) {
  return h(
    "li",
    { class: "game-card" },
    h("a", { href: `/games/${played.id}` }, when(played.ended_at)),
    h("span", { class: `badge${played.winner ? " turn" : ""}` }, played.winner ? "won" : "played"),
    h("span", { class: "game-card-meta" }, `${money(played.total)} · ${played.players.map((p) => p.name).join(", ")}`),
    h("a", { href: `/games/${played.id}?review`, class: "game-card-meta" }, "Review"),
  );
}

function whereText(where) {
  if (!where.online) return "offline";
  if (!where.at_table) return "online";
  return where.code ? `at table ${where.code}` : "at a table";
}

function summary(profile) {
  const rating = profile.rating === null ? "no rated games yet" : `rating ${profile.rating.toFixed(1)}`;
  const games = `${profile.games} ${profile.games === 1 ? "game" : "games"}, ${profile.wins} won`;
  return `${rating} · ${games}`;
}

function recentGames(profile) {
  const title = profile.viewer === "owner" ? "Your recent games" : "Recent games";
  const note = profile.public_only ? h("p", { class: "hint" }, "Games at public tables only: the rest are for friends.") : null;
  return h(
    "section",
    { class: "panel history", "aria-labelledby": "recent-title" },
    h("h2", { id: "recent-title" }, title),
    note,
    profile.recent.length ? h("ul", { class: "cards-list" }, profile.recent.map(game)) : h("p", { class: "hint" }, "No finished games to show."),
  );
}

function friendsList(friends) {
  return h(
    "section",
    { class: "panel", "aria-labelledby": "profile-friends-title" },
    h("h2", { id: "profile-friends-title" }, "Your friends"),
    friends.length ? h("ul", { class: "cards-list" }, friends.map((friend) => h("li", {}, friend.name))) : h("p", { class: "hint" }, "No friends yet: find players from the lobby's Friends panel."),
  );
}

export async function profilePage(main, id) {
  main.replaceChildren(h("p", { class: "hint" }, "Loading the profile…"));
  let profile;
  try {
    profile = await readProfile(id);
  } catch (error) {
    const text = error instanceof ApiError && error.status === 404 ? "No player has that address." : error.message;
    main.replaceChildren(h("div", { class: "account" }, h("h1", {}, "Player"), h("p", { class: "notice error", role: "alert" }, text), h("p", {}, h("a", { href: "/" }, "Lobby"))));
    return;
  }
  document.title = `${profile.name} · Cash Stash`;
  const kind = profile.account ? null : h("p", { class: "hint" }, "A guest: no account.");
  const where = profile.where ? h("p", {}, "Now ", h("span", { class: `badge ${profile.where.online ? "online" : ""}`, dataset: { testid: "profile-where" } }, whereText(profile.where))) : null;
  main.replaceChildren(
    h(
      "div",
      { class: "account profile" },
      h("h1", {}, profile.name),
      h("p", { class: "lead", dataset: { testid: "profile-summary" } }, summary(profile)),
      kind,
      where,
      recentGames(profile),
      profile.friends ? friendsList(profile.friends) : null,
      h("p", { class: "links" }, h("a", { href: "/" }, "Lobby"), profile.viewer === "owner" ? h("a", { href: "/account" }, "Your account") : null),
    ),
  );
}
