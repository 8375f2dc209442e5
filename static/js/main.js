// The client's entry point: one page per address, links handled without reloading.

import { h, leavePage, render } from "./dom.js";
import { leaderboardPage } from "./leaderboard.js";
import { joinPage, lobbyPage } from "./lobby.js";
import { notFoundPage } from "./notfound.js";
import { roomPage } from "./room.js";

const main = document.getElementById("main");
const SITE = "Cash Stash";
/** Pages shown so far: a page that loads its module draws only if it is still the one shown. */
let shown = 0;

/** The replay page and its review load when a replay is opened: a first visit, from the lobby
 * to a dealt table, downloads neither (its page weight budget is tested). */
async function replayPage(gameId) {
  const visit = shown;
  main.replaceChildren(h("div", { class: "replay" }, h("p", { class: "hint" }, "Loading the game…")));
  let page;
  try {
    page = await import("./replay.js");
  } catch {
    if (visit === shown) render(main, h("p", { class: "notice error", role: "alert" }, "The replay could not be loaded: check the connection, then reload the page."));
    return;
  }
  if (visit === shown) page.replayPage(main, gameId);
}

/** Each page: its address pattern, its title, and what draws it from the address's parts. */
const ROUTES = [
  { path: /^\/$/, title: SITE, show: (context) => lobbyPage(main, context) },
  { path: /^\/r\/([^/]+)\/?$/, title: `Join a room · ${SITE}`, show: (context, code) => joinPage(main, roomCode(code), context) },
  { path: /^\/room\/([^/]+)\/?$/, title: SITE, show: (context, code) => roomPage(main, roomCode(code), context) },
  { path: /^\/games\/([^/]+)\/?$/, title: `Replay · ${SITE}`, show: (context, id) => replayPage(decodeURIComponent(id)) },
  { path: /^\/leaderboard\/?$/, title: `Leaderboard · ${SITE}`, show: () => leaderboardPage(main) },
  { path: /^\/(account|link)\/?$/, title: `Account · ${SITE}`, show: (context, which) => import("./account.js").then((page) => page.accountPage(main, which, context)) },
  { path: /^\/players\/([^/]+)\/?$/, title: `Player · ${SITE}`, show: (context, id) => import("./profile.js").then((page) => page.profilePage(main, decodeURIComponent(id))) },
  { path: /^\/friend\/([^/]+)\/?$/, title: `Friend link · ${SITE}`, show: (context, code) => import("./friends.js").then((friends) => friends.friendLinkPage(main, decodeURIComponent(code))) },
];

function roomCode(part) {
  return decodeURIComponent(part).toUpperCase();
}

function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  route();
}

/** The site navigation says which of its pages is open. */
function markCurrentLink(path) {
  for (const link of document.querySelectorAll(".site-header nav a")) {
    if (new URL(link.href).pathname === path) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

function route() {
  leavePage();
  shown += 1;
  const path = location.pathname;
  const context = { navigate };
  window.scrollTo(0, 0);
  markCurrentLink(path);
  const found = ROUTES.find((page) => page.path.test(path));
  if (found) {
    document.title = found.title;
    found.show(context, ...path.match(found.path).slice(1));
  } else {
    document.title = `Page not found · ${SITE}`;
    notFoundPage(main, path);
  }
  main.focus({ preventScroll: true });
}

document.addEventListener("click", (event) => {
  const link = event.target.closest("a[href]");
  if (!link || link.target || event.ctrlKey || event.metaKey || event.shiftKey) return;
  const url = new URL(link.href);
  if (url.origin !== location.origin || url.pathname === "/help" || url.pathname.startsWith("/static/")) return;
  if (url.hash && url.pathname === location.pathname) return; // a place on this page, such as the skip link
  event.preventDefault();
  navigate(url.pathname + url.search);
});
window.addEventListener("popstate", route);
route();
