// The table: every public zone of the seat's view, its hand, its moves and the duel panel.
// It renders what the server sent; each button sends one of the server's legal actions.

import { cardLabel, kindName, KINDS, shortValue } from "./cards.js";
import { h, money } from "./dom.js";
import {
  ACTION_TYPES,
  actionKey,
  describe,
  kindsById,
  matching,
  reasonsFor,
} from "./moves.js";

const MAX_OPTIONS = 30;

export function card(cardData, props = {}) {
  const info = KINDS[cardData.kind] ?? { mark: "?", group: "asset" };
  return h(
    "span",
    { class: `card mini group-${info.group} kind-${cardData.kind}`, title: cardLabel(cardData), ...props },
    h("span", { class: "mark", "aria-hidden": "true" }, info.mark),
    h("span", { class: "visually-hidden" }, cardLabel(cardData)),
  );
}

function handCard(cardData, selected, onToggle) {
  const info = KINDS[cardData.kind] ?? { mark: "?", group: "asset" };
  return h(
    "button",
    {
      type: "button",
      class: `card group-${info.group} kind-${cardData.kind}`,
      "aria-pressed": selected,
      "aria-label": cardLabel(cardData),
      dataset: { focus: `card-${cardData.id}`, card: String(cardData.id), kind: cardData.kind },
      onClick: () => onToggle(cardData.id),
    },
    h("span", { class: "mark", "aria-hidden": "true" }, info.mark),
    h("span", { class: "name", "aria-hidden": "true" }, kindName(cardData.kind)),
    h("span", { class: "value", "aria-hidden": "true" }, shortValue(cardData.kind)),
  );
}

