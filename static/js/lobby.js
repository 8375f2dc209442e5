// The home page (Play now, create a room, join by code, games to watch, public rooms, your
// games) and the join screen
// that an invite link (/r/<code>) opens.

import { api } from "./api.js";
import { cardFace } from "./cardface.js";
import { h, money, onLeave, render } from "./dom.js";
import { lobbyLife } from "./livegames.js";
import { playNowPanel } from "./playnow.js";
import { heldSeats, playerId, playerName, rememberSeat, seatIn, setPlayerName, signedIn } from "./session.js";
import { DEFAULT_MOVE_SECONDS, MOVE_TIMES, modeText, modeTold, timeLeft } from "./turns.js";

const RULE_NAMES = { advanced: "Advanced", simple_actions: "Simple with actions", simple: "Simple" };
const RULES = Object.entries(RULE_NAMES);
const RULES_TOLD = {
  advanced: "6 cards in hand, up to two actions a turn, Improve a set, Swap and Move.",
  simple_actions: "5 cards in hand, one action a turn, with Swap, Move and the Penny Jar.",
  simple: "5 cards in hand, one action a turn, no action cards: the quickest to learn.",
};
const ROUNDS = [
  ["1", "One round"],
  ["3", "Three rounds (highest total)"],
  ["million", "First to $1,000,000"],
  ["two_round_wins", "First to win two rounds"],
];
const CLOCKS = [
  ["", "No clock"],
  ["30", "30 seconds a turn"],
  ["60", "60 seconds a turn"],
  ["120", "2 minutes a turn"],
];
const MODES = [
  ["live", "Live: everyone plays now"],
  ["turn", "Turn-based: a move at a time, over days"],
];
const NO_LIMIT = "none";
/** The seats "Your games" asks about: the last taken at turn-based tables (a player sits in at
 * most 20) and at live ones (a live table outlives its game by minutes). */
const SEATS_ASKED = { turn: 24, live: 8 };
const YOUR_GAMES_EVERY_MS = 30000;
const HERO_CARDS = ["piggy_bank", "gold_bar", "yacht"];
const BLANK_NAME = "Please enter a name for the others to see at the table: a letter or two is enough, but not only spaces.";

/** A labelled control; a hint under it is also what a screen reader says after the label. */
function field(label, control, hint) {
  if (hint) control.setAttribute("aria-describedby", `${control.id}-hint`);
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control, hint ? h("p", { class: "hint", id: `${control.id}-hint` }, hint) : null);
}

function select(id, options, chosen) {
  return h("select", { id, name: id }, options.map(([value, label]) => h("option", { value, selected: value === chosen }, label)));
}

function nameInput(id) {
  return h("input", { id, name: "name", "aria-required": "true", maxlength: 30, autocomplete: "nickname", value: playerName() });
}

function errorBox(id) {
  return h("p", { id, class: "notice error", role: "alert", hidden: true });
}

function showError(box, message) {
  box.textContent = message;
  box.hidden = false;
}

/**
 * The name typed in `input`, or null after saying, next to it, why it cannot be used. The
 * server checks names too (and its refusal is shown the same way); this only spares a round trip.
 */
function checkedName(input, box) {
  const name = input.value.trim();
  input.setAttribute("aria-invalid", name ? "false" : "true");
  if (name) return name;
  showError(box, BLANK_NAME);
  input.setAttribute("aria-describedby", box.id);
  input.focus();
  return null;
}

const TEXT_REFUSALS = new Set(["blank_text", "bad_text", "text_too_long"]);

/**
 * Show the server's refusal in its own words. `nameInput` is the name field when the name was
 * the only typed text sent: a refusal of typed text is then about it, and the field says so.
 */
function refused(box, error, nameInput) {
  showError(box, error.message);
  if (nameInput && TEXT_REFUSALS.has(error.code)) {
    nameInput.setAttribute("aria-invalid", "true");
    nameInput.setAttribute("aria-describedby", box.id);
    nameInput.focus();
  }
}

function roundsValue(value) {
  return /^\d+$/.test(value) ? Number(value) : value;
}

function rulesText(rules, draft) {
  return `${RULE_NAMES[rules] ?? rules}${draft ? " + draft piles" : ""}`;
}

