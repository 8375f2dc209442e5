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

const FLIGHT_MS = 320;
const STAGGER_MS = 110; // between the entries of a batch
const DEAL_MS = 40; // between the flights of one entry (cards drawn one after the other)
const MAX_DEAL_MS = 160;
const MAX_SPREAD_MS = 240; // the last flight of a batch starts at most this late
const LAG_MS = 1000; // the most the animations may run behind the state shown
const MAX_WAITING = 2; // with more batches waiting, only the newest is kept
const MAX_ENTRIES = 20; // more new entries than this is a resync (a whole log): nothing flies
const MAX_DRAWN = 3; // ghosts per draw
const MAX_STACK_FLIGHTS = 6;
const MAX_GHOSTS = 12; // flights in one batch: past these, the rest land without flying
const FRESH_MS = 1500;
const FRESH = "motion-fresh";
const LANDING = "motion-landing";
const REDUCE = "(prefers-reduced-motion: reduce)";
const EASING = "cubic-bezier(0.2, 0.7, 0.2, 1)";

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

const attr = (value) => CSS.escape(String(value));

// --- snapshots: where things are, read from the data attributes only ------------------------

function zoneKey(zone) {
  const name = zone.dataset.zone;
  if (name === "hand" || name === "stack") return `${name}:${zone.closest("[data-seat]")?.dataset.seat}`;
  if (name === "pile") return `pile:${zone.dataset.pile}`;
  return name;
}

function visibleRect(el) {
  const rect = el.getBoundingClientRect();
  return rect.width > 0 && rect.height > 0 ? rect : null;
}

function emptySnapshot() {
  return { zones: new Map(), slots: new Map(), sets: new Map(), cards: new Map() };
}

/** The rects (and elements) of every zone, set and face-up card under root. */
function snapshot(root) {
  const shot = emptySnapshot();
  for (const el of root.querySelectorAll("[data-zone]")) {
    const rect = visibleRect(el);
    if (!rect) continue;
    const key = zoneKey(el);
    shot.zones.set(key, { el, rect });
    // A hand's last card: never its count in words (a phone's rival), which is no card to fly.
    const last = key.startsWith("hand:") ? [...el.children].filter((child) => !child.matches(".hand-count")).at(-1) : null;
    const slot = last ? visibleRect(last) : null;
    if (slot) shot.slots.set(key, { el: last, rect: slot, piece: true });
  }
  for (const el of root.querySelectorAll("[data-seat] [data-zone='stack'] [data-set]")) {
    const seat = el.closest("[data-seat]").dataset.seat;
    const rect = visibleRect(el);
    if (!rect) continue;
    const ids = new Set([...el.querySelectorAll("[data-card]")].map((card) => card.dataset.card));
    const sets = shot.sets.get(seat) ?? [];
    sets.push({ el, rect, depth: Number(el.dataset.depth), ids, piece: true });
    shot.sets.set(seat, sets);
  }
  for (const el of root.querySelectorAll("[data-card]")) {
    const rect = visibleRect(el);
    if (!rect) continue;
    const zone = el.closest("[data-zone]");
    const places = shot.cards.get(el.dataset.card) ?? [];
    places.push({ el, rect, zone: zone ? zoneKey(zone) : "", piece: true });
    shot.cards.set(el.dataset.card, places);
  }
  return shot;
}

/** Where card `id` shows: in the first of `zones` that holds it, else anywhere. */
function cardIn(shot, id, zones) {
  const places = shot.cards.get(String(id)) ?? [];
  for (const zone of zones) {
    const place = places.find((p) => p.zone === zone);
    if (place) return place;
  }
  return places[0] ?? null;
}

/** A seat's set: the one holding any of `ids`, else the one at `depth`. */
function setOf(shot, seat, { ids = [], depth = null } = {}) {
  const sets = shot.sets.get(String(seat)) ?? [];
  const wanted = ids.map(String);
  return (
    sets.find((set) => wanted.some((id) => set.ids.has(id))) ??
    (depth === null ? null : sets.find((set) => set.depth === depth)) ??
    null
  );
}

function zone(shot, key) {
  return shot.zones.get(key) ?? null;
}

/** A seat's hand, for cards whose face is not shown there: its last card (back), or the zone. */
function handSlot(shot, seat) {
  return shot.slots.get(`hand:${seat}`) ?? zone(shot, `hand:${seat}`);
}

// --- what each log event shows ---------------------------------------------------------------
// A plan is { kind, flights: [{ from, to, el }], marks: [...] }: each flight is a ghost of `el`
// (a rendered card or set, or a plain card shape when null) from rect `from` to rect `to`.
// A spot is a card, a set or a hand's last card (a "piece"), or else a whole zone, where a
// card-sized rect in its middle stands for it.

const CARD_SIZE = { width: 48, height: 68 };

function centred(rect, size) {
  const width = Math.min(size.width, rect.width);
  const height = Math.min(size.height, rect.height);
  const left = rect.left + (rect.width - width) / 2;
  const top = rect.top + (rect.height - height) / 2;
  return { left, top, width, height };
}

