// Ghosts: copies of a card or a set, styled as the original and flown over the table in a
// layer of their own; the batch's timing and its cap on how many fly.

export const FLIGHT_MS = 320;
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
export function makeGhost(el, kind) {
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

export function place(ghost, rect) {
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

export function keyframes(from, to) {
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
export function withinGhosts(plans) {
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
export function timeBatch(plans) {
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
