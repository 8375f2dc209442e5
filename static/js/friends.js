// Friends, presence and invitations (docs/protocol.md, "Friends, presence and invitations"):
// loaded only for a signed-in player. The lobby's panel and a table's invite box both say where this page is every
// `poll_seconds` (POST /api/friends/presence) and draw what the answer holds.

import { api as rooms, call } from "./api.js";
import { h, onLeave, render } from "./dom.js";
import { playerId, rememberSeat } from "./session.js";

const NOTIFY_KEY = "cash-stash:notify";
const id = encodeURIComponent;

const api = {
  friendsHere: (here) => call("POST", "/api/friends/presence", { body: here }),
  findPlayer: (name) => call("GET", `/api/friends/find?name=${id(name)}`),
  friendLink: () => call("GET", "/api/friends/link"),
  followLink: (code) => call("GET", `/api/friends/links/${id(code)}`),
  askFriend: (account) => call("POST", "/api/friends/requests", { body: { id: account } }),
  acceptFriend: (account) => call("POST", `/api/friends/requests/${id(account)}/accept`),
  partWith: (account) => call("DELETE", `/api/friends/${id(account)}`),
  block: (account) => call("POST", "/api/friends/blocks", { body: { id: account } }),
  unblock: (account) => call("DELETE", `/api/friends/blocks/${id(account)}`),
  invite: (account, code, token) => call("POST", "/api/friends/invitations", { body: { id: account, code, token } }),
  acceptInvitation: (invitation) => call("POST", `/api/friends/invitations/${id(invitation)}/accept`),
  declineInvitation: (invitation) => call("POST", `/api/friends/invitations/${id(invitation)}/decline`),
};

function addStyles() {
  if (document.getElementById("friends-css")) return;
  document.head.append(h("link", { id: "friends-css", rel: "stylesheet", href: "/static/css/friends.css" }));
}

/**
 * Ask where we are every `poll_seconds`, calling `draw(state)` when the answer changed: the
 * version last drawn goes along, and an unchanged panel is answered in a few bytes.
 */
function poller(here, draw, gone = () => {}) {
  let seen;
  let timer = null;
  let stopped = false;
  async function tick() {
    let seconds = 2;
    try {
      const state = await api.friendsHere({ ...here(), seen });
      seconds = state.poll_seconds;
      if (!state.unchanged) {
        seen = state.version;
        draw(state);
      }
    } catch (error) {
      if (error.status === 401) {
        stopped = true;
        gone();
      }
    }
    if (!stopped) timer = setTimeout(tick, seconds * 1000);
  }
  tick();
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
  };
  onLeave(stop);
  return { stop, now: () => { clearTimeout(timer); tick(); } };
}

function whereText(where) {
  if (!where.online) return "offline";
  if (!where.at_table) return "online";
  return where.code ? `at table ${where.code}` : "at a table";
}

function notificationsOn() {
  try {
    return "Notification" in window && Notification.permission === "granted" && localStorage.getItem(NOTIFY_KEY) === "on";
  } catch {
    return false;
  }
}

function notifyInvitation(invitation) {
  if (!notificationsOn()) return;
  try {
    const note = new Notification("Cash Stash", { body: `${invitation.host.name} invites you to a table`, tag: `invite-${invitation.id}` });
    note.addEventListener("click", () => window.focus());
  } catch {
    // Some phone browsers show notifications only through a service worker.
  }
}

function button(label, onClick, extra = {}) {
  return h("button", { type: "button", class: "small", onClick, ...extra }, label);
}

