// Play now: ask for a table (size and rules remembered here), wait in the queue over one
// WebSocket (docs/protocol.md, "Play now"), and go to the seat the server found.

import { h, onLeave, render } from "./dom.js";
import { playerId, playerName, rememberSeat, setPlayerName } from "./session.js";

const CHOICE_KEY = "cash-stash:play-now";
const NOTIFY_KEY = "cash-stash:notify";
const SITE = "Cash Stash";
const RULES = [
  ["advanced", "Advanced"],
  ["simple_actions", "Simple with actions"],
  ["simple", "Simple"],
];
const SIZES = [2, 3, 4, 5, 6, "any"];
const MODES = [
  ["live", "Live: play now, together"],
  ["turn", "Turn-based: 1 day to move"],
];

function rememberedChoice() {
  try {
    const saved = JSON.parse(localStorage.getItem(CHOICE_KEY) || "{}");
    return {
      seats: SIZES.includes(saved.seats) ? saved.seats : 4,
      rules: RULES.some(([value]) => value === saved.rules) ? saved.rules : "advanced",
      draft: saved.draft === true,
      mode: MODES.some(([value]) => value === saved.mode) ? saved.mode : "live",
    };
  } catch {
    return { seats: 4, rules: "advanced", draft: false, mode: "live" };
  }
}

function rememberChoice(choice) {
  localStorage.setItem(CHOICE_KEY, JSON.stringify(choice));
}

