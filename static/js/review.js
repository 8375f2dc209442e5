// The game review on the replay page (docs/protocol.md, "Game reviews"): ask for it, show its
// progress, then each player's accuracy, the key moments (the viewer's own first, with why a
// move was worse and "Try again" at a practice table), every decision's verdict with the better
// move in words, and each seat's win chance over the game. Clicking a decision jumps the replay
// to it.

import { api } from "./api.js";
import { stashChart } from "./chart.js";
import { h, onLeave, render } from "./dom.js";
import { describe } from "./moves.js";
import { playerId, playerName, rememberSeat } from "./session.js";

const POLL_MS = 1000;
const VERDICTS = {
  forced: "Forced",
  best: "Best",
  good: "Good",
  inaccuracy: "Inaccuracy",
  mistake: "Mistake",
  blunder: "Blunder",
};

export function percent(chance) {
  return `${Math.round(chance * 100)}%`;
}

export function verdictBadge(verdict) {
  return h("span", { class: `verdict verdict-${verdict}`, dataset: { verdict } }, VERDICTS[verdict] ?? verdict);
}

/**
 * The chart's rows: after each action of the game, every seat's latest estimate (a seat's
 * estimate changes only at its own judged decisions; before its first one, an even share).
 */
function chanceRows(review, seats, actions) {
  const latest = Array.from({ length: seats }, () => 1 / seats);
  const changes = new Map();
  for (const { seat, series } of review.seats) {
    for (const point of series) {
      if (!changes.has(point.step)) changes.set(point.step, []);
      changes.get(point.step).push([seat, point.win_chance]);
    }
  }
  const rows = [];
  for (let step = 0; step <= actions; step += 1) {
    for (const [seat, chance] of changes.get(step) ?? []) latest[seat] = chance;
    rows.push([...latest]);
  }
  return rows;
}

/** The view just before decision `step`, every hand face up, told to the seat that decided. */
function viewBefore(game, step, seat) {
  return { ...game.replay[step].view, seat, hand: [] };
}

/** The move a decision made, as the game's log told it (its first entry names the player). */
function playedWords(game, decision, names) {
  const entry = game.replay[decision.step + 1]?.log?.[0];
  return entry?.text ?? `${names[decision.seat]}: ${describe(decision.played, viewBefore(game, decision.step, decision.seat))}`;
}

function betterWords(game, decision) {
  if (decision.verdict === "forced" || JSON.stringify(decision.best) === JSON.stringify(decision.played)) return null;
  return describe(decision.best, viewBefore(game, decision.step, decision.seat));
}

/** One decision as a line: step, who, the move, its verdict, the chances, why, the better move. */
export function decisionNote(game, decision, names, { own = null } = {}) {
  const better = betterWords(game, decision);
  // A reason speaks to the player who decided; told to someone else, it says whom it is for.
  const whose = own !== null && decision.seat !== own ? ` (for ${names[decision.seat]})` : "";
  let chances = decision.verdict === "forced" ? "only one choice" : `win chance ${percent(decision.win_before)} → ${percent(decision.win_played)}`;
  // Right after the same seat's move, the chance starts where that move left it, unless the
  // seat saw new cards in between (a draw): then say so, as that is why it moved.
  const seen = decision.follows?.seen ?? 0;
  if (decision.verdict !== "forced" && seen > 0) chances += ` (${names[decision.seat]} saw ${seen === 1 ? "a new card" : `${seen} new cards`} after step ${decision.step})`;
  return [
    h("span", { class: "decision-head" }, verdictBadge(decision.verdict), playedWords(game, decision, names)),
    h("span", { class: "decision-chances" }, chances),
    decision.reason ? h("span", { class: "reason", dataset: { testid: "reason" } }, `Why${whose}: ${decision.reason[0].toUpperCase()}${decision.reason.slice(1)}.`) : null,
    better ? h("span", { class: "better", dataset: { testid: "better-move" } }, `Better: ${better} (${percent(decision.alternatives[0]?.win_chance ?? decision.win_before)})`) : null,
  ];
}

