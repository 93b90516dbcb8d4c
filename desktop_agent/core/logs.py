"""Logging to the user log dir (``paths.log_file()``), shared by the window and the terminal chat.

Nothing is logged to the terminal: the terminal chat prints its own one-line messages, and a log
record must never end up on stderr twice. API keys are never logged (they are masked by the key pool).
"""

from __future__ import annotations

import logging
import logging.handlers
import sys

from desktop_agent.core import paths

_HANDLER_NAME = "desktop-agent-file"


def setup_logging(level: int = logging.INFO) -> str:
    """Log to ``paths.log_file()`` (rotating: 1 MB × 3). Idempotent; returns the file path.
    Falls back to stderr only when the log folder cannot be written."""
    root = logging.getLogger()
    try:
        path = paths.log_file()
    except OSError:
        path = None
    for h in root.handlers:
        if h.get_name() == _HANDLER_NAME:
            if path is not None and getattr(h, "baseFilename", None) == str(path):
                return str(path)
            root.removeHandler(h)
            h.close()
    try:
        if path is None:
            raise OSError("no log folder")
        handler: logging.Handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=1_000_000, backupCount=3, encoding="utf-8"
        )
    except OSError:
        handler = logging.StreamHandler(sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(threadName)s] %(message)s"))
    root.addHandler(handler)
    if root.level == logging.NOTSET or root.level > level:
        root.setLevel(level)
    return str(path) if path else "(stderr)"
