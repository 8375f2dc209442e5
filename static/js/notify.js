// The "Tell me when it's my move" control. The Web Push code itself (push.js) is loaded only
// when the player uses the control, or when they allowed notifications before (to show the
// control's state): a first visit downloads none of it.

import { h } from "./dom.js";

const ASK = "Tell me when it's my move";
const STOP = "Stop telling me";

function supported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

/** A panel with the control, or null in a browser that cannot show notifications. */
export function notifyPanel() {
  if (!supported()) return null;
  let on = false;
  const status = h("p", { class: "hint", role: "status" });
  const button = h("button", { type: "button", class: "notify-toggle", "aria-pressed": "false" }, ASK);
  const show = () => {
    button.textContent = on ? STOP : ASK;
    button.setAttribute("aria-pressed", String(on));
    status.textContent = on
      ? "Notifications are on for this device."
      : "A notification when it is your move, even with this tab closed.";
  };
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const push = await import("./push.js");
      if (on) await push.turnOff();
      else await push.turnOn();
      on = !on;
      show();
    } catch (error) {
      status.textContent = error.message;
    } finally {
      button.disabled = false;
    }
  });
  show();
  if (Notification.permission === "granted") {
    import("./push.js")
      .then((push) => push.isOn())
      .then((value) => {
        on = value;
        show();
      })
      .catch(() => {});
  }
  return h("section", { class: "panel notify", "aria-labelledby": "notify-title" }, h("h2", { id: "notify-title" }, "Your move, told"), status, button);
}