/** A fan of three face-up cards, only to set the scene: the words beside it say everything. */
function heroCards() {
  return h(
    "div",
    { class: "hero-cards", "aria-hidden": "true" },
    HERO_CARDS.map((kind) => h("div", { class: "hero-card" }, cardFace({ kind }, { size: "hand" }))),
  );
}

function publicRoom(room) {
  const open = `${room.open_seats} of ${room.seats} ${room.seats === 1 ? "seat" : "seats"} open`;
  return h(
    "li",
    { class: "room-card" },
    h("a", { href: `/r/${room.code}`, class: "room-card-name" }, room.room_name),
    h("span", { class: "room-card-meta" }, `${rulesText(room.rules, room.draft)}${room.mode === "turn" ? ` · ${modeText(room)}` : ""} · ${open} · host ${room.host_name}`),
  );
}

/** The time to move, each offered; no limit only at a private table (friends wait for friends). */
function moveTimeOptions(select, isPrivate) {
  const chosen = select.value || String(DEFAULT_MOVE_SECONDS);
  const options = MOVE_TIMES.map(([seconds, words]) => [String(seconds), words]);
  if (isPrivate) options.push([NO_LIMIT, "No time limit (private tables)"]);
  const kept = options.some(([value]) => value === chosen) ? chosen : String(DEFAULT_MOVE_SECONDS);
  select.replaceChildren(...options.map(([value, label]) => h("option", { value, selected: value === kept }, label)));
  select.value = kept;
}

/** Where a game stands for this seat: "Your move · 5 h left", "Waiting for Bea"; a live one
 * says so first ("Live now · Your move"). */
function yourGameState(game, now) {
  const state = gameState(game, now);
  if (game.mode !== "live") return state;
  return game.status === "playing" ? `Live now · ${state}` : `Live · ${state}`;
}

function gameState(game, now) {
  const left = game.deadline === null ? "" : ` · ${timeLeft(game.deadline - now)} left`;
  if (game.status === "waiting") return "Waiting for the start";
  if (game.status === "finished") return "Game over";
  if (game.your_move) return `Your move${left}`;
  const names = game.to_act.map((seat) => game.players[seat]).filter(Boolean);
  return `${names.length ? `Waiting for ${names.join(" and ")}` : "Waiting"}${left}`;
}

function yourGame(game, now) {
  const others = game.players.filter((name, seat) => name !== null && seat !== game.seat);
  const live = game.mode === "live" && game.status === "playing";
  return h(
    "li",
    { class: `room-card your-game${game.your_move ? " yours" : ""}${live ? " live" : ""}`, dataset: { testid: "your-game" } },
    h("a", { href: `/room/${game.code}`, class: "room-card-name" }, game.room_name),
    h("span", { class: "room-card-meta" }, `${yourGameState(game, now)} · with ${others.join(", ") || "nobody yet"}`),
  );
}

/** "Your games": the games this browser sits in (turn-based ones, and live ones until their
 * game ends: the way back to a table left by mistake), and, signed in, the turn-based games
 * its account sits in from other devices (the table opens there through the account); live
 * games in play first, then those waiting for it (the server orders them); hidden while there
 * are none. */
/** The line above "Your games": the live games going on first, then the games waiting for
 * your move (a live one among them not counted twice). */
function yourGamesLine(games) {
  const live = games.filter((game) => game.mode === "live" && game.status === "playing");
  const waiting = games.filter((game) => game.your_move && !live.includes(game)).length;
  const parts = [];
  if (live.length === 1) parts.push("A live game is going on: open it to play.");
  else if (live.length > 1) parts.push(`${live.length} live games are going on.`);
  if (waiting === 1) parts.push("1 game waits for your move.");
  else if (waiting > 1) parts.push(`${waiting} games wait for your move.`);
  return parts.length ? parts.join(" ") : "No game waits for you now.";
}

