"""What the push sender loads says nothing on the server's log."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[3]
_IMPORT_SOCKS = "try:\n    import urllib3.contrib.socks\nexcept ImportError:\n    pass\n"
"""What ``requests`` (under ``pywebpush``) does as it loads: without PySocks, urllib3 warns."""


def _stderr(before: str) -> str:
    done = subprocess.run(
        [sys.executable, "-W", "default", "-c", before + _IMPORT_SOCKS],
        cwd=_ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stderr


def test_urllib3s_warning_that_socks_needs_pysocks_is_kept_out_of_the_log() -> None:
    """``requests`` silences it itself, but a filter set in the thread that loads it can be
    lost (``quiet_socks_warning``): the sender's own filter holds without it."""
    assert "SOCKS support" in _stderr("")  # where nothing silences it, it is written
    quiet = "from app.push.sender import quiet_socks_warning\nquiet_socks_warning()\n"
    assert _stderr(quiet) == ""
