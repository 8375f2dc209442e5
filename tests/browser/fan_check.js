// The lobby's fan of cards (tests/browser/test_browser_table_read.py): no card over the tagline,
// and every name it shows uncovered at both its ends. Returns the problems found.
() => {
  const problems = [];
  const tagline = document.querySelector('.hero .tagline').getBoundingClientRect();
  for (const card of document.querySelectorAll('.hero-card')) {
    const r = card.querySelector('.cardface').getBoundingClientRect();
    if (r.left < tagline.right && r.top < tagline.bottom && r.bottom > tagline.top) problems.push('a card lies over the tagline');
    for (const name of card.querySelectorAll('.cf-name')) {
      if (!name.checkVisibility({ visibilityProperty: true })) continue;
      const box = name.getBoundingClientRect();
      for (const [x, y] of [[box.left + 2, box.top + box.height / 2], [box.right - 2, box.top + box.height / 2]]) {
        const hit = document.elementFromPoint(x, y);
        if (!hit || !card.contains(hit)) problems.push(`"${name.textContent}" is covered`);
      }
    }
  }
  return problems;
}
