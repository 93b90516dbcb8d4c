"""Server-sent events read from a chat stream's bytes, including the error lines some servers send.

The OpenAI backend reads the event stream here rather than through the ``openai`` client's decoder,
which drops what real servers use to say a streamed request failed: llama.cpp's server writes an
``error: {...}`` line (a field name the SSE format does not define) and then ends the stream, and some
gateways send ``event: error`` with a payload that has no ``error`` key. Here such a line becomes an
event named ``error``, so the backend can report the server's reason instead of an empty answer.

Lines end with LF, CRLF or CR (also split across chunks); ``:`` comments and ``id`` / ``retry`` fields are
ignored; several ``data`` lines of one event are joined with newlines (the SSE format's rule).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

__all__ = ["SseEvent", "sse_events"]


@dataclass(frozen=True)
class SseEvent:
    """One event: ``data`` (the joined data lines) and ``event`` (its name; None for plain data)."""

    data: str
    event: str | None = None


_LINE_END = re.compile(rb"\r\n|\r|\n")


def _lines(chunks: Iterable[bytes]) -> Iterator[str]:
    """The lines of a byte stream, decoded as UTF-8 (a decoding error is a ``ValueError``). Each chunk is
    scanned once, so a long line arriving in small pieces costs time in proportion to its length."""
    pending = bytearray()
    skip_lf = False
    for chunk in chunks:
        if not chunk:
            continue
        if skip_lf and chunk[:1] == b"\n":
            chunk = chunk[1:]
        skip_lf = False
        start = 0
        for end in _LINE_END.finditer(chunk):
            pending += chunk[start:end.start()]
            yield pending.decode("utf-8")
            pending.clear()
            start = end.end()
            if end.group() == b"\r" and start == len(chunk):
                skip_lf = True  # a CRLF split across two chunks
        pending += chunk[start:]
    if pending:
        yield pending.decode("utf-8")


def sse_events(chunks: Iterable[bytes]) -> Iterator[SseEvent]:
    """The events of an SSE byte stream. An ``error:`` line is an event named ``error`` whose data is
    the rest of the line; it is dispatched at once (servers end the stream right after it)."""
    data: list[str] = []
    event: str | None = None
    for line in _lines(chunks):
        if not line:
            if data or event:
                yield SseEvent("\n".join(data), event)
            data, event = [], None
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value or None
        elif name == "error":
            if data or event:
                yield SseEvent("\n".join(data), event)
                data, event = [], None
            yield SseEvent(value, "error")
    if data or event:
        yield SseEvent("\n".join(data), event)
