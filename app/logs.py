"""Logging as ``key=value`` lines that carry the room and seat, and never a secret.

Seat tokens and guest ids (``player_id``) are secrets: whoever holds one plays a seat or reads
a guest's history. Neither belongs in a URL any more (the WebSocket takes its token in a
``hello`` message), but an old or hostile client may still put one there, and a request line
is logged as it came. So every line is redacted the same way before it is written: every
query string's values, the id in a ``/players/<id>`` path, and anything shaped like a uuid.
"""

from __future__ import annotations

import logging
import re
import time

_QUERY_VALUE = re.compile(r"([?&][^=&#\s\"']*=)[^&#\s\"']*")
"""A query parameter's value, whatever its name's spelling (``token=``, ``%74oken=``, ...)."""
_PLAYER_PATH = re.compile(r"(/players/)[^/?#\s\"']+", re.IGNORECASE)
"""The id in ``/api/players/<id>/games``: a public id, or the guest id a browser keeps."""
_UUID = re.compile(r"\b[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\b", re.I)
"""Any uuid: a guest id may reach a line in other ways than a path (a database error quotes
its query's parameters), and game ids, also uuids, are found by room in the logs anyway."""
_CONTEXT = ("room", "seat")
"""Fields a log call may pass in ``extra`` to say which room and seat it is about."""


def redact(text: str) -> str:
    """``text`` with every query value, player id in a path and uuid replaced by ``***``."""
    text = _PLAYER_PATH.sub(r"\1***", _QUERY_VALUE.sub(r"\1***", text))
    return _UUID.sub("***", text)


class RedactTokens(logging.Filter):
    """Redacts a record's message (see :func:`redact`) before any handler writes it."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact(message)
        if redacted != message:
            record.msg = redacted
            record.args = ()
        return True


def redact_server_logs() -> None:
    """Install the filter on the loggers that print request lines."""
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        if not any(isinstance(existing, RedactTokens) for existing in logger.filters):
            logger.addFilter(RedactTokens())


def _value(value: object) -> str:
    text = str(value)
    if text and not any(c in text for c in ' "=\n\\'):
        return text
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


class KeyValueFormatter(logging.Formatter):
    """``time=… level=… logger=… room=… seat=… msg="…"``: one line a log search can filter."""

    def format(self, record: logging.LogRecord) -> str:
        at = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        fields = {
            "time": f"{at}.{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        for name in _CONTEXT:
            value = getattr(record, name, None)
            if value is not None:
                fields[name] = str(value)
        fields["msg"] = redact(record.getMessage())
        line = " ".join(f"{key}={_value(value)}" for key, value in fields.items())
        if record.exc_info:
            line += " error=" + _value(redact(self.formatException(record.exc_info)))
        return line


def configure_logging(level: int = logging.INFO) -> None:
    """Send every logger, uvicorn's too, through one handler writing key=value lines."""
    handler = logging.StreamHandler()
    handler.setFormatter(KeyValueFormatter())
    handler.addFilter(RedactTokens())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