/** Open a practice table at `decision` (a new room in play) and go to it. */
async function tryAgain(gameId, decision, button) {
  button.disabled = true;
  const name = playerName() || "Player";
  try {
    const room = await api.practice(gameId, decision.step, name, playerId());
    rememberSeat(room.code, { seat: room.seat, token: room.token, name });
    location.assign(`/room/${room.code}`);
  } catch (error) {
    button.disabled = false;
    button.after(h("p", { class: "notice error", role: "alert" }, error.message));
  }
}

function decisionItem(game, decision, names, onJump, { mark, practice, own }) {
  const retry = practice
    ? h("button", { type: "button", class: "try-again", "aria-label": `Try again from step ${decision.step + 1}` }, "Try again")
    : null;
  retry?.addEventListener("click", () => tryAgain(practice, decision, retry));
  return h(
    "li",
    { class: mark ? "theirs" : null, dataset: { seat: String(decision.seat) } },
    h(
      "button",
      { type: "button", class: "decision", dataset: { step: String(decision.step + 1) }, onClick: () => onJump(decision.step + 1) },
      h("span", { class: "decision-step" }, `Step ${decision.step + 1}`),
      mark ? h("span", { class: "badge whose" }, mark) : null,
      decisionNote(game, decision, names, { own }),
    ),
    retry,
  );
}

function decisionList(game, decisions, names, onJump, label, { own = null, practice = null } = {}) {
  return h(
    "ol",
    { class: "decisions", "aria-label": label },
    decisions.map((decision) =>
      decisionItem(game, decision, names, onJump, {
        mark: own !== null && decision.seat !== own ? `${names[decision.seat]}'s move` : null,
        practice,
        own,
      }),
    ),
  );
}

const COUNTED = { inaccuracy: ["inaccuracy", "inaccuracies"], mistake: ["mistake", "mistakes"], blunder: ["blunder", "blunders"] };

/** Each player's accuracy and how many inaccuracies, mistakes and blunders they made. */
function accuracies(review, names, own) {
  const seats = [...review.seats].sort((a, b) => (b.seat === own) - (a.seat === own) || a.seat - b.seat);
  return h(
    "ul",
    { class: "accuracies", "aria-label": "Accuracy" },
    seats.map(({ seat, accuracy, verdicts }) =>
      h(
        "li",
        { class: `accuracy${seat === own ? " you" : ""}`, dataset: { testid: "accuracy", seat: String(seat) } },
        h("span", { class: "who" }, names[seat], seat === own ? " (you)" : ""),
        h("strong", { class: "accuracy-value" }, accuracy === null || accuracy === undefined ? "—" : accuracy.toFixed(1)),
        h("span", { class: "accuracy-counts" }, Object.entries(COUNTED).map(([verdict, [one, many]]) => `${verdicts[verdict] ?? 0} ${(verdicts[verdict] ?? 0) === 1 ? one : many}`).join(" · ")),
      ),
    ),
  );
}

/** The key moments: the viewer's own seat's first, then the others' (largest drops first). */
function keyMoments(review, own) {
  const perSeat = review.seats.every((seat) => Array.isArray(seat.key_moments));
  if (!perSeat) return review.key_moments;
  const mine = own === null ? [] : review.seats[own].key_moments;
  const drop = new Map(review.decisions.map((decision) => [decision.step, decision.drop]));
  const others = review.seats
    .filter((seat) => seat.seat !== own)
    .flatMap((seat) => seat.key_moments)
    .sort((a, b) => drop.get(b) - drop.get(a) || a - b)
    .slice(0, own === null ? 3 : 2);
  return [...mine, ...others];
}

