"""One place for configuration, read from ``CASH_STASH_*`` environment variables."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from engine.ai.review import DEFAULT_ROUNDS


class Settings(BaseSettings):
    """Server settings; every one is optional and has an embedded default."""

    model_config = SettingsConfigDict(env_prefix="CASH_STASH_")

    redis_url: str | None = None
    """Live rooms in Redis when set; otherwise in this process's memory."""
    redis_prefix: str = "cash_stash:"
    """Prefix of every Redis key and channel, so several deployments can share one Redis."""
    redis_cluster: bool = False
    """``redis_url`` names a node of a Redis Cluster (any one): the server finds the rest."""
    redis_wait_replicas: int = Field(default=0, ge=0, le=5)
    """After each commit, wait until this many replicas have it (``WAIT``) before answering:
    with 1, a move a player saw accepted survives its primary's failure (``docs/deploy.md``)."""
    redis_wait_ms: int = Field(default=100, ge=1, le=10_000)
    """The longest a commit waits for its replicas; then it is answered anyway (and logged)."""
    database_url: str = "sqlite+aiosqlite:///cash_stash.db"
    """Finished games: a SQLite file by default, Postgres via ``postgresql+asyncpg://``."""
    host: str = "127.0.0.1"
    port: int = 8000
    allowed_origins: Annotated[list[str], NoDecode] = []
    """Origins allowed to open a WebSocket (comma-separated); empty means same origin only."""
    forwarded_allow_ips: str = "127.0.0.1"
    """Proxies (comma-separated addresses, or ``*``) whose ``X-Forwarded-For`` names the client;
    the per-address join limit counts that address."""
    shutdown_seconds: int = 5
    """After SIGTERM, how long connections may take to finish before they are cancelled."""
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    """The least severe log lines written (``debug`` adds one line per action)."""

    room_ttl_seconds: int = 6 * 3600
    """A live room untouched this long expires (never before its finished games are recorded)."""
    ai_pause_seconds: float = 0.8
    """The human-like pause before an AI seat acts."""
    ai_workers: int = 2
    """Processes that run AI decisions, off the event loop."""
    timeout_level: Literal["easy", "medium", "hard"] = "medium"
    """The AI level that plays a seat whose clock ran out or whose player is away."""
    disconnect_grace_seconds: float = 30.0
    """How long a disconnected player's seat waits before the AI plays it."""
    presence_seconds: Annotated[float, Field(ge=0)] = 1.0
    """A person's leaving is committed this long after their last connection closed, and no
    sooner than this after their seat's last presence commit here: a reconnection meanwhile
    commits nothing (a reconnect loop cannot flood the room with versions)."""
    join_limit: int = 20
    """Join attempts (and look-ups of unknown rooms) allowed per client address per minute."""
    ws_max_message_bytes: int = 8192
    """The largest WebSocket message a client may send."""
    ws_messages_per_second: float = 10.0
    """Sustained client message rate allowed per connection (token bucket refill)."""
    ws_burst: int = 30
    """Client messages a connection may send at once (token bucket size)."""
    ws_messages_per_address_per_second: Annotated[float, Field(gt=0)] = 40.0
    """Sustained client message rate allowed per client address, over all its connections in
    a process: without it, an address's 64 connections could each send its own
    ``ws_messages_per_second``."""
    ws_messages_per_address_burst: Annotated[int, Field(ge=1)] = 120
    """Client messages one address may send at once, over all its connections in a process."""
    ws_compression: bool = True
    """Offer per-message deflate on WebSockets, without context takeover: a state is
    compressed once for every connection that is sent it, and no connection keeps zlib state
    between messages (``app/transport/deflate.py``)."""
    ws_queue_size: int = 64
    """Messages waiting for one slow connection before it is dropped (it then resyncs)."""
    chat_max_length: int = 300
    """The longest chat message, in characters."""
    chat_history_bytes: Annotated[int, Field(ge=0)] = 16384
    """The chat history sent on connect: the newest kept lines that fit in this many bytes."""
    resyncs_per_minute: Annotated[int, Field(ge=1)] = 6
    """``resync`` requests one connection may make a minute (each sends the whole state)."""
    resyncs_per_address: Annotated[int, Field(ge=1)] = 60
    """``resync`` requests one client address may make a minute, over all its connections."""

    max_body_bytes: Annotated[int, Field(ge=256)] = 4096
    """The largest HTTP request body; a larger one is answered 413 before it is read."""
    create_limit: int = 20
    """Rooms one client address may create per minute."""
    max_waiting_rooms: int = 5000
    """Rooms waiting for their first game at once, across every process; past it, creating a
    room is refused (429) until some start or expire."""
    waiting_rooms_per_address: Annotated[int, Field(ge=1)] = 10
    """Rooms waiting for their first game that one client address may have at once (its
    share of ``max_waiting_rooms``); past it, creating a room is refused (429)."""
    max_games_in_play: Annotated[int, Field(ge=1)] = 1000
    """Games in play at once, over every process; past it, starting one is refused (429)."""
    games_per_address: Annotated[int, Field(ge=1)] = 4
    """Games in play that one client address may have started; past it, 429."""
    waiting_room_ttl_seconds: int = 1800
    """A room whose game has not started expires after this long without a change."""
    replays_per_minute: Annotated[int, Field(ge=1)] = 20
    """Finished games' replays one client address may have computed a minute (a replay
    already kept in memory costs nothing and is not counted); past it, ``429``."""
    api_docs: bool = False
    """Serve the OpenAPI description at ``/openapi.json`` (off by default: it maps every door).
    No ``/docs`` page is served: its Swagger UI would load scripts from a CDN."""
    metrics_token: str | None = None
    """``/metrics`` answers only a request bearing this token (``Authorization: Bearer``);
    unset, ``/metrics`` is off (404)."""

    ws_hello_seconds: float = 5.0
    """How long a new WebSocket may take to send its ``hello`` before it is closed (1008)."""
    ws_connections_per_address: int = 64
    """Open WebSockets allowed per client address, in each server process (1013 past it)."""
    ws_connections_per_room: int = 256
    """Open WebSockets allowed per room, spectators counted, in each server process (1013)."""
    chat_per_seat_per_minute: int = 20
    """Chat lines one seat may send a minute, over all its tabs and processes."""
    chat_per_room_per_minute: int = 60
    """Chat lines one room may carry a minute, over all its seats and processes."""
    ws_send_buffer_bytes: int = 65536
    """The kernel send buffer of each WebSocket (``SO_SNDBUF``): small, so that a client that
    does not read fills the server's own queue (``ws_queue_size``) soon, not the kernel's."""
    ws_unwritable_seconds: float = 30.0
    """How long a WebSocket may stay unable to take more data before it is closed (1013)."""
    ws_ping_after_seconds: Annotated[float, Field(gt=0)] = 30.0
    """A WebSocket that has sent nothing for this long is sent a WebSocket ping; one that
    sent anything meanwhile is not (the browser's client sends ``ping`` every 25 s)."""
    ws_pong_seconds: Annotated[float, Field(gt=0)] = 10.0
    """How long a pinged WebSocket has to answer before it is closed (1011)."""
    http_header_seconds: float = 10.0
    """How long a new connection may take to send a whole request head before it is closed."""
    http_body_seconds: Annotated[float, Field(gt=0)] = 10.0
    """How long a request body may take to arrive whole once its head has; then the request
    is answered 408 and the connection closed."""
    http_connections_per_address: Annotated[int, Field(ge=0)] = 64
    """Open HTTP connections allowed per client address, in each server process (0: no cap);
    past it a connection's request is answered 429. Upgraded WebSockets and the proxies named
    in ``forwarded_allow_ips`` are not counted."""
    http_write_seconds: Annotated[float, Field(gt=0)] = 30.0
    """How long an HTTP answer may take to be written whole (every byte handed to the
    kernel) once it has begun; then the connection is dropped, with what it still held."""
    http_buffered_bytes_per_address: Annotated[int, Field(ge=0)] = 1048576
    """Bytes of HTTP answers waiting, unsent, for one client address's connections, in each
    server process (0: no cap); a connection whose answer would pass it is dropped. Answers
    are written 64 KiB at a time, each once the last has gone out, so a connection holds little
    more than that; the proxies named in ``forwarded_allow_ips`` are not counted."""
    http_send_buffer_bytes: Annotated[int, Field(ge=0)] = 131072
    """The kernel send buffer of each HTTP connection (``SO_SNDBUF``; 0: the kernel's own,
    which grows to 4 MB): small, so that an answer a client does not read waits in the
    process, counted by ``http_buffered_bytes_per_address``, not in the kernel."""
    http_requests_per_address: Annotated[int, Field(ge=0)] = 4
    """HTTP requests of one client address the app works on at once, in each server process
    (0: any number); the others wait their turn, in order, and are not refused. A request's
    turn ends once its answer's body is handed over (writing it takes none). The proxies named
    in ``forwarded_allow_ips`` are not counted."""
    replay_bytes_per_second: Annotated[int, Field(ge=1)] = 1_000_000
    """Bytes of finished games' replays (``GET /api/games/{id}``) one client address may be
    sent a second, kept replays or not, in each server process; a ``304`` costs nothing."""
    replay_burst_bytes: Annotated[int, Field(ge=1)] = 8_000_000
    """Replay bytes one client address may be sent at once; an answer may start while any
    are left and takes all its bytes, into debt; then ``429 too_many_replay_bytes``."""
    review_workers: int = 1
    """Processes that compute game reviews, apart from the AI's (0: a thread, for tests)."""
    review_queue: Annotated[int, Field(ge=1)] = 8
    """Reviews waiting or running in one process; past it, asking for one answers 429."""
    reviews_per_address: Annotated[int, Field(ge=1)] = 2
    """Of those, the reviews one client address may have waiting or running: the queue is
    shared fairly, never taken whole by one address (429 past it)."""
    review_rounds: Annotated[int, Field(ge=1, le=1000)] = DEFAULT_ROUNDS
    """Search rounds per judged decision, for reviews and hints (the CPU budget of each)."""
    review_stale_seconds: Annotated[float, Field(gt=0)] = 300.0
    """A review job unchanged this long was abandoned (its process died): asking again
    queues it anew."""
    hints_per_seat: Annotated[int, Field(ge=0)] = 3
    """Hints each seat may ask for in one game, in a room with the ``hints`` option on."""
    hints_per_minute: Annotated[int, Field(ge=1)] = 6
    """Hint requests one seat may make per minute, answered or refused."""

    queue_ai_wait_seconds: Annotated[float, Field(ge=0)] = 20.0
    """Play now: how long a player waits for people before the empty seats get AI."""
    queue_window: Annotated[float, Field(ge=0)] = 5.0
    """Play now: how far apart (in rating points, the OpenSkill ordinal) players may be
    matched at first."""
    queue_window_per_second: Annotated[float, Field(ge=0)] = 1.0
    """Play now: how much wider the window grows for every second a player waits."""
    queue_window_widest: Annotated[float, Field(ge=0)] = 50.0
    """Play now: the widest the window grows."""
    queue_tick_seconds: Annotated[float, Field(gt=0, le=5)] = 0.25
    """Play now: how often each process matches the queues it has players in."""
    queue_joins_per_minute: Annotated[int, Field(ge=1)] = 10
    """Play now: queue joins one client address may make per minute, over every process."""
    queue_sockets_per_address: Annotated[int, Field(ge=1)] = 4
    """Play now: queue WebSockets one client address may hold open in each process."""

    ws_whole_states_per_second: Annotated[float, Field(gt=0)] = 2.0
    """Whole states (a connection's first, a resync's: the whole view and log) this process
    sends one client address a second, over all its connections, once the burst is spent."""
    ws_whole_states_burst: Annotated[int, Field(ge=1)] = 64
    """Whole states one client address may be sent at once (a reload, every tab after a
    network blip or a restart); past it a new connection's first state waits its turn
    (``error state_delayed``) and a resync is refused (``error resync_too_often``)."""

    # Games nobody plays, and ghosts in the queue.
    table_join_seconds: Annotated[float, Field(gt=0)] = 15.0
    """A game in play counts toward ``max_games_in_play`` only while a person is connected at
    it, and for this long after it was dealt or its last person left: a table nobody opens
    (Play now, practice) stops holding a place in the ceiling this soon."""
    seat_open_seconds: Annotated[float, Field(gt=0)] = 5.0
    """A seat whose person has never opened the table (Play now, a guest who joined) waits
    this long from the deal, then the AI plays it while someone else is at the table
    (``disconnect_grace_seconds`` is for a person who opened it and left)."""
    queue_alive_seconds: Annotated[float, Field(gt=0)] = 10.0
    """Play now: a queued player's socket must send a message (``ping``) at least this often,
    the first right after ``queued``; only then is the player in the queue to be matched, and
    a socket silent this long is closed (``queue_silent``) and leaves the queue."""

    request_rate_per_second: Annotated[float, Field(gt=0)] = 20.0
    """HTTP requests one client address may make per second, sustained, in each process
    (a token bucket's refill); past it, ``429 too_many_requests``. ``/healthz`` and
    ``/metrics`` are not counted."""
    request_burst: Annotated[int, Field(ge=1)] = 100
    """HTTP requests one client address may make at once before the rate applies (the
    bucket's size): a page load fetches a few dozen files."""
    lobby_cache_ms: Annotated[int, Field(ge=0, le=60_000)] = 1000
    """The public lists (``GET /api/lobby``'s live games, ``GET /api/rooms``) are rebuilt at
    most this often, shared by every reader, and each page is a slice of them."""

    # Web Push: telling a player it is their move while their tab is closed (app/push/).
    vapid_private_key: str | None = None
    """The VAPID private key (the raw P-256 key, base64url, 43 characters) push messages are
    signed with. Unset, the server makes a key pair once and keeps it in the database."""
    vapid_public_key: str | None = None
    """The matching public key (base64url of the uncompressed point, 87 characters); checked
    against the private key at start. Derived when unset."""
    vapid_subject: str = "mailto:admin@localhost"
    """How a push service reaches the operator (``mailto:`` or ``https:``), sent in VAPID."""
    push_subscriptions_per_player: Annotated[int, Field(ge=1)] = 10
    """Devices one player may have subscribed at once; past it, subscribing answers 429."""
    push_notifications_per_minute: Annotated[int, Field(ge=1)] = 10
    """Notifications one player may be sent a minute, over every process; more are dropped."""
    push_subscribes_per_minute: Annotated[int, Field(ge=1)] = 20
    """Subscribe and unsubscribe requests one client address may make a minute."""
    push_queue_size: Annotated[int, Field(ge=1)] = 1000
    """Notifications waiting to be sent in one process; past it, new ones are dropped (the
    caller, the move path, never waits for a push service)."""
    push_retries: Annotated[int, Field(ge=0, le=5)] = 2
    """Retries of a delivery the push service answered 429 or 5xx, with a growing pause."""
    push_endpoint_hosts: Annotated[list[str], NoDecode] = [
        "fcm.googleapis.com",
        ".push.services.mozilla.com",
        ".push.apple.com",
        ".notify.windows.com",
    ]
    """Hosts a subscription's endpoint may name (comma-separated; a leading dot allows any
    subdomain): the server sends requests there, so it never posts to an address a client
    chose freely (``docs/security.md``)."""
    push_allow_local_http: bool = False
    """Also accept ``http://127.0.0.1:<port>/…`` endpoints: for tests with a local push
    service only, never in production."""
    session_days: Annotated[int, Field(ge=1, le=400)] = 30
    """How long a sign-in lasts on a device (its session in the live store, and its cookie)."""
    passkey_rp_id: str | None = None
    """The WebAuthn relying party id passkeys are made for: the site's domain. Unset, the host
    name each request was sent to (right for one public name; set it when there are several,
    such as ``play.example`` and ``www.play.example``, to ``play.example``)."""
    sign_ins_per_address: Annotated[int, Field(ge=1)] = 20
    """Passkey sign-in attempts one client address may make a minute, across processes."""
    sign_ins_per_account: Annotated[int, Field(ge=1)] = 20
    """Failed passkey sign-ins an account may take an hour; past it, its sign-ins wait."""
    ceremonies_per_address: Annotated[int, Field(ge=1)] = 30
    """Passkey ceremonies (their options) one client address may begin a minute."""
    registrations_per_address: Annotated[int, Field(ge=1)] = 10
    """Accounts one client address may make an hour."""
    link_lookups_per_address: Annotated[int, Field(ge=1)] = 10
    """Device-link codes one client address may try a minute (right or wrong)."""
    link_codes_per_account: Annotated[int, Field(ge=1)] = 10
    """Device-link codes one account may be given an hour."""
    account_changes_per_account: Annotated[int, Field(ge=1)] = 30
    """Changes one account may make an hour: renames, passkeys added or removed."""

    # Friends, presence and invitations (signed-in players only).
    max_friends: Annotated[int, Field(ge=1, le=1000)] = 200
    """Friends and requests sent one account may have at once (each poll reads every
    friend's presence, so the list is bounded)."""
    friends_poll_seconds: Annotated[float, Field(gt=0, le=10)] = 1.0
    """How often a signed-in player's page asks for the friends panel (their presence, their
    friends' and their invitations): a friend's change reaches them within this and a store
    round trip."""
    friends_presence_seconds: Annotated[float, Field(gt=0, le=300)] = 5.0
    """A player is shown online (or at a table) this long after their page last said so."""
    friend_lookups_per_minute: Annotated[int, Field(ge=1)] = 20
    """Look-ups of a player by name or friend link one account may make a minute."""
    friend_lookups_per_address: Annotated[int, Field(ge=1)] = 60
    """Look-ups one client address may make a minute, over every account."""
    friend_requests_per_minute: Annotated[int, Field(ge=1)] = 10
    """Friend requests one account may send a minute."""
    friend_requests_per_address: Annotated[int, Field(ge=1)] = 30
    """Friend requests one client address may send a minute, over every account."""
    invitations_per_minute: Annotated[int, Field(ge=1)] = 10
    """Invitations to a table one account may send a minute."""
    invitations_per_address: Annotated[int, Field(ge=1)] = 30
    """Invitations one client address may send a minute, over every account."""
    invitation_seconds: Annotated[int, Field(ge=10, le=86_400)] = 300
    """An invitation to a table not answered this long expires."""
    park_after_seconds: Annotated[float, Field(gt=0)] = 300.0
    """A turn-based game nobody has been connected to this long, and that neither its AI nor
    its clock moves within as long, is parked: kept in the database only, out of Redis."""
    turn_poll_seconds: Annotated[float, Field(gt=0, le=60)] = 5.0
    """How often each process looks in the database for turn-based games due (deadlines of
    parked games) and games to park (with a fifth of jitter either way)."""
    turn_games_per_player: Annotated[int, Field(ge=1)] = 20
    """Turn-based games in play one player (by player id) may sit in at once."""

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        if isinstance(value, str):
            return [origin.strip().rstrip("/") for origin in value.split(",") if origin.strip()]
        return value

    @field_validator("push_endpoint_hosts", mode="before")
    @classmethod
    def _split_hosts(cls, value: object) -> object:
        if isinstance(value, str):
            return [host.strip().lower() for host in value.split(",") if host.strip()]
        return value


@lru_cache
def get_settings() -> Settings:
    return Settings()