function clock(seconds) {
  const whole = Math.floor(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

/** Say that the game has started, to a player whose tab is in the background: the tab's
 * title until they come back, and a notification if they turned them on (the table's
 * "Notifications" button). Called once the table's page has set its own title. */
function announceStart() {
  if (document.visibilityState !== "hidden") return;
  const title = document.title;
  const shown = `● Your game has started — ${title}`;
  document.title = shown;
  document.addEventListener(
    "visibilitychange",
    () => {
      if (document.title === shown) document.title = title;
    },
    { once: true },
  );
  try {
    if ("Notification" in window && Notification.permission === "granted" && localStorage.getItem(NOTIFY_KEY) === "on") {
      new Notification(SITE, { body: "Your game has started.", tag: "cash-stash-start" });
    }
  } catch {
    // Some phone browsers show notifications only through a service worker.
  }
}

function socketUrl() {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/queue`;
}

/** The Play now panel: a short form, then the waiting view, then off to the table. */
export function playNowPanel({ navigate }) {
  const chosen = rememberedChoice();
  const name = h("input", { id: "play-name", name: "name", maxlength: 30, autocomplete: "nickname", value: playerName(), "aria-required": "true" });
  const seats = h("select", { id: "play-seats" }, SIZES.map((n) => h("option", { value: n, selected: n === chosen.seats }, n === "any" ? "Any size" : `${n} players`)));
  const rules = h("select", { id: "play-rules" }, RULES.map(([value, label]) => h("option", { value, selected: value === chosen.rules }, label)));
  const mode = h("select", { id: "play-mode" }, MODES.map(([value, label]) => h("option", { value, selected: value === chosen.mode }, label)));
  const draft = h("input", { id: "play-draft", type: "checkbox", checked: chosen.draft });
  const draftField = h("div", { class: "field check" }, draft, h("label", { for: "play-draft" }, "Draft"));
  const error = h("p", { id: "play-error", class: "notice error", role: "alert", hidden: true });
  const panel = h("section", { class: "panel play-now", "aria-labelledby": "play-title" });

  const seatsChosen = () => (seats.value === "any" ? "any" : Number(seats.value));
  const draftOffered = () => seats.value !== "any" && Number(seats.value) <= 3;
  function showDraft() {
    draftField.hidden = !draftOffered();
  }
  seats.addEventListener("change", showDraft);
  showDraft();

  let socket = null;
  let ticking = null;
  let pinging = null;
  function stop() {
    clearInterval(ticking);
    ticking = null;
    clearInterval(pinging);
    pinging = null;
    if (socket) {
      socket.onclose = null;
      socket.close();
      socket = null;
    }
    document.title = SITE;
  }
  onLeave(stop);

  function showForm(message) {
    stop();
    waitingView = null;
    render(
      panel,
      h("h2", { id: "play-title" }, "Play now"),
      h("p", { class: "hint" }, "Meet players of your strength; if nobody comes, AI players fill the table."),
      h(
        "form",
        { onSubmit: start },
        h("div", { class: "field" }, h("label", { for: "play-name" }, "Name"), name),
        h("div", { class: "play-choice" }, h("div", { class: "field" }, h("label", { for: "play-seats" }, "Table"), seats), h("div", { class: "field" }, h("label", { for: "play-rules" }, "Rules"), rules)),
        h("div", { class: "field" }, h("label", { for: "play-mode" }, "Live or turn-based"), mode),
        draftField,
        error,
        h("button", { type: "submit", class: "primary", id: "play-now" }, "Play now"),
      ),
    );
    error.hidden = !message;
    if (message) error.textContent = message;
  }

  // The waiting view is drawn once; then only its words change. The search's news (players
  // found, place in the queue) is a polite live region; the clock ticking beside it is not,
  // so a screen reader is not interrupted every second.
  let waitingView = null;

  function showWaiting(state) {
    const found = state.found ?? 1;
    const foundText = state.seats === "any" ? `${found} ${found === 1 ? "player" : "players"} found` : `${found} of ${state.seats} players found`;
    if (!waitingView) {
      waitingView = {
        found: h("p", { class: "queue-found" }),
        position: h("dd", {}),
        waited: h("dd", { class: "queue-waited" }),
        ai: h("p", { class: "hint" }),
      };
      render(
        panel,
        h("h2", { id: "play-title" }, "Finding your table…"),
        h("div", { class: "queue-status", role: "status" }, waitingView.found, h("dl", { class: "facts" }, h("div", {}, h("dt", {}, "Place in the queue"), waitingView.position))),
        h("dl", { class: "facts queue-clock" }, h("div", {}, h("dt", {}, "Waited"), waitingView.waited)),
        waitingView.ai,
        h(
          "div",
          { class: "queue-actions" },
          h("button", { type: "button", class: "primary", onClick: fillWithAi }, "Fill with AI now"),
          h("button", { type: "button", onClick: cancel }, "Cancel"),
        ),
      );
    }
    const waited = (Date.now() - state.since) / 1000;
    const aiIn = Math.max(0, Math.ceil(state.aiAfter - waited));
    const position = state.position ? String(state.position) : "…";
    if (waitingView.found.textContent !== foundText) waitingView.found.textContent = foundText;
    if (waitingView.position.textContent !== position) waitingView.position.textContent = position;
    waitingView.waited.textContent = clock(waited);
    waitingView.ai.textContent = aiIn > 0 ? `AI players fill the empty seats in ${aiIn} s.` : "AI players are taking the empty seats…";
    document.title = `Waiting ${clock(waited)} · ${SITE}`;
  }

  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  }

  // Pressed before the queue's socket has opened (a slow connection), the wish is kept and
  // sent with the player's place in the queue, not lost.
  let wantsAi = false;
  function fillWithAi() {
    wantsAi = true;
    send({ type: "fill_ai" });
  }

  function cancel() {
    send({ type: "cancel" });
    showForm();
    panel.querySelector("#play-now")?.focus();
  }

  function start(event) {
    event.preventDefault();
    const chosenName = name.value.trim();
    if (!chosenName) {
      error.hidden = false;
      error.textContent = "Please enter a name for the others to see at the table.";
      name.focus();
      return;
    }
    setPlayerName(chosenName);
    const choice = { seats: seatsChosen(), rules: rules.value, draft: draftOffered() && draft.checked, mode: mode.value };
    rememberChoice(choice);
    const state = { since: Date.now(), seats: choice.seats, position: null, found: 1, aiAfter: 20 };
    socket = new WebSocket(socketUrl());
    wantsAi = false;
    socket.onopen = () => {
      send({ type: "queue", name: chosenName, player_id: playerId(), ...choice });
      if (wantsAi) send({ type: "fill_ai" });
    };
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "queued") {
        state.aiAfter = message.ai_after;
        // The queue matches only a player who answers: now, then every ping_every seconds.
        send({ type: "ping" });
        clearInterval(pinging);
        pinging = setInterval(() => send({ type: "ping" }), message.ping_every * 1000);
      } else if (message.type === "waiting") {
        Object.assign(state, { position: message.position, found: message.found });
      } else if (message.type === "matched") {
        rememberSeat(message.code, { seat: message.seat, token: message.token, name: chosenName, turn: choice.mode === "turn" });
        stop();
        navigate(`/room/${message.code}`);
        announceStart();
        return;
      } else if (message.type === "error") {
        showForm(message.message);
        return;
      } else {
        return;
      }
      showWaiting(state);
    };
    socket.onclose = () => showForm("The connection to the queue was lost; press Play now again.");
    ticking = setInterval(() => showWaiting(state), 1000);
    showWaiting(state);
    panel.querySelector(".queue-actions button:last-child")?.focus();
  }

  showForm();
  return panel;
}
