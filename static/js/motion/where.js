// Where things are on the table, read from its DOM contract's data attributes only (data-zone,
// data-seat, data-set, data-depth, data-card): a snapshot taken before a state renders and one
// after it, between which motion flies its ghosts (`../motion.js`).

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

export function emptySnapshot() {
  return { zones: new Map(), slots: new Map(), sets: new Map(), cards: new Map() };
}

/** The rects (and elements) of every zone, set and face-up card under root. */
export function snapshot(root) {
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
export function cardIn(shot, id, zones) {
  const places = shot.cards.get(String(id)) ?? [];
  for (const zone of zones) {
    const place = places.find((p) => p.zone === zone);
    if (place) return place;
  }
  return places[0] ?? null;
}

/** A seat's set: the one holding any of `ids`, else the one at `depth`. */
export function setOf(shot, seat, { ids = [], depth = null } = {}) {
  const sets = shot.sets.get(String(seat)) ?? [];
  const wanted = ids.map(String);
  return (
    sets.find((set) => wanted.some((id) => set.ids.has(id))) ??
    (depth === null ? null : sets.find((set) => set.depth === depth)) ??
    null
  );
}

export function zone(shot, key) {
  return shot.zones.get(key) ?? null;
}

/** A seat's hand, for cards whose face is not shown there: its last card (back), or the zone. */
export function handSlot(shot, seat) {
  return shot.slots.get(`hand:${seat}`) ?? zone(shot, `hand:${seat}`);
}
