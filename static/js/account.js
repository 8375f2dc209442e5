// /account and /link: make an account with a passkey, sign in, the profile, passkeys, device
// links, signing out. Loaded only when one of those pages opens (the lobby does not need it).

import { ApiError, call } from "./api.js";
import { h, money, render } from "./dom.js";
import { playerId, playerName, read, setPlayerName, write } from "./session.js";

const accounts = {
  me: () => call("GET", "/api/accounts/me"),
  registerOptions: (name, guestId) => call("POST", "/api/accounts/register/options", { body: { name, guest_id: guestId } }),
  register: (answer) => call("POST", "/api/accounts/register", { body: answer }),
  signInOptions: () => call("POST", "/api/accounts/sign-in/options", { body: {} }),
  signIn: (answer) => call("POST", "/api/accounts/sign-in", { body: { ...answer, guest_id: playerId() } }),
  rename: (name) => call("PATCH", "/api/accounts/me", { body: { name } }),
  passkeyOptions: () => call("POST", "/api/accounts/me/passkeys/options", { body: {} }),
  addPasskey: (answer) => call("POST", "/api/accounts/me/passkeys", { body: answer }),
  removePasskey: (id) => call("DELETE", `/api/accounts/me/passkeys/${encodeURIComponent(id)}`),
  linkCode: () => call("POST", "/api/accounts/me/link-code", { body: {} }),
  link: (code) => call("POST", "/api/accounts/link", { body: { code, guest_id: playerId() } }),
  signOut: () => call("POST", "/api/accounts/sign-out", { body: {} }),
  signOutEverywhere: () => call("POST", "/api/accounts/sign-out-everywhere", { body: {} }),
  games: (playerId) => call("GET", `/api/players/${encodeURIComponent(playerId)}/games?limit=10`),
};

// WebAuthn's binary fields travel as base64url text.
function bytes(text) {
  const plain = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(plain + "===".slice((plain.length + 3) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0)).buffer;
}

