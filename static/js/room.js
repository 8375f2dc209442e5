// /room/<code>: the waiting room, then the table, then the game over screen; one WebSocket.

import { api, ApiError } from "./api.js";
import { seriesFromReplay, stashChart } from "./chart.js";
import { h, money, onLeave, render } from "./dom.js";
import { reasonsFor, typeLabel } from "./moves.js";
import { forgetSeat, seatIn } from "./session.js";
import { GameSocket } from "./socket.js";
import { tableView } from "./table.js";

const LEVELS = [
  ["easy", "Easy"],
  ["medium", "Medium"],
  ["hard", "Hard"],
];
const RULE_NAMES = { simple: "Simple", simple_actions: "Simple with actions", advanced: "Advanced" };
const RECORD_RETRY_MS = [300, 600, 1000, 2000, 3000, 5000, 8000];

function roundsText(rounds) {
  if (rounds === 1) return "one round";
  if (rounds === "million") return "first to $1,000,000";
  if (rounds === "two_round_wins") return "two round wins";
  return `${rounds} rounds`;
}

export function roomPage(main, code, { navigate }) {
  const seat = seatIn(code);
  const watching = new URLSearchParams(location.search).has("watch");
  if (!seat && !watching) {
    navigate(`/r/${code}`, { replace: true });
    return;
  }
  const ui = {
    room: null,
    message: null,
    selected: new Set(),
    filter: null,
    notice: null,
    chat: [],
    connection: "connecting",
    gone: null,
    finished: null,
    finishedFor: null,
    busy: false,
    botLevel: "medium",
  };
  let refCounter = 0;
  const refPrefix = Math.random().toString(36).slice(2, 8);
  const container = h("div", { class: "room-page" });
  main.replaceChildren(container);

  const socket = new GameSocket(code, seat?.token ?? null, {
    onRoom(room) {
      ui.room = room;
      if (room.status === "finished" && room.game) loadFinished(room.game.id);
      draw();
    },
    onState(message) {
      ui.message = message;
      const hand = new Set(message.view.hand.map((c) => c.id));
      ui.selected = new Set([...ui.selected].filter((id) => hand.has(id)));
      if (ui.filter && !message.legal.some((a) => a.type === ui.filter.type)) ui.filter = null;
      if (message.ref !== null && message.ref !== undefined) {
        ui.selected.clear();
        ui.filter = null;
        ui.notice = null;
      }
      draw();
    },
    onError(message) {
      ui.notice = { kind: "error", text: message.message };
      draw();
    },
    onChat(message) {
      ui.chat.push(message);
      ui.chat = ui.chat.slice(-50);
      draw();
    },
    onStatus(status, detail) {
      ui.connection = status;
      if (status === "gone") {
        ui.gone = detail;
        if (seat) forgetSeat(code);
      }
      draw();
    },
  });
  socket.connect();

  const clockTimer = setInterval(updateClock, 1000);
  onLeave(() => {
    socket.close();
    clearInterval(clockTimer);
  });

  function updateClock() {
    const el = container.querySelector(".clock");
    const deadline = ui.message?.deadline;
    if (!el) return;
    if (!deadline || ui.message.view.over) {
      el.textContent = "";
      return;
    }
    const left = Math.max(0, Math.round(deadline - Date.now() / 1000));
    el.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left`;
    el.classList.toggle("urgent", left <= 10);
  }

  async function loadFinished(gameId) {
    if (ui.finishedFor === gameId) return;
    ui.finishedFor = gameId;
    ui.finished = null;
    for (const delay of [0, ...RECORD_RETRY_MS]) {
      if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
      if (ui.finishedFor !== gameId || socket.closed) return;
      try {
        ui.finished = await api.game(gameId);
        draw();
        return;
      } catch (error) {
        if (!(error instanceof ApiError) || (error.status !== 404 && error.status !== 0)) break;
      }
    }
    ui.finished = { error: "The game's record is not available yet; its replay will be on the lobby page." };
    draw();
  }

  function act(action) {
    const sent = socket.send({
      type: "act",
      ref: `${refPrefix}-${++refCounter}`,
      version: ui.message.version,
      action: withoutSeat(action),
    });
    if (!sent) ui.notice = { kind: "error", text: "Not connected: reconnecting, try again in a moment." };
    draw();
  }

  const handlers = {
    act,
    toggleCard(id) {
      if (ui.selected.has(id)) ui.selected.delete(id);
      else ui.selected.add(id);
      ui.notice = null;
      draw();
    },
    pickType(type, available) {
      const message = ui.message;
      if (!available) {
        const reasons = reasonsFor(message.blocked, type);
        ui.notice = { kind: "info", text: `${typeLabel(type)} is not possible now: ${reasons.join(" ") || "no legal way to do it."}` };
        ui.filter = null;
      } else {
        ui.filter = ui.filter?.type === type && ui.filter.target === undefined ? null : { type };
        ui.notice = null;
      }
      draw();
    },
    pickSet(target, depth) {
      const message = ui.message;
      const possible = message.legal.some((a) => a.type === "challenge" && a.target === target && a.depth === depth);
      if (possible) {
        ui.filter = { type: "challenge", target, depth };
        ui.notice = null;
      } else {
        const reasons = reasonsFor(message.blocked, "challenge", { target, depth });
        const name = message.view.players[target].name;
        ui.notice = { kind: "info", text: `You cannot challenge that set of ${name}: ${reasons.join(" ") || "no legal challenge uses it."}` };
        ui.filter = null;
      }
      draw();
    },
  };

  function connectionBanner() {
    if (ui.gone) return h("p", { class: "notice error", role: "alert" }, ui.gone, " ", h("a", { href: "/" }, "Back to the lobby"));
    if (ui.connection === "reconnecting") return h("p", { class: "notice info", role: "status", dataset: { testid: "reconnecting" } }, "Connection lost: reconnecting…");
    return null;
  }

  function host() {
    return ui.room && seat && ui.room.host === seat.seat;
  }

  async function hostCall(call) {
    ui.busy = true;
    draw();
    try {
      await call();
      ui.notice = null;
    } catch (error) {
      ui.notice = { kind: "error", text: error.message };
    } finally {
      ui.busy = false;
      draw();
    }
  }

  function waitingRoom(room) {
    const invite = `${location.origin}/r/${room.code}`;
    const botLevel = h(
      "select",
      { id: "bot-level", dataset: { focus: "bot-level" }, onChange: (event) => (ui.botLevel = event.target.value) },
      LEVELS.map(([value, label]) => h("option", { value, selected: value === ui.botLevel }, label)),
    );
    const filled = room.seats.filter(Boolean).length;
    return h(
      "section",
      { class: "waiting", "aria-labelledby": "waiting-title" },
      h("h1", { id: "waiting-title" }, room.options.room_name),
      h("p", {}, `${RULE_NAMES[room.options.rules]} rules${room.options.draft ? " with draft piles" : ""}, ${roundsText(room.options.rounds)}, ${room.options.turn_seconds ? `${room.options.turn_seconds} s per turn` : "no clock"}, ${room.options.visibility} room.`),
      h(
        "div",
        { class: "invite" },
        h("label", { for: "invite-link" }, "Invite link"),
        h("input", { id: "invite-link", readonly: true, value: invite, onFocus: (e) => e.target.select() }),
        h(
          "button",
          {
            type: "button",
            dataset: { focus: "copy-invite" },
            onClick: async (event) => {
              try {
                await navigator.clipboard.writeText(invite);
                event.target.textContent = "Copied";
              } catch {
                container.querySelector("#invite-link").select();
                event.target.textContent = "Press Ctrl+C to copy";
              }
            },
          },
          "Copy invite link",
        ),
        h("p", { class: "hint" }, "Room code ", h("strong", { class: "code", dataset: { testid: "room-code" } }, room.code)),
      ),
      h(
        "ol",
        { class: "seats", "aria-label": "Seats" },
        room.seats.map((entry, index) =>
          h(
            "li",
            { class: "seat" },
            h("span", { class: "seat-number" }, `Seat ${index + 1}`),
            entry
              ? [
                  h("strong", {}, entry.name),
                  entry.kind === "ai" ? h("span", { class: "badge" }, `AI · ${entry.level}`) : h("span", { class: `badge ${entry.connected ? "online" : ""}` }, entry.connected ? "here" : "not connected"),
                  index === room.host ? h("span", { class: "badge" }, "host") : null,
                  seat && index === seat.seat ? h("span", { class: "badge you" }, "you") : null,
                  host() && index !== room.host
                    ? h(
                        "button",
                        {
                          type: "button",
                          class: "small",
                          "aria-label": `Remove ${entry.name}`,
                          dataset: { focus: `remove-${index}` },
                          onClick: () => hostCall(() => (entry.kind === "ai" ? api.removeBot(code, seat.token, index) : api.removePlayer(code, seat.token, index))),
                        },
                        "Remove",
                      )
                    : null,
                ]
              : h("span", { class: "empty" }, "open"),
          ),
        ),
      ),
      host()
        ? h(
            "div",
            { class: "host-controls" },
            h("label", { for: "bot-level" }, "AI level "),
            botLevel,
            h("button", { type: "button", disabled: ui.busy || filled >= room.seats.length, dataset: { focus: "add-ai" }, onClick: () => hostCall(() => api.addBot(code, seat.token, ui.botLevel)) }, "Add AI player"),
            h("button", { type: "button", class: "primary", disabled: ui.busy || filled < 2, dataset: { focus: "start" }, onClick: () => hostCall(() => api.start(code, seat.token)) }, "Start the game"),
            h("p", { class: "hint" }, "Open seats are dropped when the game starts."),
          )
        : h("p", { class: "hint" }, "Waiting for the host to start the game."),
    );
  }

  function gameOver(message) {
    const view = message.view;
    const standings = view.rounds;
    const totals = standings.totals && standings.rounds.length ? standings.totals : view.players.map((p) => p.stash);
    const winners = standings.winners?.length ? standings.winners : [];
    const names = view.players.map((p) => p.name);
    const order = [...view.players].sort((a, b) => totals[b.seat] - totals[a.seat]);
    const finished = ui.finished;
    let chart;
    if (!finished) chart = h("p", { class: "hint" }, "Loading the chart…");
    else if (finished.error) chart = h("p", { class: "hint" }, finished.error);
    else chart = h("figure", { class: "chart-box" }, stashChart(names, seriesFromReplay(finished)), h("figcaption", {}, "Each player's stash value after every action (with several rounds, plus the totals of the rounds already played)."));
    return h(
      "section",
      { class: "game-over", "aria-labelledby": "over-title" },
      h("h2", { id: "over-title" }, "Game over"),
      h("p", { class: "winner", dataset: { testid: "winner" } }, winners.length ? `${winners.map((s) => (s === view.seat ? "You" : names[s])).join(" and ")} ${winners.length > 1 ? "share the win" : winners[0] === view.seat ? "win" : "wins"}!` : ""),
      h(
        "ol",
        { class: "final" },
        order.map((p) => h("li", {}, h("strong", {}, p.name), ` ${money(totals[p.seat])}`, winners.includes(p.seat) ? h("span", { class: "badge turn" }, "winner") : null)),
      ),
      chart,
      h(
        "p",
        { class: "links" },
        ui.room?.game ? h("a", { href: `/games/${ui.room.game.id}`, class: "button", dataset: { focus: "replay" } }, "Watch the replay") : null,
        host() ? h("button", { type: "button", class: "primary", onClick: () => hostCall(() => api.rematch(code, seat.token)) }, "Rematch") : null,
        h("a", { href: "/", class: "button" }, "Lobby"),
      ),
    );
  }

  function logPanel(view) {
    const entries = view.log.slice(-40).reverse();
    return h(
      "section",
      { class: "log", "aria-labelledby": "log-title" },
      h("h2", { id: "log-title" }, "Game log"),
      h("ol", { role: "log", reversed: true, start: view.log.length }, entries.map((entry) => h("li", { class: `event-${entry.event}` }, entry.text))),
    );
  }

  function chatPanel() {
    const input = h("input", { id: "chat-text", maxlength: 300, autocomplete: "off", "aria-label": "Chat message", dataset: { focus: "chat" } });
    return h(
      "section",
      { class: "chat", "aria-labelledby": "chat-title" },
      h("h2", { id: "chat-title" }, "Chat"),
      h("ol", { class: "chat-lines" }, ui.chat.map((line) => h("li", {}, h("strong", {}, line.name), `: ${line.text}`))),
      seat
        ? h(
            "form",
            {
              class: "chat-form",
              onSubmit: (event) => {
                event.preventDefault();
                const text = input.value.trim();
                if (text && socket.send({ type: "chat", text })) input.value = "";
              },
            },
            input,
            h("button", { type: "submit" }, "Send"),
          )
        : null,
    );
  }

  function draw() {
    const chatDraft = container.querySelector("#chat-text")?.value;
    const parts = [connectionBanner()];
    const room = ui.room;
    if (!room) parts.push(h("p", { class: "hint" }, "Connecting to the room…"));
    else if (room.status === "waiting" || !ui.message) {
      if (ui.notice) parts.push(h("p", { class: `notice ${ui.notice.kind}`, role: "alert" }, ui.notice.text));
      parts.push(room.status === "waiting" ? waitingRoom(room) : h("p", { class: "hint" }, "Loading the table…"));
    } else {
      const message = ui.message;
      parts.push(h("h1", { class: "visually-hidden" }, room.options.room_name));
      if (message.view.over) parts.push(gameOver(message));
      parts.push(h("div", { class: "play-area" }, tableView(message, ui, handlers), h("div", { class: "side" }, logPanel(message.view), chatPanel())));
    }
    const hadFocus = container.contains(document.activeElement);
    render(container, parts);
    if (hadFocus && !container.contains(document.activeElement)) {
      // The control just used is gone (the move was played): keep keyboard users at the table.
      container.querySelector(".turn-status, h1, h2")?.focus();
    }
    const chatInput = container.querySelector("#chat-text");
    if (chatInput && chatDraft) chatInput.value = chatDraft;
    updateClock();
  }

  draw();
}

function withoutSeat(fields) {
  const { seat: _seat, ...rest } = fields;
  return rest;
}
