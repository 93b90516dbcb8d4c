"""Output to the terminal, a pipe or a file that may refuse it: :class:`Output` never raises; :func:`write_line`;
:func:`write_failed` reports, once, that stdout could not be written."""

from __future__ import annotations

import errno
import logging
import os
from typing import TextIO

from desktop_agent.cli.errors import EXIT_FAILED


class Output:
    """A text stream that never raises on the way out.

    - characters the stream's encoding lacks are written as replacements (``?``), not a
      ``UnicodeEncodeError`` (a ``PYTHONIOENCODING=ascii`` pipe, a Latin-1 terminal);
    - when the reader went away (``… | head``: ``BrokenPipeError``) further writes are dropped and
      :attr:`closed` turns True, so the caller can stop the turn instead of dying with a traceback;
    - any other write error (``> /dev/full``: ENOSPC, EIO) does the same and is kept in
      :attr:`error`, for the caller to report in one line.
    """

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.closed = False
        self.error: OSError | None = None

    def isatty(self) -> bool:
        try:
            return bool(self.stream.isatty())
        except (ValueError, OSError, AttributeError):
            return False

    def write(self, text: str) -> None:
        if self.closed or not text:
            return
        try:
            try:
                self.stream.write(text)
            except UnicodeEncodeError:
                enc = getattr(self.stream, "encoding", None) or "ascii"
                self.stream.write(text.encode(enc, "replace").decode(enc, "replace"))
            self.stream.flush()
        except (BrokenPipeError, ConnectionResetError):
            self._gone()
        except OSError as exc:
            if exc.errno not in (errno.EPIPE, errno.EINVAL):
                self.error = exc
            self._gone()
        except ValueError:  # the stream was closed under us
            self._gone()

    def flush(self) -> None:
        self.write("")

    def _gone(self) -> None:
        self.closed = True
        try:  # Python flushes stdout again at exit: point it at /dev/null so that cannot fail either
            fd = self.stream.fileno()
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, fd)
            os.close(devnull)
        except (AttributeError, ValueError, OSError):
            pass
        try:  # drop what the failed write left in the buffer
            buffer = getattr(self.stream, "buffer", None)
            if buffer is not None:
                buffer.flush()
        except (ValueError, OSError):
            pass


def visible(text: str) -> str:
    """``text`` with its control characters shown as escapes (``\x1b``): text printed on a terminal (a tool's
    arguments or result, a saved message) must not move the cursor, clear lines or retitle the window — the user
    sees what is really there."""
    return "".join(ch if ch == "\n" or ch == "\t" or (ch.isprintable() and ord(ch) != 0x7F)
                   else ch.encode("unicode_escape").decode("ascii") for ch in text)


def as_output(stream: TextIO | Output) -> Output:
    """``stream`` as an :class:`Output` (itself when it is one)."""
    return stream if isinstance(stream, Output) else Output(stream)


def write_line(stream: Output, text: str) -> None:
    """Write ``text`` and a newline."""
    stream.write(text + "\n")


def write_failed(out: Output, err: Output) -> int:
    """Report that stdout could not be written (once) and return exit code 1."""
    problem = out.error
    reason = (problem.strerror or str(problem)) if problem is not None else "unknown error"
    write_line(err, f"desktop-agent: can't write the answer to stdout: {reason}")
    return EXIT_FAILED


#: loggers whose records never reach the terminal: ours (the terminal says each problem itself, once) and the
#: libraries under the MCP client (the SDK logs a traceback for every line a broken server prints on stdout)
QUIET_LOGGERS = ("desktop_agent", "mcp", "mcp_types", "httpx", "httpx2", "httpcore", "anyio")


def quiet_library_logs() -> None:
    """The terminal chat prints every problem itself, once: keep Python's last-resort handler from
    printing the core's and the MCP libraries' log records on stderr (records still reach handlers set up by
    others)."""
    for name in QUIET_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())
