// One room's WebSocket: reconnects by itself after a drop, and passes on only messages newer
// than what the page already shows (a resync never brings an older state back). A state carries
// the game's log whole once, then only the entries after those the connection sent before
// (`log_from`): the socket joins them, so every state it passes on holds the whole log.

const GONE = {
  4401: "That seat's token no longer holds a seat in this room.",
  4403: "The host removed you from this room.",
  4404: "There is no room with that code.",
  4406: "This room does not allow spectators; ask the host for a seat.",
};
const RETRY_MS = [300, 1000, 2000, 4000, 8000];
const PING_MS = 25000;

export class GameSocket {
  /**
   * handlers: onRoom(room), onState(message), onError(message), onChat(message), onHint(message),
   * onStatus("connecting" | "open" | "reconnecting" | "gone", detail)
   */
  constructor(code, token, handlers) {
    this.code = code;
    this.token = token;
    this.handlers = handlers;
    this.roomVersion = -1;
    this.stateVersion = -1;
    this.log = null;
    this.resyncing = false;
    this.attempt = 0;
    this.closed = false;
    this.ws = null;
    this.retryTimer = null;
    this.pingTimer = null;
    this.online = () => this.reconnectNow();
    window.addEventListener("online", this.online);
  }

  /** The room's WebSocket URL: never with the token, which the hello message carries. */
  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${location.host}/ws/${encodeURIComponent(this.code)}`;
  }

  connect() {
    if (this.closed) return;
    this.handlers.onStatus(this.attempt ? "reconnecting" : "connecting");
    const ws = new WebSocket(this.url());
    this.ws = ws;
    // A new connection sends the log whole first.
    this.log = null;
    this.resyncing = false;
    ws.addEventListener("open", () => {
      ws.send(JSON.stringify(this.token ? { type: "hello", token: this.token } : { type: "hello" }));
      this.attempt = 0;
      this.handlers.onStatus("open");
      this.pingTimer = setInterval(() => this.send({ type: "ping" }), PING_MS);
    });
    ws.addEventListener("message", (event) => this.receive(event.data));
    ws.addEventListener("close", (event) => {
      clearInterval(this.pingTimer);
      if (this.ws !== ws || this.closed) return;
      this.ws = null;
      if (GONE[event.code]) {
        this.closed = true;
        this.handlers.onStatus("gone", GONE[event.code]);
        return;
      }
      const delay = RETRY_MS[Math.min(this.attempt, RETRY_MS.length - 1)];
      this.attempt += 1;
      this.handlers.onStatus("reconnecting");
      this.retryTimer = setTimeout(() => this.connect(), delay);
    });
  }

  reconnectNow() {
    if (this.closed || this.ws) return;
    clearTimeout(this.retryTimer);
    this.connect();
  }

  receive(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    switch (message.type) {
      case "room":
        if (message.room.version < this.roomVersion) return;
        this.roomVersion = message.room.version;
        this.handlers.onRoom(message.room);
        break;
      case "state": {
        const resynced = this.resyncing;
        if (!this.joinLog(message)) return;
        // The answer to a resync may be of the version shown already: its log is whole again.
        if (message.version < this.stateVersion || (message.version === this.stateVersion && !resynced)) return;
        this.stateVersion = message.version;
        this.handlers.onState(message);
        break;
      }
      case "error":
        // Resyncs are budgeted: past the budget, a new connection brings the whole log instead.
        if (message.code === "resync_too_often" && this.resyncing) {
          this.ws?.close();
          return;
        }
        this.handlers.onError(message);
        break;
      case "chat":
      case "chat_history":
        this.handlers.onChat(message);
        break;
      case "hint":
        this.handlers.onHint?.(message);
        break;
      default:
        break;
    }
  }

  /**
   * Put the whole log in the state's view: its entries replace the log held (`log_from` 0) or
   * follow it. Every state's log is taken, shown or not, as the server counts what it sent. On a
   * gap, asks for the whole state again and returns false until it comes.
   */
  joinLog(message) {
    const from = message.log_from ?? 0;
    if (from === 0) {
      this.log = message.view.log;
      this.resyncing = false;
      return true;
    }
    if (this.resyncing) return false;
    if (this.log === null || from !== this.log.length) {
      this.log = null;
      this.resyncing = this.send({ type: "resync" });
      return false;
    }
    // A new array: the page compares the log it showed with this one to find what is new.
    this.log = this.log.concat(message.view.log);
    message.view.log = this.log;
    return true;
  }

  /** Send a message if connected; returns whether it went out. */
  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  close() {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    window.removeEventListener("online", this.online);
    if (this.ws) this.ws.close();
    this.ws = null;
  }
}
