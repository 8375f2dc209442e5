"""One lean Redis connection: every command sent to one node, and its subscriptions.

For each command redis-py takes a connection from its pool, bounds the command, then reads the
reply through a stream reader and its parser, one await per layer. Here a command is one write
and a future, which ``data_received`` resolves in the order the replies come (Redis answers in
the order it was asked, so commits from many rooms share one connection without waiting for
each other); hiredis parses, as it does under redis-py, and redis-py's reading of the URL (and
of its TLS settings) is used as it is. Why this stands in for redis-py: ``app/resp/__init__.py``."""

from __future__ import annotations

import asyncio
import collections
from typing import Any, cast

import hiredis
from redis.asyncio.connection import SSLConnection, parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

CONNECT_SECONDS = 5.0


class RespConnection(asyncio.Protocol):
    """One connection: commands answered in order, then (once subscribed) pushed messages.

    With ``reply_seconds``, a reply that takes longer fails its command, and every other
    command waiting, with ``TimeoutError``, and closes the connection: Redis is stuck. One
    timer per connection watches the oldest command, not one per command (a timer set and
    cancelled around each commit was a fiftieth of a move's cost)."""

    def __init__(self, reply_seconds: float | None = None) -> None:
        self._reader = hiredis.Reader(encoding="utf-8")
        self._transport: asyncio.Transport | None = None
        self._reply_seconds = reply_seconds
        self._waiting: collections.deque[tuple[asyncio.Future[Any], float]] = collections.deque()
        """Futures of the commands sent, in order, for the replies still to come, each with
        the loop's time by which it must come."""
        self._watch: asyncio.TimerHandle | None = None
        self._pushes: collections.deque[Any] = collections.deque()
        """What came with no command waiting for it: a subscription's messages."""
        self._push_arrived: asyncio.Future[None] | None = None
        self._lost: Exception | None = None

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        try:
            while (reply := self._reader.gets()) is not False:
                if self._waiting:
                    future, _ = self._waiting.popleft()
                    if not future.done():  # its caller may have given up on it
                        future.set_result(reply)
                else:
                    self._pushes.append(reply)
        except hiredis.ProtocolError:
            self.close()
            self._fail(RedisConnectionError("Redis sent what cannot be read."))
            return
        if self._pushes:
            self._wake()

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(RedisConnectionError("The connection to Redis was closed."))

    # Use

    @property
    def usable(self) -> bool:
        transport = self._transport
        return self._lost is None and transport is not None and not transport.is_closing()

    def call(self, *args: str | int) -> asyncio.Future[Any]:
        """Send one command; the future is its reply (an error reply as ``hiredis.ReplyError``:
        see ``checked``). Several may be in flight at once."""
        if self._lost is not None:
            raise self._lost
        assert self._transport is not None
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        if self._reply_seconds is None:
            self._waiting.append((future, 0.0))
        else:
            deadline = loop.time() + self._reply_seconds
            self._waiting.append((future, deadline))
            if self._watch is None:
                self._watch = loop.call_at(deadline, self._check_replies)
        # hiredis's stub declares a tuple of one element.
        self._transport.write(hiredis.pack_command(args))  # type: ignore[arg-type]
        return future

    def send(self, *args: str | int) -> None:
        """Send one command whose reply comes as a push (``next_push``): a subscription's
        commands, which Redis answers in the same stream as the messages."""
        if self._lost is not None:
            raise self._lost
        assert self._transport is not None
        self._transport.write(hiredis.pack_command(args))  # type: ignore[arg-type]

    def _check_replies(self) -> None:
        """The watch: fail everything if the oldest reply is late, else look again when it
        would be."""
        self._watch = None
        if not self._waiting or self._lost is not None:
            return
        loop = asyncio.get_running_loop()
        deadline = self._waiting[0][1]
        if deadline <= loop.time():
            self._fail(TimeoutError("Redis did not answer in time."))
            self.close()
        else:
            self._watch = loop.call_at(deadline, self._check_replies)

    async def next_push(self) -> Any:
        """The next message of a subscription; ``RedisConnectionError`` once the connection
        is gone (what arrived before that is still given out first)."""
        while not self._pushes:
            if self._lost is not None:
                raise self._lost
            self._push_arrived = asyncio.get_running_loop().create_future()
            await self._push_arrived
        return self._pushes.popleft()

    def close(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        if self._transport is not None:
            self._transport.close()

    def fail(self, error: Exception) -> None:
        """Close the connection, failing what waits on it (and ``next_push``) with ``error``."""
        self.close()
        self._fail(error)

    def _fail(self, error: Exception) -> None:
        if self._lost is None:
            self._lost = error
        while self._waiting:
            future, _ = self._waiting.popleft()
            if not future.done():
                future.set_exception(error)
        self._wake()

    def _wake(self) -> None:
        waiter = self._push_arrived
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


def checked(reply: Any) -> Any:
    """A reply, or the error Redis answered with raised as redis-py would raise it."""
    if isinstance(reply, hiredis.ReplyError):
        raise ResponseError(str(reply))
    return reply


async def connect(
    url: str,
    *,
    name: str,
    reply_seconds: float | None = None,
    address: tuple[str, int] | None = None,
) -> RespConnection:
    """A connection to the Redis at ``url`` (``redis://``, ``rediss://``, ``unix://``, as
    redis-py reads them), authenticated, on the URL's database and named ``name``; its
    commands' replies bounded by ``reply_seconds``, if given. ``address``: another node of the
    same deployment (a cluster's), reached with the URL's credentials and TLS settings."""
    options: dict[str, Any] = dict(parse_url(url))
    loop = asyncio.get_running_loop()
    kind = options.pop("connection_class", None)
    connection: RespConnection
    async with asyncio.timeout(CONNECT_SECONDS):
        if "path" in options and address is None:
            _, connection = await loop.create_unix_connection(
                lambda: RespConnection(reply_seconds), options["path"]
            )
        else:
            tls = None
            if kind is SSLConnection:
                settings = {k: v for k, v in options.items() if k.startswith("ssl_")}
                tls = SSLConnection(**settings).ssl_context.get()
            host, port = address or (options.get("host", "localhost"), options.get("port", 6379))
            _, connection = await loop.create_connection(
                lambda: RespConnection(reply_seconds), host, port, ssl=tls
            )
    try:
        if options.get("password") is not None:
            credentials = [options["username"]] if options.get("username") else []
            checked(await connection.call("AUTH", *credentials, options["password"]))
        if options.get("db"):
            checked(await connection.call("SELECT", int(options["db"])))
        checked(await connection.call("CLIENT", "SETNAME", name))
    except BaseException:
        connection.close()
        raise
    return connection
