// /room/<code>: the waiting room, then the table, then the game over panel; one WebSocket.
// The page keeps the latest state and redraws the table from it; its parts are the side
// column (room/side.js), where popovers go (room/popovers.js) and the focus (room/focus.js).

import { actionBar, hintButton, hintLine, reachScrolledLines } from "./actionbar.js";
import { api, ApiError } from "./api.js";
import { notifyButton, setYourMove } from "./attention.js";
import { createChat } from "./chat.js";
import { h, onLeave, render, replaceKeepingFocus } from "./dom.js";
import { gameOver, notePracticeState } from "./gameover.js";
import { createMotion } from "./motion.js";
import { createDrag } from "./drag.js";
import { isMine, sameMoves } from "./moves.js";
import { chooser } from "./movemenu.js";
import { litPlaces, naturalOrder, whyNot } from "./places.js";
import { endTurnShortcut, placeFocus, revealGameOver } from "./room/focus.js";
import { openPopovers, placePopover } from "./room/popovers.js";
import { sideColumn } from "./room/side.js";
import { forgetSeat, markTurnSeat, rememberSeat, seatIn, signedIn } from "./session.js";
import { GameSocket } from "./socket.js";
import { cuesFor, muteButton, play } from "./sound.js";
import { fitDuel } from "./duel.js";
import { fitNames } from "./seats.js";
import { tableView } from "./table.js";
import { isTurnBased, modeText, modeTold, timeLeft } from "./turns.js";
import { waitingRoom } from "./waiting.js";

const RECORD_RETRY_MS = [300, 600, 1000, 2000, 3000, 5000, 8000];
/** The longest a press holds the page's redraws (a click's press is shorter; a card dragged
 * for longer sees the table change under it, as it did before presses held anything). */
const PRESS_HELD_MS = 1000;

function withoutSeat(fields) {
  const { seat: _seat, ...rest } = fields;
  return rest;
}

function moveWords(view) {
  if (view.challenge) return "Answer the challenge";
  if (view.pending) return "Choose a direction";
  return "Your turn";
}

/**
 * A signed-in player opening a table this browser holds no seat at (a push notification or a
 * link opened on another device): the seat their account holds there is given a token of this
 * device's own (POST /api/rooms/{code}/device) and the table opens; without one, the room's
 * invitation page, as for anyone.
 */
function seatFromAccount(main, code, { navigate }) {
  let left = false;
  onLeave(() => (left = true));
  render(main, h("p", { class: "hint" }, "Finding your seat…"));
  api.openOnDevice(code).then(
    (granted) => {
      if (left) return;
      rememberSeat(code, { seat: granted.seat, token: granted.token });
      roomPage(main, code, { navigate });
    },
    () => left || navigate(`/r/${code}`, { replace: true }),
  );
}