function yourGamesPanel() {
  const summary = h("p", { class: "hint", "aria-live": "polite" });
  const list = h("ul", { class: "cards-list" });
  const panel = h("section", { class: "panel your-games", "aria-labelledby": "your-games-title", hidden: true }, h("h2", { id: "your-games-title" }, "Your games"), summary, list);
  let shown = "";
  async function load() {
    const seats = heldSeats(SEATS_ASKED);
    if (!seats.length && !signedIn()) return;
    let games;
    try {
      ({ games } = await api.yourGames(seats));
    } catch {
      return;
    }
    const now = Date.now() / 1000;
    const items = games.map((game) => yourGame(game, now));
    const drawn = items.map((item) => item.textContent).join("\n");
    if (drawn !== shown) {
      shown = drawn;
      render(list, items);
    }
    const said = yourGamesLine(games);
    if (summary.textContent !== said) summary.textContent = said;
    panel.hidden = games.length === 0;
  }
  load();
  const poll = setInterval(load, YOUR_GAMES_EVERY_MS);
  // A player coming back to the tab after hours sees where their games stand now.
  const back = () => document.visibilityState === "visible" && load();
  document.addEventListener("visibilitychange", back);
  onLeave(() => {
    clearInterval(poll);
    document.removeEventListener("visibilitychange", back);
  });
  return panel;
}

function finishedGame(game) {
  return h(
    "li",
    { class: "game-card" },
    h("a", { href: `/games/${game.id}` }, new Date(game.ended_at).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })),
    h("span", { class: `badge${game.winner ? " turn" : ""}` }, game.winner ? "won" : "played"),
    h("span", { class: "game-card-meta" }, `${money(game.total)} · ${game.players.map((p) => p.name).join(", ")}`),
    game.accuracy === null || game.accuracy === undefined ? null : h("span", { class: "game-card-meta", dataset: { testid: "game-accuracy" } }, `accuracy ${game.accuracy.toFixed(1)}`),
  );
}

