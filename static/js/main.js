// The client's entry point: one page per address, links handled without reloading.

import { leavePage } from "./dom.js";
import { leaderboardPage } from "./leaderboard.js";
import { joinPage, lobbyPage } from "./lobby.js";
import { replayPage } from "./replay.js";
import { roomPage } from "./room.js";

const main = document.getElementById("main");

function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  route();
}

function route() {
  leavePage();
  const path = location.pathname;
  const context = { navigate };
  let match;
  window.scrollTo(0, 0);
  if ((match = path.match(/^\/r\/([^/]+)\/?$/))) joinPage(main, decodeURIComponent(match[1]).toUpperCase(), context);
  else if ((match = path.match(/^\/room\/([^/]+)\/?$/))) roomPage(main, decodeURIComponent(match[1]).toUpperCase(), context);
  else if ((match = path.match(/^\/games\/([^/]+)\/?$/))) replayPage(main, decodeURIComponent(match[1]));
  else if (path === "/leaderboard") leaderboardPage(main);
  else lobbyPage(main, context);
  main.focus({ preventScroll: true });
}

document.addEventListener("click", (event) => {
  const link = event.target.closest("a[href]");
  if (!link || link.target || event.ctrlKey || event.metaKey || event.shiftKey) return;
  const url = new URL(link.href);
  if (url.origin !== location.origin || url.pathname === "/help" || url.pathname.startsWith("/static/")) return;
  event.preventDefault();
  navigate(url.pathname + url.search);
});
window.addEventListener("popstate", route);
route();
