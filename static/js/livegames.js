// The lobby's life: players online, games in play and the public ones to watch, refreshed
// from GET /api/lobby while the lobby is open.

import { api } from "./api.js";
import { h, onLeave, render } from "./dom.js";

const RULE_NAMES = { advanced: "Advanced", simple_actions: "Simple with actions", simple: "Simple" };
const REFRESH_MS = 5000;

function player(p) {
  const rating = p.rating === null || p.rating === undefined ? "" : ` (${Math.round(p.rating)})`;
  return `${p.name}${rating}`;
}

function liveGame(game) {
  const stage = `round ${game.round}, ${game.cards_left} ${game.cards_left === 1 ? "card" : "cards"} left`;
  return h(
    "li",
    { class: "room-card live-card" },
    h("span", { class: "room-card-name" }, game.players.map(player).join(" · ")),
    h("a", { href: `/room/${game.code}?watch`, class: "button small", "aria-label": `Watch ${game.players.map((p) => p.name).join(", ")}` }, "Watch"),
    h("span", { class: "room-card-meta" }, `${RULE_NAMES[game.rules] ?? game.rules}${game.draft ? " + draft piles" : ""} · ${stage}`),
  );
}

/** The counters (for the welcome) and the live list (a panel), kept fresh together. */
export function lobbyLife() {
  const counts = h("p", { class: "lobby-counts", "aria-live": "polite" }, " ");
  const list = h("div", { class: "room-list" }, h("p", { class: "hint" }, "Loading games in play…"));
  const panel = h("section", { class: "panel live", "aria-labelledby": "live-title" }, h("h2", { id: "live-title" }, "Games to watch"), list);

  async function refresh() {
    try {
      const lobby = await api.lobby();
      render(
        counts,
        h("span", { class: "count", id: "online-count" }, h("strong", {}, String(lobby.online)), lobby.online === 1 ? " player online" : " players online"),
        h("span", { class: "count", id: "playing-count" }, h("strong", {}, String(lobby.playing)), lobby.playing === 1 ? " game in play" : " games in play"),
      );
      render(
        list,
        lobby.live.length
          ? h("ul", { class: "cards-list" }, lobby.live.map(liveGame))
          : h("p", { class: "hint" }, "No public game is being played right now."),
        lobby.live_total > lobby.live.length ? h("p", { class: "hint" }, `and ${lobby.live_total - lobby.live.length} more`) : null,
      );
    } catch (error) {
      render(list, h("p", { class: "hint" }, error.message));
    }
  }
  refresh();
  const timer = setInterval(refresh, REFRESH_MS);
  onLeave(() => clearInterval(timer));
  return { counts, panel };
}
