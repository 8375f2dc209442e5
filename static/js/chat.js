// The chat panel: the room's lines (time, name, text) in a labelled live log, and a form to say
// one. Mounted once by the table; it keeps its own state across the table's renders. Every
// line is shown as text, never as HTML: names and lines are typed by other people.
//
//   const chat = createChat({ send: (text) => socket.send({ type: "chat", text }), canChat });
//   container.append(chat.element);
//   chat.receive(message);    // "chat", "chat_history", and "error" messages
//   chat.setVisible(false);   // a collapsed tab or drawer: new lines count as unread
//   chat.onUnread = (n) => {};

const MAX_LINES = 200;
const MAX_LENGTH = 300;
/** How long after sending a line a refusal without a code of chat's own is taken as its answer. */
const PENDING_MS = 5000;

/** Refusals that only a chat line gets, in the players' words (the server's sentence is used when it has one). */
const CHAT_ERRORS = {
  empty_chat: "Type a message first.",
  blank_text: "Type a message first.",
  chat_too_long: "That message is too long.",
  text_too_long: "That message is too long.",
  bad_text: "That message has characters that cannot be sent.",
  chat_too_fast: "You are chatting too fast; wait a moment.",
  chat_busy: "The chat is busy; wait a moment.",
};

/** Refusals any message may get: about chat only while a line just sent has had no answer. */
const SENDING_ERRORS = {
  rate_limited: "Slow down: that message was not sent.",
  unavailable: "The message could not be sent; try again.",
  not_seated: "Your seat is no longer in this room.",
};

const READ_ONLY = "Spectators can read the chat but not write in it.";

let panels = 0;

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** Local time of day as HH:MM, from Unix seconds. */
export function clock(at) {
  const when = new Date(at * 1000);
  const pad = (n) => String(n).padStart(2, "0");
  return `${pad(when.getHours())}:${pad(when.getMinutes())}`;
}

function keyOf(line) {
  return `${line.at}|${line.seat}|${line.text}`;
}

function validLine(line) {
  return (
    line !== null &&
    typeof line === "object" &&
    typeof line.text === "string" &&
    typeof line.name === "string" &&
    typeof line.at === "number" &&
    Number.isFinite(line.at)
  );
}

/**
 * The chat panel. `send(text)` sends a line and returns whether it went out; `canChat` (a
 * boolean, or a function asked at each render) says whether this viewer may write.
 */