function finished(game, gameId, review, names, onJump, own) {
  const byStep = new Map(review.decisions.map((decision) => [decision.step, decision]));
  const moments = keyMoments(review, own).map((step) => byStep.get(step)).filter(Boolean);
  const rows = chanceRows(review, names.length, game.replay.length - 1);
  return [
    h("h3", { id: "accuracy-title" }, "Accuracy"),
    accuracies(review, names, own),
    h("p", { class: "hint" }, "Out of 100, from the win chance each move gave away; a move as good as the best scores 100."),
    h("h3", { id: "moments-title" }, "Key moments"),
    moments.length
      ? decisionList(game, moments, names, onJump, "Key moments", { own, practice: gameId })
      : h("p", { class: "hint" }, "No move changed the chances much."),
    moments.length ? h("p", { class: "hint" }, "Try again opens a practice table at that moment, unrated, against the same AI, with the cards that player could not see dealt afresh.") : null,
    h(
      "figure",
      { class: "chart-box" },
      stashChart(names, rows, "Win chance over the game", { top: 1, format: percent, tick: percent, id: "win-chart", xLabel: "actions" }),
      h("figcaption", {}, "Each player's estimated chance of winning, from their own view, at each of their decisions."),
    ),
    h(
      "details",
      { class: "every-move" },
      h("summary", {}, `Every move (${review.decisions.length})`),
      decisionList(game, review.decisions, names, onJump, "Every move", { own }),
    ),
  ];
}

/**
 * The review section for the recorded game `gameId`. `onJump(step)` shows a replay step; `onReady()` runs
 * once the review is there (the replay then annotates its current step). `start`: ask at once.
 * Returns `{element, decisionFor(step)}`: the decision that led to replay step `step`, once known.
 */
export function reviewPanel(game, gameId, { start, onJump, onReady }) {
  const names = game.players.map((p) => p.name);
  const body = h("div", { class: "review-body", "aria-live": "polite" });
  let own = null;
  const element = h("section", { class: "panel review", id: "review", "aria-labelledby": "review-title" }, h("h2", { id: "review-title" }, "Review"), body);
  let review = null;
  let timer = null;
  let left = false;
  onLeave(() => {
    left = true;
    clearTimeout(timer);
  });

  function idle(notice) {
    render(
      body,
      h("p", {}, "The Hard AI judges every decision from the view its player had, never from hidden cards, and suggests what would have been better."),
      notice ? h("p", { class: "notice error", role: "alert" }, notice) : null,
      h("button", { type: "button", class: "primary", dataset: { focus: "review" }, onClick: () => known.then(ask) }, "Review this game"),
    );
  }

  function progress(share) {
    const label = `Reviewing the game… ${percent(share)}`;
    render(
      body,
      h("label", { for: "review-progress" }, label),
      h("progress", { id: "review-progress", max: 1, value: share, "aria-valuetext": label }),
    );
  }

  function follow(job) {
    if (left) return;
    if (job.status === "done") {
      review = job.review;
      render(body, finished(game, gameId, review, names, onJump, own));
      onReady();
    } else if (job.status === "failed") idle(job.error ?? "The review failed.");
    else {
      progress(job.progress ?? 0);
      timer = setTimeout(poll, POLL_MS);
    }
  }

  async function poll() {
    try {
      follow(await api.review(gameId));
    } catch (error) {
      if (!left) idle(error.message);
    }
  }

  async function ask() {
    progress(0);
    try {
      follow(await api.requestReview(gameId));
    } catch (error) {
      idle(error.message);
    }
  }

  /** The viewer's seat in this game, if they played it: their public id from their history. */
  async function findOwnSeat() {
    try {
      const history = await api.playerGames(playerId());
      const id = history.player?.id;
      const seat = id ? game.players.find((p) => p.player_id === id) : null;
      own = seat ? seat.seat : null;
    } catch {
      own = null;
    }
  }

  idle(null);
  const known = findOwnSeat();
  if (start) known.then(ask);
  return {
    element,
    decisionFor(step) {
      return review?.decisions.find((decision) => decision.step === step - 1) ?? null;
    },
  };
}
