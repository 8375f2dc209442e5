// Dragging cards from the hand onto a place of the table, with the mouse, a finger or a pen
// (Pointer Events). A drag is a gesture for the same move as selecting the cards and pressing
// the place: the page decides, from `legal`, what the drop means (js/places.js).

const THRESHOLD_PX = 8;

/**
 * `litFor(ids)` gives the place keys where these cards may go; `onDrop(ids, key)` plays them
 * there; `onTap(id)` is a finger's tap on a card (select it). `start(event, id, selected)` is called on a hand card's pointerdown: the drag carries
 * the selection when the card is part of it, else the card alone.
 */
export function createDrag({ litFor, onDrop, onTap }) {
  let pending = null;
  let ghost = null;
  let over = null;
  let handled = false;

  function listen(on) {
    const method = on ? "addEventListener" : "removeEventListener";
    window[method]("pointermove", move);
    window[method]("pointerup", up);
    window[method]("pointercancel", cancel);
  }

  function placeAt(x, y) {
    const el = document.elementFromPoint(x, y);
    return el?.closest?.("[data-place]") ?? null;
  }

  function begin(event) {
    const source = pending.element.querySelector(".cardface") ?? pending.element;
    const rect = source.getBoundingClientRect();
    ghost = source.cloneNode(true);
    for (const el of [ghost, ...ghost.querySelectorAll("*")]) {
      el.removeAttribute("data-card");
      el.removeAttribute("id");
    }
    ghost.classList.add("drag-ghost");
    ghost.setAttribute("aria-hidden", "true");
    ghost.dataset.dragCount = String(pending.ids.size);
    pending.offset = { x: event.clientX - rect.left, y: event.clientY - rect.top };
    document.body.append(ghost);
    const keys = new Set(litFor(pending.ids));
    for (const place of document.querySelectorAll("[data-place]")) place.classList.toggle("drop-ok", keys.has(place.dataset.place));
    document.documentElement.dataset.dragging = "true";
  }

  function move(event) {
    if (!pending || event.pointerId !== pending.pointerId) return;
    if (!ghost) {
      if (Math.hypot(event.clientX - pending.x, event.clientY - pending.y) < THRESHOLD_PX) return;
      begin(event);
    }
    ghost.style.transform = `translate(${event.clientX - pending.offset.x}px, ${event.clientY - pending.offset.y}px) rotate(-4deg)`;
    const place = placeAt(event.clientX, event.clientY);
    if (place !== over) {
      over?.classList.remove("drop-hover");
      over = place;
      over?.classList.add("drop-hover");
    }
    event.preventDefault();
  }

  function finish() {
    listen(false);
    ghost?.remove();
    over?.classList.remove("drop-hover");
    for (const place of document.querySelectorAll(".drop-ok")) place.classList.remove("drop-ok");
    delete document.documentElement.dataset.dragging;
    ghost = null;
    over = null;
    pending = null;
  }

  function up(event) {
    if (!pending || event.pointerId !== pending.pointerId) return;
    const wasDrag = Boolean(ghost);
    const { ids, id } = pending;
    const place = wasDrag ? placeAt(event.clientX, event.clientY) : null;
    // A finger's tap selects the card here: a browser does not always follow it with a click.
    const tapped = !wasDrag && event.pointerType === "touch";
    finish();
    handled = wasDrag || tapped;
    if (place) onDrop(ids, place.dataset.place);
    if (tapped) onTap(id);
  }

  function cancel(event) {
    if (pending && event.pointerId === pending.pointerId) finish();
  }

  return {
    start(event, id, selected) {
      if (event.button !== 0 || !event.isPrimary) return;
      if (pending) finish();
      handled = false;
      pending = { element: event.currentTarget, pointerId: event.pointerId, x: event.clientX, y: event.clientY, id, ids: selected.has(id) ? new Set(selected) : new Set([id]) };
      listen(true);
    },
    /** Whether a click was already handled as the end of a drag or a tap (a keyboard's never is). */
    wasDragged(event) {
      const was = handled && event.detail !== 0;
      handled = false;
      return was;
    },
    clear: finish,
  };
}