function text(buffer) {
  let binary = "";
  for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function described(list) {
  return (list || []).map((credential) => ({ ...credential, id: bytes(credential.id) }));
}

function answerOf(credential) {
  const r = credential.response;
  const response = { clientDataJSON: text(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = text(r.attestationObject);
    response.transports = r.getTransports ? r.getTransports() : [];
  } else {
    response.authenticatorData = text(r.authenticatorData);
    response.signature = text(r.signature);
    if (r.userHandle) response.userHandle = text(r.userHandle);
  }
  const answer = { id: credential.id, rawId: text(credential.rawId), type: credential.type, response, clientExtensionResults: {} };
  if (credential.authenticatorAttachment) answer.authenticatorAttachment = credential.authenticatorAttachment;
  return answer;
}

/** Ask this device for a new passkey with the server's options; its answer, to send back. */
async function makePasskey({ ceremony, options }) {
  const publicKey = { ...options, challenge: bytes(options.challenge), user: { ...options.user, id: bytes(options.user.id) }, excludeCredentials: described(options.excludeCredentials) };
  return { ceremony, credential: answerOf(await navigator.credentials.create({ publicKey })) };
}

async function usePasskey({ ceremony, options }) {
  const publicKey = { ...options, challenge: bytes(options.challenge), allowCredentials: described(options.allowCredentials) };
  return { ceremony, credential: answerOf(await navigator.credentials.get({ publicKey })) };
}

/** The words for a failure: the server's, or the browser's when the person cancelled. */
function said(error) {
  if (error instanceof ApiError) return error.message;
  if (error && error.name === "NotAllowedError") return "No passkey was used: the request was cancelled or timed out.";
  if (error && error.name === "InvalidStateError") return "This device already holds a passkey for this account.";
  return "Your browser could not use a passkey here.";
}

/**
 * Signed in: this device's guest id plays for the account now (the server joined it at sign-in,
 * with its games so far), and the lobby shows the friends panel.
 */
function adopt(account) {
  write("account-player-id", playerId());
  setPlayerName(account.name);
}

/**
 * Signed out: this device's guest id plays for the account for good, so the device takes a new
 * one and plays as a new guest.
 */
function forgetAccount() {
  write("player-id", crypto.randomUUID());
  localStorage.removeItem("cash-stash:own-player-id");
  localStorage.removeItem("cash-stash:account-player-id");
}

function notice(id) {
  return h("p", { id, class: "notice error", role: "alert", hidden: true });
}

function show(box, message, kind = "error") {
  box.className = `notice ${kind}`;
  box.textContent = message;
  box.hidden = false;
}

function when(iso) {
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

function finishedGame(game) {
  return h(
    "li",
    { class: "game-card" },
    h("a", { href: `/games/${game.id}` }, when(game.ended_at)),
    h("span", { class: `badge${game.winner ? " turn" : ""}` }, game.winner ? "won" : "played"),
    h("span", { class: "game-card-meta" }, `${money(game.total)} · ${game.players.map((p) => p.name).join(", ")}`),
    h("a", { href: `/games/${game.id}?review`, class: "game-card-meta" }, "Review"),
  );
}

/** Signed out: sign in with a passkey, make an account, or use a code from another device. */
function welcome(main, navigate, code = "") {
  const problem = notice("account-error");
  const name = h("input", { id: "account-name", name: "name", maxlength: 30, autocomplete: "nickname", value: playerName(), "aria-required": "true" });
  const typed = h("input", { id: "link-code", name: "code", maxlength: 20, autocomplete: "one-time-code", spellcheck: "false", class: "code", value: code });
  const signedIn = (account) => {
    adopt(account);
    navigate("/account", { replace: true });
  };

  async function signIn() {
    problem.hidden = true;
    try {
      signedIn(await accounts.signIn(await usePasskey(await accounts.signInOptions())));
    } catch (error) {
      show(problem, said(error));
    }
  }

  async function register(event) {
    event.preventDefault();
    problem.hidden = true;
    const chosen = name.value.trim();
    if (!chosen) {
      show(problem, "Please enter the name others will see.");
      name.focus();
      return;
    }
    try {
      signedIn(await accounts.register(await makePasskey(await accounts.registerOptions(chosen, playerId()))));
    } catch (error) {
      show(problem, said(error));
    }
  }

  async function link(event) {
    event.preventDefault();
    problem.hidden = true;
    try {
      signedIn(await accounts.link(typed.value.trim()));
    } catch (error) {
      show(problem, said(error));
    }
  }

  main.replaceChildren(
    h(
      "div",
      { class: "account" },
      h("h1", {}, "Your account"),
      h("p", { class: "lead" }, "Playing needs no account. Make one to keep your name, games and rating on every device you sign in on: your games so far in this browser come along."),
      problem,
      h("section", { class: "panel", "aria-labelledby": "sign-in-title" }, h("h2", { id: "sign-in-title" }, "Sign in"), h("button", { type: "button", class: "primary", onClick: signIn }, "Sign in with a passkey")),
      h(
        "form",
        { class: "panel", "aria-labelledby": "register-title", onSubmit: register },
        h("h2", { id: "register-title" }, "Make an account"),
        h("div", { class: "field" }, h("label", { for: "account-name" }, "Your name"), name),
        h("p", { class: "hint" }, "Your device makes a passkey (a fingerprint, face or PIN unlocks it): no password, no email."),
        h("button", { type: "submit" }, "Make an account"),
      ),
      h(
        "form",
        { class: "panel", "aria-labelledby": "link-title", onSubmit: link },
        h("h2", { id: "link-title" }, "Link this device"),
        h("p", { class: "hint" }, "Signed in on another device? Open your account there, choose Link another device, and type its code here."),
        h("div", { class: "field" }, h("label", { for: "link-code" }, "Code"), h("div", { class: "inline" }, typed, h("button", { type: "submit" }, "Link"))),
      ),
    ),
  );
}

function passkeyItem(passkey, remove) {
  const used = passkey.last_used_at ? `last used ${when(passkey.last_used_at)}` : "not used yet";
  return h("li", { class: "passkey" }, h("span", {}, passkey.label), h("span", { class: "game-card-meta" }, `made ${when(passkey.created_at)}, ${used}`), h("button", { type: "button", "aria-label": `Remove ${passkey.label}`, onClick: () => remove(passkey) }, "Remove"));
}

/** Signed in: the profile and everything the owner may change. */
function profile(main, account, navigate) {
  const problem = notice("account-error");
  const name = h("input", { id: "account-name", name: "name", maxlength: 30, value: account.name, "aria-required": "true" });
  const games = h("section", { class: "panel history", "aria-labelledby": "games-title" }, h("h2", { id: "games-title" }, "Your games"), h("p", { class: "hint" }, "Loading…"));
  const linkBox = h("div", { class: "link-code", "aria-live": "polite" });
  const again = () => accountPage(main, "account", { navigate });
  const attempt = (work) => async (event) => {
    event?.preventDefault();
    problem.hidden = true;
    try {
      await work();
    } catch (error) {
      show(problem, said(error));
    }
  };

  accounts
    .games(account.player_id)
    .then((page) => render(games, h("h2", { id: "games-title" }, "Your games"), page.games.length ? h("ul", { class: "cards-list" }, page.games.map(finishedGame)) : h("p", { class: "hint" }, "No finished games yet.")))
    .catch((error) => render(games, h("h2", { id: "games-title" }, "Your games"), h("p", { class: "hint" }, said(error))));

  const rename = attempt(async () => {
    adopt(await accounts.rename(name.value.trim()));
    again();
  });
  const remove = (passkey) => attempt(async () => {
    await accounts.removePasskey(passkey.id);
    again();
  })();
  const addPasskey = attempt(async () => {
    await accounts.addPasskey(await makePasskey(await accounts.passkeyOptions()));
    again();
  });
  const showCode = attempt(async () => {
    const made = await accounts.linkCode();
    const image = h("img", { src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(made.qr_svg)}`, alt: "The code as a QR code: scan it with the other device's camera", width: 160, height: 160 });
    render(linkBox, h("p", {}, "On the other device open ", h("strong", {}, `${location.origin}/link`), " and type:"), h("p", { class: "code big", dataset: { testid: "link-code" } }, made.code), image, h("p", { class: "hint" }, `It works once, for ${Math.round(made.expires_in / 60)} minutes.`));
  });
  const leave = (everywhere) => attempt(async () => {
    await (everywhere ? accounts.signOutEverywhere() : accounts.signOut());
    forgetAccount();
    navigate("/account", { replace: true });
  });

  const rating = account.rating === null ? "no rated games yet" : `rating ${account.rating.toFixed(1)}`;
  main.replaceChildren(
    h(
      "div",
      { class: "account" },
      h("h1", {}, account.name),
      h("p", { class: "lead", dataset: { testid: "account-summary" } }, `${rating} · ${account.games} ${account.games === 1 ? "game" : "games"}`),
      problem,
      games,
      h("form", { class: "panel", "aria-labelledby": "rename-title", onSubmit: rename }, h("h2", { id: "rename-title" }, "Your name"), h("div", { class: "field" }, h("label", { for: "account-name" }, "Name others see"), h("div", { class: "inline" }, name, h("button", { type: "submit" }, "Rename")))),
      h(
        "section",
        { class: "panel", "aria-labelledby": "passkeys-title" },
        h("h2", { id: "passkeys-title" }, "Passkeys"),
        h("ul", { class: "cards-list" }, account.passkeys.map((passkey) => passkeyItem(passkey, remove))),
        h("button", { type: "button", onClick: addPasskey }, "Add a passkey"),
      ),
      h("section", { class: "panel", "aria-labelledby": "devices-title" }, h("h2", { id: "devices-title" }, "Another device"), h("button", { type: "button", onClick: showCode }, "Link another device"), linkBox),
      h("p", { class: "links" }, h("a", { href: `/players/${account.player_id}` }, "Your profile page"), h("button", { type: "button", onClick: leave(false) }, "Sign out"), h("button", { type: "button", onClick: leave(true) }, "Sign out everywhere")),
    ),
  );
}

/** /account (which = "account") or /link (a code from another device, after the #). */
export async function accountPage(main, which, { navigate }) {
  main.replaceChildren(h("p", { class: "hint" }, "Loading your account…"));
  let account = null;
  try {
    account = await accounts.me();
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) {
      render(main, h("p", { class: "notice error", role: "alert" }, error.message));
      return;
    }
  }
  if (account === null) {
    // Signed out elsewhere (or the session ran out): this device stops playing as the account.
    if (read("account-player-id", null) !== null) forgetAccount();
    welcome(main, navigate, which === "link" ? decodeURIComponent(location.hash.slice(1)) : "");
    return;
  }
  adopt(account);
  profile(main, account, navigate);
}