export function lobbyPage(main, { navigate }) {
  const createError = errorBox("create-error");
  const name = nameInput("create-name");
  const roomName = h("input", { id: "room-name", maxlength: 60, placeholder: "Optional" });
  const rules = select("rules", RULES, "advanced");
  const rulesField = field("Rule set", rules, RULES_TOLD.advanced);
  rules.addEventListener("change", () => {
    rulesField.querySelector(".hint").textContent = RULES_TOLD[rules.value];
  });
  const seats = h("input", { id: "seats", type: "number", min: 2, max: 6, value: 4, required: true, inputmode: "numeric" });
  const draft = h("input", { id: "draft", type: "checkbox", "aria-describedby": "draft-hint" });
  const visibility = select("visibility", [["private", "Private: invite link only"], ["public", "Public: listed here"]], "private");
  const clock = select("clock", CLOCKS, "");
  const clockField = field("Clock", clock);
  const mode = select("mode", MODES, "live");
  const moveTime = h("select", { id: "move-time", name: "move-time" });
  moveTimeOptions(moveTime, true);
  const moveTimeField = field("Time to move", moveTime, modeTold({ mode: "turn", move_seconds: DEFAULT_MOVE_SECONDS }));
  function chosenMoveSeconds() {
    return moveTime.value === NO_LIMIT ? null : Number(moveTime.value);
  }
  function showMode() {
    const turn = mode.value === "turn";
    clockField.hidden = turn;
    moveTimeField.hidden = !turn;
    moveTimeField.querySelector(".hint").textContent = modeTold({ mode: "turn", move_seconds: chosenMoveSeconds() });
  }
  mode.addEventListener("change", showMode);
  moveTime.addEventListener("change", showMode);
  visibility.addEventListener("change", () => {
    moveTimeOptions(moveTime, visibility.value === "private");
    showMode();
  });
  showMode();
  const rounds = select("rounds", ROUNDS, "1");

  async function create(event) {
    event.preventDefault();
    createError.hidden = true;
    const chosen = checkedName(name, createError);
    if (!chosen) return;
    setPlayerName(chosen);
    const options = {
      name: chosen,
      rules: rules.value,
      draft: draft.checked,
      seats: Number(seats.value),
      visibility: visibility.value,
      mode: mode.value,
      turn_seconds: clock.value && mode.value === "live" ? Number(clock.value) : null,
      rounds: roundsValue(rounds.value),
      player_id: playerId(),
    };
    if (mode.value === "turn") options.move_seconds = chosenMoveSeconds();
    if (roomName.value.trim()) options.room_name = roomName.value.trim();
    try {
      const created = await api.createRoom(options);
      rememberSeat(created.code, { seat: created.seat, token: created.token, name: options.name, turn: options.mode === "turn" });
      navigate(`/room/${created.code}`);
    } catch (error) {
      refused(createError, error, options.room_name ? null : name);
    }
  }

  const code = h("input", { id: "join-code", required: true, maxlength: 12, autocomplete: "off", spellcheck: "false", class: "code" });
  function join(event) {
    event.preventDefault();
    const value = code.value.trim().toUpperCase();
    if (value) navigate(`/r/${encodeURIComponent(value)}`);
  }

  const rooms = h("div", { class: "room-list", "aria-live": "polite" }, h("p", { class: "hint" }, "Loading public rooms…"));
  async function loadRooms() {
    try {
      const list = await api.listRooms();
      render(rooms, list.length ? h("ul", { class: "cards-list" }, list.map(publicRoom)) : h("p", { class: "hint" }, "No public rooms are waiting right now. Create one!"));
    } catch (error) {
      render(rooms, h("p", { class: "hint" }, error.message));
    }
  }
  loadRooms();
  const poll = setInterval(loadRooms, 5000);
  onLeave(() => clearInterval(poll));

  const history = h("section", { class: "panel history", "aria-labelledby": "history-title", hidden: true });
  api
    .playerGames(playerId())
    .then((page) => {
      if (!page.games.length) return;
      render(history, h("h2", { id: "history-title" }, "Recent games"), h("ul", { class: "cards-list" }, page.games.map(finishedGame)));
      history.hidden = false;
    })
    .catch(() => {});

  const life = lobbyLife();
  // A guest never loads the friends panel's code.
  const friendsSlot = h("div", { class: "friends-slot" });
  if (signedIn()) import("./friends.js").then((friends) => friends.friendsPanel(friendsSlot, { navigate }));
  main.replaceChildren(
    h(
      "div",
      { class: "lobby" },
      h(
        "section",
        { class: "hero", "aria-labelledby": "lobby-title" },
        h(
          "div",
          { class: "hero-text" },
          h("h1", { id: "lobby-title" }, "Cash Stash"),
          h("p", { class: "tagline" }, "Collect sets of assets, steal your rivals' exposed sets, protect your own."),
          life.counts,
          h("p", {}, h("a", { href: "/help", class: "button hero-link" }, "How to play"), " ", h("a", { href: "/account", class: "button hero-link" }, "Sign in / Make an account")),
        ),
        heroCards(),
      ),
      h(
        "div",
        { class: "lobby-grid" },
        h(
          "div",
          { class: "lobby-main" },
          yourGamesPanel(),
          playNowPanel({ navigate }),
          h(
            "form",
            { class: "panel create", "aria-labelledby": "create-title", onSubmit: create },
            h("h2", { id: "create-title" }, "Create a room"),
            field("Your name", name),
            h(
              "fieldset",
              {},
              h("legend", {}, "The game"),
              rulesField,
              field("Seats (2–6, people and AI)", seats),
              h("div", { class: "field check" }, draft, h("label", { for: "draft" }, "Draft piles"), h("p", { class: "hint", id: "draft-hint" }, "Offered with 2 or 3 seats.")),
              field("Win condition", rounds),
            ),
            h("fieldset", {}, h("legend", {}, "The room"), field("Room name", roomName), field("Who can join", visibility), field("How it is played", mode), clockField, moveTimeField),
            createError,
            h("button", { type: "submit", class: "primary" }, "Create room"),
          ),
        ),
        h(
          "div",
          { class: "lobby-side" },
          h(
            "form",
            { class: "panel", "aria-labelledby": "join-title", onSubmit: join },
            h("h2", { id: "join-title" }, "Join by code"),
            h("div", { class: "field" }, h("label", { for: "join-code" }, "Room code"), h("div", { class: "inline" }, code, h("button", { type: "submit" }, "Find room"))),
          ),
          friendsSlot,
          life.panel,
          notifyPanel(),
          h("section", { class: "panel", "aria-labelledby": "public-title" }, h("h2", { id: "public-title" }, "Public rooms"), rooms),
          history,
          h(
            "section",
            { class: "panel how", "aria-labelledby": "how-title" },
            h("h2", { id: "how-title" }, "A game in three moves"),
            h(
              "ol",
              {},
              h("li", {}, h("strong", {}, "Collect."), " Pair two assets of a kind, or an asset and a wild, into a set on your stack."),
              h("li", {}, h("strong", {}, "Steal."), " Challenge a rival's exposed top set with matching cards; whoever plays last takes it all."),
              h("li", {}, h("strong", {}, "Protect."), " Your bottom set is always safe. When the cards run out, the richest stash wins."),
            ),
          ),
        ),
      ),
    ),
  );
}

