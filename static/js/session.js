// What this browser remembers: the seat tokens it holds (so a reload or a dropped connection
// gets the same seat back, and the lobby lists the games it sits in), the player's name and a
// guest player id for the leaderboard.

const PREFIX = "cash-stash:";

export function read(key, fallback) {
  try {
    const raw = localStorage.getItem(PREFIX + key);
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback;
  }
}

export function write(key, value) {
  localStorage.setItem(PREFIX + key, JSON.stringify(value));
}

export function seatIn(code) {
  return read("seats", {})[code] ?? null;
}

export function rememberSeat(code, seat) {
  const seats = read("seats", {});
  seats[code] = seat;
  write("seats", seats);
}

/** Note that the seat held in `code` is at a turn-based table: the lobby asks about it. */
export function markTurnSeat(code) {
  const seat = seatIn(code);
  if (seat && !seat.turn) rememberSeat(code, { ...seat, turn: true });
}

/** The seats this browser holds, as the server asks for them (POST /api/your-games): the
 * `turn` last taken at turn-based tables and the `live` last taken at live ones (a live table
 * outlives its game by minutes, so only the last few can still be in play). */
export function heldSeats({ turn, live }) {
  const held = Object.entries(read("seats", {})).filter(([, seat]) => seat && typeof seat.token === "string");
  const asked = (seats) => seats.map(([code, seat]) => ({ code, token: seat.token }));
  return [...asked(held.filter(([, seat]) => seat.turn).slice(-turn)), ...asked(held.filter(([, seat]) => !seat.turn).slice(-live))];
}

export function forgetSeat(code) {
  const seats = read("seats", {});
  delete seats[code];
  write("seats", seats);
}

export function playerName() {
  return read("name", "");
}

export function setPlayerName(name) {
  write("name", name);
}

function newUuid() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** This browser's guest player id: it links finished games to one leaderboard entry. */
export function playerId() {
  let id = read("player-id", null);
  if (!id) {
    id = newUuid();
    write("player-id", id);
  }
  return id;
}

/** Whether this browser signed in to an account (account.js marks it; the cookie is HttpOnly). */
export function signedIn() {
  return read("account-player-id", null) !== null;
}
