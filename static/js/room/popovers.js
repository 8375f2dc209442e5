// Where the table's popovers go (a stack's list, the move menu, a chooser): never over the
// duel, your hand or the action bar.

/** The narrowest an opened list of sets is drawn beside the piles (px); else over the rivals. */
const STACK_LIST_NARROWEST = 200;

/** Place a popover of the table in `mainSlot`: lists over the rivals and the centre, the menu
 * above the bar, a chooser next to its place. */
export function placePopover(mainSlot, popover) {
  const felt = mainSlot.querySelector(".felt");
  if (!felt) return;
  const kind = popover.dataset.openPopover ?? "menu";
  const feltBox = felt.getBoundingClientRect();
  let box = { left: feltBox.left + 6, width: feltBox.width - 12, top: feltBox.top + 6, bottom: feltBox.bottom - 6 };
  if (kind === "stack") {
    // Over the rivals, or beside the piles when there is more room there: never over the
    // deck, the discard pile or the draft piles (which may be lit), the duel, your place or
    // the action bar.
    const blockers = [mainSlot.querySelector("#duel"), mainSlot.querySelector(".player.you")].filter(Boolean).map((el) => el.getBoundingClientRect().top);
    const bottom = Math.min(box.bottom, ...blockers) - 4;
    const piles = [...mainSlot.querySelectorAll(".felt .center .zone")].map((el) => el.getBoundingClientRect());
    const pilesTop = Math.min(bottom, ...piles.map((r) => r.top));
    const pilesRight = Math.max(box.left, ...piles.map((r) => r.right)) + 6;
    const above = { ...box, bottom: pilesTop - 4 };
    // Beside the piles: under the rivals' row when a few sets fit there (their names and
    // counts stay in view), else from the felt's top.
    const rivalsBottom = (mainSlot.querySelector(".felt .rivals")?.getBoundingClientRect().bottom ?? box.top) + 4;
    const beside = { ...box, left: pilesRight, width: box.left + box.width - pilesRight, top: bottom - rivalsBottom >= 150 ? rivalsBottom : box.top, bottom };
    const area = (b) => Math.max(0, b.width) * Math.max(0, b.bottom - b.top);
    box = beside.width >= STACK_LIST_NARROWEST && area(beside) > area(above) ? beside : above;
  } else if (kind === "menu") {
    const bar = mainSlot.querySelector(".action-bar");
    if (bar) box.bottom = bar.getBoundingClientRect().top - 4;
  } else if (kind === "chooser") {
    const anchor = mainSlot.querySelector(`[data-place="${CSS.escape(popover.dataset.anchor)}"]`)?.getBoundingClientRect();
    if (anchor) {
      const width = Math.min(300, innerWidth - 8);
      box = { left: Math.max(4, Math.min(anchor.left, innerWidth - width - 4)), width, top: anchor.bottom + 4, bottom: innerHeight - 4 };
      if (anchor.bottom > innerHeight / 2) box = { ...box, top: 4, bottom: anchor.top - 4 };
    }
  }
  const style = popover.style;
  style.setProperty("left", `${Math.round(box.left)}px`);
  style.setProperty("width", `${Math.round(box.width)}px`);
  const fromTop = kind === "stack" || (kind === "chooser" && box.top > 4);
  style.setProperty(fromTop ? "top" : "bottom", `${Math.round(fromTop ? box.top : innerHeight - box.bottom)}px`);
  style.setProperty("max-height", `${Math.max(kind === "stack" ? 60 : 80, Math.round(box.bottom - box.top))}px`);
}

/** Show the popovers that the page keeps open across redraws of one state. */
export function openPopovers(mainSlot) {
  for (const popover of mainSlot.querySelectorAll("[data-open-popover]")) {
    placePopover(mainSlot, popover);
    popover.showPopover();
  }
}
