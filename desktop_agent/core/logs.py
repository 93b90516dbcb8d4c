"""Logging to the user log dir (``paths.log_file()``), shared by the window and the terminal chat.

Nothing is logged to the terminal: the terminal chat prints its own one-line messages, and a log
record must never end up on stderr twice. API keys are never logged (they are masked by the key pool), and
every line written is stripped of the credentials a URL may carry (``user:password@``, ``?api_key=…``,
``?token=…``) and of values shaped like a token (``sk-…``, ``ghp_…``): HTTP clients log each request's URL,
and an MCP server's URL may hold its key.
"""

from __future__ import annotations

import logging
import logging.handlers
import re
import sys

from desktop_agent.core import paths

_HANDLER_NAME = "desktop-agent-file"

#: a URL's ``user:password@``
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/\s@:]+:[^/\s@]+@")
#: a query parameter named like a credential
_SECRET_PARAM = re.compile(r"(?P<name>[?&;][^=&\s]*(?:key|token|secret|password|passwd|auth|sig|signature|session|"
                           r"credential|code)[^=&\s]*=)[^&\s\"'#]+", re.IGNORECASE)
#: values shaped like well-known tokens, wherever they are
_TOKEN = re.compile(r"\b(?:sk-[A-Za-z0-9_-]{16,}|sk_(?:live|test)_[A-Za-z0-9]{16,}|(?:ghp|gho|ghu|ghs|ghr)_"
                    r"[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]"
                    r"{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|hf_[A-Za-z0-9]{30,})")
REDACTED = "***"


def redact(text: str) -> str:
    """``text`` without the credentials in its URLs and without token-shaped values (see the module docstring)."""
    text = _USERINFO.sub(lambda m: m.group("scheme") + REDACTED + "@", text)
    text = _SECRET_PARAM.sub(lambda m: m.group("name") + REDACTED, text)
    return _TOKEN.sub(REDACTED, text)


class _RedactingFormatter(logging.Formatter):
    """The file's formatter: every formatted line (message and traceback) goes through :func:`redact`."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


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
    handler.setFormatter(_RedactingFormatter("%(asctime)s %(levelname)s %(name)s [%(threadName)s] %(message)s"))
    root.addHandler(handler)
    if root.level == logging.NOTSET or root.level > level:
        root.setLevel(level)
    return str(path) if path else "(stderr)"