/** The lobby's friends panel, drawn into `slot`. */
export function friendsPanel(slot, { navigate }) {
  addStyles();
  const notice = h("p", { class: "hint", role: "status", "aria-live": "polite" });
  const invitations = h("div", { class: "friend-invitations", "aria-live": "polite" });
  const lists = h("div", { class: "friend-lists" });
  const found = h("div", { class: "friend-found" });
  const nameInput = h("input", { id: "friend-name", maxlength: 30, autocomplete: "off" });
  const linkBox = h("div", { class: "friend-link" });
  const seen = new Set();
  let me = null;

  function say(text) {
    notice.textContent = text;
  }

  async function act(call, done) {
    try {
      await call();
      if (done) say(done);
      poll.now();
    } catch (error) {
      say(error.message);
    }
  }

  async function accept(invitation) {
    try {
      const { code } = await api.acceptInvitation(invitation.id);
      const granted = await rooms.join(code, me.name, playerId());
      rememberSeat(code, { seat: granted.seat, token: granted.token, name: me.name });
      navigate(`/room/${code}`);
    } catch (error) {
      say(error.message);
    }
  }

  function person(one, ...controls) {
    const name = one.player_id ? h("a", { class: "friend-name", href: `/players/${one.player_id}` }, one.name) : h("span", { class: "friend-name" }, one.name);
    return h("li", { class: "friend" }, name, ...controls);
  }

  function draw(state) {
    me = state.me;
    for (const invitation of state.invited_me) {
      if (!seen.has(invitation.id) && document.visibilityState === "hidden") notifyInvitation(invitation);
      seen.add(invitation.id);
    }
    render(
      invitations,
      state.invited_me.map((invitation) =>
        h(
          "div",
          { class: "notice info friend-invitation", dataset: { testid: "invitation" } },
          h("p", {}, h("strong", {}, invitation.host.name), invitation.room_name ? ` invites you to ${invitation.room_name}.` : " invited you, but the table no longer waits."),
          invitation.room_name ? button("Accept", () => accept(invitation), { class: "small primary", dataset: { focus: `accept-${invitation.id}` } }) : null,
          button("Decline", () => act(() => api.declineInvitation(invitation.id), "Declined."), { dataset: { focus: `decline-${invitation.id}` } }),
        ),
      ),
    );
    const friends = state.friends.map((friend) =>
      person(
        friend,
        h("span", { class: `badge ${friend.where.online ? "online" : ""}`, dataset: { testid: "presence" } }, whereText(friend.where)),
        friend.where.code ? h("a", { href: `/room/${friend.where.code}?watch` }, "watch") : null,
        button("Remove", () => act(() => api.partWith(friend.id), `${friend.name} is no longer a friend.`), { "aria-label": `Remove ${friend.name}`, dataset: { focus: `remove-${friend.id}` } }),
        button("Block", () => act(() => api.block(friend.id), `${friend.name} is blocked.`), { "aria-label": `Block ${friend.name}`, dataset: { focus: `block-${friend.id}` } }),
      ),
    );
    render(
      lists,
      h("ul", { class: "friend-list", "aria-label": "Friends" }, friends.length ? friends : h("li", { class: "hint" }, "No friends yet: find one by name below.")),
      state.asked_me.length
        ? [
            h("h3", {}, "Asking to be your friend"),
            h(
              "ul",
              { class: "friend-list" },
              state.asked_me.map((one) =>
                person(
                  one,
                  button("Accept", () => act(() => api.acceptFriend(one.id), `You and ${one.name} are friends.`), { class: "small primary", "aria-label": `Accept ${one.name}`, dataset: { focus: `befriend-${one.id}` } }),
                  button("Decline", () => act(() => api.partWith(one.id), "Declined."), { "aria-label": `Decline ${one.name}` }),
                ),
              ),
            ),
          ]
        : null,
      state.asked.length
        ? [h("h3", {}, "Asked, waiting for an answer"), h("ul", { class: "friend-list" }, state.asked.map((one) => person(one, button("Withdraw", () => act(() => api.partWith(one.id), "Withdrawn."), { "aria-label": `Withdraw the request to ${one.name}` }))))]
        : null,
      state.blocked.length
        ? [h("h3", {}, "Blocked"), h("ul", { class: "friend-list" }, state.blocked.map((one) => person(one, button("Unblock", () => act(() => api.unblock(one.id), `${one.name} is unblocked.`), { "aria-label": `Unblock ${one.name}` }))))]
        : null,
    );
  }

  async function find(event) {
    event.preventDefault();
    const name = nameInput.value.trim();
    if (!name) return;
    try {
      const one = await api.findPlayer(name);
      render(
        found,
        h(
          "p",
          {},
          h("strong", {}, one.name),
          " ",
          button("Ask to be friends", () => act(() => api.askFriend(one.id), `Asked ${one.name}.`).then(() => render(found))),
          button("Block", () => act(() => api.block(one.id), `${one.name} is blocked.`).then(() => render(found)), { "aria-label": `Block ${one.name}` }),
        ),
      );
    } catch (error) {
      render(found, h("p", { class: "hint" }, error.message));
    }
  }

  async function showLink() {
    try {
      const { code } = await api.friendLink();
      const url = `${location.origin}/friend/${code}`;
      render(linkBox, h("label", { for: "friend-link" }, "Your friend link"), h("input", { id: "friend-link", readonly: true, value: url, onFocus: (e) => e.target.select() }));
    } catch (error) {
      say(error.message);
    }
  }

  const poll = poller(() => ({}), draw, () => slot.replaceChildren());
  render(
    slot,
    h(
      "section",
      { class: "panel friends", "aria-labelledby": "friends-title" },
      h("h2", { id: "friends-title" }, "Friends"),
      invitations,
      lists,
      h("form", { class: "inline friend-find", onSubmit: find }, h("label", { for: "friend-name" }, "Find by exact name"), nameInput, h("button", { type: "submit" }, "Find")),
      found,
      linkBox.childElementCount ? linkBox : h("p", {}, button("Show my friend link", showLink), linkBox),
      notice,
    ),
  );
}

