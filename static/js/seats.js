// A player's place at the table: name, badges, hand (backs for rivals, faces in a replay) and
// stack. The top set is drawn large and face up; the sets below collapse into a strip.

import { kindName, shortName } from "./cards.js";
import { cardBack, cardFace } from "./cardface.js";
import { h, money } from "./dom.js";

/** A face-up card (`data-card`, the element motion follows): "hand", "set" or "mini" size. */
export function card(cardData, { size = "mini", testid } = {}) {
  const face = cardFace(cardData, { size });
  if (testid) face.dataset.testid = testid;
  return face;
}

/** Face-down cards with their count: a rival's hand, the deck, a covered draft pile. */
export function backs(count, { size = "mini", label } = {}) {
  return cardBack({ count, size, label });
}

/** Money in a few letters, for a phone's narrow boxes: "$218k". */
export function shortMoney(value) {
  return value >= 1000 ? `$${Math.round(value / 1000)}k` : money(value);
}

function where(depth) {
  if (depth === 0) return "top";
  if (depth === 1) return "second from top";
  if (depth === 2) return "third from top";
  return `${depth + 1}th from top`;
}

function setWords(set, depth) {
  return `${kindName(set.kind)} set, ${money(set.value)}, ${where(depth)}, ${set.exposed ? "exposed" : "protected"}`;
}

function stateBadge(set) {
  return h("span", { class: `badge ${set.exposed ? "exposed" : "protected"}` }, set.exposed ? "exposed" : "protected");
}

/**
 * A set that is a place on the table (a top set to challenge, improve, swap or move onto)
 * becomes a button; `place(seat, depth, set)` says how (see table.js), or null: a plain set.
 */
function asPlace(element, set, depth, seat, place) {
  const spec = place ? place(seat, depth, set) : null;
  if (!spec) return element;
  return h(
    "button",
    {
      type: "button",
      class: `set-pick place${spec.lit ? " lit" : ""}`,
      "aria-label": spec.name,
      "aria-disabled": spec.lit ? "false" : "true",
      "aria-describedby": spec.lit ? "place-lit-help" : undefined,
      tabindex: spec.lit ? undefined : "-1",
      dataset: { focus: `set-${seat}-${depth}`, place: spec.key },
      onClick: spec.onActivate,
    },
    element,
  );
}

function setAttributes(set, index, depth) {
  return { set: String(index), depth: String(depth), kind: set.kind };
}

/** A set in words, for a phone's row of rivals: its kind, value and state, never cut. */
function setInWords(set, index, depth, seat, place) {
  const body = h(
    "span",
    { class: `set set-words ${set.exposed ? "exposed" : "protected"}`, dataset: setAttributes(set, index, depth), ...(place ? {} : { role: "group", "aria-label": setWords(set, depth) }) },
    h(
      "span",
      { class: "set-meta", "aria-hidden": place ? "true" : undefined },
      h("span", { class: "set-words-line" }, h("span", { class: "set-kind" }, shortName(set.kind)), " ", h("span", { class: "set-value" }, shortMoney(set.value))),
      h("span", { class: "set-words-line" }, stateBadge(set)),
    ),
  );
  return asPlace(body, set, depth, seat, place);
}

/** The top set (or any set in the opened list): every card face up, its kind, value and state.
 * `size` "words" draws it without its cards (a phone's row of rivals). */
function fullSet(set, index, depth, seat, place, size) {
  if (size === "words") return setInWords(set, index, depth, seat, place);
  const body = h(
    "span",
    { class: `set ${set.exposed ? "exposed" : "protected"}`, dataset: setAttributes(set, index, depth), ...(place ? {} : { role: "group", "aria-label": setWords(set, depth) }) },
    h("span", { class: "set-cards" }, set.cards.map((c) => card(c, { size }))),
    h(
      "span",
      { class: "set-meta", "aria-hidden": place ? "true" : undefined },
      h("span", { class: "set-kind" }, kindName(set.kind)),
      h("span", { class: "set-value" }, money(set.value)),
      stateBadge(set),
    ),
  );
  return asPlace(body, set, depth, seat, place);
}

/** A set below the top, collapsed: its kind's mark and value, with its state. */
function setChip(set, index, depth, seat, place) {
  const chip = h(
    "span",
    { class: `set-chip ${set.exposed ? "exposed" : "protected"}`, dataset: setAttributes(set, index, depth), title: setWords(set, depth) },
    h("span", { class: "visually-hidden" }, setWords(set, depth)),
    h("span", { "aria-hidden": "true" }, `${shortName(set.kind)} ${shortMoney(set.value)}`),
  );
  return asPlace(chip, set, depth, seat, place);
}

