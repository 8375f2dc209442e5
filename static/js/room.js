// /room/<code>: the waiting room, then the table, then the game over panel; one WebSocket.
// The page keeps the latest state, redraws the table from it, and moves keyboard focus to
// the control that makes sense after each change.

import { actionBar, END_TURN_KEY } from "./actionbar.js";
import { api, ApiError } from "./api.js";
import { notifyButton, setYourMove } from "./attention.js";
import { createChat } from "./chat.js";
import { h, onLeave, render } from "./dom.js";
import { gameOver, notePracticeState } from "./gameover.js";
import { createMotion } from "./motion.js";
import { createDrag } from "./drag.js";
import { describe, kindsById, reasonsFor } from "./moves.js";
import { optionButton } from "./movemenu.js";
import { litPlaces, naturalOrder } from "./places.js";
import { forgetSeat, seatIn, signedIn } from "./session.js";
import { GameSocket } from "./socket.js";
import { muteButton, play } from "./sound.js";
import { fitNames } from "./seats.js";
import { tableView } from "./table.js";
import { waitingRoom } from "./waiting.js";

const RECORD_RETRY_MS = [300, 600, 1000, 2000, 3000, 5000, 8000];
const LOG_SHOWN = 60;
/** The narrowest an opened list of sets is drawn beside the piles (px); else over the rivals. */
const STACK_LIST_NARROWEST = 200;

function withoutSeat(fields) {
  const { seat: _seat, ...rest } = fields;
  return rest;
}

function isMine(view) {
  return view.seat !== null && view.seat !== undefined && view.to_act.includes(view.seat);
}

function moveWords(view) {
  if (view.challenge) return "Answer the challenge";
  if (view.pending) return "Choose a direction";
  return "Your turn";
}

