// The layout watch of the browser tests (tests/browser/harness.py, watch_layout): after each
// change to the page, whether it scrolls, and once per table state shown whether any text of
// the table is clipped, cut or covered, and whether the prompt, the last move and every button
// of the bar (End turn, Answer, Concede, Swap or Move targets, the move menu) lie inside the
// window. Problems go to window.layoutProblems.
(() => {
  const wholeTable = WHOLE_TABLE;
  const problems = [];
  window.layoutProblems = problems;
  window.layoutChecks = 0;
  const name = (el) => `${el.tagName.toLowerCase()}.${[...el.classList].join(".")} "${el.textContent.trim().slice(0, 40)}"`;
  const outside = (r) => r.top < -0.5 || r.left < -0.5 || r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5;
  const clips = (el) => {
    const style = getComputedStyle(el);
    return style.overflowX !== "visible" || style.overflowY !== "visible";
  };
  const ancestors = (el) => {
    const list = [];
    for (let up = el.parentElement; up; up = up.parentElement) list.push(up);
    return list;
  };
  const ownText = (el) => [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
  /** Every element of the table that shows text: inside every clipping box, not cut by
   * itself, and the top element at its centre (nothing covers it). */
  const textProblems = (root) => {
    const found = [];
    for (const el of root.querySelectorAll("*")) {
      if (!ownText(el) || el.closest(".visually-hidden, .cf-label, [popover]:not(:popover-open)")) continue;
      if (!el.checkVisibility({ visibilityProperty: true })) continue;
      // An inner region that scrolls (the move menu, an opened list, the bar's last move) may
      // hold more than it shows.
      if ([el, ...ancestors(el)].some((up) => /auto|scroll/.test(getComputedStyle(up).overflowY + getComputedStyle(up).overflowX))) continue;
      // Text hidden on purpose for screen readers (clipped to nothing) is not shown text.
      if ([el, ...ancestors(el)].some((up) => getComputedStyle(up).clip.startsWith("rect"))) continue;
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) continue;
      if (clips(el) && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)) {
        found.push(`${name(el)} cuts its own text`);
        continue;
      }
      // Text wider than its own box spills over what lies beside it (an inline box has no width).
      if (el.clientWidth && el.scrollWidth > el.clientWidth + 1) {
        found.push(`${name(el)} spills out of its box`);
        continue;
      }
      let cut = null;
      for (let up = el.parentElement; up; up = up.parentElement) {
        if (!clips(up)) continue;
        const box = up.getBoundingClientRect();
        if (r.left < box.left - 1 || r.top < box.top - 1 || r.right > box.right + 1 || r.bottom > box.bottom + 1) {
          cut = up;
          break;
        }
      }
      if (cut) {
        found.push(`${name(el)} is clipped by ${name(cut).slice(0, 60)}`);
        continue;
      }
      if (outside(r)) {
        found.push(`${name(el)} is outside the window`);
        continue;
      }
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (!hit || hit === el || el.contains(hit) || hit.contains(el)) continue;
      // A menu or chooser the player opened lies over the table; an opened list of sets may lie
      // over the rivals and the centre, never over the duel, the action bar or the hand.
      if (hit.closest(".move-menu, .chooser")) continue;
      if (hit.closest(".stack-list") && !el.closest("#duel, .action-bar, .player.you [data-zone='hand']")) continue;
      found.push(`${name(el)} is covered by ${name(hit).slice(0, 60)}`);
    }
    return found;
  };
  let checked = null;
  const check = () => {
    const felt = document.querySelector(".felt");
    const at = felt ? `state ${felt.dataset.version}` : location.pathname;
    const sideways = document.documentElement.scrollWidth - innerWidth;
    if (sideways > 0) problems.push(`${at}: the page scrolls sideways by ${sideways} px`);
    if (!wholeTable || !felt) return;
    // Once per state shown (and again when the selection, an opened list or a notice changes).
    const key = `${felt.dataset.version}|${document.querySelectorAll("[aria-pressed=true], :popover-open, [data-testid=notice]").length}`;
    if (key === checked) return;
    checked = key;
    window.layoutChecks += 1;
    const below = document.documentElement.scrollHeight - innerHeight;
    if (below > 0) problems.push(`${at}: the page scrolls down by ${below} px`);
    const inView = [".turn-status", "[data-testid='last-move']", ".action-bar .bar-buttons > button", "#duel"];
    for (const selector of inView) {
      for (const el of document.querySelectorAll(selector)) {
        if (outside(el.getBoundingClientRect())) problems.push(`${at}: ${selector} (${name(el)}) is not inside the window`);
      }
    }
    if (document.querySelector(".duel.yours") && !document.querySelector(".action-bar .bar-buttons > button.option[data-move='concede']")) {
      problems.push(`${at}: a challenge waits for this seat and the action bar has no Concede`);
    }
    // The game over panel lies over the table on purpose (and scrolls inside when it must).
    if (document.querySelector(".game-over")) return;
    for (const problem of textProblems(document.querySelector(".table-page"))) problems.push(`${at}: ${problem}`);
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true });
})();
