// A plain chat box for the room (chat lines and a form), with the interface the side column
// uses: createChat({send, canChat}) → {element, receive(message), setVisible(bool), onUnread}.

import { h } from "./dom.js";

export function createChat({ send, canChat }) {
  const lines = h("ol", { class: "chat-lines" });
  const input = h("input", { id: "chat-text", maxlength: 300, autocomplete: "off", "aria-label": "Chat message" });
  let visible = false;
  let unread = 0;
  const chat = {
    onUnread: null,
    element: h(
      "div",
      { class: "chat-box" },
      lines,
      canChat
        ? h(
            "form",
            {
              class: "chat-form",
              onSubmit: (event) => {
                event.preventDefault();
                const text = input.value.trim();
                if (text && send(text)) input.value = "";
              },
            },
            input,
            h("button", { type: "submit" }, "Send"),
          )
        : null,
    ),
    receive(message) {
      if (message.type !== "chat") return;
      lines.append(h("li", {}, h("strong", {}, message.name), `: ${message.text}`));
      if (!visible) {
        unread += 1;
        chat.onUnread?.(unread);
      }
    },
    setVisible(shown) {
      visible = shown;
      if (shown && unread) {
        unread = 0;
        chat.onUnread?.(0);
      }
    },
  };
  return chat;
}
