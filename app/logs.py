"""Logging that never records a seat token (the WebSocket URL carries one)."""

from __future__ import annotations

import logging
import re

_TOKEN = re.compile(r"(token=)[^&\s\"']+")


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
