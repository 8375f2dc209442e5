// The REST API (docs/protocol.md): every call returns the JSON body or throws ApiError.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function problem(status, body) {
  if (body && typeof body.detail === "string") return new ApiError(status, body.code ?? "error", body.detail);
  if (body && Array.isArray(body.detail) && body.detail.length) {
    const first = body.detail[0];
    const field = (first.loc || []).slice(1).join(".");
    return new ApiError(status, "invalid", field ? `${field}: ${first.msg}` : first.msg);
  }
  return new ApiError(status, "error", `The server answered ${status}.`);
}

export async function call(method, path, { body, token } = {}) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "offline", "The server cannot be reached; check your connection.");
  }
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) throw problem(response.status, data);
  return data;
}

export const api = {
  createRoom: (options) => call("POST", "/api/rooms", { body: options }),
  listRooms: () => call("GET", "/api/rooms"),
  room: (code) => call("GET", `/api/rooms/${encodeURIComponent(code)}`),
  join: (code, name, playerId) =>
    call("POST", `/api/rooms/${encodeURIComponent(code)}/join`, { body: { name, player_id: playerId } }),
  openOnDevice: (code) => call("POST", `/api/rooms/${encodeURIComponent(code)}/device`),
  addBot: (code, token, level) =>
    call("POST", `/api/rooms/${encodeURIComponent(code)}/bots`, { token, body: { level } }),
  removeBot: (code, token, seat) => call("DELETE", `/api/rooms/${encodeURIComponent(code)}/bots/${seat}`, { token }),
  removePlayer: (code, token, seat) =>
    call("DELETE", `/api/rooms/${encodeURIComponent(code)}/players/${seat}`, { token }),
  updateRoom: (code, token, options) => call("PATCH", `/api/rooms/${encodeURIComponent(code)}`, { token, body: options }),
  start: (code, token) => call("POST", `/api/rooms/${encodeURIComponent(code)}/start`, { token }),
  rematch: (code, token) => call("POST", `/api/rooms/${encodeURIComponent(code)}/rematch`, { token }),
  game: (id) => call("GET", `/api/games/${encodeURIComponent(id)}`),
  requestReview: (id) => call("POST", `/api/games/${encodeURIComponent(id)}/review`),
  review: (id) => call("GET", `/api/games/${encodeURIComponent(id)}/review`),
  practice: (id, step, name, playerId) =>
    call("POST", `/api/games/${encodeURIComponent(id)}/practice`, { body: { step, name, player_id: playerId } }),
  playerGames: (id) => call("GET", `/api/players/${encodeURIComponent(id)}/games?limit=10`),
  leaderboard: () => call("GET", "/api/leaderboard?limit=50"),
  lobby: () => call("GET", "/api/lobby?limit=10"),
  yourGames: (seats) => call("POST", "/api/your-games", { body: { seats } }),
};