/** The sets below the top shown as chips in the strip; the rest are counted, and listed when opened. */
const CHIPS_SHOWN = 1;
/** Names longer than this are set smaller, on two lines, beside your badges on a phone. */
const LONG_NAME = 12;

/**
 * A stack (`data-zone="stack"`): the top set large, the next sets below it as chips in a strip
 * whose button (`+N sets`) opens every set below the top, drawn in full. Each set is drawn once
 * (top, chip or list entry), so `data-set`/`data-depth` and `data-card` name one element each.
 * At the table (`onExpand(seat)` given) the opened list is a popover that the page shows after
 * rendering; it closes with its button, Escape, a press outside it, or the next state, and
 * `onToggled(seat, open)` hears when the browser closes or opens it. Without `onExpand` it
 * opens in place.
 * `leading` is put first in the stack (your "new set" place).
 */
export function stackZone(player, options = {}) {
  const { place = null, expanded = false, onExpand = null, onToggled = null, size = "set", leading = null } = options;
  const stack = player.stack;
  const seat = player.seat;
  const count = stack.length;
  const zone = h("div", { class: "stack", dataset: { zone: "stack" }, "aria-label": `Stack of ${count} set${count === 1 ? "" : "s"}, top set first` }, leading);
  if (!count) {
    zone.append(h("span", { class: "empty" }, "No sets yet"));
    return zone;
  }
  zone.append(fullSet(stack[count - 1], count - 1, 0, seat, place, size));
  if (count === 1) return zone;
  const listId = `stack-list-${seat}`;
  const below = [];
  for (let index = count - 2; index >= 0; index -= 1) below.push({ set: stack[index], index, depth: count - 1 - index });
  const sets = `${count - 1} set${count === 2 ? "" : "s"}`;
  // Open as a popover, the button is its invoker: a press on it closes the list (not a press
  // outside that the button would open again).
  const popover = Boolean(expanded && onExpand);
  const toggle = h(
    "button",
    {
      type: "button",
      class: "strip-toggle small",
      "aria-expanded": expanded ? "true" : "false",
      "aria-controls": listId,
      "aria-label": `${expanded ? "Close" : "Show"} the ${sets} below the top`,
      popovertarget: popover ? listId : undefined,
      popovertargetaction: popover ? "hide" : undefined,
      dataset: { focus: `strip-${seat}` },
      onClick: popover
        ? undefined
        : () => {
            if (onExpand) onExpand(seat);
            else zone.replaceWith(stackZone(player, { ...options, expanded: !expanded }));
          },
    },
    `+${count - 1}`,
    h("span", { class: "strip-word" }, `\u00a0set${count === 2 ? "" : "s"}`),
  );
  if (expanded) {
    const whose = player.name ? `${player.name}'s` : "The";
    const titleId = `${listId}-title`;
    const list = h(
      "div",
      { class: "stack-list", id: listId, role: "group", "aria-labelledby": titleId },
      h(
        "p",
        { class: "stack-list-title" },
        h("span", { id: titleId }, `${whose} ${sets} below the top`),
        popover ? h("button", { type: "button", class: "small stack-list-close", popovertarget: listId, popovertargetaction: "hide" }, "Close") : null,
      ),
      h(
        "ol",
        { class: "stack-sets" },
        below.map(({ set, index, depth }) => h("li", {}, h("span", { class: "set-where" }, where(depth)), fullSet(set, index, depth, seat, place, "mini"))),
      ),
    );
    if (popover) {
      // Auto: Escape and a press outside close it, as the browser closes any light popover.
      // Closed (or opened again by its button) it stays in the page until the next redraw,
      // which draws the strip again; the page only hears which way it went.
      list.setAttribute("popover", "auto");
      list.dataset.openPopover = "stack";
      list.addEventListener("beforetoggle", (event) => {
        const open = event.newState === "open";
        toggle.setAttribute("aria-expanded", String(open));
        toggle.setAttribute("aria-label", `${open ? "Close" : "Show"} the ${sets} below the top`);
        toggle.setAttribute("popovertargetaction", open ? "hide" : "show");
        if (onToggled) onToggled(seat, open);
      });
    }
    zone.append(h("div", { class: "strip" }, toggle), list);
    return zone;
  }
  const chips = below.slice(0, CHIPS_SHOWN).map(({ set, index, depth }) => setChip(set, index, depth, seat, place));
  zone.append(h("div", { class: "strip" }, toggle, h("span", { class: "strip-chips", id: listId }, chips)));
  return zone;
}

