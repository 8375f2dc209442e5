// What a turn-based table says about itself (its time to move, what happens when it runs out)
// and how long is left, in the words the lobby, the waiting room and the table share.

export const MOVE_TIMES = [
  [3600, "1 hour"],
  [28800, "8 hours"],
  [86400, "1 day"],
  [259200, "3 days"],
];
export const DEFAULT_MOVE_SECONDS = 86400;
const MOVE_WORDS = Object.fromEntries(MOVE_TIMES);

export function isTurnBased(options) {
  return options?.mode === "turn";
}

/** "1 day to move" or "no time limit". */
export function moveText(options) {
  const limit = options.move_seconds;
  return limit ? `${MOVE_WORDS[limit] ?? `${limit} s`} to move` : "no time limit";
}

/** "Turn-based · 1 day to move", "Turn-based · no time limit" or "Live". */
export function modeText(options) {
  return isTurnBased(options) ? `Turn-based · ${moveText(options)}` : "Live";
}

/** What the table's time to move means for a player who is not there. */
export function modeTold(options) {
  if (!isTurnBased(options)) return "";
  if (!options.move_seconds) return "No time limit: the game waits for each player as long as they take, and nobody plays for them.";
  return `Each player has ${MOVE_WORDS[options.move_seconds]} for each move and each answer; when it runs out, the AI makes that one move for them, and the seat stays theirs.`;
}

/** A long wait in words: "2 d 3 h", "5 h", "12 min", "40 s". */
export function timeLeft(seconds) {
  const whole = Math.max(0, Math.floor(seconds));
  const days = Math.floor(whole / 86400);
  const hours = Math.floor((whole % 86400) / 3600);
  if (days) return hours ? `${days} d ${hours} h` : `${days} d`;
  if (hours) return `${hours} h`;
  if (whole >= 60) return `${Math.floor(whole / 60)} min`;
  return `${whole} s`;
}
