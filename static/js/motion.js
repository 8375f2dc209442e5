// Motion: each state's new log entries, played as short flights of ghost cards and sets over
// the table, and a highlight on what changed. It is an effect layered on top: the table renders
// every state completely without it, and it never touches the table's DOM beyond its own two
// classes (motion-fresh, motion-landing). What happened comes from the log, never from a diff.
//
//   const motion = createMotion();
//   const before = motion.capture(root);      // before the table re-renders
//   renderTable(...);
//   motion.update(root, before, entries);     // after it: the log entries new in this state
//   motion.clear();                           // leaving the page
//
// The only things read from the table are the data attributes of its DOM contract: data-zone
// (deck, discard, out, duel, pile + data-pile, and hand/stack inside a data-seat area),
// data-set + data-depth (0 = the top set) and data-card (a face-up card's id).
//
// Its parts: motion/where.js (the snapshots) and motion/plans.js (what each event shows);
// the ghosts that fly and the player are here.

import { emptySnapshot, snapshot } from "./motion/where.js";
import { planFor } from "./motion/plans.js";

const LAG_MS = 1000; // the most the animations may run behind the state shown
const MAX_WAITING = 2; // with more batches waiting, only the newest is kept
const MAX_ENTRIES = 20; // more new entries than this is a resync (a whole log): nothing flies
const FRESH_MS = 1500;
const FRESH = "motion-fresh";
const LANDING = "motion-landing";
const REDUCE = "(prefers-reduced-motion: reduce)";
const EASING = "cubic-bezier(0.2, 0.7, 0.2, 1)";
const attr = (value) => CSS.escape(String(value));

// --- ghosts ---------------------------------------------------------------------------------

const FLIGHT_MS = 320;
const STAGGER_MS = 110; // between the entries of a batch
const DEAL_MS = 40; // between the flights of one entry (cards drawn one after the other)
const MAX_DEAL_MS = 160;
const MAX_SPREAD_MS = 240; // the last flight of a batch starts at most this late
const MAX_GHOSTS = 12; // flights in one batch: past these, the rest land without flying
// Copied from the rendered element into its ghost, whose place in the page (under <body>)
// would otherwise lose every style that depends on where the original sits.
const BOX_STYLES = [
  "display", "box-sizing", "width", "height", "min-width", "min-height",
  "padding-top", "padding-right", "padding-bottom", "padding-left",
  "border-top-width", "border-right-width", "border-bottom-width", "border-left-width",
  "border-top-style", "border-right-style", "border-bottom-style", "border-left-style",
  "border-top-color", "border-right-color", "border-bottom-color", "border-left-color",
  "border-top-left-radius", "border-top-right-radius",
  "border-bottom-left-radius", "border-bottom-right-radius",
  "background-color", "background-image", "background-size", "background-position",
  "background-repeat", "background-clip", "box-shadow", "opacity", "overflow", "clip",
  "color", "font-family", "font-size", "font-weight", "font-style", "line-height",
  "letter-spacing", "text-align", "text-transform", "white-space", "vertical-align",
  "flex-direction", "flex-wrap", "align-items", "justify-content", "row-gap", "column-gap",
  "flex-grow", "flex-shrink", "flex-basis",
  "grid-template-columns", "grid-template-rows", "fill", "stroke", "object-fit",
];
const INNER_STYLES = [
  ...BOX_STYLES,
  "position", "top", "right", "bottom", "left", "z-index", "transform", "transform-origin",
  "margin-top", "margin-right", "margin-bottom", "margin-left",
];

function copyStyles(source, target, properties) {
  const computed = getComputedStyle(source);
  for (const property of properties) target.style.setProperty(property, computed.getPropertyValue(property));
}

function copyTreeStyles(source, target) {
  const sources = source.querySelectorAll("*");
  const targets = target.querySelectorAll("*");
  for (let i = 0; i < sources.length && i < targets.length; i += 1) {
    copyStyles(sources[i], targets[i], INNER_STYLES);
  }
}

// A ghost is only a picture: it keeps none of the attributes by which the page (or a test)
// finds the table's elements, so nothing matches it twice while it flies.
const isPageHook = (name) =>
  name === "id" || name === "class" || name === "tabindex" || name === "name" || name === "for" || name.startsWith("data-");

/** A look-alike of `el` (or a plain card shape), made now while `el` is in the page. */
function makeGhost(el, kind) {
  const ghost = el ? el.cloneNode(true) : document.createElement("div");
  if (el) {
    copyStyles(el, ghost, BOX_STYLES);
    copyTreeStyles(el, ghost);
    for (const node of [ghost, ...ghost.querySelectorAll("*")]) {
      for (const name of node.getAttributeNames()) if (isPageHook(name)) node.removeAttribute(name);
    }
    if (el.dataset.card) ghost.dataset.motionCard = el.dataset.card;
  }
  ghost.classList.add("motion-ghost");
  if (!el) ghost.classList.add("motion-ghost-card");
  ghost.dataset.motion = kind;
  ghost.setAttribute("aria-hidden", "true");
  ghost.setAttribute("inert", "");
  return ghost;
}