export function roomPage(main, code, { navigate }) {
  const seat = seatIn(code);
  const watching = new URLSearchParams(location.search).has("watch");
  if (!seat && !watching) {
    if (signedIn()) seatFromAccount(main, code, { navigate });
    else navigate(`/r/${code}`, { replace: true });
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
  /** A pointer pressed in the page, and the redraws it holds (`draw`). */
  const press = { down: false, since: 0, held: false, entries: [], timer: 0 };
  let refCounter = 0;
  const refPrefix = Math.random().toString(36).slice(2, 8);

  const socket = new GameSocket(code, seat?.token ?? null, {
    onRoom(room) {
      ui.room = room;
      // The lobby's "Your games" asks about the seats this browser holds at turn-based tables.
      if (seat && isTurnBased(room.options)) markTurnSeat(code);
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
      // Opened lists, the move menu and a chooser belong to the moves they were opened among:
      // a state that leaves this seat's moves as they were (someone away or back) keeps them.
      if (!before || (message.version !== before.version && !sameMoves(before.legal, message.legal))) {
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
  const side = sideColumn({ ui, chat, mainSlot });
  const tools = h("span", { class: "table-tools" }, muteButton(), notifyButton());
  for (const [index, button] of [...tools.children].entries()) button.dataset.focus = `tool-${index}`;
  const rulesNote = h("span", { class: "rules-note" });
  const turnTold = h("p", { class: "turn-told", id: "turn-told" });
  const tableInfo = h("div", { class: "table-info" }, rulesNote, tools, turnTold);
  const container = h("div", { class: "room-page" }, mainSlot, side.element);
  main.replaceChildren(container);
  main.classList.add("wide");
  socket.connect();

  // Friends see a signed-in player here and may be invited (friends.js: never for a guest).
  if (seat && signedIn()) import("./friends.js").then((friends) => ((ui.friends = friends.tableFriends(code, seat)), draw()));

  const clockTimer = setInterval(updateClock, 1000);
  const stopShortcut = endTurnShortcut(mainSlot);
  // What the table's boxes hold, measured: the rivals' names' sizes (which set the rivals'
  // height, so first), the duel's steps and the bar's tab stops.
  const fitTable = () => {
    fitNames(mainSlot);
    fitDuel(mainSlot);
    reachScrolledLines(mainSlot);
  };
  // A window made shorter or taller gives them other heights: fit again, once a frame.
  let fitFrame = 0;
  const refit = () => {
    cancelAnimationFrame(fitFrame);
    fitFrame = requestAnimationFrame(fitTable);
  };
  addEventListener("resize", refit);
  // A press in the page holds redraws (`draw`); they come once its click has been handled.
  const pressed = () => Object.assign(press, { down: true, since: performance.now() });
  const released = () => {
    press.down = false;
    // After the click this release makes (its handler may redraw first, with what is held).
    if (press.held) setTimeout(() => press.held && drawNow());
  };
  container.addEventListener("pointerdown", pressed, true);
  for (const type of ["pointerup", "pointercancel"]) addEventListener(type, released, true);
  addEventListener("blur", released);
  onLeave(() => {
    removeEventListener("resize", refit);
    for (const type of ["pointerup", "pointercancel"]) removeEventListener(type, released, true);
    removeEventListener("blur", released);
    clearTimeout(press.timer);
    press.held = false;
    cancelAnimationFrame(fitFrame);
    stopShortcut();
    socket.close();
    clearInterval(clockTimer);
    setYourMove(false);
    motion.clear();
    drag.clear();
    main.classList.remove("wide");
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
    const turnBased = isTurnBased(ui.room?.options);
    // A turn-based table counts hours and days; a live one, minutes and seconds.
    el.textContent = turnBased ? `${timeLeft(left)} left` : `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left`;
    // Urgent: the last 10 s of a live turn, the last quarter (at most an hour) of a turn-based one.
    el.classList.toggle("urgent", left <= (turnBased ? Math.min(3600, (ui.room.options.move_seconds ?? 0) / 4) : 10));
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
        ui.notice = { kind: "info", text: whyNot(message, ui.selected, key) };
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
      if (open) placePopover(mainSlot, menu);
      ui.menuOpen = open;
      mainSlot.querySelector(".menu-toggle")?.setAttribute("aria-expanded", String(open));
    },
    startDrag(event, id) {
      if (ui.message && ui.message.view.to_act.includes(ui.message.view.seat)) drag.start(event, id, ui.selected);
    },
    wasDragged: (event) => drag.wasDragged(event),
  };

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
    const options = ui.room.options;
    turnTold.textContent = modeTold(options);
    turnTold.hidden = !isTurnBased(options);
    side.element.prepend(tableInfo);
    return h(
      "div",
      { class: "table-page" },
      h("h1", { class: "visually-hidden" }, ui.room.options.room_name),
      h(
        "div",
        { class: "table-board" },
        tableView(message, ui, handlers),
        chooser(message, ui, handlers.act),
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
            hint: hintLine(view, ui),
            extras: [
              isTurnBased(options) ? h("span", { class: "turn-note", "aria-describedby": "turn-told", dataset: { testid: "turn-note" } }, modeText(options)) : null,
              h("span", { class: "clock", role: "timer", "aria-label": "Time left" }),
              hintButton(view, ui, askForHint),
            ],
          }),
    );
  }

  /** Redraw the page; `entries` are the log entries new in this state (motion plays them).
   * A redraw replaces the table, and a press that began on a button and ends on its
   * replacement is no click: while a pointer is down in the page, redraws wait, their entries
   * kept, until its click has come (or `PRESS_HELD_MS` has passed). */
  function draw(entries = []) {
    press.entries.push(...entries);
    const waited = performance.now() - press.since;
    if (press.down && waited < PRESS_HELD_MS) {
      if (!press.held) press.timer = setTimeout(drawNow, PRESS_HELD_MS - waited);
      press.held = true;
      return;
    }
    drawNow();
  }

  /** Redraw now, with every entry held since the last redraw. */
  function drawNow() {
    clearTimeout(press.timer);
    press.held = false;
    redraw(press.entries.splice(0));
  }

  function redraw(entries) {
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
    // Every change to the page first, then what measures it: the script makes the page lay
    // itself out when the names are fitted, and again only where the focus moves. The focus
    // is placed before the flights are planned, so that they start from where the cards are
    // once the focus has scrolled the table (a phone's).
    const giveFocusBack = replaceKeepingFocus(mainSlot, parts);
    side.update(tableShown ? ui.message.view : null);
    if (tableShown) fitTable();
    giveFocusBack();
    openPopovers(mainSlot);
    placeFocus({ main, mainSlot, ui });
    motion.update(mainSlot, before, entries);
    revealGameOver(mainSlot, ui);
    updateClock();
  }

  draw();
}