function flight(from, to) {
  if (!from || !to) return null;
  const size = from.piece ? from.rect : to.piece ? to.rect : CARD_SIZE;
  return {
    from: from.piece ? from.rect : centred(from.rect, size),
    to: to.piece ? to.rect : centred(to.rect, size),
    el: to.piece && to.el.isConnected ? to.el : null,
  };
}

/** Cards from where they were (`fromZones`) to where they are now (`toZones`). */
function cardFlights(before, after, ids, { fromZones, toZones, fromFallback, toFallback }) {
  return ids.map((id) =>
    flight(cardIn(before, id, fromZones) ?? fromFallback(id), cardIn(after, id, toZones) ?? toFallback),
  );
}

function setMark(seat, ids, depth = 0) {
  return { type: "set", seat: String(seat), ids: ids.map(String), depth };
}

function cardMark(id) {
  return { type: "card", id: String(id) };
}

function handToSet({ entry, before, after, kind }) {
  const seat = entry.seat;
  const ids = entry.cards ?? [entry.card];
  const set = setOf(after, seat, { ids, depth: 0 });
  const flights = cardFlights(before, after, ids, {
    fromZones: [`hand:${seat}`, "discard"],
    toZones: [`stack:${seat}`],
    fromFallback: () => handSlot(before, seat),
    toFallback: set,
  });
  return { kind, flights, marks: [setMark(seat, ids)] };
}

function toDuel({ entry, before, after, kind }) {
  const seat = entry.seat;
  const piles = entry.piles ?? [];
  const duel = zone(after, "duel") ?? setOf(after, seat, { depth: 0 });
  const flights = cardFlights(before, after, entry.cards, {
    fromZones: [`hand:${seat}`, ...piles.map((p) => `pile:${p}`)],
    toZones: ["duel"],
    fromFallback: (id) =>
      entry.cards.indexOf(id) > 0 && piles.length
        ? zone(before, `pile:${piles[entry.cards.indexOf(id) - 1] ?? piles[0]}`)
        : handSlot(before, seat),
    toFallback: duel,
  });
  return { kind, flights, marks: entry.cards.map(cardMark) };
}

/** A card that leaves the game (Swap, Move, an action card turned up on a pile). */
function toOut(before, after, from) {
  return flight(from, zone(after, "out") ?? zone(after, "discard"));
}

function discard({ entry, before, after }) {
  const from = cardIn(before, entry.card, [`hand:${entry.seat}`]) ?? handSlot(before, entry.seat);
  const to = cardIn(after, entry.card, ["discard"]);
  if (!to) return { kind: "discard", flights: [toOut(before, after, from)], marks: [] };
  return { kind: "discard", flights: [flight(from, to)], marks: [cardMark(entry.card)] };
}

function draw({ entry, before, after }) {
  const seat = entry.seat;
  const held = new Set(
    [...before.cards].filter(([, places]) => places.some((p) => p.zone === `hand:${seat}`)).map(([id]) => id),
  );
  const drawn = [...after.cards]
    .filter(([id, places]) => !held.has(id) && places.some((p) => p.zone === `hand:${seat}`))
    .map(([id]) => cardIn(after, id, [`hand:${seat}`]));
  const deck = zone(before, "deck");
  const count = Math.min(Number(entry.count) || 1, MAX_DRAWN);
  const flights = [];
  for (let i = 0; i < count; i += 1) flights.push(flight(deck, drawn[i] ?? handSlot(after, seat)));
  return { kind: "draw", flights, marks: [] };
}

function challengeWon({ entry, before, after, memory }) {
  const { seat: winner, defender, cards } = entry;
  const won = winner === entry.challenger;
  const held = setOf(before, defender, { ids: cards, depth: memory.depth });
  const target = won ? setOf(after, winner, { ids: cards, depth: 0 }) : setOf(after, defender, { ids: cards });
  // The cards played in the duel join the set; the set's own cards fly with the set.
  const played = cards.filter((id) => !held?.ids.has(String(id)));
  const flights = cardFlights(before, after, played, {
    fromZones: ["duel"],
    toZones: [`stack:${won ? winner : defender}`],
    fromFallback: () => zone(before, "duel"),
    toFallback: target,
  });
  if (!won) return { kind: "defend", flights, marks: [setMark(defender, cards, memory.depth)] };
  return { kind: "steal", flights: [flight(held, target), ...flights], marks: [setMark(winner, cards)] };
}

function claimWon({ entry, before, after }) {
  const target = setOf(after, entry.seat, { ids: entry.cards, depth: 0 });
  const flights = cardFlights(before, after, entry.cards, {
    fromZones: ["duel"],
    toZones: [`stack:${entry.seat}`],
    fromFallback: () => zone(before, "duel"),
    toFallback: target,
  });
  return { kind: "claim", flights, marks: [setMark(entry.seat, entry.cards)] };
}

