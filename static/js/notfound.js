// Any address the client has no page for: say so in words, and offer the way back.

import { h } from "./dom.js";

export function notFoundPage(main, path) {
  main.replaceChildren(
    h(
      "div",
      { class: "not-found" },
      h("div", { class: "lost-card", "aria-hidden": "true" }, "?"),
      h("p", { class: "eyebrow" }, "Page not found"),
      h("h1", {}, "This card is not in the deck"),
      h("p", {}, "There is no page at ", h("code", { class: "path" }, path), ". The link may be mistyped or out of date."),
      h("p", { class: "links" }, h("a", { href: "/", class: "button primary" }, "Back to the lobby"), h("a", { href: "/help", class: "button" }, "How to play")),
    ),
  );
}