function seatBadges(view, player, { toAct, info }) {
  const badges = [];
  if (!view.over && view.active === player.seat) badges.push(h("span", { class: "badge turn" }, "turn"));
  if (toAct && view.active !== player.seat) badges.push(h("span", { class: "badge turn" }, "to answer"));
  if (view.dealer === player.seat) badges.push(h("span", { class: "badge" }, "dealer"));
  if (info?.kind === "ai") badges.push(h("span", { class: "badge ai" }, `AI · ${info.level}`));
  else if (info?.away) badges.push(h("span", { class: "badge away" }, "away: AI playing"));
  else if (info && !info.connected) badges.push(h("span", { class: "badge away" }, "disconnected"));
  return badges;
}

/**
 * One player's area (`data-seat`): head, hand zone and stack zone. Options: `toAct`, `info`
 * (the room summary's seat), `place` (sets as places, see stackZone), `hand` (face-up cards,
 * for a replay), `expanded`, `onExpand`, `onToggled`, `leading`, `children` (more: your own hand), and for
 * a phone's row of rivals `narrow`: the stash in short ("$218k", whole for screen readers),
 * the hand's count in the head beside it, and the top set in words (`size: "words"`).
 */
export function playerPanel(view, player, options = {}) {
  const isYou = player.seat === view.seat;
  const name = player.name ?? `Seat ${player.seat + 1}`;
  const classes = ["player", isYou ? "you" : "rival"];
  if (!view.over && view.active === player.seat) classes.push("active");
  if (options.toAct) classes.push("to-act");
  let hand = null;
  if (options.hand) hand = h("div", { class: "open-hand", dataset: { zone: "hand" }, "aria-label": "Hand" }, options.hand.map((c) => card(c)));
  else if (!isYou) {
    // A compact table shows the count in words instead of the backs (css/style.css).
    const count = `${player.hand_size} card${player.hand_size === 1 ? "" : "s"}`;
    hand = h("div", { class: "rival-hand", dataset: { zone: "hand" } }, backs(player.hand_size, { label: `${count} in hand` }), h("span", { class: "hand-count", "aria-hidden": "true" }, count));
  }
  const narrow = Boolean(options.narrow);
  const stash = narrow
    ? h("span", { class: "stash", dataset: { testid: "stash" } }, h("span", { "aria-hidden": "true" }, shortMoney(player.stash)), h("span", { class: "visually-hidden" }, money(player.stash)))
    : h("span", { class: "stash", dataset: { testid: "stash" } }, money(player.stash));
  return h(
    "section",
    { class: classes.join(" "), "aria-label": `${name}${isYou ? " (you)" : ""}`, dataset: { seat: String(player.seat) } },
    h(
      "header",
      { class: "player-head" },
      h("strong", { class: `player-name${name.length > LONG_NAME ? " long-name" : ""}` }, name, isYou ? " (you)" : ""),
      h("span", { class: "badges" }, seatBadges(view, player, options)),
      stash,
      narrow ? hand : null,
    ),
    h(
      "div",
      { class: "player-body" },
      narrow ? null : hand,
      stackZone(player, { place: options.place, expanded: options.expanded, onExpand: options.onExpand, onToggled: options.onToggled, size: options.size, leading: options.leading }),
    ),
    options.children,
  );
}

/** The smallest size a rival's name is set in to keep its longest word on one line (px). */
const SMALLEST_NAME_PX = 8;
/** How many times a name is measured and set smaller at most (a word shrinks by its ratio). */
const FIT_PASSES = 3;

/**
 * Set each rival's name just small enough that no word of it is broken: a name wraps between
 * its words only, and one word wider than the box (a 17-letter surname in a phone's third of
 * the row) takes a smaller size. Below the smallest size it may break (never spill over).
 * Each pass reads every name, then writes: a few layouts a redraw, not one per name. A name
 * set smaller before (the window was narrower) starts again from its own size.
 */
export function fitNames(root) {
  let names = [...root.querySelectorAll(".rivals .player-name")];
  for (const name of names) {
    name.style.removeProperty("font-size");
    name.classList.remove("break-anywhere");
  }
  for (let pass = 0; pass < FIT_PASSES && names.length; pass += 1) {
    const over = names.filter((name) => name.scrollWidth > name.clientWidth + 0.5).map((name) => ({ name, ratio: name.clientWidth / name.scrollWidth, size: parseFloat(getComputedStyle(name).fontSize) }));
    names = [];
    for (const { name, ratio, size } of over) {
      if (size <= SMALLEST_NAME_PX) {
        name.classList.add("break-anywhere");
        continue;
      }
      name.style.setProperty("font-size", `${Math.max(SMALLEST_NAME_PX, Math.floor(size * ratio * 2) / 2)}px`);
      names.push(name);
    }
  }
  for (const name of names) if (name.scrollWidth > name.clientWidth + 0.5) name.classList.add("break-anywhere");
}