/**
 * At a table this browser holds a seat at: say so every `poll_seconds`. The invite box (`element`,
 * which the waiting room shows) offers to invite the friends who are online.
 */
export function tableFriends(code, seat) {
  addStyles();
  const box = h("section", { class: "panel friends table-friends", "aria-labelledby": "invite-friends-title" });
  const status = h("p", { class: "hint", role: "status", "aria-live": "polite" });
  function draw(state) {
    const online = state.friends.filter((friend) => friend.where.online);
    const sent = new Map(state.invited.map((invitation) => [invitation.guest.id, invitation]));
    render(
      box,
      h("h2", { id: "invite-friends-title" }, "Invite a friend"),
      online.length
        ? h(
            "ul",
            { class: "friend-list" },
            online.map((friend) => {
              const invitation = sent.get(friend.id);
              return h(
                "li",
                { class: "friend" },
                h("span", { class: "friend-name" }, friend.name),
                invitation ? h("span", { class: "badge", dataset: { testid: "invitation-status" } }, invitation.status) : null,
                button("Invite", () => invite(friend), { "aria-label": `Invite ${friend.name}`, dataset: { focus: `invite-${friend.id}` } }),
              );
            }),
          )
        : h("p", { class: "hint" }, "None of your friends is online."),
      state.invited
        .filter((invitation) => invitation.status === "declined")
        .map((invitation) => h("p", { class: "notice info" }, `${invitation.guest.name} declined your invitation.`)),
      status,
    );
  }
  async function invite(friend) {
    try {
      await api.invite(friend.id, code, seat.token);
      status.textContent = `Invited ${friend.name}.`;
      poll.now();
    } catch (error) {
      status.textContent = error.message;
    }
  }
  const poll = poller(() => ({ code, token: seat.token }), draw, () => (box.hidden = true));
  return { element: box };
}

/** /friend/<code>: whose link this is, and a button to ask them to be friends. */
export async function friendLinkPage(main, code) {
  addStyles();
  const box = h("div", { class: "join" }, h("p", { class: "hint" }, "Looking up the link…"));
  main.replaceChildren(box);
  try {
    const one = await api.followLink(code);
    const said = h("p", { role: "status", "aria-live": "polite" });
    render(
      box,
      h("h1", {}, `Be friends with ${one.name}?`),
      h("p", {}, button("Ask to be friends", async () => {
        try {
          const answer = await api.askFriend(one.id);
          said.textContent = answer.friends ? `You and ${one.name} are friends.` : `Asked ${one.name}.`;
        } catch (error) {
          said.textContent = error.message;
        }
      }, { class: "primary" })),
      said,
      h("p", {}, h("a", { href: "/" }, "Lobby")),
    );
  } catch (error) {
    render(box, h("h1", {}, "Friend link"), h("p", { class: "notice error", role: "alert" }, error.status === 401 ? "Sign in to use a friend link." : error.message), h("p", {}, h("a", { href: "/" }, "Lobby")));
  }
}
