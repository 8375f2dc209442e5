// How each kind of card is shown. Names and values are docs/rules.md §1; they label cards, and
// decide nothing: what may be played always comes from the server's `legal` list.

export const KINDS = {
  piggy_bank: { name: "Piggy Bank", value: 5000, mark: "PB", group: "asset" },
  coins: { name: "Coin Collection", value: 7000, mark: "CC", group: "asset" },
  guitar: { name: "Vintage Guitar", value: 8000, mark: "VG", group: "asset" },
  jewelry: { name: "Jewelry", value: 10000, mark: "JW", group: "asset" },
  stocks: { name: "Stock Certificates", value: 10000, mark: "SC", group: "asset" },
  sports_car: { name: "Sports Car", value: 12000, mark: "SP", group: "asset" },
  racehorse: { name: "Racehorse", value: 12000, mark: "RH", group: "asset" },
  fine_art: { name: "Fine Art", value: 15000, mark: "FA", group: "asset" },
  yacht: { name: "Yacht", value: 20000, mark: "YT", group: "asset" },
  mansion: { name: "Mansion", value: 20000, mark: "MN", group: "asset" },
  silver_bar: { name: "Silver Bar", value: 25000, mark: "SB", group: "wild" },
  gold_bar: { name: "Gold Bar", value: 50000, mark: "GB", group: "wild" },
  penny_jar: { name: "Penny Jar", value: 5000, mark: "PJ", group: "wild" },
  swap: { name: "Swap", value: 0, mark: "SW", group: "action" },
  move: { name: "Move", value: 0, mark: "MV", group: "action" },
};

export function kindName(kind) {
  return KINDS[kind]?.name ?? kind;
}

/** What small labels print for the long names (a card's spoken label keeps the full name). */
const SHORT_NAMES = {
  coins: "Coins",
  guitar: "Guitar",
  stocks: "Stocks",
};

export function shortName(kind) {
  return SHORT_NAMES[kind] ?? kindName(kind);
}

/**
 * Where a printed name may break inside a word, with a hyphen (soft hyphens): a covered card in
 * a full hand shows a strip narrower than "Racehorse", and the browser broke it anywhere
 * ("Raceh / orse"). A word with no break here ("Stocks", "Sports") fits a phone's ten-card
 * hand because that hand sets its names a little tighter (style.css). Only for the printed
 * name, which screen readers skip.
 */
const WORD_BREAKS = {
  Certificates: "Cer\u00adtifi\u00adcates",
  Collection: "Col\u00adlec\u00adtion",
  Guitar: "Gui\u00adtar",
  Jewelry: "Jew\u00adel\u00adry",
  Mansion: "Man\u00adsion",
  Racehorse: "Race\u00adhorse",
};

export function printedName(name) {
  return name
    .split(" ")
    .map((word) => WORD_BREAKS[word] ?? word)
    .join(" ");
}

export function shortValue(kind) {
  const value = KINDS[kind]?.value ?? 0;
  return value ? `$${value / 1000}k` : "action";
}

export function cardLabel(card) {
  const info = KINDS[card.kind];
  if (!info) return card.kind;
  return info.value ? `${info.name}, $${info.value.toLocaleString("en-US")}` : `${info.name} (action card)`;
}