/** The sounds a new state calls for, from the log entries it added. */
function cuesFor(before, view, entries) {
  const cues = [];
  const me = view.seat;
  if (me === null || me === undefined) return cues;
  for (const entry of entries) {
    if (entry.event === "challenge" && entry.target === me) cues.push("challenge");
    if (entry.event === "challenge_won" && (entry.challenger === me || entry.defender === me)) cues.push(entry.seat === me ? "won" : "lost");
  }
  // The turn cue sounds when the turn passes to this seat, not again after a challenge in it.
  const turnNow = isMine(view) && !view.challenge && !view.pending && view.active === me;
  if (turnNow && (before.active !== me || before.over)) cues.push("turn");
  if (view.over && !before.over) cues.push("gameover");
  return cues;
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
    chooser: null,
    menuOpen: false,
    notice: null,
    connection: "connecting",
    gone: null,
    finished: null,
    finishedFor: null,
    busy: false,
    botLevel: "medium",
    expanded: new Set(),
    sideTab: "log",
    overShown: null,
    hint: null,
    hintAsked: false,
    focusVersion: null,
    focusMode: "",
    friends: null,
  };
  let refCounter = 0;
  const refPrefix = Math.random().toString(36).slice(2, 8);

  const socket = new GameSocket(code, seat?.token ?? null, {
    onRoom(room) {
      ui.room = room;
      if (room.status === "finished" && room.game && room.game.recorded !== false) loadFinished(room.game.id);
      draw();
    },
    onState(message) {
      const before = ui.message;
      const log = message.view.log;
      const shown = before ? before.view.log.length : log.length;
      const entries = shown <= log.length ? log.slice(shown) : [];
      ui.message = message;
      notePracticeState(code, message.view);
      // A hint holds for its own version (asking for it raised the version): a later state ends it.
      if (ui.hint && message.version > ui.hint.version) ui.hint = null;
      const hand = new Set(message.view.hand.map((c) => c.id));
      ui.selected = new Set([...ui.selected].filter((id) => hand.has(id)));
      // Opened lists, the move menu and a chooser belong to the state they were opened in.
      if (!before || message.version !== before.version) {
        ui.expanded.clear();
        ui.menuOpen = false;
        ui.chooser = null;
        drag.clear();
      }
      if (message.ref !== null && message.ref !== undefined) {
        ui.selected.clear();
        ui.notice = null;
      }
      draw(entries);
      if (before) for (const cue of cuesFor(before.view, message.view, entries)) play(cue);
      setYourMove(isMine(message.view) && !message.view.over, moveWords(message.view));
    },
    onError(message) {
        // A refused move carries its ref and is told at the table; the chat tells its own refusals.
      chat.receive(message);
      if (message.ref !== null && message.ref !== undefined) ui.notice = { kind: "error", text: message.message };
      else if (ui.hintAsked) ui.notice = { kind: "error", text: message.message };
      ui.hintAsked = false;
      draw();
    },
    onHint(message) {
      ui.hintAsked = false;
      if (ui.message && message.version < ui.message.version) {
        draw();
        return;
      }
      ui.hint = message;
      // The move menu opens on every move, the suggested one marked; focus goes to it.
      ui.selected.clear();
      ui.chooser = null;
      ui.notice = null;
      ui.menuOpen = true;
      draw();
      mainSlot.querySelector("button.option.suggested")?.focus();
    },
    onChat(message) {
      chat.receive(message);
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

  const chat = createChat({ send: (text) => socket.send({ type: "chat", text }), canChat: Boolean(seat) });
  const motion = createMotion();
  const drag = createDrag({
    litFor: (ids) => (ui.message ? [...litPlaces(ui.message.legal, ids, ui.message.view.seat).keys()] : []),
    onDrop(ids, key) {
      ui.selected = new Set(ids);
      handlers.playAt(key);
    },
    onTap: (id) => handlers.toggleCard(id),
  });
  const mainSlot = h("div", { class: "room-main" });
  const side = sideColumn();
  const tools = h("span", { class: "table-tools" }, muteButton(), notifyButton());
  for (const [index, button] of [...tools.children].entries()) button.dataset.focus = `tool-${index}`;
  const rulesNote = h("span", { class: "rules-note" });
  const tableInfo = h("div", { class: "table-info" }, rulesNote, tools);
  const container = h("div", { class: "room-page" }, mainSlot, side.element);
  main.replaceChildren(container);
  main.classList.add("wide");
  socket.connect();

  // Friends see a signed-in player here and may be invited (friends.js: never for a guest).
  if (seat && signedIn()) import("./friends.js").then((friends) => ((ui.friends = friends.tableFriends(code, seat)), draw()));

  const clockTimer = setInterval(updateClock, 1000);
  /** E takes the focus to End turn (Enter then ends it), from anywhere but a text field. */
  function shortcut(event) {
    if (event.key.toUpperCase() !== END_TURN_KEY || event.altKey || event.ctrlKey || event.metaKey || event.repeat) return;
    if (event.target.closest?.("input, textarea, select, [contenteditable]")) return;
    const endTurn = mainSlot.querySelector(".bar-buttons > button.end-turn");
    if (!endTurn) return;
    endTurn.focus();
    event.preventDefault();
  }
  document.addEventListener("keydown", shortcut);
  onLeave(() => {
    document.removeEventListener("keydown", shortcut);
    socket.close();
    clearInterval(clockTimer);
    setYourMove(false);
    motion.clear();
    drag.clear();
    main.classList.remove("wide");
  });

  /** The side column: the log and the chat, one at a time, behind two tabs. */
  function sideColumn() {
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
    // On a phone the column is a drawer under the table: closed until a tab is pressed.
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

  /** Why the selected cards cannot go to a place, from the server's `blocked` reasons. */
  function whyNot(key) {
    const message = ui.message;
    const view = message.view;
    if (!view.to_act.includes(view.seat)) return "It is not your move.";
    const [kind, seatText, depthText] = key.split(":");
    const rivalSet = kind === "set" && Number(seatText) !== view.seat;
    let reasons = [];
    if (rivalSet) reasons = reasonsFor(message.blocked, "challenge", { target: Number(seatText), depth: Number(depthText) });
    else if (key === "new-set") reasons = reasonsFor(message.blocked, "form_set");
    else if (key === "discard") reasons = reasonsFor(message.blocked, "discard");
    else if (kind === "set") reasons = reasonsFor(message.blocked, "improve");
    else if (key === "duel") reasons = reasonsFor(message.blocked, "answer");
    if (rivalSet && reasons.length) return `You cannot challenge that set: ${reasons.join(" ")}`;
    if (!ui.selected.size) return "Select cards in your hand first, then press where they go (or drag them there).";
    return `No move puts the selected cards there. ${reasons.join(" ")}`.trim();
  }

  const handlers = {
    act(action) {
      ui.chooser = null;
      ui.menuOpen = false;
      act(action);
    },
    toggleCard(id) {
      if (ui.selected.has(id)) ui.selected.delete(id);
      else ui.selected.add(id);
      ui.notice = null;
      ui.chooser = null;
      // A press on a card is a press outside an opened list of sets: it closes (a finger's tap
      // is handled on pointerup, before the browser's own light dismiss would come).
      ui.expanded.clear();
      draw();
    },
    toggleStack(seatNumber) {
      if (ui.expanded.has(seatNumber)) ui.expanded.delete(seatNumber);
      else {
        ui.expanded.clear();
        ui.expanded.add(seatNumber);
      }
      draw();
    },
    /** The browser closed an opened list (Escape, a press outside) or its button opened it
     * again: remembered for the next redraw, with no redraw now (a press outside goes on to
     * the card or place it was meant for). */
    stackToggled(seatNumber, open) {
      if (!open) ui.expanded.delete(seatNumber);
      else {
        ui.expanded.clear();
        ui.expanded.add(seatNumber);
      }
    },
    /** A place pressed (or a card dropped on it): its one move, or a chooser for several. */
    playAt(key) {
      const message = ui.message;
      const actions = litPlaces(message.legal, ui.selected, message.view.seat).get(key);
      if (!actions) {
        ui.notice = { kind: "info", text: whyNot(key) };
        ui.chooser = null;
        draw();
        return;
      }
      const moves = naturalOrder(actions, message.view);
      if (moves.length === 1) {
        handlers.act(moves[0].action);
        return;
      }
      ui.notice = null;
      ui.chooser = key;
      draw();
      mainSlot.querySelector(".chooser button.option")?.focus();
    },
    /** The move menu is about to open or close (its button, Escape, a press elsewhere). */
    menuToggled(open, menu) {
      if (open) placePopover(menu);
      ui.menuOpen = open;
      mainSlot.querySelector(".menu-toggle")?.setAttribute("aria-expanded", String(open));
    },
    startDrag(event, id) {
      if (ui.message && ui.message.view.to_act.includes(ui.message.view.seat)) drag.start(event, id, ui.selected);
    },
    wasDragged: (event) => drag.wasDragged(event),
  };

  /** The small list of moves next to a place that several legal moves fit. */
  function chooser(message) {
    if (!ui.chooser) return null;
    const actions = litPlaces(message.legal, ui.selected, message.view.seat).get(ui.chooser);
    if (!actions) return null;
    const kinds = kindsById(message.view);
    const element = h(
      "div",
      { class: "chooser", popover: "auto", role: "group", "aria-label": "Which move?", dataset: { openPopover: "chooser", anchor: ui.chooser } },
      h("p", { class: "chooser-title", "aria-hidden": "true" }, "Which move?"),
      h("div", { class: "options" }, naturalOrder(actions, message.view, kinds).map(({ action, words }) => optionButton(action, words, handlers.act))),
    );
    element.addEventListener("toggle", (event) => {
      if (event.newState === "closed" && element.isConnected) ui.chooser = null;
    });
    return element;
  }

  function connectionBanner() {
    if (ui.gone) return h("p", { class: "notice error", role: "alert" }, ui.gone, " ", h("a", { href: "/" }, "Back to the lobby"));
    if (ui.connection === "reconnecting") return h("p", { class: "notice info", role: "status", dataset: { testid: "reconnecting" } }, "Connection lost: reconnecting…");
    return null;
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

  function askForHint() {
    if (!socket.send({ type: "hint" })) ui.notice = { kind: "error", text: "Not connected: reconnecting, try again in a moment." };
    else ui.hintAsked = true;
    draw();
  }

  /** The Hint button, when the room offers hints and it is this seat's move. */
  function hintButton(view) {
    if (!ui.room.options.hints || !isMine(view) || view.over) return null;
    return h("button", { type: "button", class: "hint-button", disabled: ui.hintAsked, dataset: { focus: "hint" }, onClick: askForHint }, ui.hintAsked ? "Thinking…" : "Hint");
  }

  /** What the hint suggests, in words, with the chance of winning it gives. */
  function hintLine(view) {
    if (!ui.hint || !isMine(view)) return null;
    const chance = ui.hint.win_chance === null ? "the only choice" : `about ${Math.round(ui.hint.win_chance * 100)}% chance to win`;
    return h("p", { class: "bar-note hint-line", role: "status", dataset: { testid: "hint" } }, `Suggested: ${describe(ui.hint.action, view)} (${chance}).`);
  }

  function noticeLine(place = "") {
    return ui.notice ? h("p", { class: `notice ${ui.notice.kind} ${place}`.trim(), role: "alert", dataset: { testid: "notice" } }, ui.notice.text) : null;
  }

  function tablePage(message) {
    const view = message.view;
    const host = seat && ui.room.host === seat.seat;
    const roundInfo = view.rounds && view.rounds.condition !== 1 ? ` · Round ${view.round + 1}` : "";
    // The rule set and the sound and notification switches sit above the log and chat (in
    // their drawer on a phone), leaving the action bar to the game.
    rulesNote.textContent = `${view.rules.replace("_", " + ")} rules${roundInfo}`;
    side.element.prepend(tableInfo);
    return h(
      "div",
      { class: "table-page" },
      h("h1", { class: "visually-hidden" }, ui.room.options.room_name),
      h(
        "div",
        { class: "table-board" },
        tableView(message, ui, handlers),
        chooser(message),
        view.over
          ? gameOver(view, {
              finished: ui.finished,
              gameId: ui.room.game?.id,
              code,
              onRematch: host ? () => hostCall(() => api.rematch(code, seat.token)) : null,
            })
          : null,
      ),
      view.over
        ? null
        : actionBar(message, ui, handlers, {
            notice: noticeLine("bar-note"),
            hint: hintLine(view),
            extras: [h("span", { class: "clock", role: "timer", "aria-label": "Time left" }), hintButton(view)],
          }),
    );
  }

  /** Where keyboard focus belongs now: the first move, the answer, or the status line. */
  function sensibleControl() {
    const view = ui.message?.view;
    if (!view) return null;
    if (view.over) return mainSlot.querySelector("#over-title");
    if (isMine(view)) {
      // In a challenge the first answer, never Concede: with no answer shown the prompt takes
      // the focus, which says the answer needs and that Concede is in the bar.
      const first = view.challenge ? [".bar-buttons > button.answer", ".turn-status"] : view.pending ? [".bar-buttons > button.option"] : [".hand button.hand-card"];
      for (const selector of ["button.option.suggested", ".chooser:popover-open button.option", ".move-menu:popover-open button.option", ...first, ".bar-buttons > button.option", ".menu-toggle"]) {
        const control = mainSlot.querySelector(selector);
        if (control) return control;
      }
    }
    return mainSlot.querySelector(".turn-status");
  }

  function placeFocus() {
    const active = document.activeElement;
    const version = ui.message?.version;
    const lost = !active || active === document.body || active === main || !active.isConnected;
    // A place played on keeps its focus only until the state it was played in is gone.
    const view = ui.message?.view;
    const mode = view ? `${isMine(view)}|${Boolean(view.challenge)}|${Boolean(view.pending)}` : "";
    // A place or a bar button keeps the focus only in the state it was used in; a hand card
    // keeps it while the kind of move asked for (your turn, your answer, none) stays the same.
    const played =
      (version !== ui.focusVersion && active?.matches?.(".felt .place, .bar-buttons > button.option")) ||
      (mode !== ui.focusMode && active?.matches?.(".hand-card"));
    ui.focusVersion = version;
    ui.focusMode = mode;
    const parked = (active?.matches?.(".turn-status, #over-title") || played) && mainSlot.contains(active);
    if (!lost && !parked) return;
    const target = sensibleControl();
    if (target && target !== active) target.focus({ preventScroll: !window.matchMedia("(max-width: 719px)").matches });
  }

  function revealGameOver() {
    const view = ui.message?.view;
    const panel = mainSlot.querySelector(".game-over");
    if (!view?.over || !panel || ui.overShown === ui.message.version) return;
    ui.overShown = ui.message.version;
    panel.scrollIntoView({ block: "start" });
    panel.querySelector("#over-title").focus({ preventScroll: true });
  }

  /** Place a popover (a stack's list, the move menu, a chooser) so that it never covers the
   * duel, your hand or the action bar: lists over the rivals and the centre, the menu above
   * the bar, a chooser next to its place. */
  function placePopover(popover) {
    const felt = mainSlot.querySelector(".felt");
    if (!felt) return;
    const kind = popover.dataset.openPopover ?? "menu";
    const feltBox = felt.getBoundingClientRect();
    let box = { left: feltBox.left + 6, width: feltBox.width - 12, top: feltBox.top + 6, bottom: feltBox.bottom - 6 };
    if (kind === "stack") {
      // Over the rivals, or beside the piles when there is more room there: never over the
      // deck, the discard pile or the draft piles (which may be lit), the duel, your place or
      // the action bar.
      const blockers = [mainSlot.querySelector("#duel"), mainSlot.querySelector(".player.you")].filter(Boolean).map((el) => el.getBoundingClientRect().top);
      const bottom = Math.min(box.bottom, ...blockers) - 4;
      const piles = [...mainSlot.querySelectorAll(".felt .center .zone")].map((el) => el.getBoundingClientRect());
      const pilesTop = Math.min(bottom, ...piles.map((r) => r.top));
      const pilesRight = Math.max(box.left, ...piles.map((r) => r.right)) + 6;
      const above = { ...box, bottom: pilesTop - 4 };
      // Beside the piles: under the rivals' row when a few sets fit there (their names and
      // counts stay in view), else from the felt's top.
      const rivalsBottom = (mainSlot.querySelector(".felt .rivals")?.getBoundingClientRect().bottom ?? box.top) + 4;
      const beside = { ...box, left: pilesRight, width: box.left + box.width - pilesRight, top: bottom - rivalsBottom >= 150 ? rivalsBottom : box.top, bottom };
      const area = (b) => Math.max(0, b.width) * Math.max(0, b.bottom - b.top);
      box = beside.width >= STACK_LIST_NARROWEST && area(beside) > area(above) ? beside : above;
    } else if (kind === "menu") {
      const bar = mainSlot.querySelector(".action-bar");
      if (bar) box.bottom = bar.getBoundingClientRect().top - 4;
    } else if (kind === "chooser") {
      const anchor = mainSlot.querySelector(`[data-place="${CSS.escape(popover.dataset.anchor)}"]`)?.getBoundingClientRect();
      if (anchor) {
        const width = Math.min(300, innerWidth - 8);
        box = { left: Math.max(4, Math.min(anchor.left, innerWidth - width - 4)), width, top: anchor.bottom + 4, bottom: innerHeight - 4 };
        if (anchor.bottom > innerHeight / 2) box = { ...box, top: 4, bottom: anchor.top - 4 };
      }
    }
    const style = popover.style;
    style.setProperty("left", `${Math.round(box.left)}px`);
    style.setProperty("width", `${Math.round(box.width)}px`);
    const fromTop = kind === "stack" || (kind === "chooser" && box.top > 4);
    style.setProperty(fromTop ? "top" : "bottom", `${Math.round(fromTop ? box.top : innerHeight - box.bottom)}px`);
    style.setProperty("max-height", `${Math.max(kind === "stack" ? 60 : 80, Math.round(box.bottom - box.top))}px`);
  }

  /** Show the popovers that the page keeps open across redraws of one state. */
  function openPopovers() {
    for (const popover of mainSlot.querySelectorAll("[data-open-popover]")) {
      placePopover(popover);
      popover.showPopover();
    }
  }

  /** Redraw the page; `entries` are the log entries new in this state (motion plays them). */
  function draw(entries = []) {
    const before = motion.capture(mainSlot);
    const room = ui.room;
    const parts = [connectionBanner()];
    let tableShown = false;
    if (!room) parts.push(h("p", { class: "hint" }, "Connecting to the room…"));
    else if (room.status === "waiting" || !ui.message) {
      parts.push(noticeLine());
      parts.push(room.status === "waiting" ? waitingRoom(room, { code, seat, ui, hostCall }) : h("p", { class: "hint" }, "Loading the table…"));
    } else {
      parts.push(tablePage(ui.message));
      tableShown = true;
    }
    container.classList.toggle("at-table", tableShown);
    if (!tableShown) tableInfo.remove();
    render(mainSlot, parts);
    if (tableShown) fitNames(mainSlot);
    openPopovers();
    motion.update(mainSlot, before, entries);
    side.update(tableShown ? ui.message.view : null);
    placeFocus();
    revealGameOver();
    updateClock();
  }

  draw();
}
