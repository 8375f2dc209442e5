// The game review on the replay page (docs/protocol.md, "Game reviews"): ask for it, show its
// progress, then the key moments, every decision's verdict with the better move in words, and
// each seat's win chance over the game. Clicking a decision jumps the replay to it.

import { api } from "./api.js";
import { stashChart } from "./chart.js";
import { h, onLeave, render } from "./dom.js";
import { describe } from "./moves.js";

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

/** One decision as a line: step, who, the move, its verdict, the chances and the better move. */
export function decisionNote(game, decision, names) {
  const better = betterWords(game, decision);
  const chances = decision.verdict === "forced" ? "only one choice" : `win chance ${percent(decision.win_before)} → ${percent(decision.win_played)}`;
  return [
    h("span", { class: "decision-head" }, verdictBadge(decision.verdict), playedWords(game, decision, names)),
    h("span", { class: "decision-chances" }, chances),
    better ? h("span", { class: "better", dataset: { testid: "better-move" } }, `Better: ${better} (${percent(decision.alternatives[0]?.win_chance ?? decision.win_before)})`) : null,
  ];
}

function decisionList(game, decisions, names, onJump, label) {
  return h(
    "ol",
    { class: "decisions", "aria-label": label },
    decisions.map((decision) =>
      h(
        "li",
        {},
        h(
          "button",
          { type: "button", class: "decision", dataset: { step: String(decision.step + 1) }, onClick: () => onJump(decision.step + 1) },
          h("span", { class: "decision-step" }, `Step ${decision.step + 1}`),
          decisionNote(game, decision, names),
        ),
      ),
    ),
  );
}

function finished(game, review, names, onJump) {
  const byStep = new Map(review.decisions.map((decision) => [decision.step, decision]));
  const moments = review.key_moments.map((step) => byStep.get(step)).filter(Boolean);
  const rows = chanceRows(review, names.length, game.replay.length - 1);
  return [
    h("h3", { id: "moments-title" }, "Key moments"),
    moments.length ? decisionList(game, moments, names, onJump, "Key moments") : h("p", { class: "hint" }, "No move changed the chances much."),
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
      decisionList(game, review.decisions, names, onJump, "Every move"),
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
      h("button", { type: "button", class: "primary", dataset: { focus: "review" }, onClick: ask }, "Review this game"),
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
      render(body, finished(game, review, names, onJump));
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

  idle(null);
  if (start) ask();
  return {
    element,
    decisionFor(step) {
      return review?.decisions.find((decision) => decision.step === step - 1) ?? null;
    },
  };
}
