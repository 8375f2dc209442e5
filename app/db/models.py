"""The tables: finished games, who sat where, rated players, game reviews, accounts with
their passkeys, friends, and the turn-based games in play.

The same models serve SQLite (the embedded default) and Postgres; Alembic's migrations in
``migrations/`` create them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Text,
    TypeDecorator,
    func,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

Json = JSON().with_variant(JSONB(), "postgresql")
"""JSON everywhere; JSONB on Postgres."""


class UTCDateTime(TypeDecorator[datetime]):
    """An aware UTC datetime on both databases (SQLite drops the zone; this puts it back).

    A naive datetime is taken to be UTC already.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(
        naming_convention={
            "ix": "ix_%(column_0_label)s",
            "uq": "uq_%(table_name)s_%(column_0_name)s",
            "ck": "ck_%(table_name)s_%(constraint_name)s",
            "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
            "pk": "pk_%(table_name)s",
        }
    )


class Game(Base):
    """One finished game, stored once (its id is the primary key)."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    room_code: Mapped[str | None] = mapped_column(Text)
    """The live room's code, kept for a public room only: a private room's code is what lets
    someone in (and its rematches are played under it), so it is never stored."""
    visibility: Mapped[str] = mapped_column(String(16), server_default="private")
    """The room's visibility, ``"public"`` or ``"private"`` (games recorded before it was kept
    count as private)."""
    rules: Mapped[str] = mapped_column(String(32))
    draft: Mapped[bool] = mapped_column(Boolean)
    win_condition: Mapped[str] = mapped_column(String(32))
    """The ``rounds`` setting as text: ``"1"``, ``"3"``, ``"million"`` or ``"two_round_wins"``."""
    config: Mapped[dict[str, Any]] = mapped_column(Json)
    """The full ``engine.new_game`` config, seed included: with ``actions`` it replays the game."""
    actions: Mapped[list[dict[str, Any]]] = mapped_column(Json)
    round_scores: Mapped[list[list[int]]] = mapped_column(Json)
    totals: Mapped[list[int]] = mapped_column(Json)
    winners: Mapped[list[int]] = mapped_column(Json)
    rated: Mapped[bool] = mapped_column(Boolean)
    """Whether the game moved ratings (it had at least two people, and no seat took a hint)."""
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    ended_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    recorded_at: Mapped[datetime] = mapped_column(UTCDateTime, server_default=func.now())

    seats: Mapped[list[GameSeat]] = relationship(
        back_populates="game", order_by="GameSeat.seat", cascade="all, delete-orphan"
    )


class Player(Base):
    """A guest player the browser remembers, with their OpenSkill rating.

    ``id`` is the public id derived from the secret guest id (see ``app.db.repository``).
    """

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    """The display name used in the player's latest game."""
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    rating: Mapped[float] = mapped_column(Float, index=True)
    """The conservative rating shown and ranked on: ``mu - 3 * sigma``."""
    games: Mapped[int] = mapped_column(Integer)
    rated_games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, server_default=func.now())


class GameSeat(Base):
    """Who sat in one seat of a finished game, how they scored and how their rating moved."""

    __tablename__ = "game_seats"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"), index=True)
    ai_level: Mapped[str | None] = mapped_column(String(16))
    total: Mapped[int] = mapped_column(Integer)
    winner: Mapped[bool] = mapped_column(Boolean)
    rating_before: Mapped[float | None] = mapped_column(Float)
    rating_after: Mapped[float | None] = mapped_column(Float)
    hints: Mapped[int] = mapped_column(SmallInteger, server_default="0")
    """Hints the seat asked for during the game (a game with any is not rated)."""

    game: Mapped[Game] = relationship(back_populates="seats")


