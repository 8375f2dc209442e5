// The waiting room: the room's options, the invite link, the seats, and the host's controls.

import { api } from "./api.js";
import { h } from "./dom.js";
import { isTurnBased, modeTold, moveText } from "./turns.js";

const LEVELS = [
  ["easy", "Easy"],
  ["medium", "Medium"],
  ["hard", "Hard"],
];
const RULE_NAMES = { simple: "Simple", simple_actions: "Simple with actions", advanced: "Advanced" };

function roundsText(rounds) {
  if (rounds === 1) return "one round";
  if (rounds === "million") return "first to $1,000,000";
  if (rounds === "two_round_wins") return "two round wins";
  return `${rounds} rounds`;
}

function optionsText(options) {
  const parts = [
    `${RULE_NAMES[options.rules]} rules${options.draft ? " with draft piles" : ""}`,
    roundsText(options.rounds),
    isTurnBased(options) ? `turn-based, ${moveText(options)}` : options.turn_seconds ? `${options.turn_seconds} s per turn` : "no clock",
    `${options.visibility} room`,
  ];
  if (options.spectators !== undefined) parts.push(options.spectators ? "spectators welcome" : "no spectators");
  if (options.hints) parts.push("hints on");
  return `${parts.join(", ")}.`;
}

function copyButton(invite, input) {
  return h(
    "button",
    {
      type: "button",
      dataset: { focus: "copy-invite" },
      onClick: async (event) => {
        try {
          await navigator.clipboard.writeText(invite);
          event.target.textContent = "Copied";
        } catch {
          input.select();
          event.target.textContent = "Press Ctrl+C to copy";
        }
      },
    },
    "Copy invite link",
  );
}

function seatBadges(entry, index, room, seat) {
  return [
    entry.kind === "ai"
      ? h("span", { class: "badge" }, `AI · ${entry.level}`)
      : h("span", { class: `badge ${entry.connected ? "online" : ""}` }, entry.connected ? "here" : "not connected"),
    index === room.host ? h("span", { class: "badge" }, "host") : null,
    seat && index === seat.seat ? h("span", { class: "badge you" }, "you") : null,
  ];
}

/**
 * The waiting room for `room` (the summary). `seat` is this browser's seat (or null), `ui`
 * holds `busy` and `botLevel`, `hostCall(fn)` runs a host-only request and redraws.
 */
export function waitingRoom(room, { code, seat, ui, hostCall }) {
  const isHost = seat && room.host === seat.seat;
  const invite = `${location.origin}/r/${room.code}`;
  const inviteInput = h("input", { id: "invite-link", readonly: true, value: invite, onFocus: (e) => e.target.select() });
  const filled = room.seats.filter(Boolean).length;
  const seats = room.seats.map((entry, index) =>
    h(
      "li",
      { class: `seat-row ${entry ? "taken" : "open"}` },
      h("span", { class: "seat-number" }, `Seat ${index + 1}`),
      entry
        ? [
            h("strong", {}, entry.name),
            seatBadges(entry, index, room, seat),
            isHost && index !== room.host
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
  );
  const controls = isHost
    ? h(
        "div",
        { class: "host-controls" },
        h("label", { for: "bot-level" }, "AI level "),
        h(
          "select",
          { id: "bot-level", dataset: { focus: "bot-level" }, onChange: (event) => (ui.botLevel = event.target.value) },
          LEVELS.map(([value, label]) => h("option", { value, selected: value === ui.botLevel }, label)),
        ),
        h("button", { type: "button", disabled: ui.busy || filled >= room.seats.length, dataset: { focus: "add-ai" }, onClick: () => hostCall(() => api.addBot(code, seat.token, ui.botLevel)) }, "Add AI player"),
        h("button", { type: "button", class: "primary", disabled: ui.busy || filled < 2, dataset: { focus: "start" }, onClick: () => hostCall(() => api.start(code, seat.token)) }, "Start the game"),
        h(
          "label",
          { class: "hints-option" },
          h("input", {
            type: "checkbox",
            checked: Boolean(room.options.hints),
            disabled: ui.busy,
            dataset: { focus: "hints" },
            onChange: (event) => hostCall(() => api.updateRoom(code, seat.token, { hints: event.target.checked })),
          }),
          "Allow hints (a game with hints is not rated)",
        ),
        h("p", { class: "hint" }, "Open seats are dropped when the game starts."),
      )
    : h("p", { class: "hint" }, "Waiting for the host to start the game.");
  return h(
    "section",
    { class: "waiting", "aria-labelledby": "waiting-title" },
    h("h1", { id: "waiting-title" }, room.options.room_name),
    h("p", { class: "room-options" }, optionsText(room.options)),
    isTurnBased(room.options) ? h("p", { class: "hint turn-told" }, modeTold(room.options)) : null,
    h(
      "div",
      { class: "invite" },
      h("label", { for: "invite-link" }, "Invite link"),
      inviteInput,
      copyButton(invite, inviteInput),
      h("p", { class: "hint" }, "Room code ", h("strong", { class: "code", dataset: { testid: "room-code" } }, room.code)),
    ),
    h("ol", { class: "seats", "aria-label": "Seats" }, seats),
    controls,
    ui.friends ? ui.friends.element : null,
  );
}
