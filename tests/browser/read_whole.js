// The rivals of the table read whole (tests/browser/test_browser_table_read.py): each name and
// stash inside its place, uncovered, with no ellipsis, no word broken over two lines and no two
// stashes running together. Returns { problems, shown: [{ name, stash }] }, the stash as shown.
() => {
  const problems = [];
  const boxOf = (el) => el.getBoundingClientRect();
  const overlap = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const inside = (a, b) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5 && a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
  const seats = [...document.querySelectorAll('.rivals .player')];
  const shown = [];
  for (const seat of seats) {
    const name = seat.querySelector('.player-name');
    const stash = seat.querySelector('[data-testid=stash]');
    const stashText = [...stash.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE || !n.matches('.visually-hidden')).map((n) => n.textContent).join('');
    shown.push({ name: name.textContent, stash: stashText });
    const style = getComputedStyle(name);
    if (name.scrollWidth > name.clientWidth + 1) problems.push(`${name.textContent}: wider than its box`);
    if (style.textOverflow === 'ellipsis' && style.overflowX !== 'visible') problems.push(`${name.textContent}: may be cut with an ellipsis`);
    // Every word of the name (hyphenated parts too) on one line: one box per word.
    const text = name.firstChild;
    const words = [...text.textContent.matchAll(/[^\s-]+/g)];
    for (const word of words) {
      const range = document.createRange();
      range.setStart(text, word.index);
      range.setEnd(text, word.index + word[0].length);
      const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (lines.size !== 1) problems.push(`${name.textContent}: "${word[0]}" is broken over ${lines.size} lines`);
    }
    const seatBox = boxOf(seat);
    for (const [what, el] of [['name', name], ['stash', stash]]) {
      if (!inside(boxOf(el), seatBox)) problems.push(`${name.textContent}: the ${what} runs out of its place`);
      const r = boxOf(el);
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (!hit || !(el.contains(hit) || hit.contains(el))) problems.push(`${name.textContent}: the ${what} is covered`);
    }
    if (overlap(boxOf(name), boxOf(stash))) problems.push(`${name.textContent}: the stash overlaps the name`);
  }
  const stashes = seats.map((seat) => boxOf(seat.querySelector('[data-testid=stash]')));
  for (let i = 0; i < stashes.length; i += 1) {
    for (let j = i + 1; j < stashes.length; j += 1) {
      if (overlap(stashes[i], stashes[j])) problems.push(`stashes ${i} and ${j} run together`);
    }
  }
  return { problems, shown };
}
