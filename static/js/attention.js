// Tell a player whose tab is in the background that the game waits for them: the title and
// the favicon change while the tab is hidden and it is their move, and, if they asked for it
// with the button, a browser notification. Permission is only ever asked for by a press.

const ALERT_ICON = "/static/favicon-alert.svg";
const STORAGE_KEY = "cash-stash:notify";

let yourMove = false;
let waitingFor = "";
let signalled = null; // while signalled: { title, icon } to restore, and the title it shows
let notification = null; // the one shown for this move, closed once the player is back

function iconLink() {
  return document.querySelector('link[rel~="icon"]');
}

function showSignal() {
  const title = `● ${waitingFor} — ${signalled ? signalled.title : document.title}`;
  if (!signalled) {
    const link = iconLink();
    signalled = { title: document.title, icon: link ? link.getAttribute("href") : null };
    if (link) link.setAttribute("href", ALERT_ICON);
  }
  document.title = title;
  signalled.shown = title;
}

function clearSignal() {
  if (!signalled) return;
  // A page that set its own title meanwhile (another page opened) keeps it.
  if (document.title === signalled.shown) document.title = signalled.title;
  const link = iconLink();
  if (link && signalled.icon !== null) link.setAttribute("href", signalled.icon);
  signalled = null;
}

function update() {
  if (yourMove && document.visibilityState === "hidden") {
    showSignal();
  } else {
    clearSignal();
    notification?.close();
    notification = null;
  }
}

document.addEventListener("visibilitychange", update);

function notificationsOn() {
  try {
    return (
      "Notification" in window &&
      Notification.permission === "granted" &&
      localStorage.getItem(STORAGE_KEY) === "on"
    );
  } catch {
    return false;
  }
}

function notify(what) {
  if (!notificationsOn()) return;
  try {
    notification = new Notification("Cash Stash", { body: what, tag: "cash-stash-move", icon: ALERT_ICON });
  } catch {
    return; // Some phone browsers show notifications only through a service worker.
  }
  notification.addEventListener("click", () => window.focus());
}

/**
 * Called with every state the table renders: whether this seat must act now and what for
 * ("Your turn", "Answer the challenge", "Choose a direction"). Pass false when leaving the table.
 */
export function setYourMove(isYourMove, what = "Your turn") {
  const becameYourMove = isYourMove && !yourMove;
  yourMove = Boolean(isYourMove);
  waitingFor = what;
  update();
  if (becameYourMove && document.visibilityState === "hidden") notify(what);
}

function showNotifyState(button) {
  const supported = "Notification" in window;
  const permission = supported ? Notification.permission : "denied";
  const on = notificationsOn();
  button.setAttribute("aria-pressed", String(on));
  button.disabled = !supported || permission === "denied";
  if (!supported) button.textContent = "Notifications: not available";
  else if (permission === "denied") button.textContent = "Notifications: blocked in this browser";
  else button.textContent = on ? "Notifications: on" : "Notifications: off";
}

async function toggleNotifications(button) {
  if (notificationsOn()) {
    localStorage.removeItem(STORAGE_KEY);
  } else {
    const permission =
      Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
    if (permission === "granted") localStorage.setItem(STORAGE_KEY, "on");
  }
  showNotifyState(button);
}

/**
 * A toggle button for "notify me when it is my move while this tab is hidden". The browser asks
 * the person for permission only when they press it.
 */
export function notifyButton() {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "notify-toggle";
  button.addEventListener("click", () => toggleNotifications(button));
  showNotifyState(button);
  return button;
}
