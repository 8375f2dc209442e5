"""A JSON answer encoded once and sent many times: plain and gzipped, with strong validators.

For an answer that never changes once made (a finished game's replay): the bytes are kept, not
the objects they came from, so that sending one again costs no encoding; gzip takes a replay to
a fortieth of its size; and a client that has it already (``If-None-Match``) is answered
``304`` with no body.
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass

from starlette.datastructures import Headers

GZIP_LEVEL = 6
"""zlib's default: levels above it take twice the time for a percent or two less."""


@dataclass(frozen=True, slots=True)
class Encoded:
    plain: bytes
    """The JSON itself."""
    gzipped: bytes
    """The same, gzipped (no file name, no time: the same JSON always gzips the same)."""
    etag: str
    """The plain bytes' strong validator, quoted: a digest of the content."""

    @classmethod
    def of(cls, plain: bytes) -> Encoded:
        digest = hashlib.sha256(plain).hexdigest()[:32]
        return cls(
            plain=plain,
            gzipped=gzip.compress(plain, compresslevel=GZIP_LEVEL, mtime=0),
            etag=f'"{digest}"',
        )

    @property
    def gzip_etag(self) -> str:
        """The gzipped bytes' validator: another representation, another strong tag."""
        return self.etag[:-1] + '-gzip"'

    def body_for(self, headers: Headers) -> tuple[bytes, str, bool]:
        """The bytes to send a request with these headers, their validator, and whether they
        are gzipped."""
        if accepts_gzip(headers.get("accept-encoding")):
            return self.gzipped, self.gzip_etag, True
        return self.plain, self.etag, False

    def matched(self, headers: Headers) -> str | None:
        """The validator of ours that ``If-None-Match`` names (either representation: both
        are this content), or None."""
        tags = _tags(headers.get("if-none-match"))
        if "*" in tags:
            return self.etag
        for tag in tags:
            if tag in (self.etag, self.gzip_etag):
                return tag
        return None


def accepts_gzip(accept_encoding: str | None) -> bool:
    """Whether an ``Accept-Encoding`` admits gzip: named (or ``*``) with a quality above 0."""
    if not accept_encoding:
        return False
    qualities: dict[str, float] = {}
    for item in accept_encoding.split(","):
        name, _, parameters = item.partition(";")
        quality = 1.0
        for parameter in parameters.split(";"):
            key, _, value = parameter.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        qualities[name.strip().lower()] = quality
    for name in ("gzip", "x-gzip", "*"):
        if name in qualities:
            return qualities[name] > 0
    return False


def _tags(if_none_match: str | None) -> list[str]:
    """The entity tags of an ``If-None-Match``, weak ones compared as strong (RFC 9110 asks
    a weak comparison here)."""
    if not if_none_match:
        return []
    tags = []
    for item in if_none_match.split(","):
        tag = item.strip()
        if tag.startswith("W/"):
            tag = tag[2:]
        if tag:
            tags.append(tag)
    return tags
