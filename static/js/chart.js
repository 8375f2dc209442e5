// The stash chart: every player's stash value after each step of a finished game, as SVG.

import { h, money, s } from "./dom.js";

const COLORS = ["#1b5e9e", "#b3261e", "#1e7a3a", "#8a4b00", "#6a2c91", "#006d75"];
const DASHES = ["", "8 4", "2 3", "10 3 2 3", "5 5", "1 4"];
const WIDEST = 640;
const NARROWEST = 300;

/** The smallest of 1, 2, 2.5 or 5 times a power of ten that is at least ``value``. */
function roundStep(value) {
  const power = Math.pow(10, Math.floor(Math.log10(value)));
  return [1, 2, 2.5, 5, 10].map((m) => m * power).find((step) => step >= value);
}

function tickLabel(value) {
  return value >= 1e6 ? `$${value / 1e6}M` : `$${value / 1000}k`;
}

function swatch(seat) {
  return s(
    "svg",
    { class: "swatch", viewBox: "0 0 24 8", width: 24, height: 8, "aria-hidden": "true" },
    s("line", { x1: 0, x2: 24, y1: 4, y2: 4, stroke: COLORS[seat % COLORS.length], "stroke-width": 3, "stroke-dasharray": DASHES[seat % DASHES.length] || undefined }),
  );
}

/**
 * names: one name per seat; series: per step, the stash value of every seat.
 * Returns a figure body: an <svg class="chart"> with a title and a description (what a screen
 * reader hears) and, under it, the legend as text that stays readable on a phone. The drawing is
 * as wide as the page has room for, so its labels keep their size on a narrow screen.
 * `scale` draws another quantity: `top` fixes the axis' top, `format` writes a value (ticks,
 * legend, description), `id` prefixes the title's and description's ids (two charts on a page),
 * `xLabel` names the steps.
 */
export function stashChart(names, series, title = "Stash value over the game", scale = {}) {
  const { top = null, format = money, tick = tickLabel, id = "chart", xLabel = "actions" } = scale;
  const room = document.getElementById("main")?.clientWidth ?? WIDEST;
  const width = Math.round(Math.max(NARROWEST, Math.min(WIDEST, room - 40)));
  const height = Math.round(Math.max(200, width * 0.45));
  const pad = { left: 52, right: 12, top: 12, bottom: 24 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const steps = Math.max(series.length - 1, 1);
  const gridStep = top === null ? roundStep(Math.max(10000, ...series.flat()) / 4) : top / 4;
  const yMax = gridStep * 4;
  const x = (step) => pad.left + (step / steps) * plotW;
  const y = (value) => pad.top + plotH - (value / yMax) * plotH;

  const grid = [];
  for (let i = 0; i <= 4; i += 1) {
    const value = gridStep * i;
    grid.push(
      s("line", { x1: pad.left, x2: width - pad.right, y1: y(value), y2: y(value), class: "grid" }),
      s("text", { x: pad.left - 6, y: y(value) + 4, "text-anchor": "end", class: "tick" }, tick(value)),
    );
  }
  grid.push(s("text", { x: width - pad.right, y: height - 6, "text-anchor": "end", class: "tick" }, `${series.length - 1} ${xLabel}`));
  const lines = names.map((name, seat) => {
    const points = series.map((values, step) => `${x(step).toFixed(1)},${y(values[seat] ?? 0).toFixed(1)}`);
    return s("polyline", {
      points: points.join(" "),
      fill: "none",
      stroke: COLORS[seat % COLORS.length],
      "stroke-width": 2.5,
      "stroke-linejoin": "round",
      "stroke-dasharray": DASHES[seat % DASHES.length] || undefined,
      "data-seat": seat,
    });
  });
  const last = series[series.length - 1] || [];
  const summary = names.map((name, seat) => `${name} ends with ${format(last[seat] ?? 0)}`).join("; ");
  return [
    s(
      "svg",
      { viewBox: `0 0 ${width} ${height}`, role: "img", class: "chart", "aria-labelledby": `${id}-title ${id}-desc` },
      s("title", { id: `${id}-title` }, title),
      s("desc", { id: `${id}-desc` }, `${series.length} steps. ${summary}.`),
      grid,
      s("line", { x1: pad.left, x2: pad.left, y1: pad.top, y2: pad.top + plotH, class: "axis" }),
      s("line", { x1: pad.left, x2: width - pad.right, y1: pad.top + plotH, y2: pad.top + plotH, class: "axis" }),
      lines,
    ),
    h(
      "ul",
      { class: "chart-legend", "aria-hidden": "true" },
      names.map((name, seat) => h("li", {}, swatch(seat), h("span", { class: "legend-name" }, name), h("span", { class: "legend-value" }, format(last[seat] ?? 0)))),
    ),
  ];
}

/**
 * The chart's series from a recorded game's replay: after each step, every seat's score so far,
 * the totals of the rounds already scored plus the stash of the round being played (the view's
 * `rounds.totals` already holds the last round once the game is over).
 */
export function seriesFromReplay(game) {
  return game.replay.map(({ view }) => stashesOf(view));
}

function stashesOf(view) {
  return view.players.map((player) => {
    const scored = view.rounds?.totals?.[player.seat] ?? 0;
    return view.over ? scored : scored + player.stash;
  });
}

const SEEN_PREFIX = "cash-stash:stashes:";
const SEEN_MOST = 2000;

function seenPoints(key) {
  try {
    const points = JSON.parse(sessionStorage.getItem(SEEN_PREFIX + key) ?? "[]");
    return Array.isArray(points) ? points : [];
  } catch {
    return [];
  }
}

/**
 * Keep every seat's stash after each state this tab is sent, under `key` (in sessionStorage, so
 * a reload keeps them): the chart of a game that has no record to draw it from. A state whose
 * log is no longer than the last one kept adds nothing; a shorter one is a new game.
 */
export function rememberStashes(key, view) {
  let points = seenPoints(key);
  const last = points[points.length - 1];
  if (last && view.log.length <= last.at) {
    if (view.log.length === last.at) return;
    points = [];
  }
  points.push({ at: view.log.length, values: stashesOf(view) });
  try {
    sessionStorage.setItem(SEEN_PREFIX + key, JSON.stringify(points.slice(-SEEN_MOST)));
  } catch {
    // Storage full or refused: the chart shows what could be kept.
  }
}

/** The chart's series from the states kept under `key` (`rememberStashes`). */
export function rememberedSeries(key) {
  return seenPoints(key).map((point) => point.values);
}
