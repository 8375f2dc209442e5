"""Logging as ``key=value`` lines that carry the room and seat, and never a seat token."""

from __future__ import annotations

import logging
import re
import time

_TOKEN = re.compile(r"(token=)[^&\s\"']+")
_CONTEXT = ("room", "seat")
"""Fields a log call may pass in ``extra`` to say which room and seat it is about."""


class RedactTokens(logging.Filter):
    """Replaces ``token=<value>`` in a record's message with ``token=***``."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = _TOKEN.sub(r"\1***", message)
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
        fields["msg"] = _TOKEN.sub(r"\1***", record.getMessage())
        line = " ".join(f"{key}={_value(value)}" for key, value in fields.items())
        if record.exc_info:
            line += " error=" + _value(self.formatException(record.exc_info))
        return line


def configure_logging(level: int = logging.INFO) -> None:
    """Send every logger, uvicorn's too, through one handler writing key=value lines."""
    handler = logging.StreamHandler()
    handler.setFormatter(KeyValueFormatter())
    handler.addFilter(RedactTokens())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
