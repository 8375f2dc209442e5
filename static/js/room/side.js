// The room's side column: the log and the chat, one at a time, behind two tabs; on a phone a
// drawer under the table, closed until a tab is pressed.

import { h, render } from "../dom.js";

const LOG_SHOWN = 60;

/** The column for `chat`; `ui.sideTab` remembers the open tab, `mainSlot` holds the table. */
export function sideColumn({ ui, chat, mainSlot }) {
  const unread = h("span", { class: "unread", hidden: true });
  const tabs = {
    log: h("button", { type: "button", role: "tab", id: "tab-log", "aria-controls": "panel-log" }, "Log"),
    chat: h("button", { type: "button", role: "tab", id: "tab-chat", "aria-controls": "panel-chat" }, "Chat", unread),
  };
  const logList = h("ol", { class: "log-lines", reversed: true, tabindex: "0" });
  const panels = {
    log: h("section", { role: "tabpanel", id: "panel-log", class: "log", "aria-labelledby": "tab-log" }, h("div", { role: "log", class: "log-box", "aria-label": "Game log, newest first" }, logList)),
    chat: h("section", { role: "tabpanel", id: "panel-chat", class: "chat", "aria-labelledby": "tab-chat" }, chat.element),
  };
  const names = Object.keys(tabs);
  const phone = window.matchMedia("(max-width: 959px)");
  let open = !phone.matches;
  function select(name, { focus = false, toggle = false } = {}) {
    open = toggle && phone.matches && name === ui.sideTab ? !open : open || toggle;
    ui.sideTab = name;
    for (const key of names) {
      tabs[key].setAttribute("aria-selected", String(key === name));
      tabs[key].tabIndex = key === name ? 0 : -1;
      panels[key].hidden = key !== name;
    }
    element.classList.toggle("closed", !open);
    // The drawer lies over the table: an opened list of sets would be drawn over it.
    if (open && phone.matches) for (const list of mainSlot.querySelectorAll(".stack-list:popover-open")) list.hidePopover();
    chat.setVisible(name === "chat" && (open || !phone.matches));
    if (focus) tabs[name].focus();
  }
  for (const name of names) {
    tabs[name].addEventListener("click", () => select(name, { toggle: true }));
    tabs[name].addEventListener("keydown", (event) => {
      if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
      const visible = names.filter((key) => !tabs[key].hidden);
      const next = visible[(visible.indexOf(name) + 1) % visible.length];
      select(next, { focus: true });
      event.preventDefault();
    });
  }
  chat.onUnread = (count) => {
    unread.hidden = !count;
    unread.textContent = count ? String(count) : "";
    tabs.chat.setAttribute("aria-label", count ? `Chat, ${count} unread` : "Chat");
  };
  const element = h("aside", { class: "side", "aria-label": "Log and chat" }, h("div", { class: "tabs", role: "tablist", "aria-label": "Log and chat" }, tabs.log, tabs.chat), panels.log, panels.chat);
  select(ui.sideTab);
  return {
    element,
    /** The log (newest first) at the table; the chat alone in the waiting room. */
    update(view) {
      const logWasHidden = tabs.log.hidden;
      tabs.log.hidden = !view;
      if (!view && ui.sideTab === "log") select("chat");
      if (view && logWasHidden) select("log");
      if (!view) return;
      const entries = view.log.slice(-LOG_SHOWN).reverse();
      render(logList, entries.map((entry) => h("li", { class: `event-${entry.event}` }, entry.text)));
    },
  };
}