class GameReview(Base):
    """The review of one finished game: a job while it is computed, then its result.

    Computed once per game (``app.games.reviews``). ``attempt`` counts the times the job was
    queued: a worker writes only while the row still carries the attempt it took, so a job
    queued again (its process died) never mixes with the one it replaced.
    """

    __tablename__ = "game_reviews"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    status: Mapped[str] = mapped_column(String(16))
    """``queued``, ``running``, ``done`` or ``failed``."""
    progress: Mapped[float] = mapped_column(Float)
    """The share of the game's decisions judged, 0 to 1."""
    rounds: Mapped[int] = mapped_column(Integer)
    """The search budget per decision the review is made with."""
    attempt: Mapped[int] = mapped_column(Integer)
    review: Mapped[dict[str, Any] | None] = mapped_column(Json)
    """``engine.ai.review.summarize``'s result, once done."""
    error: Mapped[str | None] = mapped_column(Text)
    """Why the review failed, in words (never a card or a hand)."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    """Last queued or last progress: a job left unchanged too long was abandoned."""
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class PushSubscription(Base):
    """One device's Web Push subscription, for one player (``app.push``).

    The endpoint is the push service's address for that device; it is unique, so a device
    subscribed again (or by another player on the same browser) replaces its old row.
    """

    __tablename__ = "push_subscriptions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(String(32), index=True)
    """The public player id (never the guest id the browser keeps)."""
    endpoint: Mapped[str] = mapped_column(Text, unique=True)
    p256dh: Mapped[str] = mapped_column(String(100))
    """The device's P-256 public key, base64url: what the payload is encrypted to."""
    auth: Mapped[str] = mapped_column(String(32))
    """The device's 16-byte authentication secret, base64url."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class PushKey(Base):
    """The server's VAPID key pair, made once and kept: one row, ``id`` 1."""

    __tablename__ = "push_keys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    private_key: Mapped[str] = mapped_column(String(64))
    """The raw P-256 private key, base64url."""
    public_key: Mapped[str] = mapped_column(String(100))
    """The uncompressed public point, base64url (what a browser subscribes with)."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Account(Base):
    """A player who signed up: a display name of their own, and the guests that play for it.

    Playing needs no account. A guest who makes one brings their history along, and so does
    each guest a device signs in under later (``AccountGuest``): the games, rating and reviews
    recorded under them are the account's from then on, and so is everything those devices
    play. Only the guests' public ids are kept, never the guest ids themselves.
    """

    __tablename__ = "accounts"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    """Opaque and random (``secrets.token_hex``): it names the account in sessions and is the
    WebAuthn user handle; never derived from anything the player typed."""
    name: Mapped[str] = mapped_column(Text)
    """The display name, as typed (``app.text.clean_text``'s rules, as seat names)."""
    name_key: Mapped[str] = mapped_column(Text, unique=True)
    """``app.text.folded_name(name)``: one account per look-alike name ("Ann", "ANN" and its
    full-width form are one name)."""
    player_id: Mapped[str] = mapped_column(String(32), unique=True)
    """The account's player (``players.id`` once it has a finished game; no foreign key, since
    a new account has none yet): the public id of the guest that made the account. Every game
    of its other guests is recorded under it."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, server_default=func.now())

    passkeys: Mapped[list[Passkey]] = relationship(
        back_populates="account", order_by="Passkey.created_at", cascade="all, delete-orphan"
    )


class AccountGuest(Base):
    """A guest that plays for an account, by its public id: the guest that made the account,
    and each one a device signed in (or was linked) under. A guest plays for one account, once:
    its history joined the account's when it came, and what it plays later is recorded under
    the account's player."""

    __tablename__ = "account_guests"

    player_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    """The guest's public id (``app.db.repository.public_player_id``)."""
    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Passkey(Base):
    """A WebAuthn credential that signs in to one account."""

    __tablename__ = "passkeys"

    id: Mapped[str] = mapped_column(String(1400), primary_key=True)
    """The credential id, base64url without padding (at most 1023 bytes, WebAuthn says)."""
    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    public_key: Mapped[bytes] = mapped_column(LargeBinary)
    """The credential's COSE public key, as the authenticator gave it at registration."""
    sign_count: Mapped[int] = mapped_column(BigInteger)
    """The authenticator's signature counter (32 bits, unsigned), seen at its last use; 0 for
    authenticators that keep none."""
    transports: Mapped[list[str]] = mapped_column(Json)
    """How the browser may reach the authenticator (``internal``, ``hybrid``, ``usb``, …)."""
    label: Mapped[str] = mapped_column(Text)
    """What the owner calls it in their list of passkeys."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, server_default=func.now())
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    account: Mapped[Account] = relationship(back_populates="passkeys")


class Friendship(Base):
    """A friend request, then a friendship, between two accounts: one row per pair (the lower
    account id first), whichever of them asked, so a pair can never hold two."""

    __tablename__ = "friendships"

    low_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    high_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    requested_by: Mapped[str] = mapped_column(String(32))
    """The account that asked (one of the two)."""
    accepted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    """None while the request waits for an answer."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Block(Base):
    """An account blocked by another: it cannot see the blocker's presence, ask them to be
    friends, or invite them to a table."""

    __tablename__ = "blocks"

    blocker_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    blocked_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class FriendLink(Base):
    """The code of an account's friend link (``/friend/<code>``): whoever has it may find the
    account and ask it to be friends."""

    __tablename__ = "friend_links"

    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    code: Mapped[str] = mapped_column(String(32), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class Invitation(Base):
    """An invitation from one account to a friend, to the table it sits at while it waits."""

    __tablename__ = "invitations"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    host_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"), index=True)
    guest_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"), index=True)
    room_code: Mapped[str | None] = mapped_column(String(16))
    """The table's code while the invitation waits; cleared once it is answered or expired (a
    private room's code is what lets someone in, and is not kept longer than needed)."""
    status: Mapped[str] = mapped_column(String(16))
    """``pending``, ``accepted``, ``declined`` or ``expired``."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    answered_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class TurnGame(Base):
    """A turn-based game in play, as its room was last committed (``app/turns``): the copy
    that outlives Redis. A parked game lives only here until a move, a connection or its
    deadline brings it back. Times are seconds since the epoch, as the rooms keep them."""

    __tablename__ = "turn_games"

    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    version: Mapped[int] = mapped_column(Integer)
    """The room's version this row holds: a write of an older one changes nothing."""
    room: Mapped[bytes] = mapped_column(LargeBinary)
    """The room's text (``room_text``), zlib-compressed."""
    status: Mapped[str] = mapped_column(String(16))
    """``playing``, or ``finished`` while its last game waits to be recorded."""
    wake_at: Mapped[float | None] = mapped_column(Float, index=True)
    """When the room must be looked at (its deadline, its AI's move, its record): the pollers
    read the rows due in this index's order."""
    idle_since: Mapped[float | None] = mapped_column(Float, index=True)
    """Since when nobody has been connected to it; None while someone is, and once parked
    (the parkers read the idle rows in this index's order)."""
    parked: Mapped[bool] = mapped_column(Boolean, default=False)
    """Removed from Redis: this row is the only copy."""
    parked_at: Mapped[float | None] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)
    chat: Mapped[bytes | None] = mapped_column(LargeBinary)
    """The room's chat lines as it was last parked (the store keeps them while it is there):
    a JSON list of the lines as the store keeps them, oldest first, zlib-compressed; None
    for none."""


class TurnPlayer(Base):
    """Who sits in a turn-based game in play (``TurnGame``), by public player id: how many
    such games a player sits in is one indexed count."""

    __tablename__ = "turn_players"

    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    seat: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    player_id: Mapped[str] = mapped_column(String(32), index=True)
