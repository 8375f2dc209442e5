// The home page (create a room, join by code, public rooms, your games) and the join screen
// that an invite link (/r/<code>) opens.

import { api } from "./api.js";
import { h, money, onLeave, render } from "./dom.js";
import { playerId, playerName, rememberSeat, seatIn, setPlayerName } from "./session.js";

const RULES = [
  ["advanced", "Advanced (6 cards, two actions, Improve)"],
  ["simple_actions", "Simple with actions (Swap, Move, Penny Jar)"],
  ["simple", "Simple (5 cards, one action)"],
];
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

function field(label, control, hint) {
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control, hint ? h("p", { class: "hint", id: `${control.id}-hint` }, hint) : null);
}

function select(id, options, chosen) {
  return h("select", { id, name: id }, options.map(([value, label]) => h("option", { value, selected: value === chosen }, label)));
}

function nameInput(id) {
  return h("input", { id, name: "name", required: true, maxlength: 30, autocomplete: "nickname", value: playerName() });
}

function errorBox() {
  return h("p", { class: "notice error", role: "alert", hidden: true });
}

function showError(box, error) {
  box.textContent = error.message;
  box.hidden = false;
}

function roundsValue(value) {
  return /^\d+$/.test(value) ? Number(value) : value;
}

export function lobbyPage(main, { navigate }) {
  const createError = errorBox();
  const name = nameInput("create-name");
  const roomName = h("input", { id: "room-name", maxlength: 60, placeholder: "Optional" });
  const rules = select("rules", RULES, "advanced");
  const seats = h("input", { id: "seats", type: "number", min: 2, max: 6, value: 4, required: true });
  const draft = h("input", { id: "draft", type: "checkbox", "aria-describedby": "draft-hint" });
  const visibility = select("visibility", [["private", "Private: invite link only"], ["public", "Public: listed here"]], "private");
  const clock = select("clock", CLOCKS, "");
  const rounds = select("rounds", ROUNDS, "1");

  async function create(event) {
    event.preventDefault();
    createError.hidden = true;
    setPlayerName(name.value.trim());
    const options = {
      name: name.value.trim(),
      rules: rules.value,
      draft: draft.checked,
      seats: Number(seats.value),
      visibility: visibility.value,
      turn_seconds: clock.value ? Number(clock.value) : null,
      rounds: roundsValue(rounds.value),
      player_id: playerId(),
    };
    if (roomName.value.trim()) options.room_name = roomName.value.trim();
    try {
      const created = await api.createRoom(options);
      rememberSeat(created.code, { seat: created.seat, token: created.token, name: options.name });
      navigate(`/room/${created.code}`);
    } catch (error) {
      showError(createError, error);
    }
  }

  const code = h("input", { id: "join-code", required: true, maxlength: 12, autocomplete: "off", spellcheck: "false", class: "code" });
  function join(event) {
    event.preventDefault();
    const value = code.value.trim().toUpperCase();
    if (value) navigate(`/r/${value}`);
  }

  const rooms = h("div", { class: "room-list", "aria-live": "polite" }, h("p", { class: "hint" }, "Loading public rooms…"));
  async function loadRooms() {
    try {
      const list = await api.listRooms();
      render(
        rooms,
        list.length
          ? h(
              "ul",
              {},
              list.map((room) =>
                h("li", {}, h("a", { href: `/r/${room.code}` }, room.room_name), ` · ${room.rules.replace("_", " + ")}${room.draft ? " + draft" : ""} · ${room.open_seats} of ${room.seats} seats open · host ${room.host_name}`),
              ),
            )
          : h("p", { class: "hint" }, "No public rooms are waiting right now. Create one!"),
      );
    } catch (error) {
      render(rooms, h("p", { class: "hint" }, error.message));
    }
  }
  loadRooms();
  const poll = setInterval(loadRooms, 5000);
  onLeave(() => clearInterval(poll));

  const history = h("div", { class: "history" });
  api
    .playerGames(playerId())
    .then((page) => {
      if (!page.games.length) return;
      render(
        history,
        h("h2", {}, "Your games"),
        h("ul", {}, page.games.map((game) => h("li", {}, h("a", { href: `/games/${game.id}` }, new Date(game.ended_at).toLocaleString()), ` · ${game.winner ? "won" : "played"} with ${money(game.total)} · ${game.players.map((p) => p.name).join(", ")}`))),
      );
    })
    .catch(() => {});

  main.replaceChildren(
    h(
      "div",
      { class: "lobby" },
      h("h1", {}, "Cash Stash"),
      h("p", { class: "tagline" }, "Collect sets of assets, steal your rivals' exposed sets, protect your own. ", h("a", { href: "/help" }, "How to play")),
      h(
        "div",
        { class: "lobby-grid" },
        h(
          "form",
          { class: "panel", "aria-labelledby": "create-title", onSubmit: create },
          h("h2", { id: "create-title" }, "Create a room"),
          field("Your name", name),
          field("Room name", roomName),
          field("Rule set", rules),
          field("Seats (2–6, people and AI)", seats),
          h("div", { class: "field check" }, draft, h("label", { for: "draft" }, "Draft piles"), h("p", { class: "hint", id: "draft-hint" }, "Offered with 2 or 3 seats.")),
          field("Who can join", visibility),
          field("Clock", clock),
          field("Win condition", rounds),
          createError,
          h("button", { type: "submit", class: "primary" }, "Create room"),
        ),
        h(
          "div",
          { class: "panel" },
          h(
            "form",
            { "aria-labelledby": "join-title", onSubmit: join },
            h("h2", { id: "join-title" }, "Join by code"),
            field("Room code", code),
            h("button", { type: "submit" }, "Find room"),
          ),
          h("h2", {}, "Public rooms"),
          rooms,
          history,
          h("p", {}, h("a", { href: "/leaderboard" }, "Leaderboard")),
        ),
      ),
    ),
  );
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
    render(box, h("h1", {}, "Room not found"), h("p", { class: "notice error", role: "alert" }, error.message), h("a", { href: "/" }, "Back to the lobby"));
    return;
  }
  const error = errorBox();
  const name = nameInput("join-name");
  const people = room.seats.filter(Boolean).map((seat) => seat.name);
  async function join(event) {
    event.preventDefault();
    error.hidden = true;
    setPlayerName(name.value.trim());
    try {
      const granted = await api.join(room.code, name.value.trim(), playerId());
      rememberSeat(room.code, { seat: granted.seat, token: granted.token, name: name.value.trim() });
      navigate(`/room/${room.code}`);
    } catch (problem) {
      showError(error, problem);
    }
  }
  const open = room.status === "waiting" && room.open_seats > 0;
  render(
    box,
    h("h1", {}, `Join ${room.options.room_name}`),
    h("p", {}, `${people.join(", ")} ${people.length === 1 ? "is" : "are"} here. ${room.open_seats} of ${room.options.seats} seats open.`),
    open
      ? h("form", { class: "panel", onSubmit: join }, h("div", { class: "field" }, h("label", { for: "join-name" }, "Your name"), name), error, h("button", { type: "submit", class: "primary" }, "Join the room"))
      : h("p", { class: "notice info" }, room.status === "waiting" ? "Every seat is taken." : "The game has started."),
    h("p", {}, h("a", { href: `/room/${room.code}?watch` }, "Watch as a spectator"), " · ", h("a", { href: "/" }, "Lobby")),
  );
}