function place(ghost, rect) {
  Object.assign(ghost.style, {
    position: "fixed",
    left: `${rect.left}px`,
    top: `${rect.top}px`,
    width: `${rect.width}px`,
    height: `${rect.height}px`,
    margin: "0",
    boxSizing: "border-box",
    transformOrigin: "0 0",
    pointerEvents: "none",
    opacity: "1",
  });
}

function keyframes(from, to) {
  const dx = from.left - to.left;
  const dy = from.top - to.top;
  const sx = from.width / to.width || 1;
  const sy = from.height / to.height || 1;
  // Half way the ghost is lifted a little off the table, as a card in the hand would be.
  const lift = Math.min(16, (Math.abs(dx) + Math.abs(dy)) / 10);
  const mid = (value) => value / 2;
  return [
    { transform: `translate(${dx}px, ${dy}px) scale(${sx}, ${sy})` },
    {
      offset: 0.5,
      transform: `translate(${mid(dx)}px, ${mid(dy) - lift}px) scale(${mid(sx + 1) * 1.06}, ${mid(sy + 1) * 1.06})`,
    },
    { transform: "translate(0px, 0px) scale(1, 1)" },
  ];
}

/**
 * The plans that fly, their flights cut at `MAX_GHOSTS` in all (the batch's first ones fly; a
 * busy state, a steal with a draw and a discard, lands the rest without flying).
 */
function withinGhosts(plans) {
  let room = MAX_GHOSTS;
  const flying = [];
  for (const plan of plans) {
    if (!plan.flights.length || room <= 0) continue;
    plan.flights = plan.flights.slice(0, room);
    room -= plan.flights.length;
    flying.push(plan);
  }
  return flying;
}

/**
 * Set each flight's start in its batch (entries one after the other, the cards of one entry
 * dealt in turn) and return how long the batch lasts.
 */
function timeBatch(plans) {
  const stagger = plans.length > 1 ? Math.min(STAGGER_MS, MAX_SPREAD_MS / (plans.length - 1)) : 0;
  let duration = 0;
  plans.forEach((plan, index) => {
    const count = plan.flights.length;
    const deal = count > 1 ? Math.min(DEAL_MS, MAX_DEAL_MS / (count - 1)) : 0;
    plan.flights.forEach((flight, order) => {
      flight.delay = index * stagger + order * deal;
      duration = Math.max(duration, flight.delay + FLIGHT_MS);
    });
  });
  return duration;
}

// --- the player ------------------------------------------------------------------------------