function moveFocusWithArrows(event) {
  if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
  const cards = [...event.currentTarget.querySelectorAll("button.card")];
  const index = cards.indexOf(document.activeElement);
  if (index < 0) return;
  const next = cards[(index + (event.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length];
  next.focus();
  event.preventDefault();
}

function setView(set, index, stackLength, options) {
  const depth = stackLength - 1 - index;
  const state = set.exposed ? "exposed" : "protected";
  const where = depth === 0 ? "top" : depth === 1 ? "second" : `${depth + 1}th from top`;
  const label = `${kindName(set.kind)} set, ${money(set.value)}, ${where}, ${state}`;
  const body = [
    h("span", { class: "set-kind" }, kindName(set.kind)),
    h("span", { class: "set-cards" }, set.cards.map((c) => card(c))),
    h("span", { class: "set-value" }, money(set.value)),
    h("span", { class: `badge ${state}` }, state),
  ];
  if (options.onPick) {
    return h(
      "li",
      { class: `set ${state}` },
      h(
        "button",
        {
          type: "button",
          class: "set-button",
          "aria-label": `${label}: challenge it`,
          dataset: { focus: `set-${options.seat}-${depth}` },
          onClick: () => options.onPick(options.seat, depth),
        },
        body,
      ),
    );
  }
  return h("li", { class: `set ${state}`, "aria-label": label }, body);
}

/** One player's panel: name, hand size, stash and the stack (top set first). */
function seatBadge(info) {
  if (!info) return null;
  if (info.kind === "ai") return h("span", { class: "badge" }, `AI · ${info.level}`);
  if (info.away) return h("span", { class: "badge" }, "away: AI playing");
  if (!info.connected) return h("span", { class: "badge" }, "disconnected");
  return null;
}

export function playerPanel(view, player, { toAct, onPickSet, hand, info } = {}) {
  const isYou = player.seat === view.seat;
  const stack = player.stack;
  const sets = stack.map((set, index) =>
    setView(set, index, stack.length, { seat: player.seat, onPick: !isYou ? onPickSet : null }),
  );
  sets.reverse();
  const classes = ["player"];
  if (isYou) classes.push("you");
  if (view.active === player.seat) classes.push("active");
  if (toAct) classes.push("to-act");
  return h(
    "section",
    { class: classes.join(" "), "aria-label": `${player.name ?? `Seat ${player.seat + 1}`}${isYou ? " (you)" : ""}`, dataset: { seat: String(player.seat) } },
    h(
      "header",
      { class: "player-head" },
      h("strong", { class: "player-name" }, player.name ?? `Seat ${player.seat + 1}`, isYou ? " (you)" : ""),
      !view.over && view.active === player.seat ? h("span", { class: "badge turn" }, "turn") : null,
      toAct && view.active !== player.seat ? h("span", { class: "badge turn" }, "to answer") : null,
      view.dealer === player.seat ? h("span", { class: "badge" }, "dealer") : null,
      seatBadge(info),
    ),
    h(
      "p",
      { class: "player-meta" },
      h("span", { class: "stash", dataset: { testid: "stash" } }, `Stash ${money(player.stash)}`),
      " · ",
      `${player.hand_size} in hand`,
    ),
    hand ? h("div", { class: "open-hand", "aria-label": "Hand" }, hand.map((c) => card(c))) : null,
    sets.length
      ? h("ol", { class: "stack", "aria-label": "Stack, top set first" }, sets)
      : h("p", { class: "empty" }, "No sets yet"),
  );
}

/** Deck, discard pile, out of the game, draft piles. */
export function centerPanel(view) {
  const top = view.discard[view.discard.length - 1];
  return h(
    "section",
    { class: "center", "aria-label": "Deck and piles" },
    h("div", { class: "pile" }, h("span", { class: "pile-label" }, "Deck"), h("span", { class: "deck", dataset: { testid: "deck" } }, `${view.deck_size} cards`)),
    h(
      "div",
      { class: "pile" },
      h("span", { class: "pile-label" }, "Discard"),
      top ? card(top, { dataset: { testid: "discard-top" } }) : h("span", { class: "empty" }, "empty"),
      view.discard.length > 1 ? h("span", { class: "count" }, `(${view.discard.length})`) : null,
    ),
    view.out.length ? h("div", { class: "pile" }, h("span", { class: "pile-label" }, "Out of the game"), h("span", {}, `${view.out.length}`)) : null,
    (view.piles || []).map((pile, index) =>
      h(
        "div",
        { class: "pile draft-pile" },
        h("span", { class: "pile-label" }, `Draft pile ${index + 1}`),
        pile.top ? card(pile.top) : h("span", { class: "empty" }, pile.size ? "covered" : "empty"),
        h("span", { class: "count" }, `(${pile.size})`),
      ),
    ),
  );
}

function needText(need) {
  return need === 2 ? "a Penny Jar, or two matching cards" : "one matching card";
}

function optionButton(action, view, kinds, onAct, extraClass = "") {
  return h(
    "button",
    {
      type: "button",
      class: `option ${extraClass}`.trim(),
      dataset: { focus: `act-${actionKey(action)}`, move: action.type },
      onClick: () => onAct(action),
    },
    describe(action, view, kinds),
  );
}

/** The duel panel: what each side played, what is needed to answer, answer or concede. */
function duelPanel(message, ui, handlers) {
  const view = message.view;
  const duel = view.challenge;
  const kinds = kindsById(view);
  const challenger = view.players[duel.challenger];
  const defender = view.players[duel.defender];
  let subject;
  if (duel.claim) {
    subject = h("span", {}, `${defender.name} claims `, duel.claim.map((c) => card(c)), ` from draft pile ${duel.piles.map((p) => p + 1).join(" and ")}`);
  } else {
    const stack = view.players[duel.target].stack;
    const set = stack[stack.length - 1 - duel.depth];
    subject = h("span", {}, `${challenger.name} challenges ${defender.name}'s ${duel.depth ? "second-from-top" : "top"} ${kindName(duel.kind)} set`, set ? ` (${money(set.value)})` : "");
  }
  const mine = duel.to_answer === view.seat;
  const legal = message.legal.filter((a) => a.type === "answer" || a.type === "concede");
  const answers = matching(
    legal.filter((a) => a.type === "answer"),
    ui.selected,
  );
  const concede = legal.find((a) => a.type === "concede");
  const answerReasons = reasonsFor(message.blocked, "answer");
  return h(
    "section",
    { class: `duel ${mine ? "yours" : ""}`, id: "duel", "aria-labelledby": "duel-title" },
    h("h2", { id: "duel-title" }, duel.claim ? "Draft contest" : "Challenge"),
    h("p", { class: "duel-subject" }, subject),
    h(
      "ol",
      { class: "plays", "aria-label": "Cards played" },
      duel.plays.map((play) =>
        h("li", {}, h("strong", {}, play.seat === view.seat ? "You" : view.players[play.seat].name), " played ", play.cards.map((c) => card(c)), ` ${play.cards.map((c) => kindName(c.kind)).join(" + ")}`),
      ),
    ),
    h(
      "p",
      { class: "duel-need", role: "status" },
      mine
        ? `Your answer: ${needText(duel.need)} (${kindName(duel.kind)} or a wild), or concede.`
        : `Waiting for ${view.players[duel.to_answer].name} to answer with ${needText(duel.need)}, or concede.`,
    ),
    mine
      ? h(
          "div",
          { class: "duel-actions" },
          answers.length
            ? h("div", { class: "options", role: "group", "aria-label": "Answers" }, answers.slice(0, MAX_OPTIONS).map((a) => optionButton(a, view, kinds, handlers.act, "answer")))
            : h("p", { class: "reason" }, ui.selected.size && legal.some((a) => a.type === "answer") ? "No answer uses every selected card." : answerReasons.join(" ") || "You cannot answer."),
          concede ? h("button", { type: "button", class: "option concede", dataset: { focus: "concede", move: "concede" }, onClick: () => handlers.act(concede) }, duel.claim && duel.plays.length === 0 ? "Let the claim go (concede)" : "Concede") : null,
        )
      : null,
  );
}

function pendingPanel(message, handlers) {
  const view = message.view;
  const pending = view.pending;
  const kinds = kindsById(view);
  const mine = pending.chooser === view.seat;
  const target = view.players[pending.target];
  return h(
    "section",
    { class: "duel", "aria-labelledby": "pending-title" },
    h("h2", { id: "pending-title" }, "A Move card turned up"),
    h("p", {}, mine ? `Choose how ${target.name}'s stack moves.` : `Waiting for ${view.players[pending.chooser].name} to choose how ${target.name}'s stack moves.`),
    mine ? h("div", { class: "options" }, message.legal.filter((a) => a.type === "choose").map((a) => optionButton(a, view, kinds, handlers.act))) : null,
  );
}

/** What the seat may do now: action types (with reasons when unavailable) and the options. */
function movesPanel(message, ui, handlers) {
  const view = message.view;
  const kinds = kindsById(view);
  const legal = message.legal.filter((a) => a.type !== "answer" && a.type !== "concede" && a.type !== "choose");
  const present = new Set([...legal.map((a) => a.type), ...message.blocked.map((b) => b.type)]);
  const chips = ACTION_TYPES.filter(([type]) => present.has(type)).map(([type, label]) => {
    const available = legal.some((a) => a.type === type);
    return h(
      "button",
      {
        type: "button",
        class: `chip ${available ? "available" : "unavailable"}`,
        "aria-pressed": ui.filter?.type === type,
        "aria-disabled": available ? undefined : "true",
        dataset: { focus: `type-${type}`, type },
        onClick: () => handlers.pickType(type, available),
      },
      label,
    );
  });
  let options = legal;
  if (ui.filter) {
    options = options.filter((a) => a.type === ui.filter.type);
    if (ui.filter.target !== undefined) options = options.filter((a) => a.target === ui.filter.target && a.depth === ui.filter.depth);
  }
  options = matching(options, ui.selected);
  const endTurn = options.find((a) => a.type === "end_turn");
  const listed = options.filter((a) => a.type !== "end_turn");
  let hint = null;
  if (!legal.length) hint = null;
  else if (!options.length) hint = "No move uses every selected card. Select fewer cards, or another action.";
  else if (listed.length > MAX_OPTIONS) hint = `${listed.length} moves: select cards in your hand to narrow them down.`;
  return h(
    "section",
    { class: "moves", "aria-labelledby": "moves-title" },
    h("h2", { id: "moves-title" }, "Your moves"),
    h("div", { class: "chips", role: "group", "aria-label": "Actions" }, chips),
    hint ? h("p", { class: "hint" }, hint) : null,
    listed.length || endTurn
      ? h(
          "div",
          { class: "options", role: "group", "aria-label": "Moves" },
          listed.slice(0, MAX_OPTIONS).map((a) => optionButton(a, view, kinds, handlers.act)),
          endTurn ? optionButton(endTurn, view, kinds, handlers.act, "end-turn") : null,
        )
      : null,
  );
}

function turnStatus(view, names) {
  if (view.over) return "The game is over.";
  const waiting = view.to_act.filter((seat) => seat !== view.seat).map((seat) => names[seat]);
  if (view.seat !== null && view.to_act.includes(view.seat)) {
    if (view.challenge) return "Your answer: the challenge is waiting for you.";
    if (view.pending) return "Your choice: a Move card turned up.";
    const second = view.actions_done > 0 ? " (second action, or end your turn)" : "";
    return `Your turn${second}.`;
  }
  const watching = view.seat === null ? "Watching. " : "";
  return waiting.length ? `${watching}Waiting for ${waiting.join(" and ")}.` : watching;
}

export function tableView(message, ui, handlers) {
  const view = message.view;
  const names = view.players.map((p) => p.name ?? `Seat ${p.seat + 1}`);
  const seated = view.seat !== null && view.seat !== undefined;
  const myTurn = seated && view.to_act.includes(view.seat) && !view.challenge && !view.pending;
  const rivals = view.players.filter((p) => p.seat !== view.seat);
  const me = seated ? view.players[view.seat] : null;
  const roundInfo = view.rounds && view.rounds.condition !== 1 ? ` · Round ${view.round + 1}` : "";
  return h(
    "div",
    { class: "table", dataset: { version: String(message.version) } },
    h(
      "div",
      { class: "status-bar" },
      h("p", { class: "turn-status", role: "status", tabindex: "-1", dataset: { testid: "turn-status" } }, turnStatus(view, names)),
      h("span", { class: "clock", "aria-label": "Time left" }),
      h("span", { class: "rules-note" }, `${view.rules.replace("_", " + ")} rules${roundInfo}`),
    ),
    ui.notice ? h("p", { class: `notice ${ui.notice.kind}`, role: "alert", dataset: { testid: "notice" } }, ui.notice.text) : null,
    h("div", { class: "rivals" }, rivals.map((p) => playerPanel(view, p, { toAct: view.to_act.includes(p.seat), onPickSet: myTurn ? handlers.pickSet : null, info: ui.room?.seats?.[p.seat] }))),
    centerPanel(view),
    view.challenge ? duelPanel(message, ui, handlers) : null,
    view.pending ? pendingPanel(message, handlers) : null,
    me ? playerPanel(view, me, { toAct: view.to_act.includes(me.seat) }) : null,
    seated
      ? h(
          "section",
          { class: "hand", "aria-labelledby": "hand-title" },
          h("h2", { id: "hand-title" }, "Your hand ", h("span", { class: "hint" }, "(select cards, then pick a move)")),
          view.hand.length
            ? h("div", { class: "cards", role: "group", "aria-label": "Hand cards", onKeydown: moveFocusWithArrows }, view.hand.map((c) => handCard(c, ui.selected.has(c.id), handlers.toggleCard)))
            : h("p", { class: "empty" }, "Your hand is empty."),
        )
      : null,
    seated && !view.over && !view.challenge && !view.pending ? movesPanel(message, ui, handlers) : null,
  );
}