/** Two seats' top sets trade places. */
function exchange(before, after, a, b) {
  const setA = setOf(before, a, { depth: 0 });
  const setB = setOf(before, b, { depth: 0 });
  if (!setA || !setB) return { flights: [], marks: [] };
  const idsA = [...setA.ids];
  const idsB = [...setB.ids];
  return {
    flights: [
      flight(setA, setOf(after, b, { ids: idsA, depth: 0 })),
      flight(setB, setOf(after, a, { ids: idsB, depth: 0 })),
    ],
    marks: [setMark(b, idsA), setMark(a, idsB)],
  };
}

function swap({ entry, before, after }) {
  const { flights, marks } = exchange(before, after, entry.seat, entry.target);
  const card = toOut(before, after, cardIn(before, entry.card, [`hand:${entry.seat}`]) ?? handSlot(before, entry.seat));
  return { kind: "swap", flights: [...flights, card], marks };
}

function pileSwap({ entry, before, after }) {
  const [a, b] = entry.seats ?? [];
  const { flights, marks } = exchange(before, after, a, b);
  const card = toOut(before, after, cardIn(before, entry.card, [`pile:${entry.pile}`]) ?? zone(before, `pile:${entry.pile}`));
  return { kind: "swap", flights: [...flights, card], marks };
}

/** A stack reordered: its top set to the bottom, or its bottom set to the top. */
function reorder(before, after, seat, newDepth) {
  const sets = before.sets.get(String(seat)) ?? [];
  const count = sets.length;
  const flights = [];
  const marks = [];
  for (const set of sets) {
    const depth = newDepth(set.depth, count);
    const landed = setOf(after, seat, { ids: [...set.ids], depth });
    if (flights.length < MAX_STACK_FLIGHTS) flights.push(flight(set, landed));
    if (set.depth === 0 || set.depth === count - 1) marks.push(setMark(seat, [...set.ids], depth));
  }
  return { flights, marks };
}

const DIRECTIONS = {
  top_to_bottom: (depth, count) => (depth === 0 ? count - 1 : depth - 1),
  bottom_to_top: (depth, count) => (depth === count - 1 ? 0 : depth + 1),
};

function move({ entry, before, after }) {
  const newDepth = DIRECTIONS[entry.direction];
  if (!newDepth) return null;
  const { flights, marks } = reorder(before, after, entry.target, newDepth);
  if (entry.event === "move") {
    const from = cardIn(before, entry.card, [`hand:${entry.seat}`]) ?? handSlot(before, entry.seat);
    flights.push(toOut(before, after, from));
  }
  return { kind: "move", flights, marks };
}

function moved({ entry, before, after }) {
  return { kind: "move", ...reorder(before, after, entry.seat, (depth) => 1 - depth) };
}

function pileMove({ entry, before, after }) {
  const from = cardIn(before, entry.card, [`pile:${entry.pile}`]) ?? zone(before, `pile:${entry.pile}`);
  return { kind: "pile_move", flights: [toOut(before, after, from)], marks: [] };
}

/**
 * How each log event animates. Every other event (turn, deal, end_turn, concede, skip,
 * round_over, game_over, and the server's own ones such as timeout, away, back) shows nothing.
 * To animate a new event, add its name here with a function of { entry, before, after, memory }.
 */
const PLANS = {
  discard,
  draw,
  form_set: (args) => handToSet({ ...args, kind: "form_set" }),
  form_set_discard: (args) => handToSet({ ...args, kind: "form_set" }),
  improve: (args) => handToSet({ ...args, kind: "improve" }),
  challenge: (args) => toDuel({ ...args, kind: "challenge" }),
  answer: (args) => toDuel({ ...args, kind: "answer" }),
  draft: (args) => toDuel({ ...args, kind: "draft" }),
  challenge_won: challengeWon,
  claim_won: claimWon,
  swap,
  pile_swap: pileSwap,
  move,
  choose: move,
  moved,
  pile_move: pileMove,
};

const isCard = (value) => Number.isInteger(value);

/** An entry of the shape the engine writes: seats and cards are integers where present. */
function wellFormed(entry) {
  if (!entry || typeof entry !== "object") return false;
  const { seat, card, cards } = entry;
  return (
    (seat === undefined || seat === null || isCard(seat)) &&
    (card === undefined || isCard(card)) &&
    (cards === undefined || (Array.isArray(cards) && cards.every(isCard)))
  );
}

function planFor(entry, before, after, memory) {
  const make = wellFormed(entry) && Object.hasOwn(PLANS, entry.event) ? PLANS[entry.event] : null;
  if (!make) return null;
  try {
    const plan = make({ entry, before, after, memory });
    if (!plan) return null;
    plan.flights = plan.flights.filter((f) => f && moves(f.from, f.to));
    return plan;
  } catch {
    return null; // an entry of an unexpected shape animates nothing; the table is still right
  }
}

function moves(from, to) {
  return Math.abs(from.left - to.left) + Math.abs(from.top - to.top) > 2 || Math.abs(from.width - to.width) > 2;
}

// --- ghosts ---------------------------------------------------------------------------------

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