export function createChat({ send, canChat = true, maxLength = MAX_LENGTH } = {}) {
  const id = `chat-${++panels}`;
  const shown = new Set();
  let visible = true;
  let unread = 0;
  let pending = null; // { text, at } of the last line sent without an answer yet

  const title = el("h2", { id: `${id}-title`, class: "chat-title" }, "Chat");
  const badge = el("span", { class: "chat-badge", "aria-hidden": "true" });
  badge.hidden = true;
  title.append(" ", badge);
  // The log region holds the list (an ol given the log role would lose its list semantics).
  const lines = el("ol", { class: "chat-list" });
  const scroller = el(
    "div",
    {
      class: "chat-lines",
      role: "log",
      "aria-live": "polite",
      "aria-labelledby": `${id}-title`,
      tabindex: "0",
    },
    lines,
  );
  const empty = el("p", { class: "chat-empty" }, "No messages yet.");
  const problem = el("p", { class: "chat-problem", role: "alert" });
  problem.hidden = true;
  const input = el("input", {
    id: `${id}-text`,
    type: "text",
    maxlength: String(maxLength),
    autocomplete: "off",
    enterkeyhint: "send",
  });
  const label = el("label", { for: `${id}-text`, class: "visually-hidden" }, "Chat message");
  const button = el("button", { type: "submit" }, "Send");
  const form = el("form", { class: "chat-form" }, label, input, button);
  const readOnly = el("p", { class: "chat-read-only" }, READ_ONLY);
  const element = el(
    "section",
    { class: "chat-panel", "aria-labelledby": `${id}-title` },
    title,
    scroller,
    empty,
    problem,
    form,
    readOnly,
  );

  const chat = { element, receive, setVisible, setCanChat, onUnread: null };

  function mayWrite() {
    return typeof canChat === "function" ? Boolean(canChat()) : canChat !== false;
  }

  function showWriting() {
    const writing = mayWrite();
    form.hidden = !writing;
    readOnly.hidden = writing;
  }

  function setCanChat(value) {
    canChat = value;
    showWriting();
  }

  function lineElement(line) {
    const time = el("time", { datetime: new Date(line.at * 1000).toISOString() }, clock(line.at));
    const name = el("strong", { class: "chat-name" }, line.name);
    const text = el("span", { class: "chat-text" }, line.text);
    const item = el("li", { class: "chat-line" }, time, " ", name, " ", text);
    if (Number.isInteger(line.seat)) item.dataset.seat = String(line.seat);
    return item;
  }

  function scrollToNewest() {
    scroller.scrollTop = scroller.scrollHeight;
  }

  function trim() {
    while (lines.children.length > MAX_LINES) {
      const first = lines.firstElementChild;
      if (first.classList.contains("chat-line")) shown.delete(first.dataset.key);
      first.remove();
    }
  }

  function add(line, { live }) {
    const key = keyOf(line);
    if (shown.has(key)) return false;
    shown.add(key);
    const item = lineElement(line);
    item.dataset.key = key;
    if (live && !visible) {
      if (unread === 0) lines.append(el("li", { class: "chat-unread-divider" }, "New messages"));
      item.classList.add("unread");
      unread += 1;
    }
    lines.append(item);
    return true;
  }

  function refresh() {
    trim();
    empty.hidden = shown.size > 0;
    badge.hidden = unread === 0;
    badge.textContent = unread === 0 ? "" : `${unread} new`;
    element.dataset.unread = String(unread);
    scrollToNewest();
  }

  function announceUnread() {
    if (typeof chat.onUnread === "function") chat.onUnread(unread);
  }

  function history(received) {
    // The room's history replaces what is shown: after a reconnect it holds what was missed.
    // A live line that came just before it is in it too, and is shown once.
    lines.replaceChildren();
    shown.clear();
    const before = unread;
    unread = 0;
    for (const line of received.filter(validLine)) add(line, { live: false });
    refresh();
    if (before !== unread) announceUnread();
  }

  function receive(message) {
    if (!message || typeof message !== "object") return;
    if (message.type === "chat") {
      if (!validLine(message)) return;
      if (pending !== null && message.text === pending.text) {
        pending = null;
        problem.hidden = true;
      }
      if (add(message, { live: true })) {
        refresh();
        if (!visible) announceUnread();
      }
    } else if (message.type === "chat_history") {
      if (Array.isArray(message.lines)) history(message.lines);
    } else if (message.type === "error") {
      refused(message);
    }
  }

  function refused(message) {
    const ownCode = Object.hasOwn(CHAT_ERRORS, message.code);
    const sending = pending !== null && Date.now() - pending.at < PENDING_MS;
    if (!ownCode && !(sending && Object.hasOwn(SENDING_ERRORS, message.code))) return;
    const words =
      typeof message.message === "string" && message.message.trim()
        ? message.message
        : CHAT_ERRORS[message.code] || SENDING_ERRORS[message.code];
    problem.textContent = words;
    problem.hidden = false;
    if (pending !== null && input.value === "") input.value = pending.text;
    pending = null;
  }

  function setVisible(value) {
    visible = Boolean(value);
    element.dataset.visible = String(visible);
    if (!visible) {
      // Lines from now on are unread: the divider will stand before the first of them.
      for (const divider of lines.querySelectorAll(".chat-unread-divider")) divider.remove();
      return;
    }
    if (unread > 0) {
      unread = 0;
      refresh();
      announceUnread();
      // The divider stays where the unread lines began until the panel is hidden again.
      for (const item of lines.querySelectorAll(".unread")) item.classList.remove("unread");
    } else {
      scrollToNewest();
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) {
      problem.textContent = CHAT_ERRORS.empty_chat;
      problem.hidden = false;
      return;
    }
    if (send(text) === false) {
      problem.textContent = "Not connected: the message was not sent.";
      problem.hidden = false;
      return;
    }
    pending = { text, at: Date.now() };
    problem.hidden = true;
    input.value = "";
    input.focus();
  });

  showWriting();
  refresh();
  return chat;
}