/** "Tell me when it's my move": its Web Push code (push.js) loads only when used, or once allowed. */
function notifyPanel() {
  if (!("PushManager" in window && "Notification" in window)) return null;
  const status = h("p", { class: "hint notify-status", "aria-live": "polite" });
  const button = h("button", { type: "button", "aria-pressed": "false" }, "Tell me when it's my move");
  const push = () => import("./push.js").then((m) => m.control(button, status));
  button.addEventListener("click", () => push().then((c) => c.toggle()));
  if (Notification.permission === "granted") push();
  return h("section", { class: "panel", "aria-labelledby": "notify-title" }, h("h2", { id: "notify-title" }, "Your move, told"), status, button);
}

/** /r/<code>: the room's summary and a name field; joining keeps the seat's token here. */
export async function joinPage(main, code, { navigate }) {
  if (seatIn(code)) {
    navigate(`/room/${code}`, { replace: true });
    return;
  }
  const box = h("div", { class: "join" }, h("p", { class: "hint" }, "Looking up the room…"));
  main.replaceChildren(box);
  let room;
  try {
    room = await api.room(code);
  } catch (error) {
    render(
      box,
      h("h1", {}, "Room not found"),
      h("p", { class: "notice error", role: "alert" }, error.message),
      h("p", {}, "The invite may be mistyped, or the room has closed."),
      h("p", {}, h("a", { href: "/", class: "button primary" }, "Back to the lobby")),
    );
    return;
  }
  const error = errorBox("join-error");
  const name = nameInput("join-name");
  const people = room.seats.filter(Boolean).map((seat) => seat.name);
  async function join(event) {
    event.preventDefault();
    error.hidden = true;
    const chosen = checkedName(name, error);
    if (!chosen) return;
    setPlayerName(chosen);
    try {
      const granted = await api.join(room.code, chosen, playerId());
      rememberSeat(room.code, { seat: granted.seat, token: granted.token, name: chosen, turn: options.mode === "turn" });
      navigate(`/room/${room.code}`);
    } catch (problem) {
      refused(error, problem, name);
    }
  }
  const open = room.status === "waiting" && room.open_seats > 0;
  const options = room.options;
  box.classList.add("invitation");
  render(
    box,
    h("div", { class: "invitation-head" }, h("p", { class: "eyebrow" }, "You are invited to a game of Cash Stash"), h("h1", {}, `Join ${options.room_name}`)),
    h(
      "dl",
      { class: "facts" },
      h("div", {}, h("dt", {}, "At the table"), h("dd", {}, people.join(", ") || "nobody yet")),
      h("div", {}, h("dt", {}, "Seats open"), h("dd", {}, `${room.open_seats} of ${options.seats}`)),
      h("div", {}, h("dt", {}, "Rules"), h("dd", {}, rulesText(options.rules, options.draft))),
      h("div", {}, h("dt", {}, "Played"), h("dd", {}, modeText(options))),
    ),
    modeTold(options) ? h("p", { class: "hint" }, modeTold(options)) : null,
    open
      ? h("form", { class: "panel", onSubmit: join }, field("Your name", name), error, h("button", { type: "submit", class: "primary" }, "Join the room"))
      : h("p", { class: "notice info" }, room.status === "waiting" ? "Every seat is taken." : "The game has started."),
    h(
      "p",
      { class: "links" },
      options.spectators === false ? null : h("a", { href: `/room/${room.code}?watch` }, "Watch as a spectator"),
      h("a", { href: "/" }, "Lobby"),
      h("a", { href: "/help" }, "How to play"),
    ),
  );
}