export function createMotion() {
  const reduce = window.matchMedia(REDUCE);
  const waiting = []; // batches not yet played, oldest first
  let playing = null; // { animations, ghosts, landings, endsAt }
  let layer = null;
  let root = null;
  let generation = 0;
  let marks = []; // { mark, until }
  let sweepTimer = null;
  const memory = { depth: 0 }; // the open challenge's depth, for the set it settles

  const counter = document.documentElement.dataset;
  counter.motionPlayed ??= "0";

  function quiet() {
    return document.hidden || reduce.matches;
  }

  function overlay() {
    if (!layer || !layer.isConnected) {
      layer = document.createElement("div");
      layer.className = "motion-layer";
      layer.setAttribute("aria-hidden", "true");
      document.body.append(layer);
    }
    return layer;
  }

  // highlights

  function marked(mark) {
    if (!root) return [];
    if (mark.type === "card") {
      // Where the card landed: the discard pile, the duel, a set; never a hand.
      const cards = root.querySelectorAll(`[data-card="${attr(mark.id)}"]`);
      return [...cards].filter((el) => !el.closest("[data-zone='hand']"));
    }
    // Every drawing of the set: the table may show a stack twice (top sets, and all of them).
    const sets = [...root.querySelectorAll(`[data-seat="${attr(mark.seat)}"] [data-zone="stack"] [data-set]`)];
    const holding = sets.filter((set) => mark.ids.some((id) => set.querySelector(`[data-card="${attr(id)}"]`)));
    return holding.length ? holding : sets.filter((set) => Number(set.dataset.depth) === mark.depth);
  }

  function applyMarks() {
    if (!root) return;
    const now = performance.now();
    marks = marks.filter((m) => m.until > now);
    const keep = new Set(marks.flatMap((m) => marked(m.mark)));
    for (const el of root.querySelectorAll(`.${FRESH}`)) if (!keep.has(el)) el.classList.remove(FRESH);
    for (const el of keep) el.classList.add(FRESH);
    clearTimeout(sweepTimer);
    sweepTimer = marks.length ? setTimeout(applyMarks, Math.min(...marks.map((m) => m.until)) - now + 20) : null;
  }

  function addMarks(list) {
    if (!list.length) return;
    const until = performance.now() + FRESH_MS;
    marks.push(...list.map((mark) => ({ mark, until })));
    applyMarks();
  }

  // batches

  function stopPlaying() {
    if (!playing) return;
    const current = playing;
    playing = null;
    for (const animation of current.animations) animation.cancel();
    for (const ghost of current.ghosts) ghost.remove();
    for (const el of current.landings) el.classList.remove(LANDING);
  }

  function dropWaiting(keep = 0) {
    while (waiting.length > keep) addMarks(waiting.shift().marks);
  }

  /** How long until every batch queued now has played. */
  function behind() {
    const left = playing ? Math.max(0, playing.endsAt - performance.now()) : 0;
    return waiting.reduce((sum, batch) => sum + batch.duration, left);
  }

  /** Queue a batch, never more than about a second of animation behind the state shown. */
  function enqueue(batch) {
    waiting.push(batch);
    if (waiting.length > MAX_WAITING) dropWaiting(1);
    while (waiting.length > 1 && behind() > LAG_MS) addMarks(waiting.shift().marks);
    // A batch still playing past its time (a busy page) or in the newest one's way stops now.
    if (playing && (behind() > LAG_MS || performance.now() > playing.endsAt)) stopPlaying();
    counter.motionBehind = String(Math.round(behind()));
    next();
  }

  function next() {
    if (playing) return;
    const now = performance.now();
    while (waiting.length > 1 && now - waiting[0].made > LAG_MS) addMarks(waiting.shift().marks);
    const batch = waiting.shift();
    if (!batch) return;
    if (quiet()) {
      addMarks(batch.marks);
      dropWaiting();
      return;
    }
    play(batch);
  }

  /** Fly one ghost; while the table still shows the destination, hide it until it lands. */
  function launch(current, { from, to, el, ghost, delay }, fresh) {
    const live = fresh && el?.isConnected;
    const target = live ? el.getBoundingClientRect() : to;
    place(ghost, target);
    overlay().append(ghost);
    current.ghosts.push(ghost);
    if (live) {
      el.classList.add(LANDING);
      current.landings.push(el);
    }
    const timing = { duration: FLIGHT_MS, delay, easing: EASING, fill: "backwards" };
    current.animations.push(ghost.animate(keyframes(from, target), timing));
  }

  function play(batch) {
    const current = { animations: [], ghosts: [], landings: [], endsAt: performance.now() + batch.duration };
    playing = current;
    const fresh = batch.generation === generation; // its elements are still the table's
    for (const plan of batch.plans) {
      for (const flight of plan.flights) launch(current, flight, fresh);
      counter.motionPlayed = String(Number(counter.motionPlayed || 0) + 1);
      counter.motionLast = plan.kind;
    }
    addMarks(batch.marks);
    Promise.all(current.animations.map((a) => a.finished))
      .catch(() => undefined)
      .then(() => {
        if (playing !== current) return;
        stopPlaying();
        next();
      });
  }

  function rememberChallenge(entry) {
    if (entry?.event === "challenge") memory.depth = Number(entry.depth) || 0;
    if (entry?.event === "draft") memory.depth = 0;
  }

  function settle() {
    stopPlaying();
    dropWaiting();
  }

  const onVisibility = () => {
    if (document.hidden) settle();
  };
  const onReduce = () => {
    if (reduce.matches) settle();
  };
  document.addEventListener("visibilitychange", onVisibility);
  reduce.addEventListener("change", onReduce);

  return {
    /** Before the table re-renders: where everything that may move is now (null: nothing will). */
    capture(tableRoot) {
      if (quiet() || !tableRoot) return null;
      return snapshot(tableRoot);
    },

    /** After the render: animate `entries` (the log entries new in this state). */
    update(tableRoot, before, entries = []) {
      root = tableRoot;
      generation += 1;
      const list = Array.isArray(entries) ? entries : [];
      if (!list.length || !root) {
        applyMarks();
        return;
      }
      const after = snapshot(root);
      const empty = emptySnapshot();
      const plans = [];
      for (const entry of list.length > MAX_ENTRIES ? [] : list) {
        const plan = planFor(entry, before ?? empty, after, memory);
        rememberChallenge(entry);
        if (plan) plans.push(plan);
      }
      for (const entry of list.length > MAX_ENTRIES ? list : []) rememberChallenge(entry);
      const batchMarks = plans.flatMap((plan) => plan.marks);
      const animated = before && !quiet() ? withinGhosts(plans) : [];
      if (!animated.length) {
        applyMarks();
        addMarks(batchMarks);
        return;
      }
      for (const plan of animated) for (const f of plan.flights) f.ghost = makeGhost(f.el, plan.kind);
      applyMarks();
      const duration = timeBatch(animated);
      enqueue({ plans: animated, marks: batchMarks, generation, duration, made: performance.now() });
    },

    /** Leaving the page: stop everything and take every ghost and highlight away. */
    clear() {
      stopPlaying();
      waiting.length = 0;
      marks = [];
      applyMarks();
      clearTimeout(sweepTimer);
      layer?.remove();
      layer = null;
      root = null;
      document.removeEventListener("visibilitychange", onVisibility);
      reduce.removeEventListener("change", onReduce);
    },
  };
}
