// Web Push for this browser: loaded only when the player uses the lobby's "Tell me when it's
// my move" control (or allowed notifications before, to show its state). Turning on asks for
// permission, registers the service worker (/sw.js), subscribes with the server's VAPID key and
// hands the subscription to the server under this browser's guest id.

import { playerId } from "./session.js";

function keyBytes(base64url) {
  const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/");
  const text = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

async function send(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) throw new Error(data?.detail ?? `The server answered ${response.status}.`);
  return data;
}

export function supported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

async function registration() {
  await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  return navigator.serviceWorker.ready;
}

/** Whether this device is subscribed (without asking the player anything). */
export async function isOn() {
  if (!supported() || Notification.permission !== "granted") return false;
  const existing = await navigator.serviceWorker.getRegistration("/");
  return Boolean(existing && (await existing.pushManager.getSubscription()));
}

/** Ask, register, subscribe and tell the server; throws with a sentence when it cannot. */
export async function turnOn() {
  if (!supported()) throw new Error("This browser cannot show notifications.");
  const permission = await Notification.requestPermission();
  if (permission !== "granted") throw new Error("Notifications are blocked for this site in the browser's settings.");
  const worker = await registration();
  const { public_key: key } = await send("GET", "/api/push/key");
  let subscription = await worker.pushManager.getSubscription();
  const current = subscription?.options?.applicationServerKey;
  if (subscription && current && btoa(String.fromCharCode(...new Uint8Array(current))) !== btoa(String.fromCharCode(...keyBytes(key)))) {
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await worker.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
  await send("POST", "/api/push/subscriptions", { player_id: playerId(), ...subscription.toJSON() });
}

/** Tell the server to forget this device, then unsubscribe it. */
export async function turnOff() {
  const existing = await navigator.serviceWorker.getRegistration("/");
  const subscription = existing && (await existing.pushManager.getSubscription());
  if (!subscription) return;
  await send("DELETE", "/api/push/subscriptions", { player_id: playerId(), endpoint: subscription.endpoint });
  await subscription.unsubscribe();
}

const ASK = "Tell me when it's my move";
const STOP = "Stop telling me";
const controls = new WeakMap();

/** The lobby control's behaviour: its state shown in `button` and `status`, and a toggle. */
export function control(button, status) {
  if (controls.has(button)) return controls.get(button);
  let toggled = false;
  const state = {
    on: false,
    show() {
      button.textContent = state.on ? STOP : ASK;
      button.setAttribute("aria-pressed", String(state.on));
      status.textContent = state.on ? "Notifications are on for this device." : "";
    },
    async toggle() {
      toggled = true;
      button.disabled = true;
      try {
        if (state.on) await turnOff();
        else await turnOn();
        state.on = !state.on;
        state.show();
      } catch (error) {
        status.textContent = error.message;
      } finally {
        button.disabled = false;
      }
    },
  };
  controls.set(button, state);
  isOn()
    .then((on) => {
      if (toggled) return;
      state.on = on;
      state.show();
    })
    .catch(() => {});
  return state;
}
